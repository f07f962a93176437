/**
 * Regression detection over one metric of one series: pure, no database. Given the runs in time order,
 * it judges every point against a baseline of the points before it and finds the changes.
 *
 * A point is the runs of one repeat group (lib/series/repeats.ts), its value their mean. Its baseline is up
 * to `window` earlier points after the last reset (an "expected change" annotation), without the points
 * whose modified z-score (median and MAD) says they are outliers, so one flake does not widen the noise for
 * the thirty nights after it. The noise σ is the RMS of the residuals from a rolling mean over `rolling`
 * earlier points, scaled so that for steady noise it estimates the points' σ; a slow drift does not inflate
 * it the way the plain standard deviation would.
 *
 * A point violates when it moved against the baseline mean by at least `threshold_pct` percent AND the move
 * is beyond the noise: Welch's t-test p < `t_test_alpha` when the point has repeats, |z| ≥ `z_threshold`
 * otherwise. Consecutive violations in one direction are one change: `consecutive` (K) or more in the worse
 * direction is a regression, fewer is suspicious; K or more in the better direction is an improvement.
 * Why each default is what it is: docs/series.md.
 */
import { jStat } from "jstat";
import { CHANGE_POINT_WINDOW, eDivisive } from "./change-points";
import type { NumericSettings } from "./settings";

export interface SeriesSample {
  runId: string;
  /** Repeat group (lib/series/repeats.ts): runs with the same group are one point. */
  group: string;
  /** The run's measurements of the metric (one, or none when it lacks the figure). */
  values: number[];
}

export type PointStatus = "insufficient" | "ok" | "worse" | "better";
export type ChangeKind = "suspicious" | "regression" | "improvement";

export interface Baseline {
  /** Points in the baseline after outliers were left out. */
  n: number;
  /** Points left out as outliers. */
  outliers: number;
  mean: number;
  /** The noise of one point as judged: for a short baseline, blended with the prior and widened by 1/n. */
  sigma: number;
  /** Fewer points than `min_samples`: judged by the noise model for short baselines. */
  short: boolean;
  /** The |z| a move must reach: `z_threshold`, or for a short baseline its Student's t equivalent. */
  critical: number;
}

export interface PointJudgement {
  group: string;
  runIds: string[];
  values: number[];
  mean: number;
  min: number;
  max: number;
  status: PointStatus;
  baseline: Baseline | null;
  change_pct: number | null;
  z: number | null;
  /** One-sided p of Welch's t-test, when the point had repeats. */
  p: number | null;
  test: "z" | "t" | null;
  /** The baseline restarts at this point (an expected change). */
  reset: boolean;
}

export interface DetectedChange {
  startGroup: string;
  /** The first bad run: the first run of the change's first point. */
  startRunId: string;
  /**
   * The last good run: the newest run of the newest point before the change that was judged within the noise (or
   * not judged: the series' first runs); null when the change starts the series. Whatever night the change is
   * looked at from, "what changed" is read between this run and the first bad one.
   */
  lastGoodRunId: string | null;
  lastRunId: string;
  /** Every run of the violating points. */
  runIds: string[];
  violations: number;
  direction: "worse" | "better";
  kind: ChangeKind;
  before: number;
  after: number;
  change_pct: number;
  z: number | null;
  p: number | null;
  /** The newest point of the series is part of this change. */
  active: boolean;
  /**
   * The run whose judgement declared the change a regression or an improvement (the K-th night of a streak, or the
   * night a change point confirmed it); null while it is suspicious. Judging is causal, so this is the night a CI job
   * uploading night by night first exits 3.
   */
  declaredRunId: string | null;
  /** How it was confirmed: K points in a row beyond the noise, or a significant change point under a bad night. */
  confirmedBy: "consecutive" | "change-point" | null;
}

export interface SeriesJudgement {
  points: PointJudgement[];
  changes: DetectedChange[];
}

export type DetectionSettings = NumericSettings;

