/**
 * kubernetes-sigs/inference-perf report folders. A run is a series of load stages; the report writes
 *
 * - `stage_N_lifecycle_metrics.json`: one stage, measured by the client. `load_summary` states the stage's
 *   `requested_rate` (and `achieved_rate`), plus `concurrency` for stages of the concurrent load type;
 *   `successes.latency.*` are summaries in SECONDS; `successes.throughput.*` are per second; `failures.count`.
 *   One stage is one load point.
 * - `summary_lifecycle_metrics.json`: the same statistics over every request of every stage together. Its
 *   `load_summary` has no requested rate: it is not one load level, so it is recognized and not imported.
 * - `stage_N_prometheus_metrics.json`: what the model server's own Prometheus metrics said over stage N. Its
 *   figures go to the `server_*` fields of stage N's point, paired by the stage number in the two file names
 *   (the file has no load level of its own). `summary_prometheus_metrics.json` spans every stage: recognized,
 *   not imported. See docs/formats/inference-perf.md for each key's definition, which changed between versions.
 *
 * The files do not name the model (it is in the report's config.yaml).
 *
 * Definitions (reportgen/base.py): `time_per_output_token` = (last token time − first token time) /
 * (output tokens − 1), first token excluded; `normalized_time_per_output_token` = request latency / output
 * tokens, first token included. Before v0.5.0 the "token" times were the arrival times of stream lines
 * (≤ v0.2) or SSE events (v0.3–v0.4), not of tokens; those reports' TPOT is not imported.
 */
import type { ResultPoint, ServerMetricField } from "@/lib/document/schema";
import { asRecord, isNaNValue, PointBuilder, toConcurrency, toNumber } from "./common";
import type { NotImported } from "./types";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  type RunContext,
  type SourceFile,
  type Supplement,
} from "./types";

const LIFECYCLE_FILE = /^(.*\/)?stage_(\d+)_lifecycle_metrics\.json$/i;
const PROMETHEUS_FILE = /^(.*\/)?stage_(\d+)_prometheus_metrics\.json$/i;

/** `reports/stage_3_lifecycle_metrics.json` → `reports/stage_3`: what pairs a stage's two files. */
function stageKey(name: string, kind: "lifecycle" | "prometheus"): string | undefined {
  const match = (kind === "lifecycle" ? LIFECYCLE_FILE : PROMETHEUS_FILE).exec(name.replace(/\\/g, "/"));
  if (!match) return undefined;
  return `${match[1] ?? ""}stage_${Number(match[2])}`;
}

type Stat = "mean" | "median";

/**
 * servebench statistic ← inference-perf summary key. It writes no standard deviation; the percentiles (`p0.1` … `p99.9`,
 * the configured ones, the 50th written as `median`) are read by name.
 */
const STATS: ReadonlyArray<[Stat, string]> = [
  ["mean", "mean"],
  ["median", "median"],
];

/** A percentile's key in a summary: `p0.1`, `p25`, `p99.9`. */
const PERCENTILE_STAT = /^p(\d+(?:\.\d+)?)$/;

/** inference-perf's client-side ITL: not servebench's (see docs/formats/inference-perf.md). */
const CLIENT_ITL_REASON =
  "inference-perf's inter-token latency is every gap between token times, pooled (the tokens of one chunk share its arrival, so zeros inside chunks; before v0.5 the gaps between stream lines or events), not servebench's ITL, the gaps between streamed chunks";
const EARLY_TPOT_REASON =
  "the report predates inference-perf v0.5.0, which timed stream lines or events instead of tokens, so this is not a time per output token";

/** Client-side latency summaries (seconds) → servebench metrics. */
const LATENCIES = [
  ["time_to_first_token", "ttft"],
  ["request_latency", "e2el"],
  ["normalized_time_per_output_token", "e2el_per_token"],
] as const;

const THROUGHPUTS = [
  ["requests_per_sec", "request_throughput"],
  ["output_tokens_per_sec", "output_throughput"],
  ["total_tokens_per_sec", "total_token_throughput"],
] as const;

