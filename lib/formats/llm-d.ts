/**
 * The llm-d benchmark report (llm-d/llm-d-benchmark, llmdbenchmark/analysis/benchmark_report): a cross-tool
 * standard, YAML or JSON, one report per load point. Two layouts:
 * - v0.1: `scenario` (host, platform.engine, model, load) and `metrics` (time, requests, latency, throughput).
 * - v0.2 and v0.2.1: `run`, `scenario` (stack of components, load with a standardized part) and
 *   `results.request_performance.aggregate` (requests, latency, throughput).
 * Every statistic carries explicit `units`; figures are converted by them.
 */

import { canonicalFlagName } from "@/lib/document/flags";
import {
  type FlagValue,
  PERCENTILE_METRICS,
  POWER_KEYS,
  POWER_SOURCES,
  type PowerSource,
  SERVER_METRIC_KEYS,
} from "@/lib/document/schema";
import { ownValue } from "@/lib/own-value";
import {
  asRecord,
  describeValue,
  get,
  isNaNValue,
  isoTimestamp,
  PointBuilder,
  type PointField,
  requestRate,
  type TimeUnit,
  toConcurrency,
  toCount,
  toNumber,
} from "./common";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

type Layout = "v0.1" | "v0.2";
type Metric = "ttft" | "tpot" | "itl" | "e2el" | "e2el_per_token";

const TIME_UNITS: Readonly<Record<string, TimeUnit>> = { ms: "ms", s: "s", "ms/token": "ms", "s/token": "s" };

function versionText(data: Record<string, unknown>): string | undefined {
  const version = data.version;
  if (typeof version === "string") return version.trim();
  if (typeof version === "number" && Number.isFinite(version)) return String(version);
  return undefined;
}

function isSchemaDocument(data: Record<string, unknown>): boolean {
  return "$defs" in data || "$schema" in data || ("properties" in data && "type" in data);
}

function isV02(record: Record<string, unknown>): boolean {
  return asRecord(record.run) !== undefined && asRecord(record.results) !== undefined;
}

function isV01(record: Record<string, unknown>): boolean {
  return (
    asRecord(record.scenario) !== undefined &&
    asRecord(get(record.metrics, "latency")) !== undefined &&
    asRecord(get(record.metrics, "throughput")) !== undefined
  );
}

/**
 * Which layout a decoded document has: its version when stated (then only that layout's sections are read),
 * else its sections.
 */
function layoutOf(data: unknown): Layout | undefined {
  const record = asRecord(data);
  if (!record) return undefined;
  const version = versionText(record);
  if (version !== undefined) {
    if (version.startsWith("0.2")) return isV02(record) ? "v0.2" : undefined;
    if (version.startsWith("0.1")) return isV01(record) ? "v0.1" : undefined;
    return undefined;
  }
  if (isV02(record) && asRecord(get(record.results, "request_performance")) !== undefined) return "v0.2";
  return isV01(record) ? "v0.1" : undefined;
}