function meanOf(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Judging starts from the third point: a baseline of two points, judged by the noise model below. */
export const MIN_BASELINE_POINTS = 2;

/**
 * The weight of the noise prior, in degrees of freedom: a short baseline's σ² is (ν₀ σ₀² + (n − 1) s²) / (ν₀ + n − 1),
 * the scaled inverse χ² prior's posterior, so three nights of the series count for less than the prior and thirty
 * for far more.
 */
export const NOISE_PRIOR_DF = 4;

/**
 * The critical |z| of a short baseline: the Student's t quantile, with the blended σ's degrees of freedom, at the
 * one-sided level `z_threshold` stands for on a long one. Cached per (z, df): a page judges thousands of points.
 */
const criticalCache = new Map<string, number>();
export function shortBaselineCritical(zThreshold: number, degreesOfFreedom: number): number {
  const key = `${zThreshold}\n${degreesOfFreedom}`;
  let critical = criticalCache.get(key);
  if (critical === undefined) {
    critical = jStat.studentt.inv(jStat.normal.cdf(zThreshold, 0, 1), degreesOfFreedom);
    criticalCache.set(key, critical);
  }
  return critical;
}

/**
 * The baseline's noise and critical value. A long baseline (≥ `min_samples` points): σ as measured, `z_threshold`.
 * A short one: σ² blended with the prior (`noise_prior_pct` of the mean, NOISE_PRIOR_DF degrees of freedom), widened
 * by √(1 + 1/n) for the uncertainty of a mean of n points, and judged at Student's t with ν₀ + n − 1 degrees of
 * freedom. Three nights of 2% noise thus need a move of ~8% to count (z ≈ 3.6 of a σ near 2.3%), not 5σ of a σ
 * measured from two residuals, and a −10% flake at night 4 is judged, not skipped.
 */
export function baselineNoise(
  values: readonly number[],
  mean: number,
  settings: Pick<DetectionSettings, "rolling" | "min_samples" | "noise_prior_pct" | "z_threshold">,
): { sigma: number; short: boolean; critical: number } {
  const measured = residualSigma(values, settings.rolling);
  const n = values.length;
  if (n >= settings.min_samples) return { sigma: measured, short: false, critical: settings.z_threshold };
  const prior = (Math.abs(mean) * settings.noise_prior_pct) / 100;
  const priorDf = settings.noise_prior_pct > 0 ? NOISE_PRIOR_DF : 0;
  const degrees = priorDf + n - 1;
  const blended = degrees > 0 ? (priorDf * prior ** 2 + (n - 1) * measured ** 2) / degrees : measured ** 2;
  return {
    sigma: Math.sqrt(blended * (1 + 1 / n)),
    short: true,
    critical: settings.z_threshold === 0 ? 0 : shortBaselineCritical(settings.z_threshold, Math.max(1, degrees)),
  };
}

/** Sorts `values` ascending in place, by insertion: for a baseline window (tens of values) the quickest way. */
function insertionSort(values: Float64Array): void {
  for (let index = 1; index < values.length; index++) {
    const value = values[index]!;
    let at = index - 1;
    while (at >= 0 && values[at]! > value) {
      values[at + 1] = values[at]!;
      at--;
    }
    values[at + 1] = value;
  }
}

/**
 * The k-th smallest of `values` (0-based), found by Hoare's selection in place: it reorders `values` so that those
 * before k are at most it. Linear on average where sorting is n log n.
 */
function selectInPlace(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else break;
  }
  return values[k]!;
}

/**
 * The median of `values`, reordering them. Two medians per point and figure, for every point a series page shows:
 * in a typed array, by insertion up to 64 values and by selection past that. Copies sorted with a comparator were
 * most of a page's judging (~5 µs a median of 100 values).
 */
function medianInPlace(values: Float64Array): number {
  const middle = values.length >> 1;
  if (values.length <= 64) {
    insertionSort(values);
    return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
  }
  const upper = selectInPlace(values, middle);
  if (values.length % 2 === 1) return upper;
  // The lower middle is the largest of those selection left before the upper one.
  let lower = values[0]!;
  for (let index = 1; index < middle; index++) if (values[index]! > lower) lower = values[index]!;
  return (lower + upper) / 2;
}

function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = meanOf(values);
  let sum = 0;
  for (const value of values) sum += (value - mean) ** 2;
  return sum / (values.length - 1);
}

/**
 * Iglewicz and Hoaglin's modified z-score, 0.6745 (x − median) / MAD: robust to the outliers it looks for.
 * Returns the indexes to keep.
 */
