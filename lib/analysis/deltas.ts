/**
 * Deltas against a baseline: the numbers behind the headline cards and the delta tables, with the verdict
 * each change earns. With repeats, a change whose intervals overlap is "inconclusive", never better or worse.
 */

import { headline } from "@/lib/document/derived";
import type { LatencyKey, ResultPoint } from "@/lib/document/schema";
import { relativeChange } from "@/lib/format";
import { isInconclusive, type Spread, spreadOf } from "./intervals";
import { type LevelUncertainty, percentilesInconclusive } from "./level-uncertainty";
import { type LoadLevel, levelOf, unionLevels } from "./levels";
import { type MetricKey, metricInfo } from "./metrics";
import type { LatencyUncertainty } from "./uncertainty";

/**
 * "noise": a change smaller than the noise threshold; "inconclusive": the repeats' intervals overlap. Neither
 * is called better or worse.
 */
export type Verdict = "better" | "worse" | "noise" | "inconclusive" | "same" | "none";

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

/** The verdict of a change between two figures that may have repeats: inconclusive first, then noise. */
export function judgeChange(
  change: number | null,
  better: "higher" | "lower",
  noise: number,
  base: Spread | undefined,
  value: Spread | undefined,
): Verdict {
  if (change !== null && isInconclusive(base, value)) return "inconclusive";
  return verdictOf(change, better, noise);
}

export interface DeltaCell {
  value: number | null;
  /** Relative change against the baseline's value at the same level (0.5 = +50%). */
  change: number | null;
  verdict: Verdict;
  /** The spread of the value's repeats, when it has two or more. */
  spread?: Spread | undefined;
  /** The level violates the SLO for this series. */
  overSlo?: boolean | undefined;
  /** A latency percentile's uncertainty: its 95% interval from the requests, or "≈ max" for too few of them. */
  uncertainty?: LatencyUncertainty | undefined;
}

export interface DeltaRow {
  level: LoadLevel;
  cells: DeltaCell[];
}

export interface DeltaTable {
  /** A MetricKey, or a figure computed from them: `output_tok_s_per_gpu`, `cost_per_m_output_tokens`. */
  metric: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  rows: DeltaRow[];
}

export interface ComparedRun {
  results: readonly ResultPoint[];
  spreads?: Record<string, Partial<Record<MetricKey, Spread>>>;
  /** A level's uncertainty of each latency percentile, by level key (lib/analysis/level-uncertainty.ts). */
  uncertaintyAt?: (levelKey: string) => LevelUncertainty | undefined;
}

export interface DeltaFigure<R extends ComparedRun> {
  metric: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  /** The figure of a run at a point; null when not stated. */
  valueOf: (run: R, point: ResultPoint) => number | null;
  /** The spread of that figure at a level (a stored figure's spread, or one derived from it). */
  spreadOf?: (run: R, levelKey: string) => Spread | undefined;
  /** The uncertainty of the figure at a level, for latency percentiles. */
  uncertaintyOf?: (run: R, levelKey: string) => LatencyUncertainty | undefined;
}

/** A stored figure (a MetricKey) as a delta-table figure, with the spread of its repeats. */
export function storedFigure<R extends ComparedRun>(metric: MetricKey): DeltaFigure<R> {
  const info = metricInfo(metric);
  return {
    metric,
    label: info.label,
    unit: info.unit,
    better: info.better,
    valueOf: (_run, point) => (typeof point[metric] === "number" ? (point[metric] as number) : null),
    spreadOf: (run, key) => run.spreads?.[key]?.[metric],
    uncertaintyOf: (run, key) => run.uncertaintyAt?.(key)?.[metric as LatencyKey],
  };
}

/** One row per load level present in any run; one cell per run, in the runs' order. */
export function buildDeltaTable<R extends ComparedRun>(
  runs: readonly R[],
  baselineIndex: number,
  figure: DeltaFigure<R>,
  noise = 0,
  overSlo?: (run: R, index: number, levelKey: string) => boolean,
  /** The rows to make, in order; every level of the runs when absent. */
  levels?: readonly LoadLevel[],
): DeltaTable {
  const baseline = runs[baselineIndex];
  // Each run's points by level, looked up per cell: a search of its points per cell was quadratic in the levels
  // (12 runs of 1,000 levels: 12 million comparisons per table).
  const pointsByLevel = runs.map((run) => {
    const byKey = new Map<string, ResultPoint>();
    for (const point of run.results) {
      const key = levelOf(point).key;
      if (!byKey.has(key)) byKey.set(key, point);
    }
    return byKey;
  });
  const rows = (levels ?? unionLevels(runs)).map((level) => {
    const basePoint = pointsByLevel[baselineIndex]?.get(level.key);
    const baseValue = baseline && basePoint ? figure.valueOf(baseline, basePoint) : null;
    const baseSpread = baseline && baseValue !== null ? spreadFor(figure, baseline, level.key, baseValue) : undefined;
    const baseUncertainty = baseline && baseValue !== null ? figure.uncertaintyOf?.(baseline, level.key) : undefined;
    const cells = runs.map((run, index): DeltaCell => {
      const point = pointsByLevel[index]!.get(level.key);
      const value = point ? figure.valueOf(run, point) : null;
      const spread = value !== null ? figure.spreadOf?.(run, level.key) : undefined;
      // Set only when true, so a table without an SLO carries no flag at all.
      const over = value !== null && overSlo?.(run, index, level.key) ? true : undefined;
      const uncertainty = value !== null ? figure.uncertaintyOf?.(run, level.key) : undefined;
      if (index === baselineIndex) return { value, change: null, verdict: "none", spread, overSlo: over, uncertainty };
      const change = relativeChange(baseValue, value);
      const valueSpread = value !== null ? spreadFor(figure, run, level.key, value) : undefined;
      // The requests' own intervals decide first; without them, the repeats' spread.
      const byRequests = percentilesInconclusive(baseUncertainty, uncertainty);
      return {
        value,
        change,
        verdict:
          change !== null && byRequests === true
            ? "inconclusive"
            : byRequests === false
              ? verdictOf(change, figure.better, noise)
              : judgeChange(change, figure.better, noise, baseSpread, valueSpread),
        spread,
        overSlo: over,
        uncertainty,
      };
    });
    return { level, cells };
  });
  return { metric: figure.metric, label: figure.label, unit: figure.unit, better: figure.better, rows };
}

