/**
 * The latency–throughput trade-off serving engineers pick a configuration from: for each load level, what
 * one user gets (per-user tok/s = 1000 / mean TPOT) against what the server delivers in total (output tok/s).
 * Points up and to the right dominate.
 */
import { formatLoadLevel } from "@/lib/format";
import type { ResultPoint } from "@/lib/runs/schema";
import { compareLevels, levelOf } from "./levels";

export interface ParetoPoint {
  /** Per-user tok/s: 1000 / mean TPOT (ms). */
  per_user_tok_s: number;
  /** Output tok/s of all requests together. */
  output_tok_s: number;
  /** The load level, as a label: "C=8", "4 req/s". */
  label: string;
}

/** One curve: the run's load levels that have both TPOT and throughput, in load order. */
export function paretoCurve(
  results: readonly ResultPoint[],
  tpotKey: "mean_tpot_ms" | "median_tpot_ms" = "mean_tpot_ms",
): ParetoPoint[] {
  return [...results]
    .filter((point) => (point[tpotKey] ?? 0) > 0 && point.output_throughput != null)
    .sort((a, b) => compareLevels(levelOf(a), levelOf(b)))
    .map((point) => ({
      per_user_tok_s: 1000 / point[tpotKey]!,
      output_tok_s: point.output_throughput!,
      label: formatLoadLevel(levelOf(point)),
    }));
}

/** The points no other point beats on both axes (the frontier), across every curve given. */
export function paretoFrontier(points: readonly ParetoPoint[]): ParetoPoint[] {
  return points
    .filter(
      (point) =>
        !points.some(
          (other) =>
            other !== point &&
            other.per_user_tok_s >= point.per_user_tok_s &&
            other.output_tok_s >= point.output_tok_s &&
            (other.per_user_tok_s > point.per_user_tok_s || other.output_tok_s > point.output_tok_s),
        ),
    )
    .sort((a, b) => a.per_user_tok_s - b.per_user_tok_s);
}