function detect(file: SourceFile): boolean {
  if (file.kind !== "yaml" && file.kind !== "json") return false;
  const record = asRecord(file.data);
  // The published JSON Schemas describe reports; they are not reports.
  if (!record || isSchemaDocument(record)) return false;
  return layoutOf(record) !== undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** A scalar figure: absent, null and NaN pass (PointBuilder handles them); another non-number breaks the file. */
function figure(data: unknown, path: string): unknown {
  const value = get(data, path);
  if (value === undefined || value === null || isNaNValue(value)) return value;
  if (toNumber(value) === null) throw new FormatError(path, `${path} must be a number, got ${describeValue(value)}`);
  return value;
}

/** A statistics object ({units, mean, stddev, p50, …}), or undefined when absent. */
function statistics(data: unknown, path: string): Record<string, unknown> | undefined {
  const value = get(data, path);
  if (value === undefined || value === null) return undefined;
  const record = asRecord(value);
  if (!record)
    throw new FormatError(path, `${path} must be a statistics object with units and mean, got ${describeValue(value)}`);
  return record;
}

function unitsOf(stats: Record<string, unknown>, path: string): string {
  const units = stats.units;
  if (typeof units !== "string" || units.trim() === "") {
    throw new FormatError(`${path}.units`, `${path} states no units`);
  }
  return units.trim();
}

/** True for GuideLLM 0.4 and later, false for earlier versions, undefined when the version is not stated. */
function guidellmFrom04(version: string | undefined): boolean | undefined {
  const match = /(?<!\d)(\d+)\.(\d+)/.exec(version ?? "");
  if (!match) return undefined;
  return Number(match[1]) > 0 || Number(match[2]) >= 4;
}

interface LatencyMeaning {
  /** Report statistic → servebench metric, in order of precedence: a metric already set is not set again. */
  map: [string, Metric][];
  /** Statistics left out because their definition is not known, with the reason. */
  skip: [string, string][];
}

/**
 * What each latency statistic of the report means, by the tool that produced it (scenario.load…tool). The
 * schema describes time_per_output_token as excluding the first token and inter_token_latency as the gaps
 * between tokens, but llm-d-benchmark's converters fill them from each tool's own fields:
 * - guidellm: inter_token_latency ← GuideLLM inter_token_latency_ms, which is (e2e − TTFT) / (tokens − 1);
 *   time_per_output_token ← GuideLLM time_per_output_token_ms, which from GuideLLM 0.4 on is e2e / tokens
 *   (first token included) and before 0.4 was (last token − first token) / tokens, neither definition.
 * - aiperf: inter_token_latency ← AIPerf inter_token_latency, which is (e2e − TTFT) / (tokens − 1).
 * - vllm-benchmark, inferencemax, inference-perf and any other tool: as the schema describes (TPOT without the
 *   first token, ITL the gaps between streamed tokens); normalized_time_per_output_token is e2e / tokens.
 */
function latencyMeaning(tool: string | undefined, toolVersion: string | undefined): LatencyMeaning {
  switch (tool?.toLowerCase()) {
    case "guidellm": {
      const map: [string, Metric][] = [
        ["inter_token_latency", "tpot"],
        ["normalized_time_per_output_token", "e2el_per_token"],
      ];
      if (guidellmFrom04(toolVersion) === true)
        return { map: [...map, ["time_per_output_token", "e2el_per_token"]], skip: [] };
      const why =
        toolVersion === undefined
          ? "the report does not state the GuideLLM version, and before 0.4 GuideLLM computed it as (last token − first token) / output tokens"
          : `GuideLLM ${toolVersion} computed it as (last token − first token) / output tokens, neither TPOT nor e2e latency per token`;
      return { map, skip: [["time_per_output_token", why]] };
    }
    case "aiperf":
      return {
        map: [
          ["time_per_output_token", "tpot"],
          ["inter_token_latency", "tpot"],
          ["normalized_time_per_output_token", "e2el_per_token"],
        ],
        skip: [],
      };
    default:
      return {
        map: [
          ["time_per_output_token", "tpot"],
          ["inter_token_latency", "itl"],
          ["normalized_time_per_output_token", "e2el_per_token"],
        ],
        skip: [],
      };
  }
}

/** Set the latency statistics of a report's latency section, by the tool's meaning of each. */
function setToolLatencies(
  builder: PointBuilder,
  data: unknown,
  base: string,
  meaning: LatencyMeaning,
  warnings: string[],
  where: string,
): void {
  for (const [field, metric] of meaning.map) setLatency(builder, data, `${base}.${field}`, metric);
  for (const [field, why] of meaning.skip) {
    const stats = statistics(data, `${base}.${field}`);
    if (!stats) continue;
    warnings.push(`${where}: ${base}.${field} is not imported: ${why}.`);
    refuseStatistics(builder, stats, `${base}.${field}`, `not imported: ${why}`);
  }
}

/** Every number of a statistics object into the builder's refused figures, with one reason. */
function refuseStatistics(builder: PointBuilder, stats: Record<string, unknown>, path: string, reason: string): void {
  for (const [key, value] of Object.entries(stats)) {
    const number = toNumber(value);
    if (number !== null) builder.refused.push({ source: `${path}.${key}`, value: number, reason });
  }
}

const STAT_KEYS = [
  ["mean", "mean"],
  ["std", "stddev"],
] as const;

/** The schema's percentile names: p0p1 (0.1), p1 … p99, p99p9 (99.9); a dot is also read (p99.9). */
const PERCENTILE_STAT = /^p(\d+)(?:[p.](\d+))?$/;

function setLatency(builder: PointBuilder, data: unknown, path: string, metric: Metric): void {
  const stats = statistics(data, path);
  if (!stats) return;
  // A metric is taken from the first statistics object mapped to it; a second one is reported, not merged.
  const first = builder.metricSource(metric);
  if (first !== undefined) {
    const object = first.slice(0, first.lastIndexOf("."));
    refuseStatistics(
      builder,
      stats,
      path,
      `a second statistics object for the metric of ${object}, which the point keeps`,
    );
    return;
  }
  const units = unitsOf(stats, path);
  const unit = ownValue(TIME_UNITS, units);
  if (!unit)
    throw new FormatError(`${path}.units`, `${path} is in "${units}", not a time (ms, s, ms/token or s/token)`);
  const entries: Parameters<PointBuilder["setStats"]>[1] = {};
  for (const [stat, key] of STAT_KEYS)
    entries[stat] = { value: figure(data, `${path}.${key}`), source: `${path}.${key}` };
  builder.setStats(metric, entries, unit);
  // p50 is the median, p90/p95/p99 have their fields; p0p1, p1, p5, p10, p25, p75, p99p9 go to `percentiles`.
  for (const key of Object.keys(stats)) {
    const match = PERCENTILE_STAT.exec(key);
    if (!match) continue;
    const p = Number(match[2] === undefined ? match[1] : `${match[1]}.${match[2]}`);
    builder.percentile(metric, p, figure(data, `${path}.${key}`), `${path}.${key}`, unit);
  }
}

function setRate(
  builder: PointBuilder,
  data: unknown,
  path: string,
  field: "output_throughput" | "total_token_throughput" | "request_throughput",
  expected: string,
): void {
  const stats = statistics(data, path);
  if (!stats) return;
  const units = unitsOf(stats, path);
  if (units !== expected) throw new FormatError(`${path}.units`, `${path} is in "${units}", expected "${expected}"`);
  builder.set(field, figure(data, `${path}.mean`), `${path}.mean`);
}

/** completed = total − failures − incomplete, when the report states the failures. */
function setRequests(builder: PointBuilder, data: unknown, base: string): void {
  const total = toCount(figure(data, `${base}.total`));
  const failures = toCount(figure(data, `${base}.failures`));
  const incomplete = toCount(figure(data, `${base}.incomplete`)) ?? 0;
  if (failures !== null) builder.set("failed", failures, `${base}.failures`);
  if (total !== null && failures !== null && total >= failures + incomplete) {
    const source = incomplete > 0 ? `${base}.total − failures − incomplete` : `${base}.total − failures`;
    builder.set("completed", total - failures - incomplete, source);
  }
}

/** "PT49.97S", "PT1H2M3.5S" → seconds. */
function isoDurationSeconds(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^P(?:(\d+(?:\.\d+)?)D)?T?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(
    value.trim(),
  );
  if (!match || value.trim() === "P" || value.trim() === "PT") return undefined;
  const [, d, h, m, s] = match;
  return Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3_600 + Number(m ?? 0) * 60 + Number(s ?? 0);
}

// ---------------------------------------------------------------------------------------------------------
// Context

/** The serving engine a component's tool names: "vllm", "sglang", "tensorrt-llm", "llama.cpp", or undefined. */
function canonicalEngine(tool: string): { engine: string; fromLlmd: boolean } | undefined {
  const name = tool.toLowerCase();
  if (name.includes("sglang")) return { engine: "sglang", fromLlmd: false };
  if (/tensorrt|trt-?llm/.test(name)) return { engine: "tensorrt-llm", fromLlmd: false };
  if (/llama[.-]?cpp|llama-server/.test(name)) return { engine: "llama.cpp", fromLlmd: false };
  if (name.includes("vllm")) return { engine: "vllm", fromLlmd: false };
  // llm-d's inference images (llm-d, llm-d-cuda, …) serve models with vLLM.
  if (/(^|\/)llm-d($|[-:/])/.test(name)) return { engine: "vllm", fromLlmd: true };
  return undefined;
}

/** A version from "0.9.0.1", "v0.11.0" or an image reference "docker.io/vllm/vllm-openai:v0.11.0". */
function versionFrom(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let version = value;
  if (value.includes("/") || value.includes(":")) {
    const colon = value.lastIndexOf(":");
    if (colon < 0 || value.indexOf("/", colon) >= 0) return undefined;
    version = value.slice(colon + 1);
  }
  version = version.replace(/^v(?=\d)/, "");
  // A release number, or llama.cpp's build ("b5163", "b5163 (8cf427ff)"); not a branch or a tag like "latest".
  return /^(\d|b\d)/.test(version) ? version.slice(0, 64) : undefined;
}

interface EngineComponent {
  tool?: string;
  version?: string;
  role?: string;
  model?: string;
  gpu?: string;
  gpus?: number;
  args?: Record<string, unknown>;
  envars?: Record<string, unknown>;
  parallelism?: Record<string, unknown>;
}

function agreed<T>(values: readonly (T | undefined)[]): T | undefined {
  const defined = values.filter((value): value is T => value !== undefined);
  if (defined.length === 0 || defined.length !== values.length) return undefined;
  const first = JSON.stringify(defined[0]);
  return defined.every((value) => JSON.stringify(value) === first) ? defined[0] : undefined;
}

function flagValue(value: unknown): FlagValue | number | undefined {
  if (value === null || value === undefined) return true;
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  return JSON.stringify(value);
}

/**
 * Launch arguments → flags. Several engine components (prefill and decode) keep the arguments they share;
 * the rest cannot be one flag set, and a warning says so.
 */
function flagsOf(components: EngineComponent[], warnings: string[], where: string): RunContext["flags"] {
  const sets = components
    .map((component) => component.args)
    .filter((args): args is Record<string, unknown> => args !== undefined);
  if (sets.length === 0) return undefined;
  const converted = sets.map((args) => {
    const out: Record<string, FlagValue | number> = {};
    for (const [name, value] of Object.entries(args)) {
      const flag = flagValue(value);
      if (flag !== undefined) out[canonicalFlagName(name)] = flag;
    }
    return out;
  });
  const first = converted[0] ?? {};
  const shared: Record<string, FlagValue | number> = {};
  let dropped = sets.length !== components.length;
  for (const [name, value] of Object.entries(first)) {
    if (converted.every((flags) => JSON.stringify(flags[name]) === JSON.stringify(value))) shared[name] = value;
    else dropped = true;
  }
  if (converted.some((flags) => Object.keys(flags).some((name) => !(name in shared)))) dropped = true;
  if (dropped && components.length > 1) {
    warnings.push(
      `${where}: the engine components (${components.map((c) => c.role ?? "?").join(", ")}) were launched with different arguments; only the ones they share are kept as flags.`,
    );
  }
  return Object.keys(shared).length > 0 ? shared : undefined;
}

function envOf(components: EngineComponent[]): RunContext["env"] {
  const sets = components.map((component) => component.envars);
  const first = sets[0];
  if (!first) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(first)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || value === null || value === undefined || typeof value === "object")
      continue;
    const textValue = String(value);
    if (sets.every((set) => set !== undefined && set[name] !== undefined && String(set[name]) === textValue))
      env[name] = textValue;
  }
  return Object.keys(env).length > 0 ? env : undefined;
}

