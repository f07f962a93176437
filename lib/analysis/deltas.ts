/**
 * Deltas against a baseline: the numbers behind the headline cards and the delta table.
 */
import { relativeChange } from "@/lib/format";
import { headline } from "@/lib/runs/derived";
import type { ResultPoint } from "@/lib/runs/schema";
import { type LoadLevel, pointAt, unionLevels } from "./levels";
import { type MetricKey, metricInfo } from "./metrics";

/** "noise": a change smaller than the noise threshold, too small to call better or worse. */
export type Verdict = "better" | "worse" | "noise" | "same" | "none";

/** The default noise threshold: changes within ±3% are within run-to-run noise. */
export const DEFAULT_NOISE = 0.03;

/**
 * Whether a relative change is an improvement. `noise` is a fraction (0.03 = ±3%): a change whose size is
 * below it is "noise", whatever its sign.
 */
export function verdictOf(change: number | null, better: "higher" | "lower", noise = 0): Verdict {
  if (change === null) return "none";
  if (change === 0) return noise > 0 ? "noise" : "same";
  if (Math.abs(change) < noise) return "noise";
  const improved = better === "higher" ? change > 0 : change < 0;
  return improved ? "better" : "worse";
}

export interface DeltaCell {
  value: number | null;
  /** Relative change against the baseline's value at the same level (0.5 = +50%). */
  change: number | null;
  verdict: Verdict;
}

export interface DeltaRow {
  level: LoadLevel;
  cells: DeltaCell[];
}

export interface DeltaTable {
  metric: MetricKey;
  rows: DeltaRow[];
}

interface ComparedRun {
  results: readonly ResultPoint[];
}

/** One row per load level present in any run; one cell per run, in the runs' order. */
export function buildDeltaTable(
  runs: readonly ComparedRun[],
  baselineIndex: number,
  metric: MetricKey,
  noise = 0,
): DeltaTable {
  const info = metricInfo(metric);
  const baseline = runs[baselineIndex];
  const rows = unionLevels(runs).map((level) => {
    const baseValue = baseline ? (pointAt(baseline.results, level)?.[metric] ?? null) : null;
    const cells = runs.map((run, index): DeltaCell => {
      const value = pointAt(run.results, level)?.[metric] ?? null;
      if (index === baselineIndex) return { value, change: null, verdict: "none" };
      const change = relativeChange(baseValue, value);
      return { value, change, verdict: verdictOf(change, info.better, noise) };
    });
    return { level, cells };
  });
  return { metric, rows };
}

/** True when at least one run has a value for the metric. */
export function anyRunHas(runs: readonly ComparedRun[], metric: MetricKey): boolean {
  return runs.some((run) => run.results.some((point) => point[metric] !== undefined));
}

export interface HeadlineDelta {
  value: number | null;
  base: number | null;
  change: number | null;
  verdict: Verdict;
}

export interface HeadlineComparison {
  singleStream: HeadlineDelta & { derived: boolean };
  peak: HeadlineDelta & { concurrency: number | null; request_rate: number | "inf" | null };
}

/** The headline figures of each run against the baseline's: single-stream and peak tok/s. */
export function compareHeadlines(runs: readonly ComparedRun[], baselineIndex: number, noise = 0): HeadlineComparison[] {
  const figures = runs.map((run) => headline(run.results));
  const base = figures[baselineIndex];
  return figures.map((figure, index) => {
    const isBaseline = index === baselineIndex;
    const single = figure.single_stream?.output_tok_s ?? null;
    const singleBase = base?.single_stream?.output_tok_s ?? null;
    const peak = figure.peak?.output_tok_s ?? null;
    const peakBase = base?.peak?.output_tok_s ?? null;
    const singleChange = isBaseline ? null : relativeChange(singleBase, single);
    const peakChange = isBaseline ? null : relativeChange(peakBase, peak);
    return {
      singleStream: {
        value: single,
        base: singleBase,
        change: singleChange,
        verdict: verdictOf(singleChange, "higher", noise),
        derived: figure.single_stream?.derived ?? false,
      },
      peak: {
        value: peak,
        base: peakBase,
        change: peakChange,
        verdict: verdictOf(peakChange, "higher", noise),
        concurrency: figure.peak?.concurrency ?? null,
        request_rate: figure.peak?.request_rate ?? null,
      },
    };
  });
}