export function withoutOutliers(values: readonly number[], limit: number, noisePriorPct = 0): number[] {
  const all: number[] = [];
  for (let index = 0; index < values.length; index++) all.push(index);
  if (limit <= 0 || values.length < 3) return all;
  // One scratch array for both medians (new Float64Array copies an array at once; Float64Array.from iterates it).
  const scratch = new Float64Array(values);
  const median = medianInPlace(scratch);
  for (let index = 0; index < values.length; index++) scratch[index] = Math.abs(values[index]! - median);
  // The floor: the MAD of the prior noise (0.6745 σ₀). With 5–7 points the measured MAD is often a fraction of the
  // noise, and ordinary 2% noise was then "outlying"; a point within 3.5 σ₀ of the median is never left out.
  const mad = Math.max(medianInPlace(scratch), (0.6745 * Math.abs(median) * noisePriorPct) / 100);
  if (mad === 0) {
    // Most points are identical: only those equal to the median are certainly not outliers, unless every point
    // differs (then nothing can be told apart and all are kept).
    const same = all.filter((index) => values[index] === median);
    return same.length >= values.length / 2 ? same : all;
  }
  const kept: number[] = [];
  for (let index = 0; index < values.length; index++) {
    if (Math.abs((0.6745 * (values[index]! - median)) / mad) <= limit) kept.push(index);
  }
  return kept;
}

/**
 * Puts back, among the points the outlier filter left out of a short stretch, those on the judged point's side of the
 * kept points' median and at least as far from it: the judged value has been seen before, so the stretch's noise
 * reaches it and it is no outlier to judge against a baseline without them. Real run-to-run noise is often
 * heavy-tailed (a quarter of the nights of vLLM's sweep are 8% slow): without this, two slow nights in a row on the
 * first nights of a series were a false regression. Returns the indexes to keep, in order.
 */
export function withRecurringOutliers(values: readonly number[], keep: readonly number[], judged: number): number[] {
  if (keep.length === values.length || keep.length === 0) return [...keep];
  const kept = Float64Array.from(keep, (index) => values[index]!);
  const median = medianInPlace(kept);
  const distance = judged - median;
  if (distance === 0) return [...keep];
  const keepSet = new Set(keep);
  const out: number[] = [];
  for (let index = 0; index < values.length; index++) {
    const away = values[index]! - median;
    if (keepSet.has(index) || (Math.sign(away) === Math.sign(distance) && Math.abs(away) >= Math.abs(distance)))
      out.push(index);
  }
  return out;
}

/**
 * The noise of a baseline: RMS of the residuals of each point from the mean of the `rolling` points before
 * it. For steady noise of σ a residual has variance σ²(1 + 1/m) with m earlier points, so each is divided by
 * √(1 + 1/m) and the RMS estimates σ. The earlier points' sum slides along (one value in, one out), so a baseline
 * costs its length whatever `rolling` is; summed afresh for each point it cost length × rolling, which at a window
 * of 500 and rolling of 100 was most of a series page's 5 s.
 */
