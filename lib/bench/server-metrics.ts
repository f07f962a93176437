/**
 * The server's own view of a load level, from its Prometheus `/metrics` (docs/metrics.md#server-metrics):
 * gauges (running and waiting requests, KV-cache usage) are averaged over the scrapes taken while the level
 * ran, and their largest value kept; counters (preemptions, prefix-cache tokens, speculative tokens) and
 * histograms (the engine's TTFT, TPOT, ITL) are differenced between a scrape just before the level and one
 * just after it. vLLM's and SGLang's names are read, the current ones first and the older ones after. A
 * figure whose metric the server does not expose stays absent, never 0.
 *
 * Memory is bounded: a level keeps a few running sums per figure, never the scrapes themselves.
 */
import type { ResultPoint, ServerMetricField } from "@/lib/document/schema";
import { createPool, getText, type HttpPool } from "./client";
import { type LevelSampleCounts, type LevelSampler, type SampleAnswer, startLevelSampler } from "./level-sampler";
import { type MetricsReading, readExposition } from "./prometheus";

/** Gauges of requests: summed over series (each engine or data-parallel rank has its own). */
const RUNNING = ["vllm:num_requests_running", "sglang:num_running_reqs"];
const WAITING = ["vllm:num_requests_waiting", "sglang:num_queue_reqs"];
/** KV-cache usage, 0–1: averaged over series. vLLM renamed gpu_cache_usage_perc to kv_cache_usage_perc in 0.9. */
const KV_CACHE = ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"];
/** SGLang "retracts" a running request when memory runs out: its preemption. */
const PREEMPTIONS = ["vllm:num_preemptions_total", "sglang:num_retracted_requests_total"];
/** Prefix cache, in tokens: hits over queries (vLLM), cached over prompt tokens (SGLang). */
const PREFIX_COUNTERS: ReadonlyArray<{ hits: string; queries: string }> = [
  { hits: "vllm:prefix_cache_hits_total", queries: "vllm:prefix_cache_queries_total" },
  { hits: "vllm:gpu_prefix_cache_hits_total", queries: "vllm:gpu_prefix_cache_queries_total" },
  { hits: "sglang:cached_tokens_total", queries: "sglang:prompt_tokens_total" },
];
/** Hit-rate gauges of engines without the counters (vLLM V0, SGLang before cached_tokens_total). */
const PREFIX_GAUGES = ["vllm:gpu_prefix_cache_hit_rate", "sglang:cache_hit_rate"];
const SPEC_DRAFTS = "vllm:spec_decode_num_drafts_total";
const SPEC_DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total";
const SPEC_ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total";
/** SGLang's speculative gauges read 0 when speculative decoding is off: only samples above 0 count. */
const SGLANG_SPEC_RATE = "sglang:spec_accept_rate";
const SGLANG_SPEC_LENGTH = "sglang:spec_accept_length";
const TTFT = ["vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"];
/** Per request, the first token excluded: vLLM's definition of TPOT. */
const TPOT = ["vllm:request_time_per_output_token_seconds"];
/** Per token. vLLM's time_per_output_token_seconds and SGLang's of the same name observed every token gap; both were renamed. */
const ITL = [
  "vllm:inter_token_latency_seconds",
  "vllm:time_per_output_token_seconds",
  "sglang:inter_token_latency_seconds",
  "sglang:time_per_output_token_seconds",
];

const histogramParts = (names: readonly string[]) => names.flatMap((name) => [`${name}_sum`, `${name}_count`]);

/** Every name a scrape keeps; everything else in the exposition is skipped while reading. */
export const SERVER_METRIC_NAMES: ReadonlySet<string> = new Set([
  ...RUNNING,
  ...WAITING,
  ...KV_CACHE,
  ...PREEMPTIONS,
  ...PREFIX_COUNTERS.flatMap((pair) => [pair.hits, pair.queries]),
  ...PREFIX_GAUGES,
  SPEC_DRAFTS,
  SPEC_DRAFT_TOKENS,
  SPEC_ACCEPTED,
  SGLANG_SPEC_RATE,
  SGLANG_SPEC_LENGTH,
  ...histogramParts(TTFT),
  ...histogramParts(TPOT),
  ...histogramParts(ITL),
]);

interface GaugeFold {
  source: string;
  total: number;
  samples: number;
  max: number;
}

type GaugeKey = "running" | "waiting" | "kv" | "prefixGauge" | "specRate" | "specLength";

