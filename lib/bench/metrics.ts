/**
 * From timed requests to a result point, with vLLM's definitions (vllm/benchmarks/serve.py,
 * `calculate_metrics`): TTFT is the first generated text, TPOT = (e2e − TTFT) / (output tokens − 1) over
 * requests with more than one output token, ITL the gaps between text chunks pooled over requests, e2e
 * latency ends at the last text chunk, and throughput divides the completed requests' tokens by the wall
 * time of the level.
 */

import {
  type LatencyMetric,
  LIMITS,
  type PercentileMetric,
  type RequestDetail,
  type RequestRate,
  type ResultPoint,
} from "@/lib/document/schema";
import { formatLoadLevel } from "@/lib/format";
import { percentileOfSorted, summarize } from "@/lib/stats";

/** What one request did, as measured by the client. Times are performance.now() milliseconds. */
export interface RequestRecord {
  status: "ok" | "failed" | "aborted";
  /** Why it failed. */
  error?: string;
  start_ms: number;
  /**
   * Open loop: when the request was due to be sent (its arrival). It is sent then, or later when a cap on
   * concurrency holds it back; TTFT and e2e latency count from the sending, as vLLM's do.
   */
  arrival_ms?: number;
  /** When the response ended, failed or was aborted. */
  end_ms: number;
  /** Arrival time of every chunk that carried generated text, in ms after `start_ms`. */
  text_chunk_ms: number[];
  /** `usage.completion_tokens`, when the server sent it. */
  usage_output_tokens?: number;
  /** `usage.prompt_tokens`, when the server sent it. */
  usage_input_tokens?: number;
}

export interface RequestMetrics {
  ttft_ms: number;
  e2el_ms: number;
  /** Null when the request generated one token or fewer: its TPOT is undefined. */
  tpot_ms: number | null;
  itl_ms: number[];
  output_tokens: number;
  /** False when the server sent no usage and the output tokens are the number of text chunks. */
  output_tokens_exact: boolean;
  input_tokens: number | null;
}

/** The figures of one completed request. */
export function requestMetrics(record: RequestRecord): RequestMetrics {
  const times = record.text_chunk_ms;
  const first = times[0];
  const last = times[times.length - 1];
  if (first === undefined || last === undefined) throw new Error("a completed request has at least one text chunk");
  const exact = record.usage_output_tokens !== undefined;
  const output_tokens = exact ? record.usage_output_tokens! : times.length;
  const itl_ms: number[] = [];
  for (let index = 1; index < times.length; index += 1) itl_ms.push(times[index]! - times[index - 1]!);
  return {
    ttft_ms: first,
    e2el_ms: last,
    tpot_ms: output_tokens > 1 ? (last - first) / (output_tokens - 1) : null,
    itl_ms,
    output_tokens,
    output_tokens_exact: exact,
    input_tokens: record.usage_input_tokens ?? null,
  };
}

export interface FailureCount {
  message: string;
  count: number;
}

export interface LevelResult {
  point: ResultPoint;
  completed: number;
  failed: number;
  /** Requests cut off by an interruption: neither completed nor failed. */
  aborted: number;
  /** Distinct failure reasons, most frequent first. */
  failures: FailureCount[];
  /** Completed requests whose output tokens were counted as text chunks (the server sent no usage). */
  approximate_requests: number;
  /** With goodput targets: completed requests that met all of them. */
  good_requests?: number;
  /** When the point's `requests` hold a sample (more requests than the limit): every how many-th request. */
  sampled_every: number | null;
}

const round = (value: number, digits = 3) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

function addSummary(point: ResultPoint, metric: LatencyMetric, values: readonly number[]): void {
  const summary = summarize(values);
  if (!summary) return;
  const target = point as Record<string, unknown>;
  for (const [stat, value] of Object.entries(summary)) target[`${stat}_${metric}_ms`] = round(value);
}

/** A load level: a closed loop's concurrency, or an open loop's request rate. */
export type LoadLevel = { concurrency: number } | { request_rate: RequestRate };

/** vLLM's `--goodput` targets, in ms: a request is good when it meets every one that is set. */
export interface GoodputTargets {
  ttft?: number;
  tpot?: number;
  e2el?: number;
}

export interface AggregateOptions {
  goodput?: GoodputTargets;
  /** Percentiles to report (0–100); those without a field of their own (median, p90, p95, p99) go to `percentiles`. */
  percentiles?: readonly number[];
  /** Keep each request's figures in the point's `requests`. */
  detail?: boolean;
  /** Rows kept at most per point; more are sampled evenly (tests lower it). */
  detailLimit?: number;
}

/** The percentiles that have a field of their own on a point. */
const FIELD_PERCENTILES = new Map<number, string>([
  [50, "median"],
  [90, "p90"],
  [95, "p95"],
  [99, "p99"],
]);

