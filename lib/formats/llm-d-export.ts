/**
 * A stored run → llm-d benchmark reports of version 0.2.1 (llm-d/llm-d-benchmark,
 * llmdbenchmark/analysis/benchmark_report/br_v0_2_1_json_schema.json), one report per load point: the report
 * describes one load point, so a sweep of n levels is n reports. The inverse of the importer in ./llm-d.ts: every
 * figure written in the schema's standard places reads back the same through it
 * (docs/formats/llm-d-benchmark-report.md, "Export").
 *
 * - The figures are servebench's, by its definitions, so the load generator is named `servebench`: a consumer
 *   (servebench's importer among them) reads `time_per_output_token` and `inter_token_latency` as the schema
 *   describes them, which is what servebench's TPOT and ITL are, whatever tool measured them.
 * - Latencies are written in ms (`ms`, `ms/token`), throughputs in `tokens/s` and `queries/s`: units the schema
 *   and llm-d-benchmark's own unit checks accept for each statistic.
 * - What the schema has no place for (goodput, decode throughput, $/Mtok, the server's own metrics, percentiles
 *   outside p0.1 … p99.9, each figure's source field, the validity checks, the import report) is written under
 *   `scenario.load.native.config.servebench`: `native.config` is one of the schema's free-form places.
 */

import { type LatencyMetric, POWER_KEYS, type ResultPoint, RUN_FORMAT } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { checkRun } from "@/lib/validity/checks";
import { parallelismOf } from "@/lib/validity/run-facts";

export const LLMD_REPORT_VERSION = "0.2.1";

/** One llm-d benchmark report, as JSON (its shape is the upstream JSON Schema's; see the fixture). */
export type LlmdReport = Record<string, unknown>;

export interface LlmdExportOptions {
  /** $ per GPU-hour: with it, each report's extension states $ per million output tokens. */
  gpuHourPrice?: number | undefined;
}

type Statistics = Record<string, number | string>;

/** servebench latency metric → the schema's statistic and its units (ms for times, ms/token for per-token). */
const LATENCIES: readonly [LatencyMetric, string, "ms" | "ms/token"][] = [
  ["ttft", "time_to_first_token", "ms"],
  ["e2el_per_token", "normalized_time_per_output_token", "ms/token"],
  ["tpot", "time_per_output_token", "ms/token"],
  ["itl", "inter_token_latency", "ms/token"],
  ["e2el", "request_latency", "ms"],
];

/** The point's fixed statistic fields → the schema's names. */
const STAT_FIELDS = [
  ["mean", "mean"],
  ["std", "stddev"],
  ["median", "p50"],
  ["p90", "p90"],
  ["p95", "p95"],
  ["p99", "p99"],
] as const;

/** The schema's percentiles besides p50, p90, p95 and p99: servebench's `percentiles` key → the schema's name. */
const SCHEMA_PERCENTILES: Readonly<Record<string, string>> = {
  "p0.1": "p0p1",
  p1: "p1",
  p5: "p5",
  p10: "p10",
  p25: "p25",
  p75: "p75",
  "p99.9": "p99p9",
};

function latencyStatistics(
  point: ResultPoint,
  metric: LatencyMetric,
  units: string,
  left: Record<string, number>,
): Statistics | undefined {
  const stats: Statistics = { units };
  for (const [stat, name] of STAT_FIELDS) {
    const value = point[`${stat}_${metric}_ms`];
    if (value !== undefined) stats[name] = value;
  }
  for (const [key, value] of Object.entries(point.percentiles?.[metric] ?? {})) {
    const name = SCHEMA_PERCENTILES[key];
    if (name !== undefined) stats[name] = value;
    else left[`${metric}.${key}`] = value;
  }
  if (Object.keys(stats).length === 1) return undefined;
  if (stats.mean === undefined) {
    // The schema's Statistics need a mean: without one the figures go to the extension, under their own names.
    for (const [name, value] of Object.entries(stats))
      if (name !== "units") left[`${metric}.${name}`] = value as number;
    return undefined;
  }
  return stats;
}

