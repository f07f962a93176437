/**
 * Repeats, in either of their two forms: one run whose points carry `repeat` numbers (several points at one
 * load level), or several runs with the same configuration (engine, version, flags, env, model, hardware,
 * workload, speculative decoding). A comparison shows both as one series: the mean at each load level with
 * the repeats' spread (min–max range, and the 95% interval with three or more), and computes deltas from the
 * means.
 */
import type { ResultPoint } from "@/lib/document/schema";
import type { ComparableConfig } from "./config-diff";
import { type Spread, spreadOf } from "./intervals";
import { compareLevels, type LoadLevel, levelOf } from "./levels";
import { ALL_METRIC_KEYS, type MetricKey } from "./metrics";
import { type PooledLatencyMetric, pooledPercentile } from "./uncertainty";

export interface RepeatableRun extends ComparableConfig {
  id: string;
  name: string;
  results: readonly ResultPoint[];
}

export type Range = [min: number, max: number];

export interface RunGroup<R extends RepeatableRun = RepeatableRun> {
  /** The runs of this configuration, in the order they were asked for. */
  runs: R[];
  /** One point per load level: each figure the mean over the repeats that have it. */
  results: ResultPoint[];
  /** Per load level key, the spread of each figure over its repeats (only where a level has two or more). */
  spreads: Record<string, Partial<Record<MetricKey, Spread>>>;
  /** The most repeats any load level has: 1 without repeats. */
  repeats: number;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

/** Two runs with the same key are repeats of one configuration. */
export function configurationKey(run: ComparableConfig): string {
  return JSON.stringify(
    sortKeys({
      engine: run.engine,
      engine_version: run.engine_version,
      model: run.model,
      hardware: run.hardware,
      flags: run.flags,
      env: run.env,
      workload: run.workload,
      speculative: run.speculative,
    }),
  );
}

const COUNT_KEYS = ["completed", "failed"] as const;
/**
 * Power and what J/token divides it by: averaged over the repeats that state them, so a series of repeats keeps
 * its energy figures (docs/metrics.md#energy). No spread: they are not compared level by level.
 */
const ENERGY_KEYS = [
  "power_w_mean",
  "power_w_max",
  "energy_j",
  "power_gpu_count",
  "total_output_tokens",
  "duration_s",
] as const;

/** Percentiles a level's repeats pool from their requests (ITL has no per-request column). */
const POOLED_PERCENTILE = /^(median|p90|p95|p99)_(ttft|tpot|e2el)_ms$/;
const STAT_PERCENT: Record<string, number> = { median: 50, p90: 90, p95: 95, p99: 99 };

/**
 * A percentile of repeats that stored their requests is the percentile of all their requests together, never
 * the mean of each repeat's: the mean of eight p99s of 50 requests is the mean of eight near-maxima.
 */
function pooledValue(key: string, points: readonly ResultPoint[]): number | null {
  const match = POOLED_PERCENTILE.exec(key);
  if (!match || !points.every((point) => point.requests !== undefined)) return null;
  const pooled = pooledPercentile(points, match[2] as PooledLatencyMetric, STAT_PERCENT[match[1]!]!);
  return pooled?.value ?? null;
}

function meanPoint(
  level: LoadLevel,
  points: readonly ResultPoint[],
): { point: ResultPoint; spreads: Partial<Record<MetricKey, Spread>> } {
  const point: ResultPoint = {};
  if (level.concurrency !== null) point.concurrency = level.concurrency;
  if (level.request_rate !== null) point.request_rate = level.request_rate;
  const spreads: Partial<Record<MetricKey, Spread>> = {};
  for (const key of [...ALL_METRIC_KEYS, ...COUNT_KEYS, ...ENERGY_KEYS]) {
    const values = points.map((p) => p[key]).filter((value): value is number => typeof value === "number");
    const pooled = pooledValue(key, points);
    if (values.length === 0 && pooled === null) continue;
    if (pooled !== null) {
      point[key as MetricKey] = pooled;
      continue;
    }
    point[key] = values.reduce((sum, value) => sum + value, 0) / values.length;
    if (values.length > 1 && (ALL_METRIC_KEYS as readonly string[]).includes(key)) {
      spreads[key as MetricKey] = spreadOf(values);
    }
  }
  return { point, spreads };
}

/** The points of `runs` gathered per load level (every repeat of every run), as means with their spreads. */
export function meanByLevel(runs: readonly { results: readonly ResultPoint[] }[]): Omit<RunGroup, "runs"> {
  const levels = new Map<string, { level: LoadLevel; points: ResultPoint[] }>();
  for (const run of runs) {
    for (const point of run.results) {
      const level = levelOf(point);
      const entry = levels.get(level.key);
      if (entry) entry.points.push(point);
      else levels.set(level.key, { level, points: [point] });
    }
  }
  const results: ResultPoint[] = [];
  const spreads: RunGroup["spreads"] = {};
  let repeats = 1;
  for (const { level, points } of [...levels.values()].sort((a, b) => compareLevels(a.level, b.level))) {
    repeats = Math.max(repeats, points.length);
    if (points.length === 1) {
      results.push(points[0]!);
      continue;
    }
    const mean = meanPoint(level, points);
    results.push(mean.point);
    if (Object.keys(mean.spreads).length > 0) spreads[level.key] = mean.spreads;
  }
  return { results, spreads, repeats };
}

/** Group runs into configurations, keeping the order in which each configuration first appears. */
export function groupRepeats<R extends RepeatableRun>(runs: readonly R[]): RunGroup<R>[] {
  const byKey = new Map<string, R[]>();
  for (const run of runs) {
    const key = configurationKey(run);
    const members = byKey.get(key);
    if (members) members.push(run);
    else byKey.set(key, [run]);
  }
  return [...byKey.values()].map((members) => ({ runs: members, ...meanByLevel(members) }));
}

/**
 * The name a series of repeats goes by: its first run's name without the "repeat N" an import gave each
 * repeat ("… (--max-num-seqs 4, repeat 1)" → "… (--max-num-seqs 4)").
 */
export function repeatsBaseName(name: string): string {
  return name
    .replace(/,\s*repeat \d+\)$/, ")")
    .replace(/(?<!\s)\s*\(repeat \d+\)$/, "")
    .trim();
}
