/**
 * Every figure with its uncertainty. Twelve identical runs of one benchmark can spread their p99 by a quarter
 * (guidellm issue #1163: 23.5%), so a tail latency or an SLO attainment without its interval invites reading
 * noise as a change. From a point's per-request results (`requests`) this gives each percentile its
 * order-statistic confidence interval (uncertainty-quantiles.ts), the share of requests meeting an SLO its
 * Wilson interval, and pools a level's repeats into one sample; from summary figures alone it can still say
 * when a stated percentile is no more than the maximum of too few requests. docs/metrics.md#uncertainty.
 */
import type { RequestDetail, ResultPoint } from "@/lib/document/schema";
import { formatNumber } from "@/lib/format";
import { type Interval, intervalsOverlap } from "./intervals";
import {
  DEFAULT_CONFIDENCE,
  type PercentileEstimate,
  type PercentileSupport,
  percentileSupport,
  percentileWithInterval,
} from "./uncertainty-quantiles";

export {
  binomialAtMost,
  DEFAULT_CONFIDENCE,
  minSampleForUpperBound,
  type PercentileEstimate,
  type PercentileRanks,
  type PercentileSupport,
  percentileInterval,
  percentileSupport,
  percentileWithInterval,
} from "./uncertainty-quantiles";

/** z(0.975): the two-sided 95% normal quantile. */
const Z_95 = 1.959964;

/**
 * The Wilson score interval of a proportion (Wilson 1927; recommended over the normal "Wald" interval by Brown,
 * Cai & DasGupta 2001, which stays sensible at 0 of n and n of n):
 * (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n). 8 of 10: 0.490–0.943. No trials: [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z = Z_95): Interval {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`trials are a whole number ≥ 0, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`successes are a whole number from 0 to ${n}, got ${successes}`);
  }
  if (n === 0) return [0, 1];
  const share = successes / n;
  const zSquaredOverN = (z * z) / n;
  const center = (share + zSquaredOverN / 2) / (1 + zSquaredOverN);
  const half = (z / (1 + zSquaredOverN)) * Math.sqrt((share * (1 - share)) / n + zSquaredOverN / (4 * n));
  // At 0 or n successes one end is exactly 0 or 1; keep rounding from putting it a hair outside.
  return [successes === 0 ? 0 : Math.max(0, center - half), successes === n ? 1 : Math.min(1, center + half)];
}

/** Per-request latency targets in ms; a target left out (or null) is not judged. */
export interface RequestSloTargets {
  ttft_ms?: number | null;
  tpot_ms?: number | null;
  e2el_ms?: number | null;
}

export interface SloAttainment {
  /** Rows that completed and met every target. */
  met: number;
  /** Rows judged: every row of `requests`, failed ones included. */
  total: number;
  share: number;
  /** Wilson 95% interval of the share. */
  interval: Interval;
  /** The level's finished requests (`requests.total`): more than `total` when the rows are a sample of them. */
  levelRequests: number;
}

/**
 * The share of a level's requests that met an SLO, from its per-request results. A request meets it when it
 * completed and each targeted figure of its own is within its target (≤). A failed request never meets it. A
 * completed request without a TPOT (one output token: nothing was decoded after the first) counts as 0 against
 * the TPOT target, vLLM's `--goodput` rule, so the share agrees with the stated `request_goodput`. Null without
 * per-request results, without rows, or without any target.
 */
export function sloAttainment(
  requests: RequestDetail | null | undefined,
  targets: RequestSloTargets,
): SloAttainment | null {
  const ttftLimit = targets.ttft_ms ?? null;
  const tpotLimit = targets.tpot_ms ?? null;
  const e2elLimit = targets.e2el_ms ?? null;
  if (!requests || requests.ttft_ms.length === 0) return null;
  if (ttftLimit === null && tpotLimit === null && e2elLimit === null) return null;
  const total = requests.ttft_ms.length;
  let met = 0;
  for (let row = 0; row < total; row += 1) {
    const ttft = requests.ttft_ms[row] ?? null;
    const e2el = requests.e2el_ms[row] ?? null;
    const completed = (requests.error?.[row] ?? null) === null && ttft !== null;
    if (!completed) continue;
    if (ttftLimit !== null && ttft > ttftLimit) continue;
    if (tpotLimit !== null && (requests.tpot_ms[row] ?? 0) > tpotLimit) continue;
    // A completed row always has its e2e latency; one without it cannot be shown to meet an e2e target.
    if (e2elLimit !== null && (e2el === null || e2el > e2elLimit)) continue;
    met += 1;
  }
  return { met, total, share: met / total, interval: wilsonInterval(met, total), levelRequests: requests.total };
}