/** Engine, version, model, hardware, flags and env from the engine components. */
function engineContext(components: EngineComponent[], context: RunContext, warnings: string[], where: string): void {
  context.metadata ??= {};
  const metadata = context.metadata;
  const tools = components.map((component) => component.tool);
  const tool = agreed(tools);
  if (tool) {
    metadata.engine_tool = tool;
    const canonical = canonicalEngine(tool);
    if (canonical) context.engine = canonical.engine;
    const toolVersion = agreed(components.map((component) => component.version));
    if (toolVersion) {
      metadata.engine_tool_version = toolVersion.slice(0, 2_000);
      const version = canonical && !canonical.fromLlmd ? versionFrom(toolVersion) : undefined;
      if (version) context.engine_version = version;
    }
  }
  const model = agreed(components.map((component) => component.model));
  if (model) context.model = model.slice(0, 200);
  const gpu = agreed(components.map((component) => component.gpu));
  const counts = components.map((component) => component.gpus);
  const hardware: NonNullable<RunContext["hardware"]> = {};
  if (gpu) hardware.gpu = gpu.slice(0, 200);
  if (counts.length > 0 && counts.every((count) => count !== undefined)) {
    const total = counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
    if (total >= 1) hardware.gpu_count = total;
  }
  if (Object.keys(hardware).length > 0) context.hardware = hardware;
  const roles = components.map((component) => component.role).filter((role): role is string => role !== undefined);
  if (roles.length > 0) metadata.roles = roles.join(", ");
  const parallelism = agreed(components.map((component) => component.parallelism));
  for (const key of ["tp", "pp", "dp", "ep"] as const) {
    const value = toNumber(parallelism?.[key]);
    if (value !== null) metadata[key] = value;
  }
  const flags = flagsOf(components, warnings, where);
  if (flags) context.flags = flags;
  const env = envOf(components);
  if (env) context.env = env;
}

function tagsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tags = value
    .map((tag) => text(tag))
    .filter((tag): tag is string => tag !== undefined && tag.length <= 40 && !tag.includes(","));
  return tags.length > 0 ? [...new Set(tags)].slice(0, 32) : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// v0.2 and v0.2.1

function engineComponentsV02(data: unknown): EngineComponent[] {
  const stack = get(data, "scenario.stack");
  if (!Array.isArray(stack)) return [];
  const components: EngineComponent[] = [];
  for (const item of stack) {
    const standardized = asRecord(get(item, "standardized"));
    if (standardized?.kind !== "inference_engine") continue;
    const component: EngineComponent = {};
    const tool = text(standardized.tool);
    if (tool) component.tool = tool;
    const version = text(standardized.tool_version);
    if (version) component.version = version;
    const role = text(standardized.role);
    if (role) component.role = role;
    const model = text(get(standardized, "model.name"));
    if (model) component.model = model;
    const gpu = text(get(standardized, "accelerator.model"));
    if (gpu) component.gpu = gpu;
    // llm-d-benchmark writes accelerator.count per replica (tp × dp_local), and the replicas beside it.
    const count = toCount(get(standardized, "accelerator.count"));
    const replicas = toCount(standardized.replicas) ?? 1;
    if (count !== null) component.gpus = count * replicas;
    const parallelism = asRecord(get(standardized, "accelerator.parallelism"));
    if (parallelism) component.parallelism = parallelism;
    const args = asRecord(get(item, "native.args"));
    if (args) component.args = args;
    const envars = asRecord(get(item, "native.envars"));
    if (envars) component.envars = envars;
    components.push(component);
  }
  return components;
}

