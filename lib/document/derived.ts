/**
 * The headline figures of a run, computed here and nowhere else: the list, the run page, the compare
 * page and the stored summary columns all call these functions.
 */
import type { RequestRate } from "./schema";

/** The fields of a result point that the headline figures read. */
export interface HeadlinePointInput {
  concurrency?: number | null;
  request_rate?: RequestRate | null;
  output_throughput?: number | null;
  mean_tpot_ms?: number | null;
  /** Which repeat of its load level the point is; several points at one level are averaged first. */
  repeat?: number | null;
}

export interface SingleStream {
  output_tok_s: number;
  /** True when computed as 1000 / mean TPOT because the run has no output throughput at concurrency 1. */
  derived: boolean;
}

export interface Peak {
  output_tok_s: number;
  concurrency: number | null;
  request_rate: RequestRate | null;
}

export interface Headline {
  single_stream: SingleStream | null;
  peak: Peak | null;
}

/**
 * Single-stream tok/s: what one user sees. The output throughput at concurrency 1, else 1000 / mean TPOT
 * at concurrency 1 (marked as derived). Null when the run has no concurrency-1 point with either figure.
 */
export function singleStream(points: readonly HeadlinePointInput[]): SingleStream | null {
  const single = points.find((point) => point.concurrency === 1);
  if (!single) return null;
  if (single.output_throughput != null && single.output_throughput > 0) {
    return { output_tok_s: single.output_throughput, derived: false };
  }
  if (single.mean_tpot_ms != null && single.mean_tpot_ms > 0) {
    return { output_tok_s: 1000 / single.mean_tpot_ms, derived: true };
  }
  return null;
}

/** Peak throughput: the largest output throughput of the run and the load level where it occurred. */
export function peakThroughput(points: readonly HeadlinePointInput[]): Peak | null {
  let best: Peak | null = null;
  for (const point of points) {
    const value = point.output_throughput;
    if (value == null || value <= 0) continue;
    if (best === null || value > best.output_tok_s) {
      best = { output_tok_s: value, concurrency: point.concurrency ?? null, request_rate: point.request_rate ?? null };
    }
  }
  return best;
}

function levelKey(point: HeadlinePointInput): string {
  return point.concurrency != null ? `c:${point.concurrency}` : `r:${String(point.request_rate ?? null)}`;
}

function meanOf(values: readonly (number | null | undefined)[]): number | null {
  const present = values.filter((value): value is number => typeof value === "number");
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
}

/**
 * One point per load level: where a run measured a level more than once (repeats), the mean of each figure
 * the headline reads. A run without repeats comes back as it is.
 */
export function levelMeans(points: readonly HeadlinePointInput[]): HeadlinePointInput[] {
  const byLevel = new Map<string, HeadlinePointInput[]>();
  for (const point of points) {
    const key = levelKey(point);
    const members = byLevel.get(key);
    if (members) members.push(point);
    else byLevel.set(key, [point]);
  }
  if (byLevel.size === points.length) return [...points];
  return [...byLevel.values()].map((members) => {
    const first = members[0]!;
    if (members.length === 1) return first;
    return {
      concurrency: first.concurrency ?? null,
      request_rate: first.request_rate ?? null,
      output_throughput: meanOf(members.map((point) => point.output_throughput)),
      mean_tpot_ms: meanOf(members.map((point) => point.mean_tpot_ms)),
    };
  });
}

/** Single stream and peak, from the mean over repeats at each load level. */
export function headline(points: readonly HeadlinePointInput[]): Headline {
  const means = levelMeans(points);
  return { single_stream: singleStream(means), peak: peakThroughput(means) };
}