export function residualSigma(values: readonly number[], rolling: number): number {
  const span = Math.max(1, rolling);
  let sum = 0;
  let count = 0;
  let prior = 0;
  for (let index = 1; index < values.length; index++) {
    // The sum of values[from, index): the value before `index` comes in, the one `span` before it goes out.
    prior += values[index - 1]!;
    if (index > span) prior -= values[index - 1 - span]!;
    const m = Math.min(index, span);
    const residual = (values[index]! - prior / m) / Math.sqrt(1 + 1 / m);
    sum += residual * residual;
    count++;
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

/** Welch's t-test: the one-sided p of a difference at least this large in the direction observed. */
export function welchTTest(a: readonly number[], b: readonly number[]): { t: number; df: number; p: number } {
  const meanA = meanOf(a);
  const meanB = meanOf(b);
  const varA = sampleVariance(a) / a.length;
  const varB = sampleVariance(b) / b.length;
  const se = Math.sqrt(varA + varB);
  if (se === 0)
    return { t: meanA === meanB ? 0 : Math.sign(meanA - meanB) * Infinity, df: Infinity, p: meanA === meanB ? 1 : 0 };
  const t = (meanA - meanB) / se;
  const df = (varA + varB) ** 2 / (varA ** 2 / Math.max(1, a.length - 1) + varB ** 2 / Math.max(1, b.length - 1));
  return { t, df, p: jStat.studentt.cdf(-Math.abs(t), df) };
}

interface Group {
  key: string;
  runIds: string[];
  values: number[];
  reset: boolean;
}

function groupsOf(samples: readonly SeriesSample[], resetRunIds: ReadonlySet<string>): Group[] {
  const byKey = new Map<string, Group>();
  for (const sample of samples) {
    let group = byKey.get(sample.group);
    if (!group) {
      group = { key: sample.group, runIds: [], values: [], reset: false };
      byKey.set(sample.group, group);
    }
    group.runIds.push(sample.runId);
    group.values.push(...sample.values);
    if (resetRunIds.has(sample.runId)) group.reset = true;
  }
  return [...byKey.values()];
}

function directionOf(diff: number, better: "higher" | "lower"): "worse" | "better" | null {
  if (diff === 0) return null;
  return diff > 0 === (better === "higher") ? "better" : "worse";
}

/** Judge every point of one metric of a series and find its changes. `samples` are in time order. */
export function judgeSeries(
  samples: readonly SeriesSample[],
  options: {
    better: "higher" | "lower";
    settings: DetectionSettings;
    resetRunIds?: ReadonlySet<string>;
    /** Fewest baseline points judged: MIN_BASELINE_POINTS; the detection benchmark sets 5 to replay the old rule. */
    minBaselinePoints?: number;
    /** Confirm by a change point under a bad night (confirmByChangePoint); false replays the window rule alone. */
    changePoints?: boolean;
  },
): SeriesJudgement {
  const { better, settings } = options;
  const groups = groupsOf(samples, options.resetRunIds ?? new Set()).filter((group) => group.values.length > 0);
  const means = groups.map((group) => meanOf(group.values));
  const points: PointJudgement[] = [];
  // Points of a confirmed change never return to a baseline: the level before the change stays the reference.
  // A baseline is gathered walking back over them; `skip` lets the walk jump a stretch of them at once (pointers
  // shortened as they are followed), where a step that lasted 1,000 points had every later point step through all
  // 1,000 one by one.
  const excluded = new Uint8Array(groups.length);
  const skip = new Int32Array(groups.length);
  const exclude = (index: number) => {
    excluded[index] = 1;
    skip[index] = index - 1;
  };
  /** The newest point at or before `from` that is not excluded; -1 when there is none. */
  const includedAtOrBefore = (from: number): number => {
    let found = from;
    while (found >= 0 && excluded[found] === 1) found = skip[found]!;
    for (let at = from; at >= 0 && excluded[at] === 1; ) {
      const next = skip[at]!;
      skip[at] = found;
      at = next;
    }
    return found;
  };
  let resetAt = 0;
  let streak: number[] = [];
  let confirmed: {
    direction: "worse" | "better";
    baseline: Baseline;
    pooled: number[];
    members: number[];
    /** The members' means summed in their order: the change's new level without summing them again per point. */
    membersSum: number;
  } | null = null;
  // The individual values behind the baseline of each point of the current streak, for the t-test of a change's
  // later points (only the streak's first is kept by a change).
  const pooledOf = new Map<number, number[]>();
  // Each judged point's baseline points, for a change a change point starts before the current streak.
  const baselineOf: (number[] | undefined)[] = [];
  // The points whose judgement declared a change, and how.
  const declaredBy = new Map<number, "consecutive" | "change-point">();
  const pooledFrom = (baselinePoints: readonly number[]) => {
    const pooled: number[] = [];
    for (const candidate of baselinePoints) for (const value of groups[candidate]!.values) pooled.push(value);
    return pooled;
  };

  groups.forEach((group, index) => {
    const mean = means[index]!;
    const point: PointJudgement = {
      group: group.key,
      runIds: group.runIds,
      values: group.values,
      mean,
      min: Math.min(...group.values),
      max: Math.max(...group.values),
      status: "insufficient",
      baseline: null,
      change_pct: null,
      z: null,
      p: null,
      test: null,
      reset: group.reset,
    };
    points.push(point);
    if (group.reset) {
      resetAt = index;
      streak = [];
      confirmed = null;
    }

    // Inside a confirmed change, a point belongs to it while it is nearer the new level than the old one: a
    // lasting step is one change, however many nights it lasts, until it recovers or is marked expected.
    if (confirmed) {
      // A step that lasts (an upgrade nobody marked expected) keeps every later point: summed afresh per point its
      // level cost the square of its length.
      const newLevel = confirmed.membersSum / confirmed.members.length;
      if (Math.abs(mean - newLevel) < Math.abs(mean - confirmed.baseline.mean)) {
        fillAgainst(point, confirmed.baseline, group.values, confirmed.pooled, settings);
        point.status = confirmed.direction;
        confirmed.members.push(index);
        confirmed.membersSum += mean;
        exclude(index);
        return;
      }
      confirmed = null;
      streak = [];
    }

    const candidates: number[] = [];
    const candidateMeans: number[] = [];
    for (
      let other = includedAtOrBefore(index - 1);
      other >= resetAt && candidates.length < settings.window;
      other = includedAtOrBefore(other - 1)
    ) {
      // The violations of a change still being confirmed are not their own baseline either.
      if (streak.includes(other)) continue;
      candidates.push(other);
      candidateMeans.push(means[other]!);
    }
    candidates.reverse();
    candidateMeans.reverse();
    // The MAD's floor where the MAD is unreliable, fewer than twice `min_samples` points: past that the measured MAD
    // is the better guide (with the floor, heavy-tailed real noise kept its slow nights and raised more alarms).
    const madFloorPct = candidateMeans.length < 2 * settings.min_samples ? settings.noise_prior_pct : 0;
    let keep = withoutOutliers(candidateMeans, settings.outlier_mad, madFloorPct);
    if (madFloorPct > 0) keep = withRecurringOutliers(candidateMeans, keep, mean);
    if (keep.length < (options.minBaselinePoints ?? MIN_BASELINE_POINTS)) {
      streak = [];
      return;
    }
    const kept: number[] = [];
    const keptMeans: number[] = [];
    for (const at of keep) {
      kept.push(candidates[at]!);
      keptMeans.push(candidateMeans[at]!);
    }
    baselineOf[index] = kept;
    const baselineMean = meanOf(keptMeans);
    const baseline: Baseline = {
      n: kept.length,
      outliers: candidates.length - kept.length,
      mean: baselineMean,
      ...baselineNoise(keptMeans, baselineMean, settings),
    };
    // Gathered only where a t-test (repeats) or a change to come may read it: most points have neither.
    let pooled: number[] | null = null;
    const pooledValues = () => {
      pooled ??= pooledFrom(kept);
      return pooled;
    };
    const significant = fillAgainst(
      point,
      baseline,
      group.values,
      group.values.length >= 2 ? pooledValues() : [],
      settings,
    );
    const bigEnough =
      settings.threshold_pct === 0 ||
      (point.change_pct !== null && Math.abs(point.change_pct) >= settings.threshold_pct);
    const direction = directionOf(mean - baseline.mean, better);
    point.status = significant && bigEnough && direction !== null ? direction : "ok";

    if (point.status === "ok") {
      streak = [];
      pooledOf.clear();
      return;
    }
    if (streak.length > 0 && points[streak[0]!]!.status !== point.status) {
      streak = [];
      pooledOf.clear();
    }
    streak.push(index);
    pooledOf.set(index, pooledValues());
    // A short baseline can see a change (suspicious) but not confirm one: its noise is a prior, and a series noisier
    // than the prior would raise false regressions on its first nights. The night that confirms must be judged
    // against a baseline of `min_samples` points.
    if (baseline.short) return;
    const confirmedDirection = point.status as "worse" | "better";
    let members: number[] | null = null;
    if (streak.length >= settings.consecutive) {
      members = [...streak];
      declaredBy.set(index, "consecutive");
    } else if (options.changePoints !== false) {
      const start = confirmByChangePoint(means, points, index, resetAt, confirmedDirection, better, settings);
      if (start !== null) {
        members = [];
        for (let member = start; member <= index; member++) members.push(member);
        declaredBy.set(index, "change-point");
      }
    }
    if (members === null) return;
    const first = points[members[0]!]!;
    for (const member of members) points[member]!.status = confirmedDirection;
    confirmed = {
      direction: confirmedDirection,
      baseline: first.baseline!,
      pooled: pooledOf.get(members[0]!) ?? pooledFrom(baselineOf[members[0]!] ?? []),
      members,
      membersSum: members.reduce((sum, member) => sum + means[member]!, 0),
    };
    for (const member of members) exclude(member);
    streak = [];
    pooledOf.clear();
  });
  return { points, changes: changesOf(points, settings.consecutive, declaredBy) };
}

/**
 * The significance a change point must reach to confirm a change the window rule has seen only on its newest night.
 * Stricter than the change points an upload reports (5% before BH): this one decides an exit code, and it is asked
 * again every night a bad night arrives.
 */
export const CHANGE_POINT_CONFIRM_ALPHA = 0.01;

/**
 * A change point confirms a change only once it has lasted K + this many nights: a dip of K + 1 nights with one back
 * inside the noise (bad, fine, bad) and then over is as likely a passing slowdown as a step, and the window rule
 * leaves it suspicious. With 1 instead, steady series of 5% noise with three runs a night raised false regressions
 * the window rule did not (docs/series.md, "Detection quality").
 */
export const CHANGE_POINT_EXTRA_NIGHTS = 2;

/**
 * A change the window rule cannot confirm, because noise put one of its nights back within the baseline's band,
 * confirmed by the whole stretch: the newest night is beyond the noise, and E-divisive over the points since the last
 * reset (the newest CHANGE_POINT_WINDOW) puts its last significant change point (p < CHANGE_POINT_CONFIRM_ALPHA)
 * where the level moved in the same direction by at least `threshold_pct`. The change starts at the first night from
 * there that was beyond the noise on its own; from it to the newest are at least K + CHANGE_POINT_EXTRA_NIGHTS
 * nights, each nearer the new level than the old and none beyond the noise the other way. Returns the change's first
 * point, or null. Judging stays causal: the answer depends on no point after `index`, so the night a CI job uploads
 * is judged as the whole series judged later judges it.
 */
function confirmByChangePoint(
  means: readonly number[],
  points: readonly PointJudgement[],
  index: number,
  resetAt: number,
  direction: "worse" | "better",
  better: "higher" | "lower",
  settings: DetectionSettings,
): number | null {
  const from = Math.max(resetAt, index + 1 - CHANGE_POINT_WINDOW);
  // What the answer needs before any permutation is drawn: a night beyond the noise in this direction at least
  // K + CHANGE_POINT_EXTRA_NIGHTS − 1 nights back, with only nights within the noise or beyond it the same way since.
  // Most bad nights of a noisy series have none, and E-divisive is most of judging's cost where it runs.
  const latestStart = index + 1 - (settings.consecutive + CHANGE_POINT_EXTRA_NIGHTS);
  let possible = false;
  for (let at = index - 1; at >= from; at--) {
    const status = points[at]!.status;
    if (status !== "ok" && status !== direction) break;
    if (at <= latestStart && status === direction) {
      possible = true;
      break;
    }
  }
  if (!possible) return null;
  const stretch = means.slice(from, index + 1);
  const found = eDivisive(stretch, { alpha: CHANGE_POINT_CONFIRM_ALPHA });
  const last = found.at(-1);
  if (!last) return null;
  const changePoint = from + last.index;
  // The change starts at the first night from the change point that was beyond the noise on its own: E-divisive puts
  // a night of ordinary noise just before a step's first bad night on the step's side as often as not, and that night
  // is not the culprit.
  let start = changePoint;
  while (start < index && points[start]!.status !== direction) start++;
  if (index - start + 1 < settings.consecutive + CHANGE_POINT_EXTRA_NIGHTS) return null;
  const previous = found.length > 1 ? from + found[found.length - 2]!.index : from;
  const before = meanOf(means.slice(previous, changePoint));
  const after = meanOf(means.slice(start, index + 1));
  if (directionOf(after - before, better) !== direction) return null;
  const movedPct = before === 0 ? Infinity : (Math.abs(after - before) / Math.abs(before)) * 100;
  if (settings.threshold_pct > 0 && movedPct < settings.threshold_pct) return null;
  // Every night of the change belongs to it as a confirmed change's later nights do: nearer the new level than the
  // old, and none beyond the noise the other way.
  for (let at = start; at < index; at++) {
    const status = points[at]!.status;
    if (status !== "ok" && status !== direction) return null;
    if (Math.abs(means[at]! - after) >= Math.abs(means[at]! - before)) return null;
  }
  return start;
}

/** Set the point's change, z and (with repeats) t-test against a baseline; true when the move is significant. */
function fillAgainst(
  point: PointJudgement,
  baseline: Baseline,
  values: readonly number[],
  pooled: readonly number[],
  settings: DetectionSettings,
): boolean {
  point.baseline = baseline;
  const diff = point.mean - baseline.mean;
  point.change_pct = baseline.mean === 0 ? null : (diff / Math.abs(baseline.mean)) * 100;
  // A baseline of identical values has no noise: any move is beyond it, and the percentage decides.
  const sigma = Math.max(baseline.sigma, Math.abs(baseline.mean) * 1e-9, 1e-12);
  point.z = diff / sigma;
  if (values.length >= 2 && pooled.length >= 2 && settings.t_test_alpha > 0) {
    const test = welchTTest(values, pooled);
    point.test = "t";
    point.p = test.p;
    return test.p < settings.t_test_alpha;
  }
  point.test = "z";
  return baseline.critical === 0 || Math.abs(point.z) >= baseline.critical;
}

/** The newest run before `index` whose point was not a violation: the last good run of a change starting there. */
function lastGoodBefore(points: readonly PointJudgement[], index: number): string | null {
  for (let at = index - 1; at >= 0; at--) {
    const point = points[at]!;
    if (point.status === "ok" || point.status === "insufficient") return point.runIds[point.runIds.length - 1]!;
  }
  return null;
}

export function changesOf(
  points: readonly PointJudgement[],
  consecutive: number,
  declaredBy?: ReadonlyMap<number, "consecutive" | "change-point">,
): DetectedChange[] {
  const changes: DetectedChange[] = [];
  let run: number[] = [];
  /** The point that declared the run's change, as judging recorded it or, without that record, the K-th in a row. */
  const declaringPoint = (): number | null => {
    if (declaredBy) return run.find((index) => declaredBy.has(index)) ?? null;
    const long = (index: number) => points[index]!.baseline?.short === false;
    if (run.length < consecutive || !run.some(long)) return null;
    return run.find((index, position) => position >= consecutive - 1 && long(index)) ?? run[consecutive - 1]!;
  };
  const close = (isLast: boolean) => {
    const first = points[run[0]!];
    if (!first) return;
    const direction = first.status === "worse" ? "worse" : "better";
    // Confirmed as the judging confirmed it: K in a row, or a change point, the confirming one judged against a long
    // baseline.
    const declaring = declaringPoint();
    // A lone step up is not worth a mark; a lone step down is "suspicious".
    if (direction === "better" && declaring === null) {
      run = [];
      return;
    }
    const members = run.map((index) => points[index]!);
    const before = first.baseline!.mean;
    const after = meanOf(members.map((point) => point.mean));
    const last = members[members.length - 1]!;
    changes.push({
      startGroup: first.group,
      startRunId: first.runIds[0]!,
      lastGoodRunId: lastGoodBefore(points, run[0]!),
      lastRunId: last.runIds[last.runIds.length - 1]!,
      runIds: members.flatMap((point) => point.runIds),
      violations: members.length,
      direction,
      kind: direction === "worse" ? (declaring !== null ? "regression" : "suspicious") : "improvement",
      before,
      after,
      change_pct: before === 0 ? 0 : ((after - before) / Math.abs(before)) * 100,
      z: first.z,
      p: first.p,
      active: isLast,
      declaredRunId: declaring === null ? null : points[declaring]!.runIds.at(-1)!,
      confirmedBy: declaring === null ? null : (declaredBy?.get(declaring) ?? "consecutive"),
    });
    run = [];
  };
  points.forEach((point, index) => {
    const violating = point.status === "worse" || point.status === "better";
    if (!violating || (run.length > 0 && points[run[0]!]!.status !== point.status)) close(false);
    if (violating) run.push(index);
    if (index === points.length - 1) close(violating);
  });
  return changes;
}
