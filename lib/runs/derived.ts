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

export function headline(points: readonly HeadlinePointInput[]): Headline {
  return { single_stream: singleStream(points), peak: peakThroughput(points) };
}