/**
 * Where servebench's own export (./llm-d-export.ts) writes what the schema has no place for: read back when the
 * report says servebench generated the load, so an export imported again keeps every figure (goodput, decode
 * throughput, token totals, the server's metrics, percentiles outside the schema's) and the run's context.
 */
const EXTENSION = "scenario.load.native.config.servebench";
const EXTENSION_FIGURES: ReadonlySet<string> = new Set([
  "request_goodput",
  "decode_throughput",
  "total_input_tokens",
  "total_output_tokens",
  ...SERVER_METRIC_KEYS,
  ...POWER_KEYS,
]);
const PERCENTILE_METRIC_NAMES: ReadonlySet<string> = new Set(PERCENTILE_METRICS);

function readExtensionFigures(builder: PointBuilder, extension: Record<string, unknown>): void {
  const powerSource = extension.power_source;
  if (typeof powerSource === "string" && (POWER_SOURCES as readonly string[]).includes(powerSource))
    builder.powerSource(powerSource as PowerSource);
  for (const [key, value] of Object.entries(asRecord(extension.figures) ?? {})) {
    if (EXTENSION_FIGURES.has(key)) builder.set(key as PointField, value, `${EXTENSION}.figures.${key}`);
  }
  // "ttft.p99.99" (a percentile the schema has no name for), or a statistic of a metric the schema could not hold
  // for want of a mean ("tpot.p50", "tpot.stddev"): in ms, as servebench stores them.
  for (const [name, value] of Object.entries(asRecord(extension.percentiles_ms) ?? {})) {
    const dot = name.indexOf(".");
    const metric = name.slice(0, dot);
    const key = name.slice(dot + 1);
    if (dot < 1 || !PERCENTILE_METRIC_NAMES.has(metric)) continue;
    const source = `${EXTENSION}.percentiles_ms.${name}`;
    const latency = metric as Metric;
    if (key === "mean") builder.set(`mean_${latency}_ms`, value, source);
    else if (key === "stddev") builder.set(`std_${latency}_ms`, value, source);
    else {
      const match = PERCENTILE_STAT.exec(key);
      if (match)
        builder.percentile(
          latency,
          Number(match[2] === undefined ? match[1] : `${match[1]}.${match[2]}`),
          value,
          source,
        );
    }
  }
}

