/**
 * AIPerf / GenAI-Perf metrics → a load point: the statistics a summary states (`avg`, `p50`, `std`, …), each
 * converted by the unit its metric states. The JSON summary (lib/formats/aiperf.ts) and its CSV twin
 * (lib/formats/aiperf-csv.ts) are read through the same lookup.
 */

import type { LatencyMetric, ResultPoint } from "@/lib/document/schema";
import { ownValue } from "@/lib/own-value";
import { asRecord, isNaNValue, type PointBuilder, type TimeUnit, toCount, toNumber } from "./common";
import { FormatError } from "./types";

export type Stat = "mean" | "std";

/** servebench statistic ← AIPerf/GenAI-Perf statistic key; the percentiles (`p1` … `p99`) are read by name. */
const STATS: ReadonlyArray<[Stat, string]> = [
  ["mean", "avg"],
  ["std", "std"],
];

/** A percentile statistic's key: `p1`, `p25`, `p99.9`. */
const PERCENTILE_STAT = /^p(\d+(?:\.\d+)?)$/;

/** Latency metrics: the tags each generation uses, and the servebench metric they are. */
export const LATENCIES: ReadonlyArray<{ tags: readonly string[]; metric: Exclude<LatencyMetric, "e2el_per_token"> }> = [
  { tags: ["time_to_first_token", "ttft"], metric: "ttft" },
  { tags: ["inter_token_latency"], metric: "tpot" },
  { tags: ["inter_chunk_latency"], metric: "itl" },
  { tags: ["request_latency"], metric: "e2el" },
];

const TIME_UNITS: Record<string, TimeUnit> = {
  ms: "ms",
  msec: "ms",
  millisecond: "ms",
  milliseconds: "ms",
  us: "us",
  µs: "us",
  usec: "us",
  microsecond: "us",
  microseconds: "us",
  ns: "ns",
  nsec: "ns",
  nanosecond: "ns",
  nanoseconds: "ns",
  s: "s",
  sec: "s",
  secs: "s",
  second: "s",
  seconds: "s",
};

export const describeValue = (value: unknown): string =>
  Array.isArray(value) ? "a list" : typeof value === "object" && value !== null ? "an object" : JSON.stringify(value);