const GAUGES: Record<GaugeKey, { names: readonly string[]; mode: "sum" | "mean"; positiveOnly?: boolean }> = {
  running: { names: RUNNING, mode: "sum" },
  waiting: { names: WAITING, mode: "sum" },
  kv: { names: KV_CACHE, mode: "mean" },
  prefixGauge: { names: PREFIX_GAUGES, mode: "mean" },
  specRate: { names: [SGLANG_SPEC_RATE], mode: "mean", positiveOnly: true },
  specLength: { names: [SGLANG_SPEC_LENGTH], mode: "mean", positiveOnly: true },
};

function firstPresent(reading: MetricsReading, names: readonly string[]): string | undefined {
  return names.find((name) => reading.has(name));
}

export interface LevelServerFigures {
  /** The point's `server_*` figures. */
  figures: Partial<Pick<ResultPoint, ServerMetricField>>;
  /** Field → the metric it came from, for the point's `sources`. */
  sources: Partial<Record<ServerMetricField, string>>;
  /** Why a figure was left out although its metric is exposed (a counter reset: the server restarted). */
  notes: string[];
}

const round = (value: number, digits: number) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

/**
 * One level's server figures, folded scrape by scrape. `baseline` is the scrape just before the level's
 * first request, `sample` every scrape taken while it ran, `final` the scrape after its last request ended.
 */
export class LevelServerMetrics {
  private baselineReading: MetricsReading | null = null;
  private finalReading: MetricsReading | null = null;
  private readonly gauges = new Map<GaugeKey, GaugeFold>();
  samples = 0;

  baseline(reading: MetricsReading): void {
    this.baselineReading = reading;
  }

  sample(reading: MetricsReading): void {
    this.samples += 1;
    for (const [key, spec] of Object.entries(GAUGES) as [GaugeKey, (typeof GAUGES)[GaugeKey]][]) {
      const name = firstPresent(reading, spec.names);
      if (name === undefined) continue;
      const series = reading.get(name)!;
      const value = spec.mode === "sum" ? series.sum : series.sum / series.series;
      if (spec.positiveOnly && !(value > 0)) continue;
      const fold = this.gauges.get(key);
      if (fold) {
        fold.total += value;
        fold.samples += 1;
        fold.max = Math.max(fold.max, value);
      } else {
        this.gauges.set(key, { source: name, total: value, samples: 1, max: value });
      }
    }
  }

  final(reading: MetricsReading): void {
    this.finalReading = reading;
  }

