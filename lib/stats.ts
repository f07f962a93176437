/**
 * The statistics of a sample, computed the way numpy and pandas do (vLLM's `bench serve`, AIPerf and LLMPerf
 * all report them so), so a figure measured by `servebench bench`, one recomputed from a tool's per-request
 * records and one imported from its summary mean the same thing.
 */

export interface Summary {
  mean: number;
  median: number;
  /** Standard deviation: population (ddof 0, numpy's default, vLLM and AIPerf) unless asked otherwise. */
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

/**
 * Standard deviation with `ddof` delta degrees of freedom: 0 like `np.std` (the default), 1 like pandas'
 * `Series.std` (LLMPerf). NaN when the sample is too small for the ddof.
 */
export function std(values: readonly number[], ddof: 0 | 1 = 0): number {
  const m = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - m) ** 2;
  return Math.sqrt(squares / (values.length - ddof));
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
  return percentileOfSorted(
    [...values].sort((a, b) => a - b),
    p,
  );
}

/** Mean, median, std and the tail percentiles of a sample; null for an empty one (a gap, never a zero). */
export function summarize(values: readonly number[], ddof: 0 | 1 = 0): Summary | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    // Sums in the sample's own order, as numpy does: the last digits of a mean depend on it.
    mean: mean(values),
    median: percentileOfSorted(sorted, 50),
    std: std(values, ddof),
    p90: percentileOfSorted(sorted, 90),
    p95: percentileOfSorted(sorted, 95),
    p99: percentileOfSorted(sorted, 99),
  };
}