function rate(value: number | undefined, units: "tokens/s" | "queries/s"): Statistics | undefined {
  return value === undefined ? undefined : { units, mean: value };
}

/** Seconds → an ISO 8601 duration ("PT49.97S"), in plain decimals. */
export function isoDuration(seconds: number): string {
  const text = String(seconds);
  return `PT${text.includes("e") ? withoutTrailingZeros(seconds.toFixed(9)) : text}S`;
}

/** "0.000000100" → "0.0000001", "5.000000000" → "5"; a number without a decimal point is left as it is. */
function withoutTrailingZeros(fixed: string): string {
  if (!fixed.includes(".")) return fixed;
  let end = fixed.length;
  while (fixed[end - 1] === "0") end -= 1;
  if (fixed[end - 1] === ".") end -= 1;
  return fixed.slice(0, end);
}

function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== null));
}

function requestsOf(point: ResultPoint): Record<string, unknown> | undefined {
  if (point.completed === undefined) return undefined;
  const total = point.completed + (point.failed ?? 0);
  const requests: Record<string, unknown> = { total, failures: point.failed ?? null };
  if (point.completed > 0) {
    if (point.total_input_tokens !== undefined)
      requests.input_length = { units: "count", mean: point.total_input_tokens / point.completed };
    if (point.total_output_tokens !== undefined)
      requests.output_length = { units: "count", mean: point.total_output_tokens / point.completed };
  }
  return requests;
}

function throughputOf(point: ResultPoint): Record<string, unknown> {
  const input =
    point.total_token_throughput !== undefined && point.output_throughput !== undefined
      ? point.total_token_throughput - point.output_throughput
      : undefined;
  return definedOnly({
    input_token_rate: rate(input !== undefined && input >= 0 ? input : undefined, "tokens/s"),
    output_token_rate: rate(point.output_throughput, "tokens/s"),
    total_token_rate: rate(point.total_token_throughput, "tokens/s"),
    request_rate: rate(point.request_throughput, "queries/s"),
  });
}

/** The run's serving engine as one stack component (its required fields "" when the run does not state them). */
function engineComponent(run: StoredRun): Record<string, unknown> {
  const parallelism = parallelismOf(run.flags);
  const stated = definedOnly({
    tp: parallelism.tensor,
    pp: parallelism.pipeline,
    dp: parallelism.data,
  });
  return {
    metadata: { schema_version: "0.0.1", label: `${run.engine}-${run.id}`, cfg_id: run.id },
    standardized: {
      kind: "inference_engine",
      tool: run.engine,
      tool_version: run.engine_version ?? "",
      role: "replica",
      replicas: 1,
      model: { name: run.model },
      accelerator: { model: run.hardware?.gpu ?? "", count: run.hardware?.gpu_count ?? 0, parallelism: stated },
    },
    native: definedOnly({
      args: Object.keys(run.flags).length > 0 ? run.flags : undefined,
      envars: Object.keys(run.env).length > 0 ? run.env : undefined,
    }),
  };
}

function sequenceLength(value: number | undefined, fixed: boolean): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  return { distribution: fixed ? "fixed" : "other", value };
}

