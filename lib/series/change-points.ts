/**
 * Change points over a whole stretch of a series: E-divisive means (Matteson and James 2014, α = 1, as MongoDB's
 * and Apache Otava's performance CI use it), with a permutation p-value per change point and Benjamini–Hochberg
 * across the tests one judgement makes. Pure, no database; the permutations draw from a seeded generator, so a
 * series gives the same change points every time it is judged.
 *
 * Where the window rule (detect.ts) asks "is this night unlike the nights before it", this asks "where, over the
 * whole stretch, does the level move": it finds a slow drift's or a noisy series' step the rule cannot confirm,
 * and places a step at the night it started however late it is looked at.
 */
import { seededUniform } from "@/lib/seeded-random";

export interface ChangePoint {
  /** Index of the first point after the change (the first bad point). */
  index: number;
  /** The divergence statistic of the split, scaled by the segment: larger is a clearer change. */
  statistic: number;
  /** Permutation p-value: the share of shuffled segments whose best split is at least as divergent (below alpha). */
  p: number;
  /** Means of the segment before and after the change. */
  before: number;
  after: number;
}

export interface ChangePointOptions {
  /** Significance level of each split, before the correction across tests (BH). */
  alpha: number;
  /** Permutations per test: the smallest p they can show is 1 / (permutations + 1). */
  permutations: number;
  /** Fewest points on either side of a change. */
  minSegment: number;
  /** At most this many change points per stretch. */
  maxChangePoints: number;
  seed: number;
}

export const DEFAULT_CHANGE_POINT_OPTIONS: ChangePointOptions = {
  alpha: 0.05,
  permutations: 199,
  minSegment: 2,
  maxChangePoints: 4,
  seed: 0x5eed,
};

/**
 * The best split of `values` and its statistic: Q(τ) = τ(n−τ)/n · (2·mean|A−B| − mean|A−A'| − mean|B−B'|), the
 * energy distance between the two sides scaled by their sizes. All splits in O(n²) from running pair sums.
 */
export function bestSplit(values: readonly number[], minSegment: number): { index: number; statistic: number } | null {
  const n = values.length;
  if (n < 2 * minSegment) return null;
  // rowSum[i] = Σ_j |x_i − x_j| over the whole segment.
  const rowSum = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const d = Math.abs(values[i]! - values[j]!);
      rowSum[i] = rowSum[i]! + d;
      rowSum[j] = rowSum[j]! + d;
    }
  let total = 0;
  for (let i = 0; i < n; i++) total += rowSum[i]!;
  total /= 2;
  // Walking τ up: withinLeft = Σ_{i<k<τ} d, and leftToAll = Σ_{i<τ} rowSum[i] = 2·withinLeft + between.
  let withinLeft = 0;
  let leftToAll = 0;
  let best: { index: number; statistic: number } | null = null;
  for (let tau = 1; tau < n; tau++) {
    const added = tau - 1;
    for (let i = 0; i < added; i++) withinLeft += Math.abs(values[i]! - values[added]!);
    leftToAll += rowSum[added]!;
    if (tau < minSegment || n - tau < minSegment) continue;
    const between = leftToAll - 2 * withinLeft;
    const withinRight = total - withinLeft - between;
    const left = tau;
    const right = n - tau;
    const meanBetween = between / (left * right);
    const meanLeft = left > 1 ? withinLeft / ((left * (left - 1)) / 2) : 0;
    const meanRight = right > 1 ? withinRight / ((right * (right - 1)) / 2) : 0;
    const statistic = ((left * right) / n) * (2 * meanBetween - meanLeft - meanRight);
    if (!best || statistic > best.statistic) best = { index: tau, statistic };
  }
  return best;
}

function shuffled(values: readonly number[], random: () => number): number[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = out[i]!;
    out[i] = out[j]!;
    out[j] = swap;
  }
  return out;
}

const meanOf = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The permutation p-value of a segment's best split: exact below `alpha`; at or above it, the first value at or
 * above it. Once enough shuffles have matched the statistic that p can no longer fall below alpha, the split is not
 * significant whatever the rest would show, so the rest are not drawn: a steady series (most of them, most nights)
 * stops after ~20 of its 199 shuffles, and every change point found is the same as with all of them.
 */
function splitP(
  values: readonly number[],
  statistic: number,
  options: ChangePointOptions,
  random: () => number,
): number {
  let atLeast = 0;
  for (let r = 0; r < options.permutations; r++) {
    const permuted = bestSplit(shuffled(values, random), options.minSegment);
    if (permuted && permuted.statistic >= statistic) atLeast++;
    const p = (atLeast + 1) / (options.permutations + 1);
    if (p >= options.alpha) return p;
  }
  return (atLeast + 1) / (options.permutations + 1);
}

