/**
 * SGLang's genai-bench (github.com/sgl-project/genai-bench) `genai-bench benchmark`: an experiment folder with one
 * JSON file per traffic scenario and load level, named `<scenario>_<task>_num_concurrency_<N>_time_<T>s.json`,
 * holding `aggregated_metrics` (written by AggregatedMetricsCollector.save) and `individual_request_metrics` (one
 * record per request), and the experiment's `experiment_metadata.json` (its settings: model, command, the
 * scenarios and concurrencies it ran).
 *
 * Each run file is one load point; the files of one scenario become one run (their context differs only by level).
 * The level is the configured concurrency, `aggregated_metrics.num_concurrency`, never a measured rate. The metadata
 * file holds no load point: it is recognized and reported as skipped.
 */
import { asRecord, describeValue, get, isNaNValue, PointBuilder, type TimeUnit, toNumber } from "./common";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

/** servebench metric ← genai-bench's `stats` entry. genai-bench's tpot is output_latency / (output tokens − 1). */
const LATENCIES = [
  ["ttft", "ttft"],
  ["tpot", "tpot"],
  ["e2el", "e2e_latency"],
] as const;

/** The percentiles every genai-bench StatField states (np.percentile over the completed requests). */
const PERCENTILES = [25, 50, 75, 90, 95, 99] as const;

/** What the point keeps of the figures no servebench field holds, by path: the reason for the import report. */
const REASONS: ReadonlyArray<[RegExp, string]> = [
  [
    /^individual_request_metrics\[\d+\]/,
    "a per-request record; the point keeps genai-bench's own statistics over the completed requests (aggregated_metrics.stats)",
  ],
  [
    /^aggregated_metrics\.stats\.output_latency\./,
    "output latency (end-to-end latency minus TTFT): the point keeps TPOT, which genai-bench derives from it, and the end-to-end latency",
  ],
  [
    /^aggregated_metrics\.stats\.output_inference_speed\./,
    "per-request decode speed (1 / TPOT, tok/s): the point keeps TPOT itself",
  ],
  [
    /^aggregated_metrics\.stats\.(input_throughput|output_throughput)\./,
    "a per-request throughput (tokens of one request over its own prefill or decode time), not the server's: the point keeps the server's output throughput",
  ],
  [
    /^aggregated_metrics\.stats\.(num_input_tokens|num_output_tokens|total_tokens|num_reasoning_tokens)\./,
    "a statistic of the per-request token counts: the point keeps the input and output token totals",
  ],
  [
    /^aggregated_metrics\.stats\.(ttft|tpot|e2e_latency)\.sum$/,
    "the sum of the per-request latencies, no figure of a load point",
  ],
  [
    /^aggregated_metrics\.mean_input_throughput_tokens_per_s$/,
    "input tokens per second over the run: servebench keeps output and total token throughput",
  ],
  [
    /^aggregated_metrics\.mean_total_chars_per_hour$/,
    "characters per hour (the output tokens converted with the experiment's character-to-token ratio): no servebench field",
  ],
  [/^aggregated_metrics\.error_rate$/, "failed / all requests: the point keeps both counts"],
  [/^aggregated_metrics\.num_requests$/, "completed + failed requests: the point keeps both counts"],
  [
    /^aggregated_metrics\.error_codes_frequency\./,
    "failed requests by HTTP status code: the point keeps the number of failed requests",
  ],
  [
    /^aggregated_metrics\.(total_arrivals|arrival_requests_per_second)$/,
    "how many requests arrived and at what measured rate: a measurement, never the load level, which is the configured concurrency",
  ],
  [
    /^aggregated_metrics\.batch_size$/,
    "the embedding batch size, 1 for a generation (text-to-text) task: the load level is the concurrency",
  ],
];

function runFileDetect(file: SourceFile): boolean {
  if (file.kind !== "json") return false;
  const data = asRecord(file.data);
  const aggregated = asRecord(data?.aggregated_metrics);
  return (
    aggregated !== undefined &&
    asRecord(aggregated.stats) !== undefined &&
    "scenario" in aggregated &&
    ("num_concurrency" in aggregated || "batch_size" in aggregated)
  );
}