/** Keys the Prometheus report writes directly under `successes` (the lifecycle report nests under `latency`). */
const PROMETHEUS_KEYS = [
  "queue_len",
  "kv_cache_usage_percentage",
  "num_requests_swapped",
  "num_preemptions_total",
  "prefix_cache_hit_percent",
];

const describeValue = (value: unknown): string =>
  Array.isArray(value) ? "a list" : typeof value === "object" && value !== null ? "an object" : JSON.stringify(value);

function figure(record: Record<string, unknown>, key: string, path: string): unknown {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (typeof value === "string" && (toNumber(value) !== null || isNaNValue(value))) return value;
  throw new FormatError(`${path}.${key}`, `${path}.${key} should be a number, but it is ${describeValue(value)}.`);
}

/** An object member that must be an object when present (null: the tool's "no requests to summarize"). */
function section(record: Record<string, unknown>, key: string, path: string): Record<string, unknown> | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  const found = asRecord(value);
  if (!found)
    throw new FormatError(`${path}.${key}`, `${path}.${key} should be an object, but it is ${describeValue(value)}.`);
  return found;
}

function reportParts(
  data: unknown,
):
  | { load: Record<string, unknown>; successes: Record<string, unknown>; failures: Record<string, unknown> }
  | undefined {
  const record = asRecord(data);
  if (!record) return undefined;
  const load = asRecord(record.load_summary);
  const successes = asRecord(record.successes);
  const failures = asRecord(record.failures);
  if (!load || !successes || !failures) return undefined;
  return { load, successes, failures };
}

function isLifecycle(data: unknown): boolean {
  const parts = reportParts(data);
  if (!parts) return false;
  const latency = asRecord(parts.successes.latency);
  return (
    "count" in parts.successes &&
    ("count" in parts.load || "schedule_delay" in parts.load) &&
    (latency !== undefined || asRecord(parts.successes.throughput) !== undefined) &&
    (latency === undefined ||
      ["request_latency", "time_to_first_token", "normalized_time_per_output_token"].some((key) => key in latency))
  );
}

function isPrometheus(data: unknown): boolean {
  const parts = reportParts(data);
  if (!parts || "latency" in parts.successes) return false;
  return (
    PROMETHEUS_KEYS.some((key) => key in parts.successes) ||
    ("rate" in parts.successes && "time_per_output_token" in parts.successes)
  );
}

/* ------------------------------------------------------------------------------------------------------ */
/* Lifecycle reports                                                                                        */