function readExtensionContext(extension: Record<string, unknown>, context: RunContext): void {
  const name = text(extension.run_name);
  if (name) context.name = name.slice(0, 200);
  const command = text(extension.command);
  if (command) context.command = command;
  const notes = text(extension.notes);
  if (notes) context.notes = notes.slice(0, 20_000);
  const workload = asRecord(extension.workload);
  if (workload) context.workload = { ...context.workload, ...(workload as NonNullable<RunContext["workload"]>) };
  const speculative = asRecord(extension.speculative);
  if (speculative) context.speculative = speculative as NonNullable<RunContext["speculative"]>;
  const modelSize = asRecord(extension.model_size);
  for (const key of ["total_params_b", "active_params_b"] as const) {
    const billions = modelSize?.[key];
    if (typeof billions === "number" && Number.isFinite(billions))
      context.model_size = { ...context.model_size, [key]: billions };
  }
  const memory = toCount(extension.gpu_memory_mib);
  if (memory !== null && memory > 0) context.hardware = { ...context.hardware, gpu_memory_mib: memory };
  const startup = extension.server_startup_s;
  if (typeof startup === "number" && Number.isFinite(startup)) context.server_startup_s = startup;
  for (const field of ["git_commit", "git_branch", "ci_url"] as const) {
    const value = text(extension[field]);
    if (value) context[field] = value;
  }
  const metadata = asRecord(extension.metadata);
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      context.metadata![key] = value;
  }
}