function spreadFor<R extends ComparedRun>(figure: DeltaFigure<R>, run: R, key: string, value: number): Spread {
  return figure.spreadOf?.(run, key) ?? spreadOf([value]);
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
  /** The spread of this run's figure over its repeats, and of the baseline's. */
  spread?: Spread | undefined;
  baseSpread?: Spread | undefined;
}

export interface HeadlineComparison {
  singleStream: HeadlineDelta & { derived: boolean };
  peak: HeadlineDelta & { concurrency: number | null; request_rate: number | "inf" | null };
}

/** The spread of single-stream tok/s: of output throughput at C=1, or of 1000 / TPOT when derived from it. */
function singleStreamSpread(run: ComparedRun, derived: boolean): Spread | undefined {
  const spreads = run.spreads?.["c:1"];
  if (!spreads) return undefined;
  if (!derived) return spreads.output_throughput;
  const tpot = spreads.mean_tpot_ms;
  if (!tpot) return undefined;
  // 1000 / x turns the TPOT interval around: its low end is the fastest single stream.
  const [low, high] = tpot.interval;
  const flipped: [number, number] = [1000 / high, 1000 / low];
  return { ...tpot, mean: 1000 / tpot.mean, min: 1000 / tpot.max, max: 1000 / tpot.min, interval: flipped };
}

function peakSpread(run: ComparedRun, level: { concurrency: number | null; request_rate: number | "inf" | null }) {
  const point = run.results.find((candidate) => {
    const key = levelOf(candidate);
    return (
      key.concurrency === level.concurrency && (level.concurrency !== null || key.request_rate === level.request_rate)
    );
  });
  return point ? run.spreads?.[levelOf(point).key]?.output_throughput : undefined;
}

/** The headline figures of each run against the baseline's: single-stream and peak tok/s. */
export function compareHeadlines(runs: readonly ComparedRun[], baselineIndex: number, noise = 0): HeadlineComparison[] {
  const figures = runs.map((run) => headline(run.results));
  const base = figures[baselineIndex];
  const baseRun = runs[baselineIndex];
  const baseSingleSpread = baseRun ? singleStreamSpread(baseRun, base?.single_stream?.derived ?? false) : undefined;
  const basePeakSpread =
    baseRun && base?.peak
      ? peakSpread(baseRun, { concurrency: base.peak.concurrency, request_rate: base.peak.request_rate })
      : undefined;
  return figures.map((figure, index) => {
    const run = runs[index]!;
    const isBaseline = index === baselineIndex;
    const single = figure.single_stream?.output_tok_s ?? null;
    const singleBase = base?.single_stream?.output_tok_s ?? null;
    const peak = figure.peak?.output_tok_s ?? null;
    const peakBase = base?.peak?.output_tok_s ?? null;
    const singleChange = isBaseline ? null : relativeChange(singleBase, single);
    const peakChange = isBaseline ? null : relativeChange(peakBase, peak);
    const singleSpread = singleStreamSpread(run, figure.single_stream?.derived ?? false);
    const ownPeakSpread = figure.peak
      ? peakSpread(run, { concurrency: figure.peak.concurrency, request_rate: figure.peak.request_rate })
      : undefined;
    const orOne = (spread: Spread | undefined, value: number | null) =>
      spread ?? (value !== null ? spreadOf([value]) : undefined);
    return {
      singleStream: {
        value: single,
        base: singleBase,
        change: singleChange,
        verdict: judgeChange(
          singleChange,
          "higher",
          noise,
          orOne(baseSingleSpread, singleBase),
          orOne(singleSpread, single),
        ),
        derived: figure.single_stream?.derived ?? false,
        spread: singleSpread,
        baseSpread: baseSingleSpread,
      },
      peak: {
        value: peak,
        base: peakBase,
        change: peakChange,
        verdict: judgeChange(peakChange, "higher", noise, orOne(basePeakSpread, peakBase), orOne(ownPeakSpread, peak)),
        concurrency: figure.peak?.concurrency ?? null,
        request_rate: figure.peak?.request_rate ?? null,
        spread: ownPeakSpread,
        baseSpread: basePeakSpread,
      },
    };
  });
}
