/**
 * NVIDIA AIPerf (ai-dynamo/aiperf) and its predecessor GenAI-Perf (triton-inference-server/perf_analyzer).
 * One run of either tool is one load point, written to one artifacts folder:
 *
 * - `profile_export_aiperf.json` (AIPerf) / `profile_export_genai_perf.json` (GenAI-Perf): the summary.
 *   Each metric is an object with its `unit` and statistics (`avg`, `p50`, `p99`, `std`, …). Three AIPerf
 *   generations are known: the early one (Oct 2025) with the metrics under `records`, keyed by tags such
 *   as `ttft`; `schema_version` 1.0 (aiperf 0.8) and later, with the metrics at the top level and the
 *   load in `input_config.phases`. GenAI-Perf writes the metrics at the top level with an `input_config`
 *   that is either the flat argparse namespace (`concurrency`, `request_rate`) or, in later versions,
 *   sections (`perf_analyzer.stimulus`).
 * - `profile_export_aiperf.csv`: the same summary, rounded to two decimals, without the configuration
 *   (so without the load level or the model). Recognized, not imported: see `aiperfCsvFigures` (aiperf-csv.ts).
 * - `profile_export.jsonl`: one record per request. Recognized, not imported: it states no load level
 *   either. `summarizeAiperfRecords` derives the summary's figures from it.
 * - `sweep_aggregate/profile_export_aiperf_sweep.json` (and the multi-run `*_aggregate.json`): statistics
 *   over the per-run files of a sweep. Recognized, not imported: the load points are the per-run files.
 *
 * Definitions (from both tools' source): `inter_token_latency` = (request latency − TTFT) / (output
 * tokens − 1), vLLM's TPOT; `inter_chunk_latency` = the gaps between streamed chunks, vLLM's ITL.
 */

import type { LatencyMetric, ResultPoint } from "@/lib/document/schema";
import { summarize } from "@/lib/stats";
import { aiperfCsvParser } from "./aiperf-csv";
import {
  describeValue,
  finish,
  LATENCIES,
  type MetricLookup,
  objectMetrics,
  type Stat,
  setFigures,
  timeUnit,
} from "./aiperf-metrics";
import { setTelemetryFigures } from "./aiperf-telemetry";
import {
  asRecord,
  get,
  isoTimestamp,
  PointBuilder,
  requestRate,
  TO_MS,
  toConcurrency,
  toCount,
  toNumber,
} from "./common";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

/** Tags whose presence (as an object with a unit) marks a metrics container of these tools. */
const CORE_TAGS = [
  "request_throughput",
  "request_latency",
  "time_to_first_token",
  "ttft",
  "output_token_throughput",
  "request_count",
];

/* ------------------------------------------------------------------------------------------------------ */
/* profile_export_aiperf.json / profile_export_genai_perf.json                                              */

function hasMetricObjects(container: Record<string, unknown> | undefined): boolean {
  if (!container) return false;
  return CORE_TAGS.some((tag) => {
    const metric = asRecord(container[tag]);
    return metric !== undefined && "unit" in metric && ("avg" in metric || "p50" in metric);
  });
}

type ProfileShape = "aiperf-early" | "aiperf" | "genai-perf";

function profileShape(data: unknown): ProfileShape | undefined {
  const record = asRecord(data);
  if (!record) return undefined;
  if ("aggregation_type" in record) return undefined;
  const inputConfig = asRecord(record.input_config);
  if (
    hasMetricObjects(asRecord(record.records)) &&
    (inputConfig || "start_time" in record || "was_cancelled" in record)
  )
    return "aiperf-early";
  if (!hasMetricObjects(record)) return undefined;
  if ("aiperf_version" in record || "schema_version" in record) return "aiperf";
  if (!inputConfig) return undefined;
  // AIPerf 1.x always states its version; a top-level metrics object with an input_config but no version is GenAI-Perf.
  return "genai-perf";
}

interface Level {
  concurrency?: { value: unknown; source: string };
  rate?: { value: unknown; source: string };
}

function levelFrom(
  record: Record<string, unknown> | undefined,
  prefix: string,
  concurrencyKey: string,
  rateKey: string,
): Level {
  const level: Level = {};
  if (!record) return level;
  const concurrency = record[concurrencyKey];
  const rate = record[rateKey];
  if (concurrency !== undefined && concurrency !== null) {
    const source = `${prefix}${concurrencyKey}`;
    if (toConcurrency(concurrency) === null) {
      throw new FormatError(
        source,
        `${source} should be a positive whole number, but it is ${describeValue(concurrency)}.`,
      );
    }
    level.concurrency = { value: concurrency, source };
  }
  if (rate !== undefined && rate !== null) {
    const source = `${prefix}${rateKey}`;
    if (requestRate(rate) === null)
      throw new FormatError(source, `${source} should be a positive request rate, but it is ${describeValue(rate)}.`);
    level.rate = { value: rate, source };
  }
  return level;
}