/** What the schema has no place for, point by point and for the run: the extension's content. */
function extensionOf(
  run: StoredRun,
  point: ResultPoint,
  index: number,
  left: Record<string, number>,
  options: LlmdExportOptions,
  validity: ReturnType<typeof checkRun>,
): Record<string, unknown> {
  const figures: Record<string, number> = {};
  for (const key of ["request_goodput", "decode_throughput", "total_input_tokens", "total_output_tokens"] as const) {
    const value = point[key];
    if (value !== undefined) figures[key] = value;
  }
  for (const [key, value] of Object.entries(point)) if (key.startsWith("server_")) figures[key] = value as number;
  for (const key of POWER_KEYS) if (point[key] !== undefined) figures[key] = point[key];
  const gpus = run.hardware?.gpu_count;
  if (options.gpuHourPrice !== undefined && gpus !== undefined && (point.output_throughput ?? 0) > 0) {
    figures.gpu_hour_price_usd = options.gpuHourPrice;
    // $/Mtok as the compare page computes it: the GPU-hour price over the millions of tokens one GPU makes an hour.
    figures.cost_per_million_output_tokens_usd =
      options.gpuHourPrice / (((point.output_throughput as number) / gpus) * 3600 * 1e-6);
  }
  return definedOnly({
    run_id: run.id,
    run_name: run.name,
    point_index: index,
    points: run.results.length,
    repeat: point.repeat,
    source_format: run.source_format,
    figures: Object.keys(figures).length > 0 ? figures : undefined,
    percentiles_ms: Object.keys(left).length > 0 ? left : undefined,
    sources: point.sources,
    power_source: point.power_source,
    validity: { marked: validity.marked, summary: validity.summary, checks: validity.checks },
    workload: run.workload,
    speculative: run.speculative,
    model_size: run.model_size,
    // The schema's accelerator has a model and a count, not its memory.
    gpu_memory_mib: run.hardware?.gpu_memory_mib,
    server_startup_s: run.server_startup_s,
    command: run.command,
    notes: run.notes,
    git_commit: run.git_commit,
    git_branch: run.git_branch,
    ci_url: run.ci_url,
    metadata: Object.keys(run.metadata).length > 0 ? run.metadata : undefined,
    warnings: run.warnings.length > 0 ? run.warnings : undefined,
    // The import report itself stays with the run (GET /api/runs/{id}): repeated in every report it would be most of it.
    not_imported_figures: run.not_imported.length > 0 ? run.not_imported.length : undefined,
  });
}

function reportOf(
  run: StoredRun,
  point: ResultPoint,
  index: number,
  options: LlmdExportOptions,
  validity: ReturnType<typeof checkRun>,
): LlmdReport {
  const left: Record<string, number> = {};
  const latency: Record<string, unknown> = {};
  for (const [metric, name, units] of LATENCIES) {
    const stats = latencyStatistics(point, metric, units, left);
    if (stats) latency[name] = stats;
  }
  const workload = run.workload ?? {};
  const random = workload.dataset === "random";
  const rateValue = point.request_rate;
  const load = {
    metadata: {
      schema_version: "0.0.1",
      description: `${run.source_format === RUN_FORMAT ? "a servebench run" : `${run.source_format} results`}, exported by servebench`,
    },
    standardized: definedOnly({
      tool: "servebench",
      tool_version: RUN_FORMAT,
      source: random ? "random" : workload.dataset !== undefined ? "sampled" : "unknown",
      input_seq_len: sequenceLength(workload.input_len, random) ?? { distribution: "other", value: 0 },
      output_seq_len: sequenceLength(workload.output_len, random),
      // JSON has no infinity: an infinite rate (every request at once) is said in native.args.
      rate_qps: typeof rateValue === "number" ? rateValue : undefined,
      concurrency: point.concurrency,
    }),
    native: {
      args: definedOnly({
        max_concurrency: point.concurrency,
        request_rate: rateValue,
        num_prompts: workload.num_prompts,
      }),
      config: { servebench: extensionOf(run, point, index, left, options, validity) },
    },
  };
  const time = definedOnly({
    start: run.measured_at,
    duration: point.duration_s === undefined ? undefined : isoDuration(point.duration_s),
  });
  return {
    version: LLMD_REPORT_VERSION,
    run: definedOnly({
      uid: `${run.id}-${index + 1}`,
      eid: run.id,
      time: Object.keys(time).length > 0 ? time : undefined,
      // llm-d's consumers (Prism) read the description as the run's label.
      description: run.name,
      keywords: run.tags.length > 0 ? run.tags : undefined,
    }),
    scenario: { stack: [engineComponent(run)], load },
    results: {
      request_performance: {
        aggregate: definedOnly({
          requests: requestsOf(point),
          latency: Object.keys(latency).length > 0 ? latency : undefined,
          throughput: throughputOf(point),
        }),
      },
    },
  };
}

/** A stored run → one llm-d benchmark report v0.2.1 per load point, in the run's order. */
export function exportLlmdReports(run: StoredRun, options: LlmdExportOptions = {}): LlmdReport[] {
  const validity = checkRun(run);
  return run.results.map((point, index) => reportOf(run, point, index, options, validity));
}
