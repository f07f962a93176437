/**
 * GuideLLM `benchmarks.json` (also `benchmarks.yaml`, the same document): a list of benchmarks, one per
 * scheduling strategy (synchronous, concurrent streams, throughput, constant or Poisson rates, or the members
 * of a sweep). Three top-level layouts are read:
 *
 * - GuideLLM ≤ 0.3: `{benchmarks: [...]}`; each benchmark has `args` (strategy, profile), `run_stats`,
 *   `worker` (backend), `request_loader` (data), `metrics` and `request_totals`.
 * - GuideLLM 0.4–0.7: `{metadata: {version: 1}, args, benchmarks}` (0.4 without `metadata`); each benchmark
 *   has `config` (strategy, profile, backend, requests), `scheduler_state`, `scheduler_metrics`, `metrics`.
 * - GuideLLM 0.8: `{metadata: {version: 2}, config: {spec: {...}}, benchmarks}`, benchmarks as in 0.4+.
 */

import type { RequestRate } from "@/lib/document/schema";
import { ownValue } from "@/lib/own-value";
import {
  asRecord,
  get,
  isNaNValue,
  isoTimestamp,
  PointBuilder,
  requestRate,
  toConcurrency,
  toCount,
  toNumber,
} from "./common";
import { statedNumbers } from "./report";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  type NotImported,
  type RunContext,
  type SourceFile,
} from "./types";

type Layout = "v0.3" | "report-v1" | "report-v2";

/**
 * GuideLLM's percentile names (its `Percentiles` model) → the percentile: p001 is the 0.1th, p01 the 1st, p05 the 5th,
 * p999 the 99.9th (numpy's percentile of the values). p50 appears from 0.4 on.
 */
const PERCENTILES: Readonly<Record<string, number>> = {
  p001: 0.1,
  p01: 1,
  p05: 5,
  p10: 10,
  p25: 25,
  p50: 50,
  p75: 75,
  p90: 90,
  p95: 95,
  p99: 99,
  p999: 99.9,
};

function isGenerativeBenchmark(value: unknown): boolean {
  const record = asRecord(value);
  if (!record) return false;
  if (record.type_ === "generative_benchmark") return true;
  // Without the type tag: a benchmark with GuideLLM's metrics and a scheduling strategy.
  return (
    asRecord(get(record, "metrics.output_tokens_per_second")) !== undefined &&
    (asRecord(get(record, "config.strategy")) !== undefined || asRecord(get(record, "args.strategy")) !== undefined)
  );
}

function detect(file: SourceFile): boolean {
  try {
    const root = asRecord(file.data);
    if (!root || !Array.isArray(root.benchmarks)) return false;
    if (root.benchmarks.some(isGenerativeBenchmark)) return true;
    // An empty report still says it is GuideLLM's.
    return root.benchmarks.length === 0 && typeof get(root, "metadata.guidellm_version") === "string";
  } catch {
    return false;
  }
}

/**
 * A figure as written: a number, a numeric string, NaN or Infinity pass (PointBuilder handles them); an
 * object, array, boolean or other text where a number belongs breaks the file.
 */
