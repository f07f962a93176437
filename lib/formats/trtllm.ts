/**
 * TensorRT-LLM `trtllm-bench throughput|latency --report_json FILE`: one JSON object per benchmark, written by
 * ReportUtility.get_statistics_dict() in tensorrt_llm/bench/dataclasses/reporting.py. Sections: engine,
 * world_info, request_info, performance, streaming_metrics (with --streaming, and always for `latency`),
 * decoding_stats (speculative decoding) and dataset. One report is one load point.
 *
 * The report does not record trtllm-bench's --concurrency. The load level is decided from what the report
 * does state (see levelOf below and docs/formats/trtllm.md).
 */
import { canonicalFlagName } from "@/lib/document/flags";
import { asRecord, describeValue, get, isNaNValue, PointBuilder, toCount, toNumber } from "./common";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

/** A run whose requests were all handed to the engine within this share of its duration was not held back. */
const HANDED_OVER_SHARE = 0.5;

function detect(file: SourceFile): boolean {
  if (file.kind !== "json") return false;
  const data = asRecord(file.data);
  if (!data) return false;
  const performance = asRecord(data.performance);
  return (
    asRecord(data.engine) !== undefined &&
    asRecord(data.world_info) !== undefined &&
    performance !== undefined &&
    ("system_output_throughput_tok_s" in performance || "request_throughput_req_s" in performance)
  );
}

/** A figure the parser reads: absent, null or NaN are fine (PointBuilder handles them); another type is a broken file. */
function checkFigure(data: unknown, path: string): unknown {
  const value = get(data, path);
  if (value === undefined || value === null || isNaNValue(value)) return value;
  if (toNumber(value) === null) throw new FormatError(path, `${path} must be a number, got ${describeValue(value)}`);
  return value;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" && value.trim() !== "None" ? value.trim() : undefined;
}

interface Level {
  kind: "concurrency" | "rate";
  source: string;
  warning?: string;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toPrecision(3)} s`;
}

/**
 * The load level. The report does not say what --concurrency was; `world_info.issue_rate` tells how requests
 * were handed to the engine. reporting.py computes it as (mean ns between request submissions) × 1e9 although
 * it is labelled req/s; a value below 1e9 is read as a true rate in req/s.
 * - Every request submitted within the first half of the run: no concurrency cap held them back. The point is
 *   the all-at-once load of trtllm-bench's default `--concurrency -1`: request rate "inf".
 * - Otherwise, with max_batch_size 1 (`trtllm-bench latency`, which submits one request at a time): concurrency 1.
 * - Otherwise a --concurrency cap was in force whose value the report does not state: the file cannot be filed.
 * Without an issue rate, max_batch_size 1 still gives concurrency 1 and anything else is assumed to be the default.
 */
function levelOf(file: SourceFile): Level {
  const data = file.data;
  const serial = toCount(get(data, "world_info.max_batch_size")) === 1;
  const issueRate = toNumber(get(data, "world_info.issue_rate"));
  const requests = toCount(get(data, "request_info.num_requests"));
  const totalMs = toNumber(get(data, "performance.total_latency_ms"));
  const assumed =
    `${file.name}: trtllm-bench's report does not record --concurrency; filed at request rate "inf" ` +
    "(every request handed to the engine at once, trtllm-bench's default --concurrency -1).";
  if (issueRate === null || issueRate <= 0 || requests === null || requests < 2 || totalMs === null || totalMs <= 0) {
    if (serial) return { kind: "concurrency", source: "world_info.max_batch_size" };
    return {
      kind: "rate",
      source: "(not recorded; trtllm-bench default --concurrency -1)",
      warning: `${assumed} The report lacks the issue rate, request count or duration, so this could not be checked.`,
    };
  }
  const intervalNs = issueRate >= 1e9 ? issueRate / 1e9 : 1e9 / issueRate;
  const windowMs = (intervalNs * requests) / 1e6;
  if (windowMs <= HANDED_OVER_SHARE * totalMs) {
    return {
      kind: "rate",
      source: "world_info.issue_rate",
      warning: `${assumed} Its ${requests} requests were all submitted within the first ${formatSeconds(windowMs)} of the ${formatSeconds(totalMs)} run.`,
    };
  }
  if (serial) return { kind: "concurrency", source: "world_info.max_batch_size" };
  throw new FormatError(
    "world_info.issue_rate",
    `the ${requests} requests were submitted over ${formatSeconds(windowMs)} of the ${formatSeconds(totalMs)} run, so a ` +
      "--concurrency limit held them back, and trtllm-bench's report does not record its value. Import this run as " +
      "a servebench/v1 document with the concurrency it ran at.",
  );
}

