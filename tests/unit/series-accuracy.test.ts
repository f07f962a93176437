import { describe, expect, it } from "vitest";
import { judgeAccuracySeries } from "@/lib/series/detect-accuracy";
import { DEFAULT_SETTINGS } from "@/lib/series/settings";

function samples(scores: readonly (number | null)[], stderr: number | null = 1.2) {
  return scores.map((value, night) => ({
    runId: `night ${night + 1}`,
    group: `run:${night + 1}`,
    values: value === null ? [] : [{ value, stderr }],
    reset: false,
  }));
}

const judge = (
  scores: readonly (number | null)[],
  stderr: number | null = 1.2,
  better: "higher" | "lower" = "higher",
) => judgeAccuracySeries(samples(scores, stderr), { better, settings: DEFAULT_SETTINGS });

describe("an accuracy score judged in its series by the evaluator's standard errors", () => {
  it("judges from the second night: a drop beyond 2·√(se² + se_base²) twice in a row is a regression", () => {
    const { points, changes } = judge([75.6, 75.6, 75.6, 75.6, 69.6, 69.6]);
    expect(points.map((point) => point.status)).toEqual(["insufficient", "ok", "ok", "ok", "worse", "worse"]);
    // Baseline of 4 nights at se 1.2: se of its mean 0.6; the band 2·√(1.2² + 0.6²) = 2.68.
    expect(points[4]!.baseline!.sigma).toBeCloseTo(Math.sqrt(1.2 ** 2 + 0.6 ** 2), 12);
    expect(points[4]!.z).toBeCloseTo(-6 / Math.sqrt(1.2 ** 2 + 0.6 ** 2), 12);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: "regression",
      startRunId: "night 5",
      lastGoodRunId: "night 4",
      before: 75.6,
      after: 69.6,
    });
  });

  it("keeps a move inside the band within noise, and calls one bad night suspicious", () => {
    expect(judge([75.6, 75.6, 73.6, 75.6]).points.map((point) => point.status)).toEqual([
      "insufficient",
      "ok",
      "ok",
      "ok",
    ]);
    const flake = judge([75.6, 75.6, 75.6, 69.6, 75.6]);
    expect(flake.points.map((point) => point.status)).toEqual(["insufficient", "ok", "ok", "worse", "ok"]);
    expect(flake.changes.map((change) => change.kind)).toEqual(["suspicious"]);
  });

  it("keeps a lasting drop one change however long it lasts, and skips nights without the score", () => {
    const { changes, points } = judge([75.6, 75.6, null, 69.6, 69.4, 69.8, 69.6]);
    expect(points).toHaveLength(6);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.violations).toBe(4);
    expect(changes[0]!.active).toBe(true);
  });

  it("turns the direction where lower is better, and without standard errors asks for threshold_pct of the baseline", () => {
    expect(judge([10, 10, 11, 11], 0.1, "lower").changes.map((change) => change.kind)).toEqual(["regression"]);
    // No stderr: 75.6 → 73.6 is −2.6%, under the 5% threshold; → 69.6 is −7.9%.
    expect(judge([75.6, 75.6, 73.6, 73.6], null).changes).toEqual([]);
    expect(judge([75.6, 75.6, 69.6, 69.6], null).changes.map((change) => change.kind)).toEqual(["regression"]);
  });
});