/** "p99.9", "p75": the key of a percentile in `percentiles`. */
export function percentileKey(p: number): string {
  return `p${Number(p.toFixed(3))}`;
}

/**
 * Whether a completed request met every target, with vLLM's rule: a request of one output token has no
 * TPOT and counts as 0 against the TPOT target.
 */
export function meetsTargets(metrics: RequestMetrics, targets: GoodputTargets): boolean {
  if (targets.ttft !== undefined && metrics.ttft_ms > targets.ttft) return false;
  if (targets.tpot !== undefined && (metrics.tpot_ms ?? 0) > targets.tpot) return false;
  if (targets.e2el !== undefined && metrics.e2el_ms > targets.e2el) return false;
  return true;
}

/** Aggregates one load level. A level with no completed request keeps its counts and no figures. */
export function aggregateLevel(
  load: number | LoadLevel,
  records: readonly RequestRecord[],
  options: AggregateOptions = {},
): LevelResult {
  const finished = records.filter((record) => record.status !== "aborted");
  const ok = finished.filter((record) => record.status === "ok");
  const failedRecords = finished.filter((record) => record.status === "failed");
  const level: LoadLevel = typeof load === "number" ? { concurrency: load } : load;
  const point: ResultPoint = { ...level, completed: ok.length, failed: failedRecords.length };

  const reasons = new Map<string, number>();
  for (const record of failedRecords) {
    const message = record.error ?? "unknown error";
    reasons.set(message, (reasons.get(message) ?? 0) + 1);
  }
  const failures = [...reasons.entries()]
    .map(([message, count]) => ({ message, count }))
    .sort((a, b) => b.count - a.count);
  const result: LevelResult = {
    point,
    completed: ok.length,
    failed: failedRecords.length,
    aborted: records.length - finished.length,
    failures,
    approximate_requests: 0,
    sampled_every: null,
  };
  if (options.detail && finished.length > 0) {
    const limit = options.detailLimit ?? LIMITS.requestRowsPerPoint;
    point.requests = requestDetail(finished, limit);
    if (finished.length > limit) result.sampled_every = Math.ceil(finished.length / limit);
  }
  if (ok.length === 0) return result;

  // The level lasts from its first request's start to its last request's end, failed requests included:
  // they held a slot too.
  const start = Math.min(...finished.map((record) => record.start_ms));
  const end = Math.max(...finished.map((record) => record.end_ms));
  const duration_s = (end - start) / 1000;

  const metrics = ok.map(requestMetrics);
  const outputTokens = metrics.reduce((sum, m) => sum + m.output_tokens, 0);
  const inputKnown = metrics.every((m) => m.input_tokens !== null);
  const inputTokens = metrics.reduce((sum, m) => sum + (m.input_tokens ?? 0), 0);
  result.approximate_requests = metrics.filter((m) => !m.output_tokens_exact).length;

  point.duration_s = round(duration_s, 4);
  if (inputKnown) point.total_input_tokens = inputTokens;
  point.total_output_tokens = outputTokens;
  if (duration_s > 0) {
    point.request_throughput = round(ok.length / duration_s, 4);
    point.output_throughput = round(outputTokens / duration_s);
    if (inputKnown) point.total_token_throughput = round((inputTokens + outputTokens) / duration_s);
  }
  addSummary(
    point,
    "ttft",
    metrics.map((m) => m.ttft_ms),
  );
  addSummary(
    point,
    "tpot",
    metrics.flatMap((m) => (m.tpot_ms === null ? [] : [m.tpot_ms])),
  );
  addSummary(
    point,
    "itl",
    metrics.flatMap((m) => m.itl_ms),
  );
  addSummary(
    point,
    "e2el",
    metrics.map((m) => m.e2el_ms),
  );
  if (options.goodput && Object.keys(options.goodput).length > 0 && duration_s > 0) {
    const targets = options.goodput;
    const good = metrics.filter((m) => meetsTargets(m, targets)).length;
    point.request_goodput = round(good / duration_s, 4);
    result.good_requests = good;
  }
  const extra = (options.percentiles ?? []).filter((p) => !FIELD_PERCENTILES.has(p));
  if (extra.length > 0) {
    // The client measures no end-to-end latency per token: its percentiles come from imported files only.
    const samples: Record<Exclude<PercentileMetric, "e2el_per_token">, number[]> = {
      ttft: metrics.map((m) => m.ttft_ms),
      tpot: metrics.flatMap((m) => (m.tpot_ms === null ? [] : [m.tpot_ms])),
      itl: metrics.flatMap((m) => m.itl_ms),
      e2el: metrics.map((m) => m.e2el_ms),
    };
    const percentiles: NonNullable<ResultPoint["percentiles"]> = {};
    for (const [metric, values] of Object.entries(samples) as [PercentileMetric, number[]][]) {
      if (values.length === 0) continue;
      const sorted = [...values].sort((a, b) => a - b);
      percentiles[metric] = Object.fromEntries(
        extra.map((p) => [percentileKey(p), round(percentileOfSorted(sorted, p))]),
      );
    }
    if (Object.keys(percentiles).length > 0) point.percentiles = percentiles;
  }
  return result;
}

