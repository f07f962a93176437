/**
 * Ray LLMPerf `token_benchmark_ray.py` output. Each run writes two files:
 *
 * - `<model>_<in>_<out>_summary.json`: one flat object (nested results flattened with "_", so quantiles
 *   arrive as `results_ttft_s_quantiles_p99`), times in seconds, some numbers as strings ("550"). One run is
 *   one load point at `num_concurrent_requests`.
 * - `<model>_<in>_<out>_individual_responses.json`: a list of per-request records (`ttft_s`,
 *   `inter_token_latency_s`, `end_to_end_latency_s`, `number_output_tokens`, `error_code`, …). It does not
 *   state the concurrency or the run's overall throughput.
 *
 * LLMPerf's `inter_token_latency_s` is the sum of all chunk gaps, the first one (TTFT) included, divided by
 * the output tokens: end-to-end latency per output token, not TPOT.
 */
import type { ResultPoint } from "@/lib/document/schema";
import { percentileOfSorted, summarize } from "@/lib/stats";
import { asRecord, isNaNValue, isoTimestamp, PointBuilder, toConcurrency, toCount, toNumber } from "./common";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

type Stat = "mean" | "median" | "std" | "p90" | "p95" | "p99";

/** Summary statistics other than the quantiles (`quantiles_pNN`, read by name); min and max have no field. */
const SUMMARY_STATS: ReadonlyArray<[Stat, string]> = [
  ["mean", "mean"],
  ["std", "stddev"],
];

/** LLMPerf metric → servebench metric. All three are in seconds. */
const LATENCIES = [
  ["ttft_s", "ttft"],
  ["end_to_end_latency_s", "e2el"],
  ["inter_token_latency_s", "e2el_per_token"],
] as const;

const SUMMARY_SIGNATURE = [
  "results_ttft_s_mean",
  "results_end_to_end_latency_s_mean",
  "results_mean_output_throughput_token_per_s",
];
const RECORD_SIGNATURE = ["ttft_s", "end_to_end_latency_s", "inter_token_latency_s"];

function isSummary(value: unknown): value is Record<string, unknown> {
  const record = asRecord(value);
  return record !== undefined && "num_concurrent_requests" in record && SUMMARY_SIGNATURE.some((key) => key in record);
}

function isResponseRecord(value: unknown): boolean {
  const record = asRecord(value);
  return (
    record !== undefined &&
    RECORD_SIGNATURE.every((key) => key in record) &&
    ("error_code" in record || "number_output_tokens" in record)
  );
}

/** A number as written (number, numeric string, NaN, Infinity); anything else where a number belongs breaks the file. */
function figure(record: Record<string, unknown>, key: string, where: string): unknown {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (
    typeof value === "string" &&
    (toNumber(value) !== null || isNaNValue(value) || /^[-+]?inf(inity)?$/i.test(value.trim()))
  ) {
    return value;
  }
  const found = Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : JSON.stringify(value);
  const path = where ? `${where}.${key}` : key;
  throw new FormatError(path, `${path} should be a number, but it is ${found}.`);
}

/* ------------------------------------------------------------------------------------------------------ */
/* *_summary.json                                                                                           */

function summaryContext(summary: Record<string, unknown>): RunContext {
  const context: RunContext = {};
  if (typeof summary.model === "string" && summary.model.trim() !== "") context.model = summary.model.trim();
  const workload: NonNullable<RunContext["workload"]> = {};
  const input = toCount(summary.mean_input_tokens);
  const output = toCount(summary.mean_output_tokens);
  if (input !== null) workload.input_len = input;
  if (output !== null) workload.output_len = output;
  const temperature = toNumber(summary.additional_sampling_params_temperature);
  if (temperature !== null && temperature >= 0) workload.temperature = temperature;
  if (Object.keys(workload).length > 0) context.workload = workload;
  const measuredAt = isoTimestamp(toNumber(summary.timestamp) ?? summary.timestamp);
  if (measuredAt) context.measured_at = measuredAt;
  const metadata: Record<string, string | number | boolean> = {};
  for (const key of ["name", "version", "framework", "stddev_input_tokens", "stddev_output_tokens"]) {
    const value = summary[key];
    if (typeof value === "string" && value.trim() !== "")
      metadata[key === "version" ? "llmperf_results_version" : key] = value.trim();
    else if (typeof value === "number" && Number.isFinite(value)) metadata[key] = value;
  }
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return context;
}