/**
 * Every significant change point of `values`, by E-divisive's bisection: the best split of the stretch is tested,
 * and while significant (p < alpha) each side is split in turn, the most divergent first. Sorted by index.
 */
export function eDivisive(values: readonly number[], options: Partial<ChangePointOptions> = {}): ChangePoint[] {
  const settings = { ...DEFAULT_CHANGE_POINT_OPTIONS, ...options };
  const random = seededUniform(settings.seed);
  const found: ChangePoint[] = [];
  const segments: [number, number][] = [[0, values.length]];
  while (segments.length > 0 && found.length < settings.maxChangePoints) {
    // The segment whose best split is the most divergent is tested first.
    let chosen: { segment: number; index: number; statistic: number } | null = null;
    for (const [position, [from, to]] of segments.entries()) {
      const split = bestSplit(values.slice(from, to), settings.minSegment);
      if (split && (!chosen || split.statistic > chosen.statistic))
        chosen = { segment: position, index: from + split.index, statistic: split.statistic };
    }
    if (!chosen) break;
    const [from, to] = segments[chosen.segment]!;
    const p = splitP(values.slice(from, to), chosen.statistic, settings, random);
    if (p >= settings.alpha) break;
    found.push({
      index: chosen.index,
      statistic: chosen.statistic,
      p,
      before: meanOf(values.slice(from, chosen.index)),
      after: meanOf(values.slice(chosen.index, to)),
    });
    segments.splice(chosen.segment, 1, [from, chosen.index], [chosen.index, to]);
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * Benjamini–Hochberg: which of `pValues` are discoveries at false discovery rate `q`. The tests one upload triggers
 * (every figure, every load level) are corrected together, so judging more figures does not raise more false alarms.
 */
export function benjaminiHochberg(pValues: readonly number[], q: number): boolean[] {
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) => a.p - b.p);
  let cutoff = -1;
  order.forEach(({ p }, rank) => {
    if (p <= ((rank + 1) / order.length) * q) cutoff = rank;
  });
  const discovered = new Array<boolean>(pValues.length).fill(false);
  for (let rank = 0; rank <= cutoff; rank++) discovered[order[rank]!.index] = true;
  return discovered;
}

/** The newest points a judgement searches for change points: E-divisive costs n² per permutation. */
export const CHANGE_POINT_WINDOW = 60;

/** One figure's points in time order, as judging has them (lib/series/detect.ts). */
export interface FigurePoints {
  key: string;
  better: "higher" | "lower";
  points: readonly { runIds: readonly string[]; mean: number; reset: boolean }[];
}

export interface FigureChangePoint {
  metric: string;
  /** The first run of the first point after the change, and the last run of the point before it. */
  first_bad_run_id: string;
  last_good_run_id: string;
  before: number;
  after: number;
  change_pct: number;
  direction: "worse" | "better";
  p: number;
}

/** A seed from a text (the series id): the same series is permuted the same way every time it is judged. */
export function seedOf(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return hash >>> 0;
}

/**
 * The change points of every figure over its newest CHANGE_POINT_WINDOW points since the last expected change,
 * kept where Benjamini–Hochberg at `alpha` keeps them across all the figures' tests: one judgement's tests share one
 * false discovery rate, however many figures and load levels the series follows.
 */
export function seriesChangePoints(
  figures: readonly FigurePoints[],
  seedText: string,
  alpha = DEFAULT_CHANGE_POINT_OPTIONS.alpha,
): FigureChangePoint[] {
  const candidates: FigureChangePoint[] = [];
  for (const figure of figures) {
    let from = 0;
    figure.points.forEach((point, index) => {
      if (point.reset) from = index;
    });
    const points = figure.points.slice(Math.max(from, figure.points.length - CHANGE_POINT_WINDOW));
    // Each figure tested at the nominal level; the correction across figures is BH below.
    const found = eDivisive(
      points.map((point) => point.mean),
      { alpha, seed: seedOf(`${seedText}\n${figure.key}`) },
    );
    for (const change of found) {
      const first = points[change.index]!;
      const last = points[change.index - 1]!;
      const diff = change.after - change.before;
      candidates.push({
        metric: figure.key,
        first_bad_run_id: first.runIds[0]!,
        last_good_run_id: last.runIds[last.runIds.length - 1]!,
        before: change.before,
        after: change.after,
        change_pct: change.before === 0 ? 0 : (diff / Math.abs(change.before)) * 100,
        direction: diff > 0 === (figure.better === "higher") ? "better" : "worse",
        p: change.p,
      });
    }
  }
  const kept = benjaminiHochberg(
    candidates.map((candidate) => candidate.p),
    alpha,
  );
  return candidates.filter((_, index) => kept[index]);
}