/** A statistic as written (number, numeric string, NaN); anything else where a number belongs breaks the file. */
export function figure(stats: Record<string, unknown>, key: string, path: string): unknown {
  const value = stats[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (typeof value === "string" && (toNumber(value) !== null || isNaNValue(value))) return value;
  throw new FormatError(`${path}.${key}`, `${path}.${key} should be a number, but it is ${describeValue(value)}.`);
}

function unitText(unit: unknown): string {
  return typeof unit === "string" ? unit.trim().toLowerCase().replace(/\s+/g, " ") : "";
}

export function timeUnit(unit: unknown, path: string): TimeUnit {
  const found = ownValue(TIME_UNITS, unitText(unit));
  if (!found) {
    throw new FormatError(
      `${path}.unit`,
      `${path}.unit should be a time unit (ms, us, ns, sec), but it is ${unit === undefined ? "missing" : describeValue(unit)}.`,
    );
  }
  return found;
}

/** A per-second rate unit ("tokens/sec", "requests/sec", "tokens per sec", GenAI-Perf's CSV "per sec"). */
function checkPerSecond(unit: unknown, noun: "tokens" | "requests", path: string): void {
  const match = /^(?:(tokens?|requests?|reqs?)\s*)?(?:\/|per )\s*(?:s|sec|secs|second|seconds)$/.exec(unitText(unit));
  const ok = match !== null && (match[1] === undefined || match[1].startsWith(noun === "tokens" ? "token" : "req"));
  if (!ok) {
    throw new FormatError(
      `${path}.unit`,
      `${path}.unit should be ${noun} per second, but it is ${unit === undefined ? "missing" : describeValue(unit)}.`,
    );
  }
}

interface Metric {
  /** Where the metric is, for error messages: "records.ttft", "Time to First Token (ms)". */
  path: string;
  unit: unknown;
  /** The statistic, validated (undefined when absent). */
  stat(key: string): unknown;
  /** The source name of one statistic, for `sources`. */
  source(key: string): string;
  /** The statistics' keys, as written (`avg`, `p1`, `p50`, `std`…). */
  keys(): string[];
}

export type MetricLookup = (tag: string) => Metric | undefined;

/** Metrics kept as objects `{ unit, avg, p50, … }` under `container` (the file's top level, or `records`). */
export function objectMetrics(container: Record<string, unknown>, prefix: string): MetricLookup {
  return (tag) => {
    const value = container[tag];
    if (value === undefined || value === null) return undefined;
    const path = `${prefix}${tag}`;
    const stats = asRecord(value);
    if (!stats)
      throw new FormatError(
        path,
        `${path} should be an object with a unit and statistics, but it is ${describeValue(value)}.`,
      );
    return {
      path,
      unit: stats.unit,
      stat: (key) => figure(stats, key, path),
      source: (key) => `${path}.${key}`,
      keys: () => Object.keys(stats),
    };
  };
}

function firstMetric(metrics: MetricLookup, tags: readonly string[]): Metric | undefined {
  for (const tag of tags) {
    const metric = metrics(tag);
    if (metric) return metric;
  }
  return undefined;
}

/** Every figure the summary states, converted by the unit each metric states. */
export function setFigures(builder: PointBuilder, metrics: MetricLookup, errorSummary?: unknown): void {
  const completed = metrics("request_count");
  if (completed) builder.set("completed", completed.stat("avg"), completed.source("avg"));
  const failed = metrics("error_request_count");
  if (failed) builder.set("failed", failed.stat("avg"), failed.source("avg"));
  else if (Array.isArray(errorSummary)) {
    // No error_request_count: the error summary lists the failures (an empty list: none).
    let total = 0;
    errorSummary.forEach((entry, index) => {
      const count = toCount(asRecord(entry)?.count);
      if (count === null)
        throw new FormatError(`error_summary.${index}.count`, `error_summary.${index}.count should be a whole number.`);
      total += count;
    });
    builder.set("failed", total, "error_summary");
  }

  const duration = metrics("benchmark_duration");
  if (duration) {
    const value = duration.stat("avg");
    if (value !== undefined)
      builder.set("duration_s", value, duration.source("avg"), timeUnit(duration.unit, duration.path));
  }

  const totalIn = metrics("total_isl");
  if (totalIn) builder.set("total_input_tokens", totalIn.stat("avg"), totalIn.source("avg"));
  // total_osl counts reasoning tokens too, as output_token_throughput does; total_output_tokens does not.
  const totalOut =
    metrics("total_osl") ?? (metrics("total_reasoning_tokens") ? undefined : metrics("total_output_tokens"));
  if (totalOut) builder.set("total_output_tokens", totalOut.stat("avg"), totalOut.source("avg"));

  for (const [tag, field, noun] of [
    ["request_throughput", "request_throughput", "requests"],
    ["output_token_throughput", "output_throughput", "tokens"],
    ["total_token_throughput", "total_token_throughput", "tokens"],
  ] as const) {
    const metric = metrics(tag);
    if (!metric) continue;
    const value = metric.stat("avg");
    if (value === undefined) continue;
    checkPerSecond(metric.unit, noun, metric.path);
    builder.set(field, value, metric.source("avg"));
  }

  for (const { tags, metric: name } of LATENCIES) {
    const metric = firstMetric(metrics, tags);
    if (!metric) continue;
    const stats: Partial<Record<Stat, { value: unknown; source: string }>> = {};
    for (const [stat, key] of STATS) {
      const value = metric.stat(key);
      if (value !== undefined) stats[stat] = { value, source: metric.source(key) };
    }
    const percentiles = metric
      .keys()
      .flatMap((key) => {
        const match = PERCENTILE_STAT.exec(key);
        return match ? [{ key, p: Number(match[1]), value: metric.stat(key) }] : [];
      })
      .filter((entry) => entry.value !== undefined);
    if (Object.keys(stats).length === 0 && percentiles.length === 0) continue;
    const unit = timeUnit(metric.unit, metric.path);
    builder.setStats(name, stats, unit);
    // p50 is the median; p90, p95, p99 have their fields; p1, p5, p10, p25, p75 (and any other) go to `percentiles`.
    for (const { key, p, value } of percentiles) builder.percentile(name, p, value, metric.source(key), unit);
  }
}

const LEVEL_AND_COUNTS = new Set(["concurrency", "request_rate", "completed", "failed", "duration_s", "sources"]);

/**
 * The finished point and its warnings. AIPerf leaves out request_count and every latency when no request
 * completed; such a point is "no data" too, and says so.
 */
export function finish(builder: PointBuilder, label: string): { point: ResultPoint; warnings: string[] } {
  const point = builder.build();
  const warnings = [...builder.warnings];
  const figures = Object.keys(point).filter((key) => !LEVEL_AND_COUNTS.has(key));
  if (
    point.completed === undefined &&
    figures.length === 0 &&
    (point.failed ?? 0) > 0 &&
    !warnings.some((w) => w.includes("no request completed"))
  ) {
    warnings.push(`${label}: no request completed (${point.failed} failed); it has no figures.`);
  }
  return { point, warnings };
}
