/**
 * Regression detection over an accuracy score of a series: the evaluator states each score's standard error, so the
 * noise is known rather than estimated from the series' own spread. A point (a run, or the runs of one commit) is
 * judged against the mean of up to `window` earlier points: it moved when its difference from that mean is beyond
 * 2·√(se² + se_baseline²), the compare page's rule (docs/metrics.md#accuracy), with se_baseline = √(Σ seᵢ²) / n, the
 * standard error of the baseline's mean. Judging starts from the second point: the stderr is not learned from the
 * series, so a short baseline is no less certain. Consecutive moves in one direction are one change, as for speed
 * (detect.ts): `consecutive` (K) or more in the worse direction is a regression, fewer suspicious. Without a standard
 * error on either side the move must reach `threshold_pct` of the baseline, as a speed figure's.
 */

import type { DetectionSettings } from "./detect";
import { type Baseline, changesOf, type PointJudgement, type SeriesJudgement } from "./detect";

export interface AccuracySample {
  runId: string;
  group: string;
  /** The run's score (none when it lacks it) and its standard error. */
  values: { value: number; stderr: number | null }[];
  reset: boolean;
}

/** The |z| of a move at the noise band: 2 standard errors of the difference. */
const CRITICAL = 2;

interface Point {
  mean: number;
  /** Standard error of the point's mean; null when a run of it states none. */
  se: number | null;
}

function pointOf(values: readonly { value: number; stderr: number | null }[]): Point {
  const mean = values.reduce((sum, item) => sum + item.value, 0) / values.length;
  const missing = values.some((item) => item.stderr === null);
  const se = missing ? null : Math.sqrt(values.reduce((sum, item) => sum + item.stderr! ** 2, 0)) / values.length;
  return { mean, se };
}

export function judgeAccuracySeries(
  samples: readonly AccuracySample[],
  options: { better: "higher" | "lower"; settings: DetectionSettings },
): SeriesJudgement {
  const { settings, better } = options;
  const groups = new Map<
    string,
    { runIds: string[]; values: { value: number; stderr: number | null }[]; reset: boolean }
  >();
  for (const sample of samples) {
    let group = groups.get(sample.group);
    if (!group) {
      group = { runIds: [], values: [], reset: false };
      groups.set(sample.group, group);
    }
    group.runIds.push(sample.runId);
    group.values.push(...sample.values);
    if (sample.reset) group.reset = true;
  }
  const points: PointJudgement[] = [];
  // Points a baseline may hold: judged within the noise (or not judged), since the last reset.
  let baselinePoints: Point[] = [];
  let streak: { indexes: number[]; baseline: Baseline; reference: Point[] } | null = null;
  let confirmed: { direction: "worse" | "better"; baseline: Baseline; reference: Point[] } | null = null;
  for (const [key, group] of groups) {
    if (group.values.length === 0) continue;
    const own = pointOf(group.values);
    const values = group.values.map((item) => item.value);
    const point: PointJudgement = {
      group: key,
      runIds: group.runIds,
      values,
      mean: own.mean,
      min: Math.min(...values),
      max: Math.max(...values),
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
      baselinePoints = [];
      streak = null;
      confirmed = null;
    }
    const reference: Point[] = confirmed?.reference ?? streak?.reference ?? baselinePoints.slice(-settings.window);
    if (reference.length === 0) {
      baselinePoints.push(own);
      continue;
    }
    const mean = reference.reduce((sum, item) => sum + item.mean, 0) / reference.length;
    const known = own.se !== null && reference.every((item) => item.se !== null);
    const baseSe: number | null = known
      ? Math.sqrt(reference.reduce((sum, item) => sum + item.se! ** 2, 0)) / reference.length
      : null;
    const sigma: number | null = known ? Math.sqrt(own.se! ** 2 + baseSe! ** 2) : null;
    const baseline: Baseline = {
      n: reference.length,
      outliers: 0,
      mean,
      sigma: sigma ?? 0,
      short: false,
      critical: CRITICAL,
    };
    const diff = own.mean - mean;
    point.baseline = baseline;
    point.change_pct = mean === 0 ? null : (diff / Math.abs(mean)) * 100;
    point.test = "z";
    point.z = sigma !== null && sigma > 0 ? diff / sigma : null;
    const moved: boolean =
      sigma !== null
        ? Math.abs(diff) > CRITICAL * sigma
        : point.change_pct !== null && Math.abs(point.change_pct) >= settings.threshold_pct;
    const direction: "worse" | "better" | null =
      diff === 0 ? null : diff > 0 === (better === "higher") ? "better" : "worse";
    point.status = moved && direction !== null ? direction : "ok";

    if (confirmed) {
      // A lasting change keeps its points while they stay beyond the noise in its direction.
      if (point.status === confirmed.direction) continue;
      confirmed = null;
      streak = null;
    }
    if (point.status === "ok") {
      streak = null;
      baselinePoints.push(own);
      continue;
    }
    if (!streak || points[streak.indexes[0]!]!.status !== point.status) {
      streak = { indexes: [], baseline, reference };
    }
    streak.indexes.push(points.length - 1);
    if (streak.indexes.length >= settings.consecutive) {
      confirmed = {
        direction: point.status as "worse" | "better",
        baseline: streak.baseline,
        reference: streak.reference,
      };
      streak = null;
    }
  }
  return { points, changes: changesOf(points, settings.consecutive) };
}
