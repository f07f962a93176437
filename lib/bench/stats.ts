/**
 * The statistics of a sample, computed the way vLLM's `bench serve` computes them with numpy, so a figure
 * measured here and one imported from vLLM mean the same thing.
 */

export interface Summary {
  mean: number;
  median: number;
  /** Population standard deviation (numpy's default, ddof = 0), as vLLM reports it. */
  std: number;
  p90: number;
  p95: number;
  p99: number;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error("mean of an empty sample");
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Standard deviation with ddof = 0, like `np.std`. */
export function std(values: readonly number[]): number {
  const m = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - m) ** 2;
  return Math.sqrt(squares / values.length);
}

/**
 * The p-th percentile (0–100) of already sorted values with numpy's default method ("linear"): the value at
 * rank (n − 1) · p / 100, interpolated between its two neighbours.
 */
export function percentileOfSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error("percentile of an empty sample");
  const rank = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const low = sorted[lower]!;
  const high = sorted[upper]!;
  return low + (high - low) * (rank - lower);
}

export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted([...values].sort((a, b) => a - b), p);
}

/** Mean, median, std and the tail percentiles of a sample; null for an empty one (a gap, never a zero). */
export function summarize(values: readonly number[]): Summary | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: mean(sorted),
    median: percentileOfSorted(sorted, 50),
    std: std(sorted),
    p90: percentileOfSorted(sorted, 90),
    p95: percentileOfSorted(sorted, 95),
    p99: percentileOfSorted(sorted, 99),
  };
}