function figure(container: unknown, path: string, where: string): unknown {
  const value = get(container, path);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (
    typeof value === "string" &&
    (toNumber(value) !== null || isNaNValue(value) || /^[-+]?inf(inity)?$/i.test(value.trim()))
  ) {
    return value;
  }
  const found = Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : JSON.stringify(value);
  throw new FormatError(`${where}.${path}`, `${where}.${path} should be a number, but it is ${found}.`);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

interface LoadLevel {
  concurrency?: { value: unknown; source: string };
  rate?: { value: RequestRate; source: string };
  label: string;
}

/** The load level of a benchmark, from its scheduling strategy, or undefined when it has none (trace replay). */
function loadLevel(strategy: Record<string, unknown>, path: string, where: string): LoadLevel | undefined {
  const type = text(strategy.type_) ?? text(strategy.kind);
  const typeKey = "type_" in strategy ? "type_" : "kind";
  switch (type) {
    case "synchronous":
      return { concurrency: { value: 1, source: `${path}.${typeKey}` }, label: "synchronous" };
    case "concurrent": {
      const streams = strategy.streams;
      if (toConcurrency(streams) === null) {
        throw new FormatError(
          `${where}.${path}.streams`,
          `${where}.${path}.streams should be a positive whole number of streams, but it is ${JSON.stringify(streams ?? null)}.`,
        );
      }
      return {
        concurrency: { value: streams, source: `${path}.streams` },
        label: `concurrent ${toConcurrency(streams)} streams`,
      };
    }
    case "throughput":
      return { rate: { value: "inf", source: `${path}.${typeKey}` }, label: "throughput (all at once)" };
    case "constant":
    case "poisson": {
      const rate = requestRate(strategy.rate);
      if (rate === null) {
        throw new FormatError(
          `${where}.${path}.rate`,
          `${where}.${path}.rate should be a request rate, but it is ${JSON.stringify(strategy.rate ?? null)}.`,
        );
      }
      return { rate: { value: rate, source: `${path}.rate` }, label: `${type} ${rate === "inf" ? "inf" : rate} req/s` };
    }
    default:
      return undefined;
  }
}

/** `"prompt_tokens=256,output_tokens=128"` or `'{"prompt_tokens": 256}'`: GuideLLM's synthetic data spec. */
function syntheticSpec(value: string): Record<string, unknown> | undefined {
  const trimmed = value.trim();
  if (trimmed.startsWith("{")) {
    try {
      const parsed = asRecord(JSON.parse(trimmed) as unknown);
      return parsed && ("prompt_tokens" in parsed || "output_tokens" in parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  const pairs = trimmed.split(",").map((pair) => /^\s*(\w+)\s*=\s*([^,]*?)\s*$/.exec(pair));
  if (pairs.length === 0 || pairs.some((match) => match === null)) return undefined;
  const spec = Object.fromEntries(pairs.map((match) => [match![1], match![2]]));
  return "prompt_tokens" in spec || "output_tokens" in spec ? spec : undefined;
}

function workloadFromData(data: unknown): RunContext["workload"] {
  const items = Array.isArray(data) ? data : data === undefined || data === null ? [] : [data];
  const names: string[] = [];
  const workload: NonNullable<RunContext["workload"]> = {};
  for (const item of items) {
    const record = asRecord(item);
    let spec: Record<string, unknown> | undefined;
    if (typeof item === "string") {
      spec = syntheticSpec(item);
      if (!spec) names.push(item.trim());
    } else if (record) {
      const kind = text(record.kind);
      if (kind?.startsWith("synthetic")) spec = record;
      else {
        const name = text(record.path) ?? text(record.source) ?? text(record.name) ?? kind;
        if (name) names.push(name);
      }
    }
    if (spec) {
      names.push("synthetic");
      const input = toCount(spec.prompt_tokens);
      const output = toCount(spec.output_tokens);
      if (input !== null && workload.input_len === undefined) workload.input_len = input;
      if (output !== null && workload.output_len === undefined) workload.output_len = output;
    }
  }
  const dataset = [...new Set(names.filter((name) => name !== ""))].join(", ");
  if (dataset) workload.dataset = dataset.slice(0, 200);
  return Object.keys(workload).length > 0 ? workload : undefined;
}

interface FileFacts {
  layout: Layout;
  model?: string;
  target?: string;
  backendType?: string;
  requestFormat?: string;
  profile?: string;
  data?: unknown;
  maxRequests?: number;
  maxSeconds?: number;
  maxConcurrency?: number;
}

/** What the top level of the report says (GuideLLM ≥ 0.4); the ≤ 0.3 layout keeps all of it per benchmark. */
function fileFacts(root: Record<string, unknown>): FileFacts {
  const spec = asRecord(get(root, "config.spec"));
  if (spec || get(root, "metadata.version") === 2) {
    const constraints = Array.isArray(spec?.constraints) ? spec.constraints.map(asRecord) : [];
    const constraint = (kind: string) => constraints.find((entry) => entry?.kind === kind);
    return {
      layout: "report-v2",
      model: text(get(spec, "backend.model")),
      target: text(get(spec, "backend.target")),
      backendType: text(get(spec, "backend.kind")),
      requestFormat: text(get(spec, "backend.request_format")),
      profile: text(get(spec, "profile.kind")),
      data: get(spec, "data"),
      maxRequests: toCount(constraint("max_requests")?.count) ?? undefined,
      maxSeconds: toNumber(constraint("max_duration")?.seconds) ?? undefined,
      maxConcurrency: toConcurrency(get(spec, "profile.max_concurrency")) ?? undefined,
    };
  }
  const args = asRecord(root.args);
  if (args) {
    return {
      layout: "report-v1",
      model: text(args.model),
      target: text(args.target),
      backendType: text(args.backend),
      requestFormat: text(args.request_format),
      profile: text(args.profile),
      data: args.data,
      maxRequests: toCount(args.max_requests) ?? undefined,
      maxSeconds: toNumber(args.max_seconds) ?? undefined,
      maxConcurrency: toConcurrency(args.max_concurrency) ?? undefined,
    };
  }
  return { layout: "v0.3" };
}

/** The same facts, from a ≤ 0.3 benchmark (or filling what a ≥ 0.4 top level left out). */
function benchmarkFacts(benchmark: Record<string, unknown>, facts: FileFacts): FileFacts {
  if (facts.layout === "v0.3") {
    return {
      layout: "v0.3",
      model: text(get(benchmark, "worker.backend_model")),
      target: text(get(benchmark, "worker.backend_target")),
      backendType: text(get(benchmark, "worker.backend_type")),
      profile: text(get(benchmark, "args.profile.type_")),
      data: get(benchmark, "request_loader.data"),
      maxRequests: toCount(get(benchmark, "args.max_number")) ?? undefined,
      maxSeconds: toNumber(get(benchmark, "args.max_duration")) ?? undefined,
      maxConcurrency: toConcurrency(get(benchmark, "args.profile.max_concurrency")) ?? undefined,
    };
  }
  return {
    ...facts,
    model: facts.model ?? text(get(benchmark, "config.backend.model")),
    target: facts.target ?? text(get(benchmark, "config.backend.target")),
    backendType:
      facts.backendType ?? text(get(benchmark, "config.backend.kind")) ?? text(get(benchmark, "config.backend.type_")),
    profile:
      facts.profile ?? text(get(benchmark, "config.profile.type_")) ?? text(get(benchmark, "config.profile.kind")),
    maxConcurrency:
      facts.maxConcurrency ?? toConcurrency(get(benchmark, "config.profile.max_concurrency")) ?? undefined,
  };
}

function contextOf(root: Record<string, unknown>, facts: FileFacts, startedAt: number | undefined): RunContext {
  const context: RunContext = {};
  if (facts.model) context.model = facts.model;
  const workload = workloadFromData(facts.data) ?? {};
  if (facts.maxRequests !== undefined) workload.num_prompts = facts.maxRequests;
  if (Object.keys(workload).length > 0) context.workload = workload;
  const measuredAt = isoTimestamp(startedAt);
  if (measuredAt) context.measured_at = measuredAt;
  const metadata: Record<string, string | number | boolean> = {};
  const version = text(get(root, "metadata.guidellm_version"));
  if (version) metadata.guidellm_version = version;
  const reportVersion = toNumber(get(root, "metadata.version"));
  if (reportVersion !== null) metadata.guidellm_report_version = reportVersion;
  if (facts.profile) metadata.profile = facts.profile;
  if (facts.target) metadata.backend_target = facts.target;
  if (facts.backendType) metadata.backend_type = facts.backendType;
  if (facts.requestFormat) metadata.request_format = facts.requestFormat;
  if (facts.maxSeconds !== undefined) metadata.max_seconds = facts.maxSeconds;
  if (facts.maxConcurrency !== undefined) metadata.max_concurrency = facts.maxConcurrency;
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return context;
}

/**
 * One latency distribution's statistics: mean, standard deviation, and every percentile GuideLLM states (p50 as the
 * median; GuideLLM ≤ 0.3 leaves p50 out, and its `median` is the same statistic).
 */
function setDistribution(
  builder: PointBuilder,
  metric: "ttft" | "tpot" | "e2el" | "e2el_per_token",
  metrics: Record<string, unknown>,
  name: string,
  where: string,
  unit: "ms" | "s",
): void {
  const summary = asRecord(get(metrics, `${name}.successful`));
  if (!summary) return;
  const base = `metrics.${name}.successful`;
  const at = `${where}.${base}`;
  builder.setStats(
    metric,
    {
      mean: { value: figure(summary, "mean", at), source: `${base}.mean` },
      std: { value: figure(summary, "std_dev", at), source: `${base}.std_dev` },
    },
    unit,
  );
  const percentiles = asRecord(summary.percentiles);
  const median = figure(summary, "median", at);
  if (percentiles && toNumber(figure(percentiles, "p50", `${at}.percentiles`)) !== null) {
    const stated = toNumber(median);
    if (stated !== null)
      builder.refused.push({
        source: `${base}.median`,
        value: stated,
        reason: `GuideLLM's median, the same statistic as ${base}.percentiles.p50, which the point keeps as its median`,
      });
  } else builder.setStats(metric, { median: { value: median, source: `${base}.median` } }, unit);
  for (const key of Object.keys(percentiles ?? {})) {
    const value = figure(percentiles, key, `${at}.percentiles`);
    const p = ownValue(PERCENTILES, key);
    if (p === undefined) {
      const stated = toNumber(value);
      if (stated !== null)
        builder.refused.push({
          source: `${base}.percentiles.${key}`,
          value: stated,
          reason: "not one of GuideLLM's percentile names (p001 … p999), so which percentile it is is not known",
        });
      continue;
    }
    builder.percentile(metric, p, value, `${base}.percentiles.${key}`, unit);
  }
}

const V03_TPOT =
  "GuideLLM 0.3 and earlier computed time_per_output_token_ms as (last token − first token) / output tokens, neither TPOT nor end-to-end latency per token";

/** Every number under `value` (at `path`) into the builder's refused figures, with one reason. */
function refuseAll(builder: PointBuilder, value: unknown, path: string, reason: string): void {
  const record = asRecord(value);
  if (record) {
    for (const [key, child] of Object.entries(record)) refuseAll(builder, child, `${path}.${key}`, reason);
    return;
  }
  const number = toNumber(value);
  if (number !== null) builder.refused.push({ source: path, value: number, reason });
}

function parseBenchmark(
  benchmark: Record<string, unknown>,
  index: number,
  where: string,
  level: LoadLevel,
  layout: Layout,
  file: string,
): { point: ReturnType<PointBuilder["build"]>; warnings: string[]; notImported: NotImported[] } {
  const metrics = asRecord(benchmark.metrics);
  if (!metrics) {
    throw new FormatError(
      `${where}.metrics`,
      `${where}.metrics is missing or not an object: GuideLLM writes the benchmark's statistics there.`,
    );
  }
  const builder = new PointBuilder(`benchmark ${index + 1} (${level.label})`);
  if (level.concurrency) builder.concurrency(level.concurrency.value, level.concurrency.source);
  if (level.rate) builder.requestRate(level.rate.value, level.rate.source);

  const totalsPath = asRecord(metrics.request_totals) ? "metrics.request_totals" : "request_totals";
  builder.set("completed", figure(benchmark, `${totalsPath}.successful`, where), `${totalsPath}.successful`);
  builder.set("failed", figure(benchmark, `${totalsPath}.errored`, where), `${totalsPath}.errored`);
  builder.set("duration_s", figure(benchmark, "duration", where), "duration", "s");

  const sum = (name: string) => figure(metrics, `${name}.successful.total_sum`, `${where}.metrics`);
  builder.set("total_input_tokens", sum("prompt_token_count"), "metrics.prompt_token_count.successful.total_sum");
  builder.set("total_output_tokens", sum("output_token_count"), "metrics.output_token_count.successful.total_sum");

  const mean = (name: string) => figure(metrics, `${name}.successful.mean`, `${where}.metrics`);
  builder.set("request_throughput", mean("requests_per_second"), "metrics.requests_per_second.successful.mean");
  builder.set(
    "output_throughput",
    mean("output_tokens_per_second"),
    "metrics.output_tokens_per_second.successful.mean",
  );
  builder.set("total_token_throughput", mean("tokens_per_second"), "metrics.tokens_per_second.successful.mean");

  setDistribution(builder, "ttft", metrics, "time_to_first_token_ms", where, "ms");
  // inter_token_latency_ms = (last token − first token) / (output tokens − 1): vLLM's TPOT.
  setDistribution(builder, "tpot", metrics, "inter_token_latency_ms", where, "ms");
  // time_per_output_token_ms since 0.4 = (last token − request start) / output tokens: first token included.
  // Up to 0.3 it was (last token − first token) / output tokens, which is neither definition: left out.
  if (layout !== "v0.3") setDistribution(builder, "e2el_per_token", metrics, "time_per_output_token_ms", where, "ms");
  else refuseAll(builder, metrics.time_per_output_token_ms, "metrics.time_per_output_token_ms", V03_TPOT);
  setDistribution(builder, "e2el", metrics, "request_latency", where, "s");

  const point = builder.build();
  return { point, warnings: builder.warnings, notImported: builder.notImported(file, `benchmarks[${index}]`) };
}

function parse(file: SourceFile): Fragment[] {
  const root = asRecord(file.data);
  if (!root || !Array.isArray(root.benchmarks)) {
    throw new FormatError("benchmarks", "GuideLLM's report should hold a list of benchmarks under `benchmarks`.");
  }
  const benchmarks = root.benchmarks;
  if (benchmarks.length === 0) {
    throw new FormatError(
      "benchmarks",
      "The GuideLLM report holds no benchmark: `benchmarks` is empty, so there is no load point to import.",
    );
  }
  const top = fileFacts(root);
  const records = benchmarks.map((value, index) => {
    const record = asRecord(value);
    if (!record) throw new FormatError(`benchmarks.${index}`, `benchmarks.${index} should be a benchmark object.`);
    return record;
  });
  const starts = records
    .map((record) => toNumber(record.start_time))
    .filter((value): value is number => value !== null);
  const startedAt = starts.length > 0 ? Math.min(...starts) : undefined;

  const fragments: Fragment[] = [];
  const skipped: string[] = [];
  const skippedFigures: NotImported[] = [];
  records.forEach((benchmark, index) => {
    const where = `benchmarks.${index}`;
    const layout: Layout = asRecord(benchmark.config) ? (top.layout === "v0.3" ? "report-v1" : top.layout) : "v0.3";
    const strategyPath = layout === "v0.3" ? "args.strategy" : "config.strategy";
    const strategy = asRecord(get(benchmark, strategyPath));
    if (!strategy) {
      throw new FormatError(
        `${where}.${strategyPath}`,
        `${where}.${strategyPath} is missing: it names the benchmark's load level.`,
      );
    }
    const level = loadLevel(strategy, strategyPath, where);
    if (!level) {
      const strategyName = JSON.stringify(strategy.type_ ?? strategy.kind ?? null);
      skipped.push(
        `benchmark ${index + 1} (strategy ${strategyName}) has no concurrency or request rate, so it was not imported.`,
      );
      // Its figures are in the import report under that reason (a point needs a load level).
      for (const stated of statedNumbers({ name: file.name, kind: "json", data: benchmark, bytes: 0 }).numbers) {
        skippedFigures.push({
          file: file.name,
          field: `benchmarks[${index}].${stated.path}`,
          value: stated.listLength !== undefined ? `a list of ${stated.listLength} values` : stated.value,
          reason: `benchmark ${index + 1} (strategy ${strategyName}) has no concurrency or request rate, so none of its figures is a load point`,
        });
      }
      return;
    }
    const facts = benchmarkFacts(benchmark, layout === "v0.3" || top.layout === "v0.3" ? { layout } : top);
    const { point, warnings, notImported } = parseBenchmark(benchmark, index, where, level, layout, file.name);
    fragments.push({
      format: "guidellm",
      file: file.name,
      part: benchmarks.length > 1 ? `benchmark ${index + 1} (${level.label})` : "",
      context: contextOf(root, facts, startedAt),
      points: [point],
      warnings,
      // The paths in the point's sources are relative to its benchmark.
      root: `benchmarks[${index}]`,
      notImported,
    });
  });
  if (fragments.length === 0) {
    throw new FormatError("benchmarks", `No benchmark of this GuideLLM report has a load level: ${skipped.join(" ")}`);
  }
  fragments[0]!.warnings.push(...skipped);
  fragments[0]!.notImported = [...(fragments[0]!.notImported ?? []), ...skippedFigures];
  return fragments;
}

export const guidellmParser: FormatParser = {
  id: "guidellm",
  label: "GuideLLM benchmarks.json",
  signature:
    'an object with a `benchmarks` list whose entries have `type_: "generative_benchmark"` (or `metrics.output_tokens_per_second` and a `config.strategy` / `args.strategy`)',
  detect,
  parse,
};
