/**
 * The distribution of one latency over the requests a series stored at one load level, as an empirical
 * cumulative distribution (ECDF): at latency x, the share of the requests that took no longer than x. The compare
 * page overlays one curve per series (components/compare/LatencyCdfChart.tsx) and prints n and p50/p90/p99 under
 * it. Pure: the loader (lib/comparisons/request-distributions.ts) hands in the stored columns.
 *
 * Failed requests are left out (their figures are null, and a failure's latency says nothing about serving
 * speed); so are requests without a figure for the metric (TPOT of a request that generated one token or none).
 * Percentiles are numpy's linear method (lib/stats.ts), as the stored and pooled percentiles are, so p50 here is
 * the median the delta tables show for the same requests.
 */
import type { RequestDetail } from "@/lib/document/schema";
import { percentileOfSorted } from "@/lib/stats";
import { compareLevels, type LoadLevel } from "./levels";

/** The latencies stored per request. ITL has no per-request column (its gaps are per streamed chunk). */
export const CDF_METRICS = ["ttft", "tpot", "e2e"] as const;
export type CdfMetric = (typeof CDF_METRICS)[number];
export const DEFAULT_CDF_METRIC: CdfMetric = "ttft";

export const CDF_METRIC_NAMES: Record<CdfMetric, string> = { ttft: "TTFT", tpot: "TPOT", e2e: "E2E latency" };

/** The per-request column each metric is read from. */
export const CDF_COLUMN: Record<CdfMetric, "ttft_ms" | "tpot_ms" | "e2el_ms"> = {
  ttft: "ttft_ms",
  tpot: "tpot_ms",
  e2e: "e2el_ms",
};

/**
 * At most this many points per curve: a chart a few hundred pixels wide shows nothing more, and 12 series of
 * 100,000 requests drawn point by point would be megabytes of page.
 */
export const CDF_MAX_POINTS = 200;

/** Below this a curve cannot hold its fixed points (min, max, the percentiles' order statistics, both tails). */
const CDF_MIN_POINTS = 80;

export interface CdfPoint {
  latency_ms: number;
  /** Share of the requests that took at most latency_ms, 0–100. */
  share_pct: number;
}

export interface RequestCdf {
  /** Completed requests the curve is drawn from. */
  n: number;
  min_ms: number;
  max_ms: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  /**
   * The curve, latency ascending: (min, 0) first, then (x, F(x)) at each kept value, F(x) the exact share of
   * requests ≤ x. Drawn as steps: between two kept values the true curve is at least the left one's share.
   */
  points: CdfPoint[];
}

export interface SeriesCdf {
  key: string;
  /** The series' id in the URL (its first run's), for the legend's hide toggle. */
  id: string;
  label: string;
  color: string;
  hidden: boolean;
  /** Null: the series stored no per-request results at the level (or none of them completed). */
  cdf: RequestCdf | null;
  /** Rows stored at the level (every repeat, failed ones too) and the requests the level ran (`total`). */
  storedRows: number;
  totalRequests: number;
  /** The level's points, and how many of them stored their requests: pooled from the ones that did. */
  points: number;
  pointsWithRequests: number;
  /** Completed requests with the metric, before the cap. */
  completedRequests: number;
  /** More than the cap of completed requests: the curve (and n) is of a uniform sample of them. */
  capped: boolean;
}

export interface LatencyCdfData {
  metric: CdfMetric;
  /** The level drawn; null when no compared run stored per-request results. */
  level: { key: string; label: string } | null;
  /** The `cdf_level` the URL asked for when no run stored requests there (the default is drawn instead). */
  unavailableLevel: { key: string; label: string } | null;
  /** Every level some series stored requests at, ascending, with how many series did: the level picker. */
  levels: { key: string; label: string; series: number }[];
  series: SeriesCdf[];
  cap: number;
}

type RequestColumns = Pick<RequestDetail, "ttft_ms" | "tpot_ms" | "e2el_ms" | "error">;

/** The latencies of the requests that completed: a row with an error, or without the figure, is left out. */
export function completedValues(detail: RequestColumns, metric: CdfMetric): number[] {
  const column = detail[CDF_COLUMN[metric]];
  const out: number[] = [];
  column.forEach((value, row) => {
    if (value === null || !Number.isFinite(value)) return;
    if (detail.error !== undefined && detail.error[row] !== null && detail.error[row] !== undefined) return;
    out.push(value);
  });
  return out;
}

