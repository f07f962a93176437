/**
 * Load levels: the key that aligns points across runs. Series are joined by this key, never by array index.
 */
import type { ResultPoint } from "@/lib/document/schema";

export interface LoadLevel {
  key: string;
  concurrency: number | null;
  request_rate: number | "inf" | null;
}

export function levelOf(point: Pick<ResultPoint, "concurrency" | "request_rate">): LoadLevel {
  if (point.concurrency !== undefined) {
    return { key: `c:${point.concurrency}`, concurrency: point.concurrency, request_rate: point.request_rate ?? null };
  }
  const rate = point.request_rate ?? null;
  return { key: `r:${rate}`, concurrency: null, request_rate: rate };
}

/** Concurrency levels ascending, then request rates ascending with "inf" last. */
export function compareLevels(a: LoadLevel, b: LoadLevel): number {
  if (a.concurrency !== null && b.concurrency !== null) return a.concurrency - b.concurrency;
  if (a.concurrency !== null) return -1;
  if (b.concurrency !== null) return 1;
  const rateA = a.request_rate === "inf" ? Infinity : (a.request_rate ?? 0);
  const rateB = b.request_rate === "inf" ? Infinity : (b.request_rate ?? 0);
  return rateA === rateB ? 0 : rateA - rateB;
}

/** The union of the runs' load levels, sorted. */
export function unionLevels(runs: readonly { results: readonly ResultPoint[] }[]): LoadLevel[] {
  const byKey = new Map<string, LoadLevel>();
  for (const run of runs) {
    for (const point of run.results) {
      const level = levelOf(point);
      if (!byKey.has(level.key)) byKey.set(level.key, level);
    }
  }
  return [...byKey.values()].sort(compareLevels);
}

export function pointAt(results: readonly ResultPoint[], level: LoadLevel): ResultPoint | undefined {
  return results.find((point) => levelOf(point).key === level.key);
}
