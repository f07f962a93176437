/**
 * From timed requests to a result point, with vLLM's definitions (vllm/benchmarks/serve.py,
 * `calculate_metrics`): TTFT is the first generated text, TPOT = (e2e − TTFT) / (output tokens − 1) over
 * requests with more than one output token, ITL the gaps between text chunks pooled over requests, e2e
 * latency ends at the last text chunk, and throughput divides the completed requests' tokens by the wall
 * time of the level.
 */
import type { LatencyMetric, ResultPoint } from "@/lib/runs/schema";
import { summarize } from "@/lib/stats";

/** What one request did, as measured by the client. Times are performance.now() milliseconds. */
export interface RequestRecord {
  status: "ok" | "failed" | "aborted";
  /** Why it failed. */
  error?: string;
  start_ms: number;
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

/** Aggregates one load level. A level with no completed request keeps its counts and no figures. */
export function aggregateLevel(concurrency: number, records: readonly RequestRecord[]): LevelResult {
  const finished = records.filter((record) => record.status !== "aborted");
  const ok = finished.filter((record) => record.status === "ok");
  const failedRecords = finished.filter((record) => record.status === "failed");
  const point: ResultPoint = { concurrency, completed: ok.length, failed: failedRecords.length };

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
  };
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
  return result;
}

/** The warnings a level adds to the run: failures with their first reasons, approximate counts, interruption. */
export function levelWarnings(level: LevelResult, maxReasons = 3): string[] {
  const label = `C=${level.point.concurrency}`;
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
