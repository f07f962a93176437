/**
 * The uncertainty of each latency percentile a series states, level by level: from the requests themselves
 * when every repeat of the level stored them (pooled, with the order-statistic 95% interval), else from the
 * stated figure and its request count (no interval; marked "≈ max" when the count cannot support the
 * percentile). The delta tables, the tooltip and the run page read it; a change whose intervals overlap, or
 * whose percentile is "≈ max" on either side, is inconclusive.
 */
import type { LatencyKey, ResultPoint } from "@/lib/document/schema";
import { levelOf } from "./levels";
import {
  type LatencyUncertainty,
  latencyUncertainty,
  type PooledLatencyMetric,
  type UncertaintyStat,
  uncertaintyInterval,
} from "./uncertainty";

const STATS: readonly UncertaintyStat[] = ["median", "p90", "p95", "p99"];
const METRICS: readonly PooledLatencyMetric[] = ["ttft", "tpot", "itl", "e2el"];

export type LevelUncertainty = Partial<Record<LatencyKey, LatencyUncertainty>>;

/** The points of `runs` (a series' repeats) per load level key. */
export function pointsPerLevel(runs: readonly { results: readonly ResultPoint[] }[]): Map<string, ResultPoint[]> {
  const byLevel = new Map<string, ResultPoint[]>();
  for (const run of runs) {
    for (const point of run.results) {
      const key = levelOf(point).key;
      const list = byLevel.get(key);
      if (list) list.push(point);
      else byLevel.set(key, [point]);
    }
  }
  return byLevel;
}

/** Every percentile the level's points state or can compute from their requests, with its uncertainty. */
export function uncertaintyOfLevel(points: readonly ResultPoint[]): LevelUncertainty {
  const out: LevelUncertainty = {};
  const withRequests = points.length > 0 && points.every((point) => point.requests !== undefined);
  for (const metric of METRICS) {
    for (const stat of STATS) {
      const key = `${stat}_${metric}_ms` as LatencyKey;
      if (!withRequests && !points.some((point) => typeof point[key] === "number")) continue;
      const uncertainty = latencyUncertainty(points, metric, stat);
      if (uncertainty.value !== null) out[key] = uncertainty;
    }
  }
  return out;
}

/**
 * Per level key, the uncertainty of each latency percentile of a series whose repeats are `runs`, on demand: a
 * level's is computed the first time it is asked for, then kept. A comparison asks for the levels its delta tables
 * list (16 a table), not every level of a long sweep: 12 runs of 1,000 levels spent ~100 ms of every /compare
 * request on levels nothing showed.
 */
export function seriesUncertaintyAt(
  runs: readonly { results: readonly ResultPoint[] }[],
): (levelKey: string) => LevelUncertainty | undefined {
  let byLevel: Map<string, ResultPoint[]> | null = null;
  const computed = new Map<string, LevelUncertainty | undefined>();
  return (levelKey) => {
    if (computed.has(levelKey)) return computed.get(levelKey);
    byLevel ??= pointsPerLevel(runs);
    const points = byLevel.get(levelKey);
    const level = points ? uncertaintyOfLevel(points) : undefined;
    const answer = level && Object.keys(level).length > 0 ? level : undefined;
    computed.set(levelKey, answer);
    return answer;
  };
}

/**
 * Whether two percentiles cannot be told apart by their uncertainty: either is "≈ max" (a percentile its
 * request count cannot support has no upper bound), or both have intervals from their requests and these
 * overlap. Null when neither says anything (summary figures with enough requests).
 */
export function percentilesInconclusive(
  base: LatencyUncertainty | undefined,
  value: LatencyUncertainty | undefined,
): boolean | null {
  if (!base || !value) return null;
  if (base.support === "approx-max" || value.support === "approx-max") return true;
  const a = uncertaintyInterval(base);
  const b = uncertaintyInterval(value);
  if (!a || !b) return null;
  return a[0] <= b[1] && b[0] <= a[1];
}