function summaryPoint(summary: Record<string, unknown>, where: string, label: string): PointBuilder {
  const concurrency = summary.num_concurrent_requests;
  if (toConcurrency(concurrency) === null) {
    const path = where ? `${where}.num_concurrent_requests` : "num_concurrent_requests";
    throw new FormatError(
      path,
      `${path} should be a positive whole number (the run's concurrency), but it is ${JSON.stringify(concurrency ?? null)}.`,
    );
  }
  const builder = new PointBuilder(label);
  builder.concurrency(concurrency, "num_concurrent_requests");
  builder.set("completed", figure(summary, "results_num_completed_requests", where), "results_num_completed_requests");
  builder.set("failed", figure(summary, "results_number_errors", where), "results_number_errors");
  builder.set(
    "output_throughput",
    figure(summary, "results_mean_output_throughput_token_per_s", where),
    "results_mean_output_throughput_token_per_s",
  );
  const perMinute = figure(summary, "results_num_completed_requests_per_min", where);
  const perMinuteNumber = toNumber(perMinute);
  builder.set(
    "request_throughput",
    perMinuteNumber !== null ? perMinuteNumber / 60 : perMinute,
    "results_num_completed_requests_per_min / 60",
  );
  for (const [source, metric] of LATENCIES) {
    for (const [stat, suffix] of SUMMARY_STATS) {
      const key = `results_${source}_${suffix}`;
      builder.setStats(metric, { [stat]: { value: figure(summary, key, where), source: key } }, "s");
    }
    // Every quantile the summary states (pandas' quantile, as p25 … p99): p50 is the median, p90/p95/p99 have their
    // fields, the others go to `percentiles`.
    const prefix = `results_${source}_quantiles_p`;
    for (const key of Object.keys(summary)) {
      if (!key.startsWith(prefix) || !/^\d+$/.test(key.slice(prefix.length))) continue;
      builder.percentile(metric, Number(key.slice(prefix.length)), figure(summary, key, where), key, "s");
    }
  }
  return builder;
}

/**
 * Summaries gathered into one object keyed by their concurrency (`{"1": {…summary…}, "2": {…}}`), as scripts that run
 * token_benchmark_ray.py once per concurrency and `json.dump` the results write (philschmid/llmperf-bench's
 * `*_results.json`).
 */
function isKeyedCollection(value: unknown): value is Record<string, unknown> {
  const record = asRecord(value);
  if (!record || isSummary(record)) return false;
  const entries = Object.entries(record);
  return entries.length > 0 && entries.every(([key, entry]) => /^\d+$/.test(key) && isSummary(entry));
}