function parseLifecycle(file: SourceFile): Fragment[] {
  const record = asRecord(file.data);
  const parts = reportParts(file.data);
  if (!record || !parts)
    throw new FormatError(
      "",
      "An inference-perf lifecycle report should have load_summary, successes and failures objects.",
    );
  const { load, successes, failures } = parts;

  const concurrency = figure(load, "concurrency", "load_summary");
  const rate = figure(load, "requested_rate", "load_summary");
  // No requested rate: the summary over all stages (or another aggregate), not one load level.
  if (concurrency === undefined && rate === undefined) return [];

  const builder = new PointBuilder(file.name);
  if (concurrency !== undefined) {
    if (toConcurrency(concurrency) === null) {
      throw new FormatError(
        "load_summary.concurrency",
        `load_summary.concurrency should be a positive whole number, but it is ${JSON.stringify(concurrency)}.`,
      );
    }
    // A concurrent stage's requested_rate is its request count (set so the load generator never throttles): not a rate.
    builder.concurrency(concurrency, "load_summary.concurrency");
  } else {
    builder.requestRate(rate, "load_summary.requested_rate");
    if (!builder.has("request_rate")) {
      throw new FormatError(
        "load_summary.requested_rate",
        `load_summary.requested_rate should be a positive rate, but it is ${JSON.stringify(rate)}.`,
      );
    }
  }

  builder.set("completed", figure(successes, "count", "successes"), "successes.count");
  builder.set("failed", figure(failures, "count", "failures"), "failures.count");
  builder.set("duration_s", figure(record, "benchmark_time_seconds", ""), "benchmark_time_seconds", "s");

  const throughput = section(successes, "throughput", "successes");
  if (throughput) {
    for (const [key, field] of THROUGHPUTS)
      builder.set(field, figure(throughput, key, "successes.throughput"), `successes.throughput.${key}`);
  }
  // Token totals: v0.5+ reports sum the tokens (the server's usage counts when it sent them).
  for (const [key, field] of [
    ["prompt_tokens", "total_input_tokens"],
    ["output_tokens", "total_output_tokens"],
  ] as const) {
    const tokens = section(successes, key, "successes");
    if (tokens) builder.set(field, figure(tokens, "total", `successes.${key}`), `successes.${key}.total`);
  }

  // v0.5.0 derived TPOT from token times and added token_count_mismatches in the same change.
  const tokenTimed = "token_count_mismatches" in successes;
  const latency = section(successes, "latency", "successes");
  const warnings: string[] = [];
  /** Every number of a latency summary the point does not take, with one reason. */
  const refuse = (key: string, reason: string) => {
    for (const [name, value] of Object.entries(section(latency ?? {}, key, "successes.latency") ?? {})) {
      const number = toNumber(value);
      if (number !== null) builder.refused.push({ source: `successes.latency.${key}.${name}`, value: number, reason });
    }
  };
  if (latency) {
    const metrics: Array<readonly [string, "ttft" | "e2el" | "e2el_per_token" | "tpot"]> = [...LATENCIES];
    if (tokenTimed) metrics.push(["time_per_output_token", "tpot"]);
    else if (section(latency, "time_per_output_token", "successes.latency")) {
      warnings.push(
        "successes.latency.time_per_output_token not imported: the report predates inference-perf v0.5.0, " +
          "which timed stream lines or events instead of tokens, so it is not a time per output token.",
      );
      refuse("time_per_output_token", EARLY_TPOT_REASON);
    }
    refuse("inter_token_latency", CLIENT_ITL_REASON);
    for (const [key, metric] of metrics) {
      const stats = section(latency, key, "successes.latency");
      if (!stats) continue;
      const path = `successes.latency.${key}`;
      const entries: Partial<Record<Stat, { value: unknown; source: string }>> = {};
      for (const [stat, name] of STATS) {
        const value = figure(stats, name, path);
        if (value !== undefined) entries[stat] = { value, source: `${path}.${name}` };
      }
      builder.setStats(metric, entries, "s");
      // p50 is written as `median`; p90, p95, p99 have their fields; p0.1 … p75, p99.9 go to `percentiles`.
      for (const name of Object.keys(stats)) {
        const match = PERCENTILE_STAT.exec(name);
        if (match) builder.percentile(metric, Number(match[1]), figure(stats, name, path), `${path}.${name}`, "s");
      }
    }
  }

  const point: ResultPoint = builder.build();
  const context: RunContext = {};
  const metadata: Record<string, string | number | boolean> = {};
  const achieved = toNumber(load.achieved_rate);
  if (achieved !== null) metadata.achieved_rate = achieved;
  metadata.report_layout = tokenTimed ? "v0.5+ (token-timed)" : "before v0.5 (stream-timed)";
  context.metadata = metadata;
  const fragment: Fragment = {
    format: "inference-perf",
    file: file.name,
    part: "",
    context,
    points: [point],
    warnings: [...warnings, ...builder.warnings],
    notImported: builder.notImported(file.name),
  };
  const pairKey = stageKey(file.name, "lifecycle");
  if (pairKey !== undefined) fragment.pairKey = pairKey;
  return [fragment];
}

export const inferencePerfLifecycleParser: FormatParser = {
  id: "inference-perf",
  label: "inference-perf stage_N_lifecycle_metrics.json / summary_lifecycle_metrics.json",
  signature:
    "`load_summary` (`count`, `schedule_delay`, and per stage `requested_rate`), `successes` with `count` and `latency`/`throughput`, and `failures`",
  detect(file: SourceFile): boolean {
    try {
      return file.kind !== "csv" && isLifecycle(file.data);
    } catch {
      return false;
    }
  },
  parse: parseLifecycle,
};

