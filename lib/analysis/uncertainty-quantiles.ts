/**
 * How sure a percentile is: the distribution-free confidence interval of a quantile from the order statistics
 * of an i.i.d. sample (Conover, Practical Nonparametric Statistics, §3.2; Hahn & Meeker, Statistical
 * Intervals, ch. 5). Of n requests sorted, X(l) ≤ ξp ≤ X(u) holds exactly when l ≤ B < u, B ~ Binomial(n, p)
 * being the number of requests at or below the true quantile ξp; so the ranks come from binomial tails and
 * hold whatever the latency distribution.
 *
 * Percentiles are given as in lib/stats.ts, 0–100 (99 for p99), and valued by the same function, numpy's
 * linear interpolation, as vLLM and `servebench bench` compute them.
 */
import { percentileOfSorted } from "@/lib/stats";

export const DEFAULT_CONFIDENCE = 0.95;

/**
 * Comparing a binomial tail with α/2: a tail within this of the bound counts as within it, so that rounding
 * in the last digits of a sum cannot move a rank. Tails that matter differ from α/2 by far more.
 */
const TAIL_TOLERANCE = 1e-12;

/** exp() of anything below this is 0 in double precision: terms this small cannot change a tail. */
const NEGLIGIBLE_LOG_WEIGHT = -745;

function checkPercent(p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`a percentile is from 0 to 100, got ${p}`);
  return p / 100;
}