function parseSummary(file: SourceFile): Fragment[] {
  const summaries: Array<{ summary: Record<string, unknown>; where: string; part: string }> = [];
  if (isKeyedCollection(file.data)) {
    for (const [key, entry] of Object.entries(file.data)) {
      const summary = asRecord(entry) ?? {};
      summaries.push({ summary, where: key, part: `"${key}"` });
    }
  } else if (Array.isArray(file.data)) {
    file.data.forEach((line, index) => {
      if (!isSummary(line)) {
        throw new FormatError(
          `${index}`,
          `line ${index + 1} is not an LLMPerf summary (no num_concurrent_requests / results_* keys).`,
        );
      }
      summaries.push({ summary: line, where: `${index}`, part: `line ${index + 1}` });
    });
  } else {
    const summary = asRecord(file.data);
    if (!summary) throw new FormatError("", "An LLMPerf summary should be a JSON object.");
    summaries.push({ summary, where: "", part: "" });
  }
  return summaries.map(({ summary, where, part }) => {
    const builder = summaryPoint(summary, where, part || "summary");
    const point = builder.build();
    const root =
      where === ""
        ? ""
        : file.kind === "jsonl"
          ? `line ${Number(where) + 1}`
          : Array.isArray(file.data)
            ? `[${where}]`
            : where;
    return {
      format: "llmperf",
      file: file.name,
      part: summaries.length > 1 ? part : "",
      context: summaryContext(summary),
      points: [point],
      warnings: builder.warnings,
      root,
      used: [
        "mean_input_tokens",
        "mean_output_tokens",
        "additional_sampling_params_temperature",
        ...(summaries.length === 1 ? ["timestamp"] : []),
      ],
      // With several summaries the run's measured_at is the earliest; each level's own time is reported.
      notImported: [
        ...builder.notImported(file.name, root),
        ...(summaries.length > 1 && toNumber(summary.timestamp) !== null
          ? [
              {
                file: file.name,
                field: `${where === "" ? "" : file.kind === "jsonl" ? `line ${Number(where) + 1}.` : Array.isArray(file.data) ? `[${where}].` : `${where}.`}timestamp`,
                value: toNumber(summary.timestamp) ?? 0,
                reason:
                  "when this load level was measured (Unix time); the run's measured_at is the earliest of its levels",
              },
            ]
          : []),
      ],
    } satisfies Fragment;
  });
}

export const llmperfSummaryParser: FormatParser = {
  id: "llmperf",
  label: "LLMPerf token_benchmark_ray.py *_summary.json",
  signature:
    "a flat object with `num_concurrent_requests` and LLMPerf's flattened results keys (`results_ttft_s_mean`, `results_end_to_end_latency_s_mean` or `results_mean_output_throughput_token_per_s`); JSON lines of them; or an object of them keyed by concurrency",
  detect(file: SourceFile): boolean {
    try {
      if (Array.isArray(file.data)) return file.data.length > 0 && file.data.every(isSummary);
      return isSummary(file.data) || isKeyedCollection(file.data);
    } catch {
      return false;
    }
  },
  parse: parseSummary,
};

/* ------------------------------------------------------------------------------------------------------ */
/* *_individual_responses.json                                                                              */

function describeValues(values: readonly number[]): Partial<Record<Stat, number>> {
  const summary = summarize(values, 1);
  if (!summary) return {};
  // Sample standard deviation (ddof 1), as pandas' Series.std that LLMPerf's summary uses: none for one value.
  const { std, ...rest } = summary;
  return values.length > 1 ? { ...rest, std } : rest;
}

export interface IndividualResponsesSummary {
  requests: number;
  completed: number;
  failed: number;
  /** The statistics LLMPerf's own summary computes, over the requests without an error_code. */
  point: ResultPoint;
  warnings: string[];
}

function responseRecords(file: SourceFile): Record<string, unknown>[] {
  const data = Array.isArray(file.data) ? file.data : asRecord(file.data) ? [file.data] : undefined;
  if (!data || data.length === 0) {
    throw new FormatError("", "LLMPerf's individual responses should be a non-empty list of per-request records.");
  }
  return data.map((value, index) => {
    const record = asRecord(value);
    if (!record) throw new FormatError(`[${index}]`, `[${index}] should be a per-request record object.`);
    return record;
  });
}

/**
 * Everything a `*_individual_responses.json` file supports, without a load level: request counts, the
 * latency statistics over the successful requests (as LLMPerf's summary computes them) and the token
 * totals. Not the overall throughput or the concurrency, which the file does not state.
 */