function metadataDetect(file: SourceFile): boolean {
  if (file.kind !== "json") return false;
  const data = asRecord(file.data);
  return (
    data !== undefined &&
    Array.isArray(data.traffic_scenario) &&
    typeof data.iteration_type === "string" &&
    "api_backend" in data &&
    ("num_concurrency" in data || "batch_size" in data)
  );
}

/** A figure: absent, null or NaN are fine (PointBuilder handles them); another non-number breaks the file. */
function figure(data: unknown, path: string): unknown {
  const value = get(data, path);
  if (value === undefined || value === null || isNaNValue(value)) return value;
  if (toNumber(value) === null)
    throw new FormatError(path, `${path} should be a number, but it is ${describeValue(value)}.`);
  return value;
}

/** The unit of the latencies: `_time_unit` ("s" or "ms", from --metrics-time-unit); files before it are in seconds. */
function timeUnit(data: Record<string, unknown>): TimeUnit {
  const unit = data._time_unit;
  if (unit === undefined || unit === null || unit === "s") return "s";
  if (unit === "ms") return "ms";
  throw new FormatError("_time_unit", `_time_unit should be "s" or "ms", but it is ${describeValue(unit)}.`);
}

/** The configured concurrency of the run: a whole number ≥ 1, or the file cannot be filed. */
function concurrencyOf(aggregated: Record<string, unknown>): number {
  const path = "aggregated_metrics.num_concurrency";
  const iteration = aggregated.iteration_type;
  if (iteration !== undefined && iteration !== null && iteration !== "num_concurrency") {
    throw new FormatError(
      "aggregated_metrics.iteration_type",
      `aggregated_metrics.iteration_type is ${describeValue(iteration)}: this run swept ${String(iteration)} (an embedding or rerank task), not the concurrency of a generation benchmark, which is what servebench compares.`,
    );
  }
  const value = aggregated.num_concurrency;
  const number = toNumber(value);
  if (number !== null && number > 0 && !Number.isInteger(number)) {
    throw new FormatError(
      path,
      `${path} is ${number}, which is no concurrency: genai-bench forks that run at a fixed request rate (--qps-level) write that rate into num_concurrency. The file does not say which it is, so it is not imported.`,
    );
  }
  if (number === null || number < 1) {
    throw new FormatError(
      path,
      `${path} should be the run's concurrency (a whole number from 1 up), but it is ${describeValue(value ?? null)}.`,
    );
  }
  return number;
}

function context(aggregated: Record<string, unknown>): RunContext {
  const scenario = typeof aggregated.scenario === "string" ? aggregated.scenario.trim() : "";
  if (scenario === "") {
    throw new FormatError(
      "aggregated_metrics.scenario",
      `aggregated_metrics.scenario should name the traffic scenario (such as "D(100,100)"), but it is ${describeValue(aggregated.scenario ?? null)}.`,
    );
  }
  const workload: NonNullable<RunContext["workload"]> = { dataset: `genai-bench scenario ${scenario}` };
  // D(input,output): every prompt has `input` tokens and every reply is held to `output` tokens.
  const deterministic = /^D\((\d+),(\d+)\)$/.exec(scenario.replace(/\s+/g, ""));
  if (deterministic) {
    workload.input_len = Number(deterministic[1]);
    workload.output_len = Number(deterministic[2]);
  }
  return { workload, metadata: { genai_bench_scenario: scenario } };
}