/** The profiling phase(s) of `input_config.phases` (AIPerf schema 1.x); warmup phases are excluded from results. */
function phaseLevel(phases: unknown[]): Level | undefined {
  const profiling = phases
    .map((phase, index) => ({ phase: asRecord(phase), index }))
    .filter(
      ({ phase }) =>
        phase !== undefined &&
        phase.kind !== "warmup" &&
        phase.name !== "warmup" &&
        phase.exclude_from_results !== true,
    );
  if (profiling.length === 0) return undefined;
  const levels = profiling.map(({ phase, index }) =>
    levelFrom(phase, `input_config.phases.${index}.`, "concurrency", "rate"),
  );
  const key = (level: Level) =>
    JSON.stringify([toConcurrency(level.concurrency?.value), requestRate(level.rate?.value)]);
  if (levels.some((level) => key(level) !== key(levels[0]!))) {
    throw new FormatError(
      "input_config.phases",
      `input_config.phases has ${profiling.length} profiling phases at different load levels; the file's figures cover them together, so they are not one load point.`,
    );
  }
  return levels[0];
}

function loadLevel(inputConfig: Record<string, unknown>): Level {
  const candidates: Level[] = [];
  const phases = inputConfig.phases;
  if (Array.isArray(phases)) {
    const level = phaseLevel(phases);
    if (level) candidates.push(level);
  }
  candidates.push(levelFrom(asRecord(inputConfig.loadgen), "input_config.loadgen.", "concurrency", "request_rate"));
  candidates.push(
    levelFrom(
      asRecord(get(inputConfig, "perf_analyzer.stimulus")),
      "input_config.perf_analyzer.stimulus.",
      "concurrency",
      "request_rate",
    ),
  );
  candidates.push(levelFrom(inputConfig, "input_config.", "concurrency", "request_rate"));
  for (const level of candidates) if (level.concurrency || level.rate) return level;
  throw new FormatError(
    "input_config",
    "input_config states neither a concurrency nor a request rate (looked in phases, loadgen, perf_analyzer.stimulus and at its top level), so the run has no load level.",
  );
}