export function summarizeIndividualResponses(file: SourceFile): IndividualResponsesSummary {
  const records = responseRecords(file);
  const ok: Array<{ record: Record<string, unknown>; index: number }> = [];
  let failed = 0;
  records.forEach((record, index) => {
    const code = record.error_code;
    // LLMPerf counts a request as errored when error_code is set (pandas: not NaN/None).
    if (code === undefined || code === null || isNaNValue(code)) ok.push({ record, index });
    else failed += 1;
  });
  const builder = new PointBuilder("individual responses");
  builder.set("completed", ok.length, "error_code (requests without one)");
  builder.set("failed", failed, "error_code (requests with one)");
  const warnings: string[] = [];
  for (const [source, metric] of LATENCIES) {
    const values: number[] = [];
    let nanCount = 0;
    for (const { record, index } of ok) {
      const value = figure(record, source, `[${index}]`);
      if (isNaNValue(value)) nanCount += 1;
      const number = toNumber(value);
      if (number !== null) values.push(number);
    }
    if (nanCount > 0)
      warnings.push(
        `individual responses: ${nanCount} successful request(s) have ${source} NaN; left out of its statistics.`,
      );
    const stats = describeValues(values);
    for (const [stat, value] of Object.entries(stats) as Array<[Stat, number]>) {
      builder.setStats(metric, { [stat]: { value, source: `${source} (${stat} over successful requests)` } }, "s");
    }
    // The summary's other quantiles, p25 and p75, computed the same way (pandas' linear quantile).
    if (values.length > 0) {
      const sorted = [...values].sort((a, b) => a - b);
      for (const p of [25, 75])
        builder.percentile(metric, p, percentileOfSorted(sorted, p), `${source} (p${p} over successful requests)`, "s");
    }
  }
  for (const [source, field] of [
    ["number_input_tokens", "total_input_tokens"],
    ["number_output_tokens", "total_output_tokens"],
  ] as const) {
    let total = 0;
    let seen = 0;
    for (const { record, index } of ok) {
      const number = toNumber(figure(record, source, `[${index}]`));
      if (number !== null) {
        total += number;
        seen += 1;
      }
    }
    if (seen > 0) builder.set(field, total, `${source} (sum over successful requests)`);
  }
  const point = builder.build();
  return {
    requests: records.length,
    completed: ok.length,
    failed,
    point,
    warnings: [...warnings, ...builder.warnings],
  };
}

/**
 * A fragment from an individual-responses file once its load level is known (a person supplied the
 * concurrency the run used, or the matching summary states it). The figures are the file's; the level is not.
 */
export function individualResponsesFragment(
  file: SourceFile,
  level: { concurrency: number; source: string },
): Fragment {
  const summary = summarizeIndividualResponses(file);
  const concurrency = toConcurrency(level.concurrency);
  if (concurrency === null)
    throw new FormatError("", `${JSON.stringify(level.concurrency)} is not a concurrency level.`);
  const { sources, ...figures } = summary.point;
  const point: ResultPoint = { concurrency, ...figures, sources: { concurrency: level.source, ...sources } };
  return { format: "llmperf", file: file.name, part: "", context: {}, points: [point], warnings: summary.warnings };
}

/**
 * The file on its own is no load point: it states neither the concurrency nor the overall throughput. It is
 * checked (a broken record throws FormatError) and then reported as skipped, so that uploading a whole results
 * folder (summary and individual responses together) imports the summary instead of failing on this file.
 */
function parseIndividual(file: SourceFile): Fragment[] {
  summarizeIndividualResponses(file);
  return [];
}

export const llmperfIndividualParser: FormatParser = {
  id: "llmperf",
  label:
    "LLMPerf *_individual_responses.json (per-request records without the run's concurrency or throughput: upload the matching *_summary.json)",
  signature:
    "a list of per-request records with `ttft_s`, `end_to_end_latency_s`, `inter_token_latency_s` and `error_code` / `number_output_tokens`",
  detect(file: SourceFile): boolean {
    try {
      const data = Array.isArray(file.data) ? file.data : [file.data];
      return data.length > 0 && data.every(isResponseRecord);
    } catch {
      return false;
    }
  },
  parse: parseIndividual,
};