export interface GoodputEstimate {
  /** Requests per second that met the SLO: share × the level's finished requests ÷ its duration. */
  goodput_rps: number;
  /** The share's Wilson interval scaled the same way (the duration and request count taken as exact). */
  low_rps: number;
  high_rps: number;
}

/**
 * Goodput with its interval. The share is scaled by the level's finished requests rather than counting the met
 * rows, so that a sample of the requests (`requests` keeps at most 10,000 rows) estimates the whole level;
 * with every row kept it is vLLM's met ÷ duration. Null for a duration that is not positive.
 */
export function goodputInterval(attainment: SloAttainment, durationSeconds: number): GoodputEstimate | null {
  if (!(durationSeconds > 0) || !Number.isFinite(durationSeconds)) return null;
  const requestsPerSecond = Math.max(attainment.levelRequests, attainment.total) / durationSeconds;
  return {
    goodput_rps: attainment.share * requestsPerSecond,
    low_rps: attainment.interval[0] * requestsPerSecond,
    high_rps: attainment.interval[1] * requestsPerSecond,
  };
}

export type PooledLatencyMetric = "ttft" | "tpot" | "itl" | "e2el";

/**
 * A point's per-request values of a metric; null when the point keeps no per-request results. ITL has no
 * per-request column (its gaps are per streamed chunk, pooled in the summary figures), so it is always null.
 */
function requestValues(point: ResultPoint, metric: PooledLatencyMetric): number[] | null {
  const detail = point.requests;
  if (!detail || detail.ttft_ms.length === 0 || metric === "itl") return null;
  const column = metric === "ttft" ? detail.ttft_ms : metric === "tpot" ? detail.tpot_ms : detail.e2el_ms;
  return column.filter((value): value is number => value !== null);
}

/**
 * The p-th percentile (0–100) of a level's repeats pooled into one sample, with its interval: not the mean of
 * each repeat's percentile (the mean of three maxima is no p99). Null when any repeat lacks per-request results
 * (its requests are unknown, and leaving it out would weigh the others more), or nothing was measured.
 */
export function pooledPercentile(
  points: readonly ResultPoint[],
  metric: PooledLatencyMetric,
  p: number,
): PercentileEstimate | null {
  if (points.length === 0) return null;
  const pooled: number[] = [];
  for (const point of points) {
    const values = requestValues(point, metric);
    if (values === null) return null;
    pooled.push(...values);
  }
  return pooled.length === 0 ? null : percentileWithInterval(pooled, p);
}

export type UncertaintyStat = "median" | "p90" | "p95" | "p99";

const STAT_PERCENT: Record<UncertaintyStat, number> = { median: 50, p90: 90, p95: 95, p99: 99 };

export interface LatencyUncertainty {
  value: number | null;
  /** The 95% interval's ends; null = unbounded, or (basis "summary") no interval known. */
  low: number | null;
  high: number | null;
  /** Requests behind the figure: pooled rows, or the summed `completed` of the points that state it. */
  n: number | null;
  basis: "requests" | "summary";
  support: PercentileSupport;
}

/**
 * One latency percentile of one point, or of a level's repeats, with what is known of its uncertainty. With
 * per-request results on every repeat: the pooled percentile and its interval (basis "requests"). Otherwise
 * the stated figure, the mean over the repeats that state it, without an interval (basis "summary": "summary
 * figures only"); its support comes from the request count of the smallest repeat, since each repeat's figure
 * was computed from its own requests alone (eight p99s of 50 requests each average eight maxima). ITL's support
 * is "unknown" there: its values are gaps between chunks, not requests, and their count is not stored.
 */