function flags(data: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  const numeric: [string, string][] = [
    ["world_info.tp_size", "--tp_size"],
    ["world_info.pp_size", "--pp_size"],
    ["world_info.ep_size", "--ep_size"],
    ["world_info.max_batch_size", "--max_batch_size"],
    ["world_info.max_num_tokens", "--max_num_tokens"],
    ["world_info.kv_cache_percentage", "--kv_cache_free_gpu_memory_fraction"],
  ];
  for (const [path, flag] of numeric) {
    const value = toNumber(get(data, path));
    if (value !== null) out[canonicalFlagName(flag)] = value;
  }
  const policy = text(get(data, "world_info.scheduling_policy"));
  if (policy) out[canonicalFlagName("--scheduler_policy")] = policy.toLowerCase();
  return out;
}

function workload(data: unknown): RunContext["workload"] {
  const result: NonNullable<RunContext["workload"]> = {};
  const requests = toCount(get(data, "request_info.num_requests"));
  if (requests !== null) result.num_prompts = requests;
  // A length is the workload's only when every request had it (min = max); otherwise it is a distribution.
  for (const [stats, average, field] of [
    ["dataset.isl_stats", "dataset.avg_isl", "input_len"],
    ["dataset.osl_stats", "dataset.avg_osl", "output_len"],
  ] as const) {
    const min = toNumber(get(data, `${stats}.minimum`));
    const max = toNumber(get(data, `${stats}.maximum`));
    const avg = toCount(get(data, average));
    if (avg !== null && min !== null && min === max && avg === min) result[field] = avg;
  }
  const dataset = text(get(data, "dataset.dataset_path"));
  if (dataset) result.dataset = (dataset.split(/[\\/]/).pop() ?? dataset).slice(0, 200);
  return Object.keys(result).length > 0 ? result : undefined;
}

function speculative(data: unknown): RunContext["speculative"] {
  const stats = asRecord(get(data, "decoding_stats"));
  if (!stats) return undefined;
  const result: NonNullable<RunContext["speculative"]> = {};
  const mode = text(stats.mode);
  if (mode) result.method = mode;
  const rate = toNumber(get(stats, "draft_acceptance_rate_percentiles.average"));
  if (rate !== null && rate >= 0 && rate <= 1) result.acceptance_rate = rate;
  return Object.keys(result).length > 0 ? result : undefined;
}

function metadata(data: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {
    streaming: asRecord(get(data, "streaming_metrics")) !== undefined,
  };
  const strings: [string, string][] = [
    ["engine.backend", "backend"],
    ["engine.dtype", "dtype"],
    ["engine.quantization", "quantization"],
    ["engine.kv_cache_dtype", "kv_cache_dtype"],
  ];
  for (const [path, key] of strings) {
    const value = get(data, path);
    if (typeof value === "string" && value.trim() !== "") out[key] = value.trim();
  }
  const numbers: [string, string][] = [
    ["request_info.avg_num_concurrent_requests", "avg_num_concurrent_requests"],
    ["request_info.avg_input_length", "avg_input_length"],
    ["request_info.avg_output_length", "avg_output_length"],
    ["world_info.issue_rate", "issue_rate"],
    ["engine.max_input_length", "max_input_length"],
    ["engine.max_sequence_length", "max_sequence_length"],
    ["performance.output_throughput_per_user_tok_s", "output_throughput_per_user_tok_s"],
    ["performance.output_throughput_per_gpu_tok_s", "output_throughput_per_gpu_tok_s"],
    ["streaming_metrics.token_output_speed_tok_s", "token_output_speed_tok_s"],
    ["decoding_stats.acceptance_length_percentiles.average", "acceptance_length"],
  ];
  for (const [path, key] of numbers) {
    const value = toNumber(get(data, path));
    if (value !== null) out[key] = value;
  }
  return out;
}