/* ------------------------------------------------------------------------------------------------------ */
/* Prometheus reports                                                                                       */

/** A summary's statistic as a number; undefined when absent, not a number, or negative. */
function stat(successes: Record<string, unknown>, key: string, name: string): number | undefined {
  const value = asRecord(successes[key])?.[name];
  const number = toNumber(value);
  return number !== null && number >= 0 ? number : undefined;
}

/** Every statistic of a summary is 0: inference-perf's way of writing "the query found nothing". */
function allZero(successes: Record<string, unknown>, key: string): boolean {
  const summary = asRecord(successes[key]);
  if (!summary) return false;
  const values = Object.values(summary).map(toNumber);
  return values.length > 0 && values.every((value) => value === 0);
}

/**
 * A stage's Prometheus report → the server figures of that stage's point. inference-perf writes 0 for any
 * query that found nothing (`execute_query` returns 0.0 then), so a 0 is kept only where a zero is what a
 * working server reports at light load (requests waiting, preemptions of the 2026 layout); elsewhere a 0 is
 * "not read" and left out with a warning. Keys whose definition changed are read by layout: reports with
 * `inter_token_latency` (inference-perf's vLLM 0.15 metrics, February 2026 on) against the earlier ones.
 */
function parsePrometheus(file: SourceFile): Fragment[] {
  const parts = reportParts(file.data);
  if (!parts)
    throw new FormatError(
      "",
      "An inference-perf Prometheus report should have load_summary, successes and failures objects.",
    );
  const pairKey = stageKey(file.name, "prometheus");
  // The summary over all stages, or a report renamed past recognition: no one stage's point to attach it to.
  if (pairKey === undefined) return [];
  const { successes } = parts;
  const current = "inter_token_latency" in successes;
  const figures: Partial<ResultPoint> = {};
  const sources: Record<string, string> = {};
  const warnings: string[] = [];
  const where = file.name.split("/").pop() ?? file.name;
  const put = (field: ServerMetricField, value: number, key: string) => {
    (figures as Record<string, number>)[field] = value;
    sources[field] = `${where}: successes.${key}`;
  };
  const count = toNumber(successes.count);
  const served = count !== null && count > 0;
  const notImported: NotImported[] = [];
  const notRead = (key: string, why: string) => {
    warnings.push(`inference-perf Prometheus report: successes.${key} not imported: ${why}`);
    // Named in the run's import report too, with the same reason, for every number under that key.
    const node = key.split(".").reduce<unknown>((parent, part) => asRecord(parent)?.[part], successes);
    const stats = asRecord(node)
      ? Object.entries(asRecord(node) ?? {}).map(([name, value]) => [`${key}.${name}`, value] as const)
      : [[key, node] as const];
    for (const [path, value] of stats) {
      const number = toNumber(value);
      if (number !== null)
        notImported.push({ file: file.name, field: `successes.${path}`, value: number, reason: why });
    }
  };
  const ZERO =
    "it is 0 while the server completed requests, which is how inference-perf writes a query that found nothing (the metric is not exposed under the name it asked for)";

  const waiting = stat(successes, "queue_len", "mean");
  if (waiting !== undefined) put("server_waiting_requests_mean", waiting, "queue_len.mean");

  const running = stat(successes, "num_requests_running", "mean");
  if (running !== undefined) {
    if (running === 0 && served) notRead("num_requests_running.mean", ZERO);
    else put("server_running_requests_mean", running, "num_requests_running.mean");
  }

  const kv = stat(successes, "kv_cache_usage_percentage", "mean");
  if (kv !== undefined) {
    if (served && allZero(successes, "kv_cache_usage_percentage")) notRead("kv_cache_usage_percentage", ZERO);
    else if (kv > 1) notRead("kv_cache_usage_percentage.mean", `it is ${kv}, not a share from 0 to 1`);
    else put("server_kv_cache_usage_mean", kv, "kv_cache_usage_percentage.mean");
  }

  const preemptions = stat(successes, "num_preemptions_total", "mean");
  if (preemptions !== undefined) {
    if (current) put("server_preemptions", Math.round(preemptions), "num_preemptions_total.mean");
    else
      notRead(
        "num_preemptions_total",
        "before inference-perf's February 2026 layout it is the mean, over the stage's window, of vLLM's cumulative preemption counter (preemptions since the server started), not preemptions during the stage",
      );
  }

  const prefix = stat(successes, "prefix_cache_hit_percent", "mean");
  if (prefix !== undefined) {
    if (prefix === 0)
      notRead(
        "prefix_cache_hit_percent",
        "it is 0, which inference-perf writes both when no prompt token was looked up and when the prefix-cache counters could not be read",
      );
    else if (prefix > 100) notRead("prefix_cache_hit_percent.mean", `it is ${prefix}, not a percentage`);
    else put("server_prefix_cache_hit_rate", prefix / 100, "prefix_cache_hit_percent.mean");
  }

  const seconds = (key: string, field: ServerMetricField) => {
    const value = stat(successes, key, "mean");
    if (value === undefined) return;
    if (value === 0) {
      if (served) notRead(`${key}.mean`, ZERO);
      return;
    }
    put(field, value * 1000, `${key}.mean`);
  };
  seconds("time_to_first_token", "server_mean_ttft_ms");
  if (current) {
    // vllm:request_time_per_output_token_seconds: per request, the first token excluded.
    seconds("time_per_output_token", "server_mean_tpot_ms");
    seconds("inter_token_latency", "server_mean_itl_ms");
  } else {
    // vllm:time_per_output_token_seconds, which observed every gap between tokens: an ITL, per token.
    seconds("time_per_output_token", "server_mean_itl_ms");
  }

  const supplement: Supplement = { pairKey, figures, sources };
  if (count !== null) supplement.serverRequests = count;
  return [
    {
      format: "inference-perf",
      file: file.name,
      part: "",
      context: {},
      points: [],
      warnings,
      supplement,
      notImported,
    },
  ];
}