function statedLevel(inputConfig: Record<string, unknown> | undefined, file: SourceFile): Level {
  const given = file.level;
  const fromOutside = (): Level => ({
    ...(given?.concurrency !== undefined ? { concurrency: { value: given.concurrency, source: given.source } } : {}),
    ...(given?.request_rate !== undefined ? { rate: { value: given.request_rate, source: given.source } } : {}),
  });
  if (!inputConfig) return fromOutside();
  try {
    return loadLevel(inputConfig);
  } catch (error) {
    // input_config states no level at all: a level from outside the file fills it; a broken one is still refused.
    if (given && error instanceof FormatError && error.path === "input_config") return fromOutside();
    throw error;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function names(value: unknown): string | undefined {
  if (typeof value === "string") return text(value);
  if (!Array.isArray(value)) return undefined;
  const list = value
    .map((item) => text(item) ?? text(asRecord(item)?.name))
    .filter((item): item is string => item !== undefined);
  return list.length > 0 ? list.join(", ") : undefined;
}

function basename(path: unknown): string | undefined {
  const value = text(path);
  return value ? value.split(/[\\/]/).filter(Boolean).pop() : undefined;
}

function temperatureOf(...extras: unknown[]): number | undefined {
  for (const extra of extras) {
    const temperature = toNumber(asRecord(extra)?.temperature);
    if (temperature !== null && temperature >= 0 && temperature <= 100) return temperature;
  }
  return undefined;
}

type Workload = NonNullable<RunContext["workload"]>;

/**
 * GenAI-Perf states the engine only when it drives Triton Inference Server (`service_kind` "triton"), whose
 * requests it shapes for the named Triton backend, or the TensorRT-LLM engine in process
 * ("tensorrtllm_engine"). With the OpenAI service kind, `backend` is an unused default.
 */
function genaiPerfEngine(service: string | undefined, backend: unknown): string | undefined {
  if (service === "tensorrtllm_engine") return "tensorrt-llm";
  if (service !== "triton") return undefined;
  const name = text(backend)?.toLowerCase();
  if (name === "vllm") return "vllm";
  if (name === "tensorrtllm" || name === "trtllm" || name === "tensorrt-llm") return "tensorrt-llm";
  return undefined;
}

function setWorkload(workload: Workload, field: "input_len" | "output_len" | "num_prompts", value: unknown): void {
  const count = toCount(value);
  if (count !== null && count > 0) workload[field] = count;
}

/** Model, workload and tool details the profile's input_config states, for each generation's layout. */
function profileContext(record: Record<string, unknown>, shape: ProfileShape, metrics: MetricLookup): RunContext {
  const config = asRecord(record.input_config) ?? {};
  const context: RunContext = {};
  const workload: Workload = {};
  const metadata: Record<string, string | number | boolean> = {};
  let model: string | undefined;
  let engine: string | undefined;
  let endpointType: unknown;
  let streaming: unknown;
  let url: unknown;

  if (shape === "aiperf-early") {
    metadata.tool = "aiperf";
    model = names(get(config, "endpoint.model_names"));
    endpointType = get(config, "endpoint.type");
    streaming = get(config, "endpoint.streaming");
    url = get(config, "endpoint.url");
    setWorkload(workload, "input_len", get(config, "input.prompt.input_tokens.mean"));
    setWorkload(workload, "output_len", get(config, "input.prompt.output_tokens.mean"));
    setWorkload(workload, "num_prompts", get(config, "loadgen.request_count"));
    const dataset = text(get(config, "input.public_dataset")) ?? basename(get(config, "input.file"));
    if (dataset) workload.dataset = dataset;
    const temperature = temperatureOf(get(config, "input.extra"), get(config, "endpoint.extra"));
    if (temperature !== undefined) workload.temperature = temperature;
  } else if (shape === "aiperf") {
    metadata.tool = "aiperf";
    model = names(get(config, "models.items")) ?? names(get(config, "endpoint.model_names"));
    endpointType = get(config, "endpoint.type");
    streaming = get(config, "endpoint.streaming");
    url = names(get(config, "endpoint.urls")) ?? get(config, "endpoint.url");
    const datasets = Array.isArray(config.datasets) ? config.datasets : [];
    const dataset = asRecord(datasets[0]);
    if (datasets.length === 1 && dataset) {
      const name = basename(dataset.path) ?? text(dataset.type);
      if (name) workload.dataset = name;
      setWorkload(workload, "input_len", get(dataset, "prompts.isl.mean"));
      setWorkload(workload, "output_len", get(dataset, "prompts.osl.mean"));
    }
    // Versions between the early layout and schema 1.x keep the early input/loadgen sections.
    if (workload.input_len === undefined)
      setWorkload(workload, "input_len", get(config, "input.prompt.input_tokens.mean"));
    if (workload.output_len === undefined)
      setWorkload(workload, "output_len", get(config, "input.prompt.output_tokens.mean"));
    const phases = Array.isArray(config.phases) ? config.phases : [];
    const profiling = phases
      .map(asRecord)
      .filter(
        (phase) => phase && phase.kind !== "warmup" && phase.name !== "warmup" && phase.exclude_from_results !== true,
      );
    if (profiling.length === 1) setWorkload(workload, "num_prompts", profiling[0]?.requests);
    else if (phases.length === 0) setWorkload(workload, "num_prompts", get(config, "loadgen.request_count"));
    const temperature = temperatureOf(get(config, "endpoint.extra"));
    if (temperature !== undefined) workload.temperature = temperature;
    for (const key of ["aiperf_version", "schema_version"] as const) {
      const value = text(record[key]);
      if (value) metadata[key] = value;
    }
  } else {
    metadata.tool = "genai-perf";
    if ("model_names" in config || "perf_analyzer" in config) {
      // Sectioned input_config (GenAI-Perf's config-file era).
      model = names(config.model_names);
      endpointType = get(config, "endpoint.type");
      streaming = get(config, "endpoint.streaming");
      url = get(config, "endpoint.url");
      const source = text(get(config, "input.prompt_source"));
      if (source === undefined || source === "synthetic") {
        setWorkload(workload, "input_len", get(config, "input.synthetic_tokens.mean"));
        if (source === "synthetic") workload.dataset = "synthetic";
      } else {
        const file = basename(get(config, "input.file"));
        if (file) workload.dataset = file;
      }
      setWorkload(workload, "output_len", get(config, "input.output_tokens.mean"));
      const temperature = temperatureOf(get(config, "input.extra"));
      if (temperature !== undefined) workload.temperature = temperature;
      const service = text(get(config, "endpoint.service_kind"));
      if (service) metadata.service_kind = service;
      engine = genaiPerfEngine(service, get(config, "endpoint.backend"));
    } else {
      // The argparse namespace of earlier GenAI-Perf versions.
      model = names(config.model);
      endpointType = config.endpoint_type;
      streaming = config.streaming;
      url = config.u ?? config.url;
      const source = text(config.prompt_source);
      const dataset = text(config.input_dataset) ?? basename(config.input_file);
      if (dataset) workload.dataset = dataset;
      else if (source === "synthetic") workload.dataset = "synthetic";
      if (source === undefined || source === "synthetic")
        setWorkload(workload, "input_len", config.synthetic_input_tokens_mean);
      setWorkload(workload, "output_len", config.output_tokens_mean);
      const temperature = temperatureOf(config.extra_inputs);
      if (temperature !== undefined) workload.temperature = temperature;
      const service = text(config.service_kind);
      if (service) metadata.service_kind = service;
      engine = genaiPerfEngine(service, config.backend);
    }
  }

  if (model) context.model = model;
  if (engine) context.engine = engine;
  if (Object.keys(workload).length > 0) context.workload = workload;
  const endpoint = text(endpointType);
  if (endpoint) metadata.endpoint_type = endpoint;
  if (typeof streaming === "boolean") metadata.streaming = streaming;
  const urlText = text(url);
  if (urlText) metadata.url = urlText;

  // start_time is written with datetime.fromtimestamp: local time without a zone. The first request's
  // timestamp (ns since the epoch) is exact, so it dates the run when the file has it.
  const firstRequest = metrics("min_request_timestamp");
  const firstValue = firstRequest ? toNumber(firstRequest.stat("avg")) : null;
  if (firstRequest && firstValue !== null) {
    const ms = firstValue * TO_MS[timeUnit(firstRequest.unit, firstRequest.path)];
    const iso = isoTimestamp(ms / 1000);
    if (iso) context.measured_at = iso;
  } else {
    const start = text(record.start_time);
    if (start && /(Z|[+-]\d{2}:?\d{2})$/.test(start)) {
      const iso = isoTimestamp(start);
      if (iso) context.measured_at = iso;
    }
  }
  const start = text(record.start_time);
  if (start) metadata.start_time = start;
  if (record.was_cancelled === true) metadata.was_cancelled = true;
  context.metadata = metadata;
  return context;
}

function parseProfile(file: SourceFile): Fragment[] {
  const record = asRecord(file.data);
  const shape = profileShape(file.data);
  if (!record || !shape)
    throw new FormatError("", "This is not an AIPerf / GenAI-Perf profile export (no metric objects with a unit).");
  const inputConfig = asRecord(record.input_config);
  if (!inputConfig && !file.level) {
    throw new FormatError(
      "input_config",
      "input_config is missing, so the run's concurrency or request rate is unknown.",
    );
  }
  const metrics =
    shape === "aiperf-early" ? objectMetrics(asRecord(record.records)!, "records.") : objectMetrics(record, "");
  // The level the file states; only a file that states none takes one from its folder's name or the person.
  const level = statedLevel(inputConfig, file);
  const builder = new PointBuilder(file.name);
  if (level.concurrency) builder.concurrency(level.concurrency.value, level.concurrency.source);
  if (level.rate) builder.requestRate(level.rate.value, level.rate.source);
  setFigures(builder, metrics, record.error_summary);
  // AIPerf states GPU telemetry (`--gpu-telemetry`) beside the summary; GenAI-Perf's is in another file.
  if (shape !== "genai-perf") setTelemetryFigures(builder, record.telemetry_data);
  const { point, warnings } = finish(builder, file.name);
  return [
    {
      format: "aiperf",
      file: file.name,
      part: "",
      context: profileContext(record, shape, metrics),
      points: [point],
      warnings,
      notImported: builder.notImported(file.name),
    },
  ];
}

export const aiperfProfileParser: FormatParser = {
  id: "aiperf",
  label: "AIPerf profile_export_aiperf.json / GenAI-Perf profile_export_genai_perf.json",
  signature:
    "metric objects with a `unit` and `avg`/`p50` (`request_throughput`, `request_latency`, `time_to_first_token`…) at the top level with `aiperf_version`/`schema_version` or an `input_config`, or under `records` (early AIPerf)",
  detect(file: SourceFile): boolean {
    try {
      return file.kind !== "csv" && profileShape(file.data) !== undefined;
    } catch {
      return false;
    }
  },
  parse: parseProfile,
};

/* ------------------------------------------------------------------------------------------------------ */
/* Sweep and multi-run aggregates                                                                           */

function isAggregate(data: unknown): boolean {
  const record = asRecord(data);
  if (!record) return false;
  const type = record.aggregation_type ?? get(record, "metadata.aggregation_type");
  if (type !== "sweep" && type !== "confidence" && type !== "detailed") return false;
  return ["per_combination_metrics", "per_value_metrics", "metrics", "num_profile_runs"].some((key) => key in record);
}

export const aiperfAggregateParser: FormatParser = {
  id: "aiperf",
  label: "AIPerf sweep / multi-run aggregate (profile_export_aiperf_sweep.json, *_aggregate.json)",
  signature:
    '`aggregation_type` "sweep", "confidence" or "detailed" with `per_combination_metrics`, `per_value_metrics` or `metrics`',
  detect(file: SourceFile): boolean {
    try {
      return file.kind !== "csv" && isAggregate(file.data);
    } catch {
      return false;
    }
  },
  // Statistics over the per-run profile_export_aiperf.json files, which are the load points (and carry the
  // model and configuration this file lacks). Nothing of its own to import.
  parse: () => [],
};

/* ------------------------------------------------------------------------------------------------------ */
/* profile_export.jsonl                                                                                     */

function isRecordLine(value: unknown): boolean {
  const record = asRecord(value);
  if (!record) return false;
  const metadata = asRecord(record.metadata);
  const metrics = asRecord(record.metrics);
  if (!metadata || !metrics) return false;
  const marked = [
    "x_request_id",
    "credit_phase",
    "benchmark_phase",
    "request_start_ns",
    "record_processor_id",
    "conversation_id",
  ].some((key) => key in metadata);
  const values = Object.values(metrics);
  return (
    marked &&
    values.length > 0 &&
    values.every((metric) => asRecord(metric) !== undefined && "value" in asRecord(metric)!)
  );
}

function recordLines(file: SourceFile): Record<string, unknown>[] {
  const data = Array.isArray(file.data) ? file.data : [file.data];
  return data.map((line, index) => {
    if (!isRecordLine(line))
      throw new FormatError(`${index}`, `line ${index + 1} is not an AIPerf per-request record (metadata + metrics).`);
    return line as Record<string, unknown>;
  });
}

/** Linear interpolation between closest ranks: numpy's default percentile, which AIPerf uses. */
function describeValues(values: readonly number[]): Partial<Record<Stat, number>> {
  // Population standard deviation (numpy's np.std), as AIPerf's summary.
  return summarize(values) ?? {};
}

export interface AiperfRecordsSummary {
  /** Profiling-phase records (warmup records are left out, as AIPerf does). */
  records: number;
  completed: number;
  failed: number;
  /** The summary's figures recomputed from the records; no load level (the records state none). */
  point: ResultPoint;
  warnings: string[];
}

/**
 * What `profile_export.jsonl` supports on its own: request counts, latency statistics over the successful
 * requests (mean, linear-interpolated percentiles and population std, as AIPerf computes them; inter-chunk
 * gaps pooled over all requests), token totals, the duration from the first request to the last response
 * and the throughputs over it. Everything but the load level and the model.
 */
export function summarizeAiperfRecords(file: SourceFile): AiperfRecordsSummary {
  const lines = recordLines(file);
  const values = new Map<string, number[]>();
  const sums = new Map<string, number>();
  let completed = 0;
  let failed = 0;
  let records = 0;
  let first: number | undefined;
  let last: number | undefined;
  const tagOf = new Map<string, string>();

  lines.forEach((line, index) => {
    const metadata = asRecord(line.metadata)!;
    const phase = metadata.benchmark_phase ?? metadata.credit_phase;
    if (phase !== undefined && phase !== "profiling") return;
    records += 1;
    if (line.error !== undefined && line.error !== null) {
      failed += 1;
      return;
    }
    completed += 1;
    const metrics = asRecord(line.metrics)!;
    const read = (tag: string): { value: unknown; unit: unknown; path: string } | undefined => {
      const metric = asRecord(metrics[tag]);
      return metric ? { value: metric.value, unit: metric.unit, path: `${index}.metrics.${tag}` } : undefined;
    };
    for (const { tags, metric: name } of LATENCIES) {
      const tag = tags.find((candidate) => metrics[candidate] !== undefined);
      if (!tag) continue;
      tagOf.set(name, tag);
      const metric = read(tag)!;
      const factor = TO_MS[timeUnit(metric.unit, metric.path)];
      const list = values.get(name) ?? [];
      for (const [position, value] of (Array.isArray(metric.value) ? metric.value : [metric.value]).entries()) {
        const number = toNumber(value);
        if (number === null) {
          const where = Array.isArray(metric.value) ? `${metric.path}.value.${position}` : `${metric.path}.value`;
          throw new FormatError(where, `${where} should be a number, but it is ${describeValue(value)}.`);
        }
        list.push(number * factor);
      }
      values.set(name, list);
    }
    for (const tag of ["input_sequence_length", "output_sequence_length"]) {
      const metric = read(tag);
      if (!metric) continue;
      const number = toNumber(metric.value);
      if (number === null) throw new FormatError(`${metric.path}.value`, `${metric.path}.value should be a number.`);
      sums.set(tag, (sums.get(tag) ?? 0) + number);
    }
    for (const [tag, pick] of [
      ["min_request_timestamp", "first"],
      ["max_response_timestamp", "last"],
    ] as const) {
      const metric = read(tag);
      if (!metric) continue;
      const number = toNumber(metric.value);
      if (number === null) throw new FormatError(`${metric.path}.value`, `${metric.path}.value should be a number.`);
      // Kept in ns (AIPerf's unit for these): a timestamp near 1.8e18 ns has no precision to spare.
      const unit = timeUnit(metric.unit, metric.path);
      const ns = unit === "ns" ? number : number * TO_MS[unit] * 1e6;
      if (pick === "first") first = first === undefined ? ns : Math.min(first, ns);
      else last = last === undefined ? ns : Math.max(last, ns);
    }
  });

  const builder = new PointBuilder(file.name);
  builder.set("completed", completed, "error (records without one)");
  builder.set("failed", failed, "error (records with one)");
  for (const [name, list] of values) {
    const tag = tagOf.get(name)!;
    const stats = describeValues(list);
    for (const [stat, value] of Object.entries(stats) as Array<[Stat, number]>) {
      builder.setStats(name as LatencyMetric, {
        [stat]: { value, source: `metrics.${tag}.value (${stat} over records)` },
      });
    }
  }
  const totalIn = sums.get("input_sequence_length");
  const totalOut = sums.get("output_sequence_length");
  if (totalIn !== undefined) builder.set("total_input_tokens", totalIn, "metrics.input_sequence_length.value (sum)");
  if (totalOut !== undefined)
    builder.set("total_output_tokens", totalOut, "metrics.output_sequence_length.value (sum)");
  if (first !== undefined && last !== undefined && last > first) {
    const seconds = (last - first) / 1e9;
    const durationSource = "metrics.max_response_timestamp.value (max) − metrics.min_request_timestamp.value (min)";
    builder.set("duration_s", seconds, durationSource, "s");
    builder.set("request_throughput", completed / seconds, `completed / (${durationSource})`);
    if (totalOut !== undefined)
      builder.set(
        "output_throughput",
        totalOut / seconds,
        `metrics.output_sequence_length.value (sum) / (${durationSource})`,
      );
  }
  const point = builder.build();
  return { records, completed, failed, point, warnings: builder.warnings };
}

export const aiperfRecordsParser: FormatParser = {
  id: "aiperf",
  label: "AIPerf profile_export.jsonl (per-request records; the load level is in profile_export_aiperf.json)",
  signature:
    "JSON lines, each with `metadata` (`x_request_id`, `credit_phase`/`benchmark_phase`…) and `metrics` of `{ value, unit }`",
  detect(file: SourceFile): boolean {
    try {
      if (file.kind === "csv") return false;
      const data = Array.isArray(file.data) ? file.data : [file.data];
      return data.length > 0 && data.every(isRecordLine);
    } catch {
      return false;
    }
  },
  parse(file: SourceFile): Fragment[] {
    // Read it, so a broken file is reported; but per-request records state no load level (nor model):
    // profile_export_aiperf.json of the same run summarizes these records and states both.
    summarizeAiperfRecords(file);
    return [];
  },
};

/** Every AIPerf / GenAI-Perf parser, most specific first. */
export const aiperfParsers: readonly FormatParser[] = [
  aiperfProfileParser,
  aiperfAggregateParser,
  aiperfCsvParser,
  aiperfRecordsParser,
];