/** The first index whose value is greater than sorted[index] (the end of its run of equal values). */
function endOfTies(sorted: readonly number[], index: number): number {
  const value = sorted[index]!;
  let low = index + 1;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The ranks (0-based indices into the sorted values) a curve keeps, at most `budget` of them. The rule:
 * 1. always the minimum and the maximum, and both order statistics each of p50, p90 and p99 is interpolated
 *    between (ranks ⌊(n − 1)·p⌋ and ⌈(n − 1)·p⌉), so the printed percentiles lie on the curve exactly;
 * 2. both tails at doubling distances from each end (ranks 1, 2, 4, 8, … and n − 2, n − 3, n − 5, …): evenly
 *    spaced ranks alone would fold the slowest 0.5% of 100,000 requests into one segment, and the tail is what a
 *    distribution is read for;
 * 3. the rest of the budget evenly spaced over the ranks (equal steps of share).
 */
function keptRanks(n: number, budget: number): number[] {
  const last = n - 1;
  const ranks = new Set<number>([0, last]);
  for (const p of [0.5, 0.9, 0.99]) {
    ranks.add(Math.floor(last * p));
    ranks.add(Math.ceil(last * p));
  }
  for (let distance = 1; distance < last / 2; distance *= 2) {
    ranks.add(distance);
    ranks.add(last - distance);
  }
  const even = budget - ranks.size;
  for (let step = 1; step < even; step += 1) ranks.add(Math.round((step * last) / even));
  return [...ranks].sort((a, b) => a - b);
}

/**
 * The ECDF of `values` (any order; failed requests already left out, see completedValues) with its n and
 * percentiles; null for no values. With fewer distinct values than `maxPoints` every one is kept (the curve is
 * exact); otherwise the ranks of keptRanks, each moved to the last of its equal values so the share is exact.
 */
export function requestCdf(values: readonly number[], maxPoints = CDF_MAX_POINTS): RequestCdf | null {
  if (maxPoints < CDF_MIN_POINTS) throw new RangeError(`a curve needs at least ${CDF_MIN_POINTS} points`);
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return null;
  // One point goes to (min, 0), where the curve leaves 0.
  const budget = maxPoints - 1;
  const candidates = n <= budget ? sorted.map((_, index) => index) : keptRanks(n, budget);
  const points: CdfPoint[] = [{ latency_ms: sorted[0]!, share_pct: 0 }];
  let previousEnd = 0;
  for (const rank of candidates) {
    if (rank < previousEnd) continue;
    const end = endOfTies(sorted, rank);
    points.push({ latency_ms: sorted[rank]!, share_pct: (end / n) * 100 });
    previousEnd = end;
  }
  return {
    n,
    min_ms: sorted[0]!,
    max_ms: sorted[n - 1]!,
    p50_ms: percentileOfSorted(sorted, 50),
    p90_ms: percentileOfSorted(sorted, 90),
    p99_ms: percentileOfSorted(sorted, 99),
    points,
  };
}

/**
 * Whether `key` is a load level key as levelOf writes it: `c:8` (concurrency), `r:2.5` (request rate, as
 * String(rate) spells it) or `r:inf`. The URL's `cdf_level` is one; anything else falls back to the default.
 */
export function isLevelKey(key: string): boolean {
  if (key.length > 40) return false;
  if (/^c:[1-9]\d{0,8}$/.test(key)) return true;
  if (key === "r:inf") return true;
  if (!key.startsWith("r:")) return false;
  const rate = Number(key.slice(2));
  return Number.isFinite(rate) && rate > 0 && String(rate) === key.slice(2);
}

/** The load level a key names (isLevelKey's keys): `c:8` → concurrency 8, `r:2.5` → 2.5 req/s. */
export function levelOfKey(key: string): LoadLevel {
  const value = key.slice(2);
  if (key.startsWith("c:")) return { key, concurrency: Number(value), request_rate: null };
  return { key, concurrency: null, request_rate: value === "inf" ? "inf" : Number(value) };
}

/**
 * The level the distributions are drawn at when the URL names none: the highest level at which every series
 * that stored requests anywhere stored them; when they share none, the level most of them stored requests at
 * (the highest of those tied). Null when no series stored any. `levels`: per series, the levels it has
 * per-request data at (a series without any is left out or given as an empty list).
 */
export function defaultCdfLevel(levels: readonly (readonly LoadLevel[])[]): string | null {
  const withData = levels.filter((list) => list.length > 0);
  if (withData.length === 0) return null;
  const counts = new Map<string, { level: LoadLevel; count: number }>();
  for (const list of withData) {
    for (const level of new Map(list.map((item) => [item.key, item])).values()) {
      const entry = counts.get(level.key);
      if (entry) entry.count += 1;
      else counts.set(level.key, { level, count: 1 });
    }
  }
  const most = Math.max(...[...counts.values()].map((entry) => entry.count));
  const candidates = [...counts.values()].filter((entry) => entry.count === most).map((entry) => entry.level);
  return candidates.sort(compareLevels)[candidates.length - 1]!.key;
}