function parseV02(file: SourceFile): Fragment | undefined {
  const data = file.data;
  const aggregate = "results.request_performance.aggregate";
  // A report holding only observability or profiling results has no load point of its own.
  if (asRecord(get(data, aggregate)) === undefined) return undefined;
  const warnings: string[] = [];
  const builder = new PointBuilder(file.name);
  const load = "scenario.load.standardized";
  const tool = text(get(data, `${load}.tool`));

  const concurrency = toConcurrency(get(data, `${load}.concurrency`));
  let rate = requestRate(get(data, `${load}.rate_qps`));
  let rateSource = `${load}.rate_qps`;
  // JSON has no infinity for rate_qps: a JSON report (vLLM's benchmark arguments, servebench's export) says an
  // infinite rate, every request sent at once, in the load generator's native arguments.
  const nativeRate = "scenario.load.native.args.request_rate";
  if (rate === null && requestRate(get(data, nativeRate)) === "inf") {
    rate = "inf";
    rateSource = nativeRate;
  }
  if (concurrency === null && rate === null) {
    throw new FormatError(
      load,
      "the report states no load level (neither a finite concurrency nor rate_qps in scenario.load.standardized); " +
        "a results-only partial report needs the scenario merged in before import",
    );
  }
  if (concurrency !== null) builder.concurrency(concurrency, `${load}.concurrency`);
  if (rate !== null) builder.requestRate(rate, rateSource);

  setRequests(builder, data, `${aggregate}.requests`);
  const duration = isoDurationSeconds(get(data, "run.time.duration"));
  if (duration !== undefined) builder.set("duration_s", duration, "run.time.duration", "s");
  setRate(builder, data, `${aggregate}.throughput.output_token_rate`, "output_throughput", "tokens/s");
  setRate(builder, data, `${aggregate}.throughput.total_token_rate`, "total_token_throughput", "tokens/s");
  setRate(builder, data, `${aggregate}.throughput.request_rate`, "request_throughput", "queries/s");
  setLatency(builder, data, `${aggregate}.latency.time_to_first_token`, "ttft");
  setLatency(builder, data, `${aggregate}.latency.request_latency`, "e2el");
  const toolVersion = text(get(data, `${load}.tool_version`));
  setToolLatencies(builder, data, `${aggregate}.latency`, latencyMeaning(tool, toolVersion), warnings, file.name);
  const extension = tool === "servebench" ? asRecord(get(data, EXTENSION)) : undefined;
  if (extension) readExtensionFigures(builder, extension);
  const point = builder.build();
  const repeat = extension ? toCount(extension.repeat) : null;
  if (repeat !== null && repeat >= 1) point.repeat = repeat;

  const context: RunContext = { metadata: {} };
  const metadata = context.metadata!;
  engineContext(engineComponentsV02(data), context, warnings, file.name);
  const version = versionText(asRecord(data) ?? {});
  if (version) metadata.report_version = version;
  if (tool) metadata.load_tool = tool;
  if (toolVersion) metadata.load_tool_version = toolVersion;
  const stage = toCount(get(data, `${load}.stage`));
  if (stage !== null) metadata.stage = stage;
  const source = text(get(data, `${load}.source`));
  if (source) metadata.load_source = source;
  const uid = text(get(data, "run.uid"));
  if (uid) metadata.run_uid = uid;
  const eid = text(get(data, "run.eid"));
  if (eid) metadata.run_eid = eid;

  const workload: NonNullable<RunContext["workload"]> = {};
  // A length of 0 is llm-d-benchmark's (and the export's) "not known": { distribution: other, value: 0 }.
  const inputLen = toCount(get(data, `${load}.input_seq_len.value`));
  if (inputLen !== null && inputLen > 0) workload.input_len = inputLen;
  const outputLen = toCount(get(data, `${load}.output_seq_len.value`));
  if (outputLen !== null && outputLen > 0) workload.output_len = outputLen;
  const total = toCount(get(data, `${aggregate}.requests.total`));
  if (total !== null) workload.num_prompts = total;
  if (source === "random") workload.dataset = "random";
  if (Object.keys(workload).length > 0) context.workload = workload;

  const measured = isoTimestamp(get(data, "run.time.start"));
  if (measured) context.measured_at = measured;
  const tags = tagsOf(get(data, "run.keywords"));
  if (tags) context.tags = tags;
  const description = text(get(data, "run.description"));
  if (description) context.notes = description.slice(0, 20_000);

  if (extension) readExtensionContext(extension, context);

  return {
    format: "llm-d-benchmark-report",
    file: file.name,
    part: "",
    context,
    points: [point],
    warnings: [...warnings, ...builder.warnings],
    notImported: builder.notImported(file.name),
  };
}

// ---------------------------------------------------------------------------------------------------------
// v0.1

/** Load-level arguments of v0.1's harness-specific scenario.load.args, in order of precedence. */
const V01_CONCURRENCY_ARGS = ["max_concurrency", "concurrency"] as const;
const V01_RATE_ARGS = ["request_rate", "rate_qps", "qps", "qps_values"] as const;

function engineComponentsV01(data: unknown): EngineComponent[] {
  const engines = get(data, "scenario.platform.engine");
  const accelerators = get(data, "scenario.host.accelerator");
  const types = get(data, "scenario.host.type");
  const count = Math.max(
    Array.isArray(engines) ? engines.length : 0,
    Array.isArray(accelerators) ? accelerators.length : 0,
  );
  const model = text(get(data, "scenario.model.name"));
  const components: EngineComponent[] = [];
  for (let index = 0; index < count; index += 1) {
    const engine = Array.isArray(engines) ? asRecord(engines[index]) : undefined;
    const accelerator = Array.isArray(accelerators) ? asRecord(accelerators[index]) : undefined;
    const component: EngineComponent = {};
    const tool = text(engine?.name);
    if (tool) component.tool = tool;
    const version = text(engine?.version);
    if (version) component.version = version;
    const role = Array.isArray(types) ? text(types[index]) : undefined;
    if (role) component.role = role;
    if (model) component.model = model;
    const gpu = text(accelerator?.model);
    if (gpu) component.gpu = gpu;
    const gpus = toCount(accelerator?.count);
    if (gpus !== null) component.gpus = gpus;
    const parallelism = asRecord(accelerator?.parallelism);
    if (parallelism) component.parallelism = parallelism;
    const args = asRecord(engine?.args);
    if (args) component.args = args;
    components.push(component);
  }
  return components;
}