function parseRunFile(file: SourceFile): Fragment[] {
  const data = asRecord(file.data);
  const aggregated = asRecord(data?.aggregated_metrics);
  if (!data || !aggregated) throw new FormatError("aggregated_metrics", "aggregated_metrics should be an object.");
  const stats = asRecord(aggregated.stats);
  if (!stats) throw new FormatError("aggregated_metrics.stats", "aggregated_metrics.stats should be an object.");
  const unit = timeUnit(data);
  const concurrency = concurrencyOf(aggregated);
  const builder = new PointBuilder(`concurrency ${concurrency}`);
  const at = (key: string) => `aggregated_metrics.${key}`;
  builder.concurrency(concurrency, at("num_concurrency"));
  builder.set("completed", figure(data, at("num_completed_requests")), at("num_completed_requests"));
  builder.set("failed", figure(data, at("num_error_requests")), at("num_error_requests"));
  builder.set("duration_s", figure(data, at("run_duration")), at("run_duration"), "s");
  builder.set(
    "output_throughput",
    figure(data, at("mean_output_throughput_tokens_per_s")),
    at("mean_output_throughput_tokens_per_s"),
  );
  builder.set(
    "total_token_throughput",
    figure(data, at("mean_total_tokens_throughput_tokens_per_s")),
    at("mean_total_tokens_throughput_tokens_per_s"),
  );
  if (aggregated.requests_per_second !== undefined) {
    builder.set("request_throughput", figure(data, at("requests_per_second")), at("requests_per_second"));
  } else {
    // Early versions state requests per minute instead.
    const perMinute = toNumber(figure(data, at("requests_per_minute")));
    if (perMinute !== null) builder.set("request_throughput", perMinute / 60, `${at("requests_per_minute")} / 60`);
  }
  builder.set("total_input_tokens", figure(data, at("stats.num_input_tokens.sum")), at("stats.num_input_tokens.sum"));
  builder.set(
    "total_output_tokens",
    figure(data, at("stats.num_output_tokens.sum")),
    at("stats.num_output_tokens.sum"),
  );
  for (const [metric, name] of LATENCIES) {
    const entry = stats[name];
    if (entry === undefined || entry === null) continue;
    if (!asRecord(entry)) {
      throw new FormatError(at(`stats.${name}`), `${at(`stats.${name}`)} should be an object of statistics.`);
    }
    const base = at(`stats.${name}`);
    builder.setStats(
      metric,
      {
        mean: { value: figure(data, `${base}.mean`), source: `${base}.mean` },
        std: { value: figure(data, `${base}.stddev`), source: `${base}.stddev` },
      },
      unit,
    );
    for (const p of PERCENTILES) builder.percentile(metric, p, figure(data, `${base}.p${p}`), `${base}.p${p}`, unit);
  }
  const point = builder.build();
  return [
    {
      format: "genai-bench",
      file: file.name,
      part: "",
      context: context(aggregated),
      points: [point],
      warnings: builder.warnings,
      root: "",
      notImported: builder.notImported(file.name),
    },
  ];
}

export const genaiBenchRunParser: FormatParser = {
  id: "genai-bench",
  label: "genai-bench run file (<scenario>_<task>_num_concurrency_<N>_time_<T>s.json)",
  signature:
    "an object with `aggregated_metrics` holding `scenario`, `num_concurrency` (or `batch_size`) and `stats` (per-metric min/max/mean/stddev/p25…p99), beside `individual_request_metrics`",
  notImportedReason(path: string): string | undefined {
    return REASONS.find(([pattern]) => pattern.test(path))?.[1];
  },
  detect(file: SourceFile): boolean {
    try {
      return runFileDetect(file);
    } catch {
      return false;
    }
  },
  parse: parseRunFile,
};

export const genaiBenchMetadataParser: FormatParser = {
  id: "genai-bench",
  label:
    "genai-bench experiment_metadata.json (the experiment's settings: model, command, scenarios and concurrencies; its load points are in the run files beside it, and the model and hardware are stated on the upload form)",
  signature:
    "an object with `traffic_scenario` (a list), `iteration_type`, `api_backend` and `num_concurrency` or `batch_size`",
  detect(file: SourceFile): boolean {
    try {
      return metadataDetect(file);
    } catch {
      return false;
    }
  },
  parse(): Fragment[] {
    return [];
  },
};

export const genaiBenchParsers: readonly FormatParser[] = [genaiBenchRunParser, genaiBenchMetadataParser];
