/**
 * Throughput per GPU against interactivity (tok/s per user): what a GPU serves in total against what each
 * user sees, the trade-off a serving configuration is chosen on. Definitions (docs/metrics.md):
 * - tok/s per GPU = tok/s of all requests ÷ the run's GPU count (hardware.gpu_count), output or total tokens;
 *   unknown when the run does not state its GPU count (never guessed from flags).
 * - interactivity = 1000 / TPOT (ms): the decode speed one user sees, in tok/s.
 * Each run's Pareto frontier keeps the levels no other level of the run beats on both; two runs are compared
 * at equal interactivity by monotone (Fritsch–Carlson) interpolation along their frontiers, never beyond
 * the measured range.
 */

import type { ResultPoint } from "@/lib/document/schema";
import { formatNumber } from "@/lib/format";
import { niceStep } from "./axis";
import { compareLevels, levelOf } from "./levels";
import type { MetricKey } from "./metrics";

/** tok/s ÷ GPUs; null when either is unknown. */
export function perGpu(tokS: number | null | undefined, gpuCount: number | null | undefined): number | null {
  if (tokS == null || !Number.isFinite(tokS) || gpuCount == null || !(gpuCount > 0)) return null;
  return tokS / gpuCount;
}

/** 1000 / TPOT: tok/s one user sees; null without a positive TPOT. */
export function interactivity(tpotMs: number | null | undefined): number | null {
  return tpotMs != null && tpotMs > 0 && Number.isFinite(tpotMs) ? 1000 / tpotMs : null;
}

export interface EfficiencyPoint {
  /** tok/s per user: 1000 / TPOT. */
  tok_s_per_user: number;
  /** Output tok/s per GPU. */
  tok_s_per_gpu: number;
  /** The load level: "C=8". */
  label: string;
}

/** The levels of a run that have both figures, in load order. */
export function efficiencyPoints(
  results: readonly ResultPoint[],
  gpuCount: number | null | undefined,
  tpotKey: MetricKey,
): EfficiencyPoint[] {
  return [...results]
    .sort((a, b) => compareLevels(levelOf(a), levelOf(b)))
    .flatMap((point) => {
      const user = interactivity(point[tpotKey] as number | undefined);
      const gpu = perGpu(point.output_throughput, gpuCount);
      return user === null || gpu === null
        ? []
        : [{ tok_s_per_user: user, tok_s_per_gpu: gpu, label: levelLabel(point) }];
    });
}

function levelLabel(point: ResultPoint): string {
  const level = levelOf(point);
  if (level.concurrency !== null) return `C=${level.concurrency}`;
  return level.request_rate === "inf" ? "rate ∞" : `${formatNumber(level.request_rate as number)} req/s`;
}

/**
 * The points no other point beats on both axes, sorted by interactivity (throughput then falls as
 * interactivity rises). A point equal to another on both axes is kept once (the first). Found in one pass over
 * the points from the most interactive down, each kept when it serves more per GPU than every point before it:
 * comparing every pair was a million comparisons for a sweep of 1,000 levels.
 */
export function paretoFrontier<P extends { tok_s_per_user: number; tok_s_per_gpu: number }>(points: readonly P[]): P[] {
  const order = points
    .map((point, index) => ({ point, index }))
    .sort(
      (a, b) =>
        b.point.tok_s_per_user - a.point.tok_s_per_user ||
        b.point.tok_s_per_gpu - a.point.tok_s_per_gpu ||
        a.index - b.index,
    );
  const kept: P[] = [];
  let best = Number.NEGATIVE_INFINITY;
  for (const { point } of order) {
    if (point.tok_s_per_gpu > best) {
      kept.push(point);
      best = point.tok_s_per_gpu;
    }
  }
  return kept.reverse();
}

/**
 * Monotone cubic interpolation (Fritsch–Carlson, as in PCHIP) through points with strictly increasing x:
 * between measured points the curve never overshoots them, so a frontier stays a frontier. Outside the
 * measured x range: null (never extrapolated). With one point: its value at its own x only.
 */