export function latencyUncertainty(
  points: readonly ResultPoint[],
  metric: PooledLatencyMetric,
  stat: UncertaintyStat,
): LatencyUncertainty {
  const p = STAT_PERCENT[stat];
  const pooled = pooledPercentile(points, metric, p);
  if (pooled) {
    return {
      value: pooled.value,
      low: pooled.low,
      high: pooled.high,
      n: pooled.n,
      basis: "requests",
      support: pooled.supported ? "supported" : "approx-max",
    };
  }
  const stating = points.filter((point) => typeof point[`${stat}_${metric}_ms`] === "number");
  const summary = { low: null, high: null, basis: "summary" } as const;
  if (stating.length === 0) return { ...summary, value: null, n: null, support: "unknown" };
  const value = stating.reduce((sum, point) => sum + point[`${stat}_${metric}_ms`]!, 0) / stating.length;
  const counts = stating.map((point) => point.completed);
  const allCounted = counts.every((count) => count !== undefined);
  const n = allCounted ? counts.reduce<number>((sum, count) => sum + count!, 0) : null;
  const smallest = allCounted ? Math.min(...(counts as number[])) : null;
  const support = metric === "itl" ? "unknown" : percentileSupport(smallest, p);
  return { ...summary, value, n, support };
}

/** The interval an uncertainty gives a comparison: unbounded ends as ±∞; null without one (summary figures). */
export function uncertaintyInterval(uncertainty: LatencyUncertainty): Interval | null {
  if (uncertainty.basis !== "requests" || uncertainty.value === null) return null;
  return [uncertainty.low ?? Number.NEGATIVE_INFINITY, uncertainty.high ?? Number.POSITIVE_INFINITY];
}

/**
 * Two figures whose 95% intervals overlap are "inconclusive": the requests measured do not tell them apart.
 * Null when either side has no interval: nothing to judge by (fall back to the repeats' `isInconclusive`).
 * An unbounded end (±∞) overlaps everything beyond it.
 */
export function inconclusiveByIntervals(a: Interval | null, b: Interval | null): boolean | null {
  if (a === null || b === null) return null;
  return intervalsOverlap(a, b);
}

export interface IntervalFormat {
  /** Requests behind the figure, shown with "≈ max". */
  n?: number | null;
  /** "approx-max" shows the figure as the maximum it is; when left out, an interval with a lower end and no upper end does. */
  support?: PercentileSupport;
  confidence?: number;
}

/**
 * `412 ms (95% CI 398–431)`; `≈ max 1,204 ms (n=50)` for a percentile its requests cannot tell from their
 * maximum; `412 ms` without an interval; `—` without a value.
 */
export function formatInterval(
  value: number | null,
  low: number | null,
  high: number | null,
  unit: string,
  format: IntervalFormat = {},
): string {
  if (value === null || !Number.isFinite(value)) return "—";
  const figure = `${formatNumber(value)}${unit ? ` ${unit}` : ""}`;
  const approxMax = format.support === "approx-max" || (format.support === undefined && low !== null && high === null);
  if (approxMax) return `≈ max ${figure}${format.n == null ? "" : ` (n=${formatNumber(format.n)})`}`;
  const label = `${Math.round((format.confidence ?? DEFAULT_CONFIDENCE) * 100)}% CI`;
  if (low !== null && high !== null) return `${figure} (${label} ${formatNumber(low)}–${formatNumber(high)})`;
  if (high !== null) return `${figure} (${label} ≤ ${formatNumber(high)})`;
  return figure;
}

/** `formatInterval` of a `latencyUncertainty` result. */
export function formatUncertainty(uncertainty: LatencyUncertainty, unit = "ms"): string {
  return formatInterval(uncertainty.value, uncertainty.low, uncertainty.high, unit, {
    n: uncertainty.n,
    support: uncertainty.support,
  });
}