/** The server metrics whose mean a point keeps (the others have no field). */
const KEPT_AS_MEAN = new Set([
  "queue_len",
  "num_requests_running",
  "kv_cache_usage_percentage",
  "num_preemptions_total",
  "prefix_cache_hit_percent",
  "time_to_first_token",
  "time_per_output_token",
  "inter_token_latency",
]);

/** Why a number of the server's report is not in the point (each kept figure is named in its sources). */
function prometheusNotImportedReason(path: string): string | undefined {
  if (path === "successes.count" || path === "successes.rate")
    return "the server's own count and rate of requests over the stage: the point keeps the client's (completed, request_throughput); a warning says when the two disagree";
  const metric = /^successes\.([a-z_]+)\./.exec(path)?.[1];
  if (metric === undefined) return undefined;
  if (metric === "prompt_len" || metric === "output_len")
    return "the server's prompt and output lengths: the point keeps the client's token counts";
  if (metric === "request_latency") return "the server's end-to-end latency: the point keeps the client's";
  if (KEPT_AS_MEAN.has(metric))
    return "the server's median and percentiles of a metric: a point keeps the server's mean of each (server_*), beside the client's own statistics";
  return `no servebench field holds the server's ${metric}`;
}

export const inferencePerfPrometheusParser: FormatParser = {
  id: "inference-perf",
  label: "inference-perf stage_N_prometheus_metrics.json (model-server metrics, merged into stage N's point)",
  signature:
    "`load_summary` and `failures` empty, `successes` with server-side `rate`, `queue_len`, `kv_cache_usage_percentage`, `time_per_output_token`… directly under it",
  detect(file: SourceFile): boolean {
    try {
      return file.kind !== "csv" && isPrometheus(file.data);
    } catch {
      return false;
    }
  },
  parse: parsePrometheus,
  notImportedReason: prometheusNotImportedReason,
};

export const inferencePerfParsers: readonly FormatParser[] = [
  inferencePerfLifecycleParser,
  inferencePerfPrometheusParser,
];