const MAX_ERROR_MESSAGES = LIMITS.requestErrorMessages;

/**
 * The level's requests column by column, in the order they were sent. Past `limit` rows, every k-th request
 * is kept (k = ⌈total / limit⌉), so the sample spans the level from its first request to its last.
 */
export function requestDetail(finished: readonly RequestRecord[], limit: number): RequestDetail {
  const bySend = [...finished].sort((a, b) => a.start_ms - b.start_ms);
  const step = Math.max(1, Math.ceil(bySend.length / limit));
  const kept = step === 1 ? bySend : bySend.filter((_, index) => index % step === 0);
  const first = bySend[0]?.start_ms ?? 0;
  const detail: RequestDetail = {
    total: bySend.length,
    start_ms: [],
    ttft_ms: [],
    tpot_ms: [],
    e2el_ms: [],
    input_tokens: [],
    output_tokens: [],
  };
  const queued = kept.some((record) => record.arrival_ms !== undefined);
  const queue: number[] = [];
  const errorIndex: (number | null)[] = [];
  const errors: string[] = [];
  for (const record of kept) {
    detail.start_ms!.push(round(record.start_ms - first, 2));
    if (queued) queue.push(round(Math.max(0, record.start_ms - (record.arrival_ms ?? record.start_ms)), 2));
    if (record.status === "ok") {
      const metrics = requestMetrics(record);
      detail.ttft_ms.push(round(metrics.ttft_ms, 2));
      detail.tpot_ms.push(metrics.tpot_ms === null ? null : round(metrics.tpot_ms, 3));
      detail.e2el_ms.push(round(metrics.e2el_ms, 2));
      detail.input_tokens!.push(metrics.input_tokens);
      detail.output_tokens.push(metrics.output_tokens);
      errorIndex.push(null);
      continue;
    }
    detail.ttft_ms.push(null);
    detail.tpot_ms.push(null);
    detail.e2el_ms.push(null);
    detail.input_tokens!.push(null);
    detail.output_tokens.push(null);
    const message = clip(record.error ?? "unknown error");
    let index = errors.indexOf(message);
    if (index === -1) {
      if (errors.length < MAX_ERROR_MESSAGES - 1) {
        errors.push(message);
        index = errors.length - 1;
      } else {
        // The last slot gathers every further reason; the run's warnings name the most frequent.
        const other = "another reason (more than 99 distinct reasons at this level)";
        if (errors.length < MAX_ERROR_MESSAGES) errors.push(other);
        index = MAX_ERROR_MESSAGES - 1;
      }
    }
    errorIndex.push(index);
  }
  if (queued) detail.queue_ms = queue;
  if (detail.input_tokens!.every((value) => value === null)) delete detail.input_tokens;
  if (errors.length > 0) {
    detail.error = errorIndex;
    detail.errors = errors;
  }
  return detail;
}

/** The warnings a level adds to the run: failures with their first reasons, approximate counts, interruption. */
export function levelWarnings(level: LevelResult, maxReasons = 3): string[] {
  const label = formatLoadLevel(level.point);
  const warnings: string[] = [];
  const total = level.completed + level.failed;
  if (level.failed > 0) {
    const reasons = level.failures
      .slice(0, maxReasons)
      .map((failure) => `${failure.message}${failure.count > 1 ? ` (×${failure.count})` : ""}`)
      .join("; ");
    const more = level.failures.length > maxReasons ? `; and ${level.failures.length - maxReasons} other reasons` : "";
    const head =
      level.completed === 0
        ? `every request failed (${level.failed}), so the level has no figures`
        : `${level.failed} of ${total} requests failed`;
    warnings.push(clip(`${label}: ${head}: ${reasons}${more}`));
  }
  if (level.approximate_requests > 0) {
    warnings.push(
      `${label}: the server sent no token usage for ${level.approximate_requests} of ${level.completed} completed requests; ` +
        "their output tokens are the number of streamed text chunks (approximate: a chunk may carry several tokens)",
    );
  }
  if (level.sampled_every !== null && level.point.requests) {
    const { requests } = level.point;
    warnings.push(
      `${label}: the per-request results keep one in every ${level.sampled_every} of its ${requests.total} requests (${requests.ttft_ms.length} rows, the most a load point keeps); its figures cover all of them`,
    );
  }
  if (level.aborted > 0) {
    warnings.push(
      `${label}: interrupted with ${level.aborted} request${level.aborted === 1 ? "" : "s"} in flight or not sent; the figures cover the ${total} that finished`,
    );
  }
  return warnings;
}

/** Warnings are at most 1,000 characters in a run document. */
export function clip(text: string, max = 1_000): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