/** A `--report_json` dictionary (or the same dictionary read from the printed report) → its one fragment. */
export function parseReportJson(file: SourceFile): Fragment[] {
  const data = file.data;
  const builder = new PointBuilder(file.name);
  const level = levelOf(file);
  if (level.kind === "concurrency") builder.concurrency(1, level.source);
  else builder.requestRate("inf", level.source);
  if (level.warning) builder.warnings.push(level.warning);

  const figure = (path: string) => checkFigure(data, path);
  builder
    .set("completed", figure("request_info.num_requests"), "request_info.num_requests")
    .set("duration_s", figure("performance.total_latency_ms"), "performance.total_latency_ms", "ms")
    .set("request_throughput", figure("performance.request_throughput_req_s"), "performance.request_throughput_req_s")
    .set(
      "output_throughput",
      figure("performance.system_output_throughput_tok_s"),
      "performance.system_output_throughput_tok_s",
    )
    .set(
      "total_token_throughput",
      figure("performance.system_total_throughput_tok_s"),
      "performance.system_total_throughput_tok_s",
    )
    .set("mean_e2el_ms", figure("performance.avg_request_latency_ms"), "performance.avg_request_latency_ms");
  // PercentileStats: p50 (the median), p90, p95, p99 and any other `pNN` it holds; minimum, maximum and average
  // (the mean, stated on its own line) are not percentiles.
  const percentiles = (metric: "e2el" | "ttft" | "tpot", base: string, meanPath: string) => {
    for (const key of Object.keys(asRecord(get(data, base)) ?? {})) {
      const match = /^p(\d+(?:\.\d+)?)$/.exec(key);
      if (match) builder.percentile(metric, Number(match[1]), figure(`${base}.${key}`), `${base}.${key}`);
    }
    // `average` repeats the mean stated on its own line; it stands in when that line is missing.
    const average = figure(`${base}.average`);
    const stated = toNumber(average);
    const mean = `mean_${metric}_ms` as const;
    if (builder.has(mean)) {
      if (stated !== null)
        builder.refused.push({
          source: `${base}.average`,
          value: stated,
          reason: `the mean again: the point keeps it from ${meanPath}`,
        });
    } else if (get(data, meanPath) === undefined) builder.set(mean, average, `${base}.average`);
    else if (stated !== null)
      builder.refused.push({
        source: `${base}.average`,
        value: stated,
        reason: `the mean again; ${meanPath}, the report's own mean, is NaN or negative, so the point keeps no mean`,
      });
  };
  percentiles("e2el", "performance.request_latency_percentiles_ms", "performance.avg_request_latency_ms");
  if (asRecord(get(data, "streaming_metrics"))) {
    // Streaming: TTFT and TPOT per request; TPOT = (end − first token) / (output tokens − 1), ms.
    builder.set("mean_ttft_ms", figure("streaming_metrics.avg_ttft_ms"), "streaming_metrics.avg_ttft_ms");
    builder.set("mean_tpot_ms", figure("streaming_metrics.avg_tpot_ms"), "streaming_metrics.avg_tpot_ms");
    percentiles("ttft", "streaming_metrics.ttft_percentiles", "streaming_metrics.avg_ttft_ms");
    percentiles("tpot", "streaming_metrics.tpot_percentiles", "streaming_metrics.avg_tpot_ms");
  }
  const point = builder.build();

  const context: RunContext = { engine: "tensorrt-llm" };
  const version = text(get(data, "engine.version"));
  if (version) context.engine_version = version.slice(0, 64);
  const model = text(get(data, "engine.model"));
  if (model) context.model = model.slice(0, 200);
  const worldSize = toCount(get(data, "world_info.world_size"));
  if (worldSize !== null && worldSize >= 1) context.hardware = { gpu_count: worldSize };
  const launch = flags(data);
  if (Object.keys(launch).length > 0) context.flags = launch;
  const load = workload(data);
  if (load) context.workload = load;
  const spec = speculative(data);
  if (spec) context.speculative = spec;
  context.metadata = metadata(data);

  return [
    {
      format: "trtllm-bench",
      file: file.name,
      part: "",
      context,
      points: [point],
      warnings: builder.warnings,
      notImported: builder.notImported(file.name),
    },
  ];
}

export const trtllmBenchParser: FormatParser = {
  id: "trtllm-bench",
  label: "TensorRT-LLM trtllm-bench --report_json",
  signature: "a JSON object with engine, world_info and performance (system_output_throughput_tok_s) sections",
  detect(file) {
    try {
      return detect(file);
    } catch {
      return false;
    }
  },
  parse: parseReportJson,
};