  /** The figures; a figure whose metrics were never seen is absent. */
  result(): LevelServerFigures {
    const figures: LevelServerFigures["figures"] = {};
    const sources: LevelServerFigures["sources"] = {};
    const notes: string[] = [];
    const set = (field: ServerMetricField, value: number, source: string, digits = 4) => {
      figures[field] = round(value, digits);
      sources[field] = source;
    };
    const gauge = (key: GaugeKey) => this.gauges.get(key);

    const running = gauge("running");
    if (running) {
      set("server_running_requests_mean", running.total / running.samples, running.source, 2);
      set("server_running_requests_max", running.max, running.source, 2);
    }
    const waiting = gauge("waiting");
    if (waiting) {
      set("server_waiting_requests_mean", waiting.total / waiting.samples, waiting.source, 2);
      set("server_waiting_requests_max", waiting.max, waiting.source, 2);
    }
    const kv = gauge("kv");
    if (kv) {
      set("server_kv_cache_usage_mean", Math.min(1, kv.total / kv.samples), kv.source);
      set("server_kv_cache_usage_max", Math.min(1, kv.max), kv.source);
    }
    if (this.samples > 0) {
      figures.server_metrics_samples = this.samples;
    }

    const before = this.baselineReading;
    const after = this.finalReading;
    if (before && after) {
      /** The increase of a counter over the level; null when it is not exposed, NaN after a reset. */
      const delta = (name: string): number | null => {
        const first = before.get(name);
        const last = after.get(name);
        if (last === undefined) return null;
        // A counter first seen during the level started from 0 (prometheus_client adds a labelled series on its first increment).
        const increase = last.sum - (first?.sum ?? 0);
        if (increase < 0) {
          notes.push(`${name} went down during the level (the server restarted?): left out`);
          return Number.NaN;
        }
        return increase;
      };
      const firstDelta = (names: readonly string[]) => {
        for (const name of names) {
          const value = delta(name);
          if (value !== null) return { name, value };
        }
        return null;
      };

      const preemptions = firstDelta(PREEMPTIONS);
      if (preemptions && Number.isFinite(preemptions.value))
        set("server_preemptions", Math.round(preemptions.value), preemptions.name, 0);

      let prefixDone = false;
      for (const pair of PREFIX_COUNTERS) {
        const queries = delta(pair.queries);
        const hits = delta(pair.hits);
        if (queries === null || !Number.isFinite(queries)) continue;
        // SGLang adds its cached-tokens counter on the first cache hit: prompt tokens without it are 0 hits only
        // when the counter exists at all; otherwise the gauge below says more.
        if (hits === null) continue;
        prefixDone = true;
        if (queries > 0 && Number.isFinite(hits))
          set("server_prefix_cache_hit_rate", Math.min(1, hits / queries), `${pair.hits} / ${pair.queries}`);
        break;
      }
      if (!prefixDone) {
        const prefix = gauge("prefixGauge");
        if (prefix) set("server_prefix_cache_hit_rate", Math.min(1, prefix.total / prefix.samples), prefix.source);
      }

      const drafts = delta(SPEC_DRAFTS);
      const draftTokens = delta(SPEC_DRAFT_TOKENS);
      const accepted = delta(SPEC_ACCEPTED);
      if (draftTokens !== null && accepted !== null && draftTokens > 0 && Number.isFinite(accepted)) {
        set(
          "server_spec_acceptance_rate",
          Math.min(1, accepted / draftTokens),
          `${SPEC_ACCEPTED} / ${SPEC_DRAFT_TOKENS}`,
        );
        if (drafts !== null && drafts > 0)
          set("server_spec_acceptance_length", 1 + accepted / drafts, `1 + ${SPEC_ACCEPTED} / ${SPEC_DRAFTS}`);
      }

      const histogramMean = (field: ServerMetricField, names: readonly string[]) => {
        for (const name of names) {
          const sum = delta(`${name}_sum`);
          const count = delta(`${name}_count`);
          if (sum === null || count === null) continue;
          if (Number.isFinite(sum) && Number.isFinite(count) && count > 0)
            set(field, (sum / count) * 1000, `${name}_sum / ${name}_count`, 3);
          return;
        }
      };
      histogramMean("server_mean_ttft_ms", TTFT);
      histogramMean("server_mean_tpot_ms", TPOT);
      histogramMean("server_mean_itl_ms", ITL);
    }
    if (figures.server_spec_acceptance_rate === undefined) {
      const rate = gauge("specRate");
      if (rate) set("server_spec_acceptance_rate", Math.min(1, rate.total / rate.samples), rate.source);
    }
    if (figures.server_spec_acceptance_length === undefined) {
      const length = gauge("specLength");
      if (length) set("server_spec_acceptance_length", length.total / length.samples, length.source);
    }
    return { figures, sources, notes };
  }
}

/* ------------------------------------------------------------------------------------------------------ */
/* Scraping                                                                                                 */

/** A /metrics answer is tens to hundreds of kB; one past this is not an engine's and is not read. */
const MAX_EXPOSITION_BYTES = 16_000_000;

export type ScrapeResult = SampleAnswer<MetricsReading>;

/** A level's server figures, and how many of its scrapes (the baseline and final ones included) failed. */
export type LevelWatchResult = LevelServerFigures & LevelSampleCounts;

/** Scrapes `/metrics` on its own connection, so it never takes a socket from the benchmark's requests. */
export class ServerMetricsWatcher {
  private readonly pool: HttpPool;

  constructor(
    readonly url: URL,
    private readonly headers: Record<string, string>,
    readonly intervalMs: number,
    private readonly timeoutMs = Math.max(2_000, intervalMs * 4),
  ) {
    this.pool = createPool(url, 1);
  }

  async scrape(): Promise<ScrapeResult> {
    const answer = await getText(
      this.pool,
      this.url,
      this.headers,
      this.timeoutMs,
      MAX_EXPOSITION_BYTES,
      "text/plain;version=0.0.4, */*;q=0.1",
    );
    if (!answer.ok) return { ok: false, error: answer.error };
    return { ok: true, reading: readExposition(answer.text, SERVER_METRIC_NAMES) };
  }

  /** Take the level's baseline scrape and keep scraping every interval until `stop`. */
  beginLevel(): Promise<LevelSampler<MetricsReading, LevelServerFigures>> {
    return startLevelSampler(() => this.scrape(), new LevelServerMetrics(), this.intervalMs);
  }

  close(): void {
    this.pool.close();
  }
}
