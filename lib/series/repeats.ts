/**
 * Repeats: several measurements of the same thing. Today a repeat is another run of the series at the same
 * git commit (nightly CI that benchmarks a commit three times); a run without a commit stands alone. When a
 * run carries repeats of its own, `repeatValues` is the one place that returns them.
 */
import { metricValue, type SeriesMetric, type SeriesRunFigures } from "./metrics";

export interface RepeatableRun extends SeriesRunFigures {
  id: string;
  git_commit: string | null;
}

/** Runs with the same group key are repeats of one point of the series. */
export function repeatGroupKey(run: Pick<RepeatableRun, "id" | "git_commit">): string {
  return run.git_commit ? `commit:${run.git_commit}` : `run:${run.id}`;
}

/** The measurements one run contributes to its point: one value today (empty when it lacks the figure). */
export function repeatValues(run: RepeatableRun, metric: SeriesMetric): number[] {
  const value = metricValue(run, metric);
  return value === null ? [] : [value];
}