function parseV01(file: SourceFile): Fragment {
  const data = file.data;
  const warnings: string[] = [];
  const builder = new PointBuilder(file.name);
  const args = "scenario.load.args";
  let levelSet = false;
  for (const key of V01_CONCURRENCY_ARGS) {
    const value = toConcurrency(get(data, `${args}.${key}`));
    if (value !== null) {
      builder.concurrency(value, `${args}.${key}`);
      levelSet = true;
      break;
    }
  }
  for (const key of V01_RATE_ARGS) {
    const value = requestRate(get(data, `${args}.${key}`));
    if (value !== null) {
      builder.requestRate(value, `${args}.${key}`);
      levelSet = true;
      break;
    }
  }
  if (!levelSet) {
    throw new FormatError(
      args,
      `the report states no load level: scenario.load.args has none of ${[...V01_CONCURRENCY_ARGS, ...V01_RATE_ARGS].join(", ")}`,
    );
  }

  setRequests(builder, data, "metrics.requests");
  builder.set("duration_s", figure(data, "metrics.time.duration"), "metrics.time.duration", "s");
  builder.set(
    "output_throughput",
    figure(data, "metrics.throughput.output_tokens_per_sec"),
    "metrics.throughput.output_tokens_per_sec",
  );
  builder.set(
    "total_token_throughput",
    figure(data, "metrics.throughput.total_tokens_per_sec"),
    "metrics.throughput.total_tokens_per_sec",
  );
  builder.set(
    "request_throughput",
    figure(data, "metrics.throughput.requests_per_sec"),
    "metrics.throughput.requests_per_sec",
  );
  const tool = text(get(data, "scenario.load.name"));
  setLatency(builder, data, "metrics.latency.time_to_first_token", "ttft");
  setLatency(builder, data, "metrics.latency.request_latency", "e2el");
  setToolLatencies(builder, data, "metrics.latency", latencyMeaning(tool, undefined), warnings, file.name);
  const point = builder.build();

  const context: RunContext = { metadata: {} };
  const metadata = context.metadata!;
  const components = engineComponentsV01(data);
  engineContext(components, context, warnings, file.name);
  if (!context.model) {
    const model = text(get(data, "scenario.model.name"));
    if (model) context.model = model.slice(0, 200);
  }
  const version = versionText(asRecord(data) ?? {});
  metadata.report_version = version ?? "0.1";
  if (tool) metadata.load_tool = tool;
  const loadType = text(get(data, "scenario.load.type"));
  if (loadType) metadata.load_type = loadType;
  const quantization = text(get(data, "scenario.model.quantization"));
  if (quantization) metadata.quantization = quantization;
  const measured = isoTimestamp(get(data, "metrics.time.start"));
  if (measured) context.measured_at = measured;
  const description = text(get(data, "scenario.description"));
  if (description) context.notes = description.slice(0, 20_000);
  const total = toCount(get(data, "metrics.requests.total"));
  if (total !== null) context.workload = { num_prompts: total };

  return {
    format: "llm-d-benchmark-report",
    file: file.name,
    part: "",
    context,
    points: [point],
    warnings: [...warnings, ...builder.warnings],
    notImported: builder.notImported(file.name),
  };
}

function parse(file: SourceFile): Fragment[] {
  const layout = layoutOf(file.data);
  if (layout === "v0.2") {
    const fragment = parseV02(file);
    return fragment ? [fragment] : [];
  }
  if (layout === "v0.1") return [parseV01(file)];
  throw new FormatError("version", "not an llm-d benchmark report of version 0.1 or 0.2");
}

export const llmdReportParser: FormatParser = {
  id: "llm-d-benchmark-report",
  label: "llm-d benchmark report (v0.1, v0.2, v0.2.1; YAML or JSON)",
  signature:
    "a YAML or JSON document with run and results.request_performance (v0.2, v0.2.1), or scenario and metrics " +
    "with latency and throughput (v0.1); version says which",
  detect(file) {
    try {
      return detect(file);
    } catch {
      return false;
    }
  },
  parse,
};
