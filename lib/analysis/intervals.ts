/**
 * Repeats as numbers: the mean of a figure's repeats, their min–max range and, with three or more, the
 * t-based 95% confidence interval of the mean. A change whose two intervals overlap is "inconclusive":
 * the repeats do not tell the two apart.
 */

/** Two-sided 95% quantiles of Student's t, t(0.975, df), for df = 1 … 30 (standard tables). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
] as const;
const Z_975 = 1.959964;

/**
 * t(0.975, df): the table up to 30 degrees of freedom, beyond it the Cornish–Fisher expansion around the
 * normal quantile (within 0.001 of the exact value from df 30 on).
 */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be a positive integer, got ${df}`);
  const tabled = T_975[df - 1];
  if (tabled !== undefined) return tabled;
  const z = Z_975;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

export type Interval = [low: number, high: number];

export interface Spread {
  /** How many repeats the figure has. */
  n: number;
  mean: number;
  min: number;
  max: number;
  /** Sample standard deviation (n − 1 in the denominator); null with one repeat. */
  std: number | null;
  /** mean ± t(0.975, n − 1) · std / √n; null with fewer than three repeats. */
  ci95: Interval | null;
  /** The interval the inconclusive rule and the chart band use: the 95% interval with 3+ repeats, else min–max. */
  interval: Interval;
}

/** The spread of one figure's repeats. Throws on an empty list: a figure nobody measured has no spread. */
export function spreadOf(values: readonly number[]): Spread {
  const n = values.length;
  if (n === 0) throw new RangeError("no values");
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const std = n > 1 ? Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1)) : null;
  let ci95: Interval | null = null;
  if (n >= 3 && std !== null) {
    const half = (tQuantile975(n - 1) * std) / Math.sqrt(n);
    ci95 = [mean - half, mean + half];
  }
  return { n, mean, min, max, std, ci95, interval: ci95 ?? [min, max] };
}

export function intervalsOverlap(a: Interval, b: Interval): boolean {
  return a[0] <= b[1] && b[0] <= a[1];
}

/**
 * A change between two figures cannot be told from repeat-to-repeat variation when either side has repeats
 * and their intervals overlap. Without repeats on either side there is nothing to judge it by (null).
 */
export function isInconclusive(base: Spread | undefined, value: Spread | undefined): boolean {
  if (!base || !value) return false;
  if (base.n < 2 && value.n < 2) return false;
  return intervalsOverlap(base.interval, value.interval);
}

/** Half the min–max range relative to the mean: how far a repeat strays from the mean, as a fraction. */
export function relativeHalfRange(spread: Spread): number {
  return spread.mean === 0 ? 0 : (spread.max - spread.min) / 2 / Math.abs(spread.mean);
}