function checkConfidence(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence is between 0 and 1, got ${confidence}`);
  return confidence;
}

/** P(B ≤ k) and P(B ≥ k) of B ~ Binomial(n, q), for the k where either is not negligibly small. */
interface BinomialTails {
  /** The first and last k with any probability (outside, each term is below e^−745 of the largest). */
  from: number;
  to: number;
  /** atMost[k − from] = P(B ≤ k). */
  atMost: Float64Array;
  /** atLeast[k − from] = P(B ≥ k). */
  atLeast: Float64Array;
}

/**
 * Exact binomial tails for any n: the probabilities from the mode outwards by the ratio of neighbouring
 * terms, in logarithms (so that (1 − q)^n of n = 100,000 does not underflow to 0), then normalized by their
 * sum. Each tail is summed from its own end, small terms first, so a tail of 0.01 keeps its digits instead of
 * being 1 minus a number near 1. The terms left out are each below e^−745 of the mode's: nothing a double can
 * hold. Cost: about 80 standard deviations' worth of terms, √n-scale.
 */
function binomialTails(n: number, q: number): BinomialTails {
  const mode = Math.min(n, Math.floor((n + 1) * q));
  // log of P(B = k + 1) / P(B = k), without its k-dependent part: log(q / (1 − q)).
  const logOdds = Math.log(q) - Math.log1p(-q);
  const above: number[] = [];
  for (let k = mode, logWeight = 0; k < n; k += 1) {
    logWeight += Math.log((n - k) / (k + 1)) + logOdds;
    if (!(logWeight > NEGLIGIBLE_LOG_WEIGHT)) break;
    above.push(logWeight);
  }
  const below: number[] = [];
  for (let k = mode, logWeight = 0; k > 0; k -= 1) {
    logWeight += Math.log(k / (n - k + 1)) - logOdds;
    if (!(logWeight > NEGLIGIBLE_LOG_WEIGHT)) break;
    below.push(logWeight);
  }
  const from = mode - below.length;
  const to = mode + above.length;
  const weights = [...below.reverse(), 0, ...above].map(Math.exp);
  let total = 0;
  for (const weight of [...weights].sort((a, b) => a - b)) total += weight;
  const size = weights.length;
  const atMost = new Float64Array(size);
  const atLeast = new Float64Array(size);
  let sum = 0;
  for (let index = 0; index < size; index += 1) {
    sum += weights[index]! / total;
    atMost[index] = Math.min(1, sum);
  }
  sum = 0;
  for (let index = size - 1; index >= 0; index -= 1) {
    sum += weights[index]! / total;
    atLeast[index] = Math.min(1, sum);
  }
  return { from, to, atMost, atLeast };
}

/** P(B ≤ k), exact to double precision. Exported for tests against independently computed values. */
export function binomialAtMost(n: number, p: number, k: number): number {
  const tails = binomialTails(n, checkPercent(p));
  if (k < tails.from) return 0;
  if (k >= tails.to) return 1;
  return tails.atMost[k - tails.from]!;
}

export interface PercentileRanks {
  /** 1-based rank, in the sorted sample, of the interval's lower end; null when it is unbounded below. */
  lowRank: number | null;
  /** 1-based rank of the upper end; null when it is unbounded above (the sample is too small for this percentile). */
  highRank: number | null;
  /** P(lowRank ≤ B < highRank), an unbounded end counting as rank 0 or n + 1: the interval's exact coverage. */
  coverage: number;
}

/**
 * The ranks of the equal-tailed order-statistic confidence interval of the p-th percentile from n i.i.d.
 * values (Conover §3.2, Hahn & Meeker ch. 5). With α = 1 − confidence and B ~ Binomial(n, p / 100):
 *
 * - l = the largest rank in 1…n with P(B ≤ l − 1) ≤ α/2; none (null, unbounded below) when P(B = 0) > α/2;
 * - u = the smallest rank in 1…n with P(B ≥ u) ≤ α/2; none (null, unbounded above) when P(B = n) = (p/100)^n > α/2.
 *
 * Each tail left out is at most α/2, so P(X(l) ≤ ξp ≤ X(u)) = 1 − P(B < l) − P(B ≥ u) ≥ confidence; with ties
 * (latencies rounded to 0.01 ms) the closed interval covers at least as often. Median of 10: l = 2, u = 9,
 * coverage 0.9785.
 */
export function percentileInterval(n: number, p: number, confidence = DEFAULT_CONFIDENCE): PercentileRanks {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`a sample size is a whole number ≥ 0, got ${n}`);
  const q = checkPercent(p);
  const halfAlpha = (1 - checkConfidence(confidence)) / 2 + TAIL_TOLERANCE;
  if (n === 0) return { lowRank: null, highRank: null, coverage: 1 };
  const tails = binomialTails(n, q);
  const atMost = (k: number) => (k < tails.from ? 0 : k >= tails.to ? 1 : tails.atMost[k - tails.from]!);
  const atLeast = (k: number) => (k < tails.from ? 1 : k > tails.to ? 0 : tails.atLeast[k - tails.from]!);

  // P(B ≤ l − 1) grows with l: walk up from the window's start (every rank below it has a tail of 0).
  let lowRank: number | null = null;
  for (let rank = Math.max(1, tails.from); rank <= n && atMost(rank - 1) <= halfAlpha; rank += 1) lowRank = rank;
  // P(B ≥ u) shrinks as u grows: walk down from the window's end (every rank above it has a tail of 0).
  let highRank: number | null = null;
  for (let rank = Math.min(n, tails.to + 1); rank >= 1 && atLeast(rank) <= halfAlpha; rank -= 1) highRank = rank;

  const belowLow = lowRank === null ? 0 : atMost(lowRank - 1);
  const fromHigh = highRank === null ? 0 : atLeast(highRank);
  return { lowRank, highRank, coverage: 1 - belowLow - fromHigh };
}

export interface PercentileEstimate {
  /** The percentile by numpy's linear interpolation (lib/stats.ts), as vLLM states it. */
  value: number;
  /** The interval's ends: values of the sample at the ranks of `percentileInterval`; null = unbounded. */
  low: number | null;
  high: number | null;
  n: number;
  /** False when the interval has no upper end: the sample cannot tell this percentile from its maximum. */
  supported: boolean;
}

/** A percentile of a sample with its order-statistic confidence interval. Throws on an empty sample. */
export function percentileWithInterval(
  values: readonly number[],
  p: number,
  confidence = DEFAULT_CONFIDENCE,
): PercentileEstimate {
  if (values.length === 0) throw new RangeError("percentile of an empty sample");
  const sorted = [...values].sort((a, b) => a - b);
  const { lowRank, highRank } = percentileInterval(sorted.length, p, confidence);
  return {
    value: percentileOfSorted(sorted, p),
    low: lowRank === null ? null : sorted[lowRank - 1]!,
    high: highRank === null ? null : sorted[highRank - 1]!,
    n: sorted.length,
    supported: highRank !== null,
  };
}

/**
 * The fewest values from which the p-th percentile has an upper confidence bound: the smallest n with
 * (p/100)^n ≤ α/2, i.e. n ≥ ln(α/2) / ln(p/100). At 95%: 6 for the median, 36 for p90, 72 for p95, 368 for
 * p99, 3,688 for p99.9. Infinity for p100 (the maximum is never bounded from its own sample).
 */
export function minSampleForUpperBound(p: number, confidence = DEFAULT_CONFIDENCE): number {
  const q = checkPercent(p);
  const halfAlpha = (1 - checkConfidence(confidence)) / 2;
  if (q === 1) return Number.POSITIVE_INFINITY;
  if (q === 0) return 1;
  const logQ = Math.log(q);
  let n = Math.max(1, Math.ceil(Math.log(halfAlpha) / logQ));
  // The logarithms may round across a whole number: settle on the exact smallest n.
  while (Math.exp(n * logQ) > halfAlpha + TAIL_TOLERANCE) n += 1;
  while (n > 1 && Math.exp((n - 1) * logQ) <= halfAlpha + TAIL_TOLERANCE) n -= 1;
  return n;
}

export type PercentileSupport = "supported" | "approx-max" | "unknown";

/**
 * Whether a stated p-th percentile of n requests is a percentile at all, for points that keep only summary
 * figures: "approx-max" when its 95% order-statistic interval has no upper end (n below
 * `minSampleForUpperBound`), "unknown" without a request count. For p ≥ 50 this flags every n where numpy's
 * interpolation rank (n − 1) · p / 100 lies between the two largest values (for p99: every n ≤ 100).
 */
export function percentileSupport(n: number | null | undefined, p: number): PercentileSupport {
  if (n == null || !Number.isFinite(n) || n < 1) return "unknown";
  return n < minSampleForUpperBound(p) ? "approx-max" : "supported";
}
