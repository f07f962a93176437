/**
 * Repeats: runs with the same configuration (engine, version, flags, env, model, hardware, workload,
 * speculative decoding) measure the same thing twice. A comparison shows them as one series: the mean at
 * each load level, with the min–max range, and computes deltas from the means.
 */
import type { ResultPoint } from "@/lib/runs/schema";
import type { ComparableConfig } from "./config-diff";
import { compareLevels, type LoadLevel, levelOf } from "./levels";
import { ALL_METRIC_KEYS, type MetricKey } from "./metrics";

export interface RepeatableRun extends ComparableConfig {
  id: string;
  name: string;
  results: readonly ResultPoint[];
}

export type Range = [min: number, max: number];

export interface RunGroup<R extends RepeatableRun = RepeatableRun> {
  /** The runs of this configuration, in the order they were asked for. */
  runs: R[];
  /** One point per load level: each figure the mean over the runs that have it. */
  results: ResultPoint[];
  /** Per load level key, the min and max of each figure over the runs (only when there are repeats). */
  ranges: Record<string, Partial<Record<MetricKey, Range>>>;
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

function meanPoint(
  level: LoadLevel,
  points: readonly ResultPoint[],
): { point: ResultPoint; ranges: Partial<Record<MetricKey, Range>> } {
  const point: ResultPoint = {};
  if (level.concurrency !== null) point.concurrency = level.concurrency;
  if (level.request_rate !== null) point.request_rate = level.request_rate;
  const ranges: Partial<Record<MetricKey, Range>> = {};
  for (const key of [...ALL_METRIC_KEYS, ...COUNT_KEYS]) {
    const values = points.map((p) => p[key]).filter((value): value is number => typeof value === "number");
    if (values.length === 0) continue;
    point[key] = values.reduce((sum, value) => sum + value, 0) / values.length;
    if (points.length > 1 && (ALL_METRIC_KEYS as readonly string[]).includes(key)) {
      ranges[key as MetricKey] = [Math.min(...values), Math.max(...values)];
    }
  }
  return { point, ranges };
}

/** Group runs into configurations, keeping the order in which each configuration first appears. */
export function groupRepeats<R extends RepeatableRun>(runs: readonly R[]): RunGroup<R>[] {
  const byKey = new Map<string, R[]>();
  for (const run of runs) {
    const key = configurationKey(run);
    const members = byKey.get(key) ?? [];
    members.push(run);
    byKey.set(key, members);
  }
  return [...byKey.values()].map((members) => {
    if (members.length === 1) return { runs: members, results: [...members[0]!.results], ranges: {} };
    const levels = new Map<string, { level: LoadLevel; points: ResultPoint[] }>();
    for (const member of members) {
      for (const point of member.results) {
        const level = levelOf(point);
        const entry = levels.get(level.key) ?? { level, points: [] };
        entry.points.push(point);
        levels.set(level.key, entry);
      }
    }
    const results: ResultPoint[] = [];
    const ranges: RunGroup<R>["ranges"] = {};
    for (const { level, points } of [...levels.values()].sort((a, b) => compareLevels(a.level, b.level))) {
      const mean = meanPoint(level, points);
      results.push(mean.point);
      if (Object.keys(mean.ranges).length > 0) ranges[level.key] = mean.ranges;
    }
    return { runs: members, results, ranges };
  });
}