export function monotoneInterpolate(points: readonly { x: number; y: number }[], x: number): number | null {
  const n = points.length;
  if (n === 0 || !Number.isFinite(x)) return null;
  const first = points[0]!;
  const last = points[n - 1]!;
  if (x < first.x || x > last.x) return null;
  if (n === 1) return first.y;
  const h: number[] = [];
  const delta: number[] = [];
  for (let i = 0; i < n - 1; i += 1) {
    h.push(points[i + 1]!.x - points[i]!.x);
    delta.push((points[i + 1]!.y - points[i]!.y) / h[i]!);
  }
  // Tangents: zero where the slope changes sign, else the weighted harmonic mean of the neighbouring slopes.
  const m: number[] = new Array(n).fill(0);
  m[0] = delta[0]!;
  m[n - 1] = delta[n - 2]!;
  for (let i = 1; i < n - 1; i += 1) {
    const a = delta[i - 1]!;
    const b = delta[i]!;
    if (a === 0 || b === 0 || Math.sign(a) !== Math.sign(b)) m[i] = 0;
    else {
      const w1 = 2 * h[i]! + h[i - 1]!;
      const w2 = h[i]! + 2 * h[i - 1]!;
      m[i] = (w1 + w2) / (w1 / a + w2 / b);
    }
  }
  // End tangents that would overshoot are clipped (the Fritsch–Carlson condition).
  for (const [end, inner] of [
    [0, 0],
    [n - 1, n - 2],
  ] as const) {
    const slope = delta[inner]!;
    if (Math.sign(m[end]!) !== Math.sign(slope)) m[end] = 0;
    else if (Math.abs(m[end]!) > 3 * Math.abs(slope)) m[end] = 3 * slope;
  }
  let i = 0;
  while (i < n - 2 && x > points[i + 1]!.x) i += 1;
  const x0 = points[i]!.x;
  const step = h[i]!;
  const t = (x - x0) / step;
  const y0 = points[i]!.y;
  const y1 = points[i + 1]!.y;
  const h00 = 2 * t ** 3 - 3 * t ** 2 + 1;
  const h10 = t ** 3 - 2 * t ** 2 + t;
  const h01 = -2 * t ** 3 + 3 * t ** 2;
  const h11 = t ** 3 - t ** 2;
  return h00 * y0 + h10 * step * m[i]! + h01 * y1 + h11 * step * m[i + 1]!;
}

/** Throughput per GPU along a frontier at an interactivity, or null outside its measured range. */
export function frontierAt(frontier: readonly EfficiencyPoint[], tokSPerUser: number): number | null {
  return monotoneInterpolate(
    frontier.map((point) => ({ x: point.tok_s_per_user, y: point.tok_s_per_gpu })),
    tokSPerUser,
  );
}

/** The interactivity range two frontiers share, or null when they do not overlap. */
export function sharedRange(a: readonly EfficiencyPoint[], b: readonly EfficiencyPoint[]): [number, number] | null {
  if (a.length === 0 || b.length === 0) return null;
  const low = Math.max(a[0]!.tok_s_per_user, b[0]!.tok_s_per_user);
  const high = Math.min(a[a.length - 1]!.tok_s_per_user, b[b.length - 1]!.tok_s_per_user);
  return low <= high ? [low, high] : null;
}

/**
 * A round interactivity inside a range to compare at: the multiple of a round step (about half the range:
 * 1, 2, 2.5 or 5 × 10ᵏ) nearest the range's geometric middle. [30, 55] → 40.
 */
export function roundPointIn(range: [number, number]): number {
  const [low, high] = range;
  if (high <= low) return low;
  const middle = low > 0 ? Math.sqrt(low * high) : (low + high) / 2;
  const step = niceStep(high - low, 2);
  const candidate = Math.round(middle / step) * step;
  const inside = [candidate, candidate - step, candidate + step].find((value) => value >= low && value <= high);
  return Number((inside ?? middle).toPrecision(12));
}
