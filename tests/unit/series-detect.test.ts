import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  judgeSeries,
  residualSigma,
  type SeriesSample,
  welchTTest,
  withoutOutliers,
  withRecurringOutliers,
} from "@/lib/series/detect";
import { DEFAULT_SETTINGS } from "@/lib/series/settings";
import { detectionScenarios, seriesOf } from "@/scripts/bench/detection";
import { type NightlyRun, nightlySeries } from "@/tests/support/synthetic-series";

const settings = DEFAULT_SETTINGS;
const FIXTURES = path.join(__dirname, "..", "fixtures");

/** One sample per run; with repeats, the runs of one night share a commit and so a group. */
function samplesOf(runs: readonly NightlyRun[], repeats = 1): SeriesSample[] {
  return runs.map((run, index) => ({
    runId: `run-${index}`,
    group: repeats > 1 ? `commit:night-${run.night}` : `run:run-${index}`,
    values: [run.value],
  }));
}

describe("the synthetic nightly series: 30 runs, 2% noise, a one-night flake at run 10, a −10% step at run 20", () => {
  const runs = nightlySeries({ seed: 7, flakeAt: 10, stepAt: 20 });

  it("declares the step a regression starting at run 20 and calls the flake only suspicious", () => {
    const { points, changes } = judgeSeries(samplesOf(runs), { better: "higher", settings });
    // Judged from the third run on; the first four baselines are short (noise model), the fifth on is not.
    expect(points.slice(0, 2).map((point) => point.status)).toEqual(["insufficient", "insufficient"]);
    expect(points.slice(2, 10).map((point) => point.status)).toEqual(Array(8).fill("ok"));
    expect(points.slice(2, 6).map((point) => point.baseline!.short)).toEqual([true, true, true, false]);
    expect(points[10]!.status).toBe("worse");
    expect(points[11]!.status).toBe("ok");
    expect(changes.map((change) => [change.kind, change.startRunId, change.violations, change.active])).toEqual([
      ["suspicious", "run-10", 1, false],
      ["regression", "run-20", 10, true],
    ]);
    const step = changes[1]!;
    expect(step.before).toBeGreaterThan(98);
    expect(step.before).toBeLessThan(102);
    expect(step.change_pct).toBeGreaterThan(-13);
    expect(step.change_pct).toBeLessThan(-7);
    expect(step.runIds).toEqual(Array.from({ length: 10 }, (_, index) => `run-${20 + index}`));
  });

  it("after the first run of the step says suspicious, after K = 2 runs regression", () => {
    const judge = (count: number) =>
      judgeSeries(samplesOf(runs.slice(0, count)), { better: "higher", settings }).changes.at(-1);
    expect(judge(20)).toMatchObject({ kind: "suspicious", startRunId: "run-10", active: false });
    expect(judge(21)).toMatchObject({ kind: "suspicious", startRunId: "run-20", violations: 1, active: true });
    expect(judge(22)).toMatchObject({ kind: "regression", startRunId: "run-20", violations: 2, active: true });
    const threeInARow = judgeSeries(samplesOf(runs.slice(0, 22)), {
      better: "higher",
      settings: { ...settings, consecutive: 3 },
    });
    expect(threeInARow.changes.at(-1)).toMatchObject({ kind: "suspicious", violations: 2 });
  });

  it("keeps the flake out of the baseline of the nights after it", () => {
    const { points } = judgeSeries(samplesOf(runs), { better: "higher", settings });
    expect(points[10]!.baseline!.outliers).toBe(0);
    // The night after, the flake is still a violation being confirmed and so not in the baseline at all.
    expect(points[11]!.baseline).toMatchObject({ n: 10, outliers: 0 });
    expect(points[12]!.baseline).toMatchObject({ n: 11, outliers: 1 });
    expect(points[19]!.baseline).toMatchObject({ n: 18, outliers: 1 });
    // 2% noise on 100: σ of the residuals near 2.
    expect(points[19]!.baseline!.sigma).toBeGreaterThan(1.3);
    expect(points[19]!.baseline!.sigma).toBeLessThan(2.7);
  });

  it("restarts the baseline at an expected change: the step is then the new normal", () => {
    const { points, changes } = judgeSeries(samplesOf(runs), {
      better: "higher",
      settings,
      resetRunIds: new Set(["run-20"]),
    });
    expect(changes.map((change) => change.kind)).toEqual(["suspicious"]);
    expect(points.slice(20, 22).map((point) => point.status)).toEqual(["insufficient", "insufficient"]);
    expect(points.slice(22, 25).map((point) => point.status)).toEqual(["ok", "ok", "ok"]);
    expect(points[20]!.reset).toBe(true);
    expect(points.slice(25).every((point) => point.status === "ok")).toBe(true);
    expect(points[29]!.baseline!.mean).toBeLessThan(93);
  });

  it("is direction-aware: a latency that rises is a regression, a throughput that rises an improvement", () => {
    const up = nightlySeries({ seed: 7, stepAt: 20, step: 0.1, flakeAt: null });
    const asLatency = judgeSeries(samplesOf(up), { better: "lower", settings });
    expect(asLatency.changes.map((change) => [change.kind, change.direction, change.startRunId])).toEqual([
      ["regression", "worse", "run-20"],
    ]);
    const asThroughput = judgeSeries(samplesOf(up), { better: "higher", settings });
    expect(asThroughput.changes.map((change) => [change.kind, change.direction])).toEqual([["improvement", "better"]]);
  });

  it("judges from the third run, a short baseline by the noise model: a flake at night 4 is suspicious", () => {
    const early = nightlySeries({ seed: 7, flakeAt: 3, stepAt: null });
    const { points, changes } = judgeSeries(samplesOf(early.slice(0, 8)), { better: "higher", settings });
    expect(points.map((point) => point.status)).toEqual([
      "insufficient",
      "insufficient",
      "ok",
      "worse",
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
    expect(points[3]!.baseline).toMatchObject({ n: 3, short: true });
    // Student's t with ν₀ + n − 1 = 6 degrees of freedom at the level of z = 2.5.
    expect(points[3]!.baseline!.critical).toBeCloseTo(3.527, 2);
    expect(changes.map((change) => [change.kind, change.startRunId])).toEqual([["suspicious", "run-3"]]);
  });

  it("with min_samples 12, the first eleven baselines are short and judged by the noise model", () => {
    const { points } = judgeSeries(samplesOf(runs.slice(0, 14)), {
      better: "higher",
      settings: { ...settings, min_samples: 12 },
    });
    const judged = points.slice(2);
    expect(judged.every((point) => point.baseline!.short === point.baseline!.n < 12)).toBe(true);
    expect(judged.filter((point) => point.baseline!.short).length).toBeGreaterThanOrEqual(10);
    const long = judged.find((point) => !point.baseline!.short)!;
    expect(long.baseline!.critical).toBe(settings.z_threshold);
  });

  it("ignores a change smaller than the percentage threshold however significant", () => {
    const quiet = nightlySeries({ seed: 7, noise: 0.001, stepAt: 20, step: -0.03, flakeAt: null });
    expect(judgeSeries(samplesOf(quiet), { better: "higher", settings }).changes).toEqual([]);
    const strict = judgeSeries(samplesOf(quiet), { better: "higher", settings: { ...settings, threshold_pct: 2 } });
    expect(strict.changes.map((change) => change.kind)).toEqual(["regression"]);
  });
});

describe("the same series with 3 repeats a night at one commit: Welch's t-test", () => {
  const runs = nightlySeries({ seed: 7, flakeAt: 10, stepAt: 20, repeats: 3 });

  it("declares the step after K nights and the flaky night only suspicious, by t-test", () => {
    const { points, changes } = judgeSeries(samplesOf(runs, 3), { better: "higher", settings });
    expect(points).toHaveLength(30);
    expect(points[20]!.test).toBe("t");
    expect(points[20]!.runIds).toEqual(["run-60", "run-61", "run-62"]);
    expect(points[20]!.p).toBeLessThan(0.05);
    expect(points[15]!.p).toBeGreaterThan(0.05);
    expect(changes.map((change) => [change.kind, change.startGroup, change.violations])).toEqual([
      ["suspicious", "commit:night-10", 1],
      ["regression", "commit:night-20", 10],
    ]);
  });

  it("absorbs one bad repeat in an otherwise normal night", () => {
    const oneBadRepeat = nightlySeries({ seed: 7, flakeAt: null, stepAt: null, repeats: 3 }).map((run) =>
      run.night === 10 && run.repeat === 1 ? { ...run, value: run.value * 0.9 } : run,
    );
    const { points, changes } = judgeSeries(samplesOf(oneBadRepeat, 3), { better: "higher", settings });
    expect(points[10]!.min).toBeLessThan(92);
    expect(points[10]!.status).toBe("ok");
    expect(changes).toEqual([]);
  });
});

describe("the same rule over 500 seeds", () => {
  it("finds the step nearly always and makes a regression of the flake almost never", () => {
    let stepFound = 0;
    let flakeRegression = 0;
    let quietRegression = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const { changes } = judgeSeries(samplesOf(nightlySeries({ seed, flakeAt: 10, stepAt: 20 })), {
        better: "higher",
        settings,
      });
      if (changes.some((change) => change.kind === "regression" && change.violations >= 8)) stepFound++;
      if (changes.some((change) => change.kind === "regression" && change.startRunId === "run-10")) flakeRegression++;
      const quiet = judgeSeries(samplesOf(nightlySeries({ seed, flakeAt: null, stepAt: null })), {
        better: "higher",
        settings,
      });
      if (quiet.changes.some((change) => change.kind === "regression")) quietRegression++;
    }
    expect(stepFound).toBeGreaterThanOrEqual(475);
    expect(flakeRegression).toBeLessThanOrEqual(5);
    expect(quietRegression).toBeLessThanOrEqual(5);
  });
});

describe("statistics", () => {
  it("Welch's t-test matches the textbook figures", () => {
    // scipy.stats.ttest_ind([1,2,3,4], [2,4,6,8,10], equal_var=False): t = −2.2514, df = 5.52, two-sided p = 0.068.
    const test = welchTTest([1, 2, 3, 4], [2, 4, 6, 8, 10]);
    expect(test.t).toBeCloseTo(-2.2514, 3);
    expect(test.df).toBeCloseTo(5.521, 2);
    expect(test.p).toBeCloseTo(0.034, 2);
    expect(welchTTest([5, 5], [5, 5, 5]).p).toBe(1);
    expect(welchTTest([4, 4], [5, 5, 5]).p).toBe(0);
  });

  it("leaves out outliers by median and MAD", () => {
    expect(withoutOutliers([100, 101, 99, 100.5, 80, 99.5], 3.5)).toEqual([0, 1, 2, 3, 5]);
    expect(withoutOutliers([100, 100, 100, 100, 90], 3.5)).toEqual([0, 1, 2, 3]);
    expect(withoutOutliers([1, 2], 3.5)).toEqual([0, 1]);
    // With the floor (2% noise prior), a point 3% off a quiet baseline is ordinary noise, a 10% one is not.
    expect(withoutOutliers([100, 100.2, 99.9, 100.1, 97], 3.5)).toEqual([0, 1, 2, 3]);
    expect(withoutOutliers([100, 100.2, 99.9, 100.1, 97], 3.5, 2)).toEqual([0, 1, 2, 3, 4]);
    expect(withoutOutliers([100, 100.2, 99.9, 100.1, 90], 3.5, 2)).toEqual([0, 1, 2, 3]);
  });

  it("puts back left-out points on the judged point's side and at least as far: that value was seen before", () => {
    // Slow nights of heavy-tailed noise: 108 was left out; a judged 108.5 is no outlier against a baseline with it.
    const values = [100, 100.4, 99.8, 108, 100.1, 100.2];
    const keep = withoutOutliers(values, 3.5, 2);
    expect(keep).toEqual([0, 1, 2, 4, 5]);
    expect(withRecurringOutliers(values, keep, 107)).toEqual([0, 1, 2, 3, 4, 5]);
    // A judged point beyond every left-out one, or on the other side, is judged without them.
    expect(withRecurringOutliers(values, keep, 109)).toEqual(keep);
    expect(withRecurringOutliers(values, keep, 92)).toEqual(keep);
    expect(withRecurringOutliers(values, [0, 1, 2, 3, 4, 5], 120)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("estimates σ from residuals, undisturbed by a slow drift", () => {
    const drift = Array.from({ length: 30 }, (_, index) => 100 + index);
    expect(residualSigma(drift, 5)).toBeLessThan(4);
    expect(residualSigma([5, 5, 5, 5], 5)).toBe(0);
  });
});

describe("no blind nights: the MAD floor keeps ordinary noise in short baselines", () => {
  it("never leaves out a point within 3σ of 2% noise from a baseline of 5 to 7 points, over 2,000 seeds", () => {
    let filtered = 0;
    let ordinaryFiltered = 0;
    let baselines = 0;
    for (let seed = 1; seed <= 2_000; seed++) {
      const steady = nightlySeries({ seed, nights: 7, flakeAt: null, stepAt: null }).map((run) => run.value);
      for (const length of [5, 6, 7]) {
        baselines++;
        const values = steady.slice(0, length);
        const kept = new Set(withoutOutliers(values, settings.outlier_mad, settings.noise_prior_pct));
        const median = [...values].sort((a, b) => a - b)[length >> 1]!;
        values.forEach((value, index) => {
          if (kept.has(index)) return;
          filtered++;
          // Within 3σ (6%) of the median is ordinary noise.
          if (Math.abs(value - median) < 6) ordinaryFiltered++;
        });
      }
    }
    expect(baselines).toBe(6_000);
    expect(ordinaryFiltered).toBe(0);
    // Only Gaussian tails past 3.5σ of the prior: about one baseline in 300.
    expect(filtered).toBeLessThanOrEqual(30);
    let unfloored = 0;
    for (let seed = 1; seed <= 2_000; seed++) {
      const steady = nightlySeries({ seed, nights: 7, flakeAt: null, stepAt: null }).map((run) => run.value);
      if (withoutOutliers(steady.slice(0, 5), settings.outlier_mad).length < 5) unfloored++;
    }
    // Without the floor, the old filter dropped ordinary noise from short baselines often.
    expect(unfloored).toBeGreaterThan(100);
  });

  it("judges a −10% flake at night 4 suspicious in nearly every series, and rarely marks a steady early night", () => {
    let flakeSeen = 0;
    let earlyFalse = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const flaky = nightlySeries({ seed, flakeAt: 3, stepAt: null });
      if (judgeSeries(samplesOf(flaky.slice(0, 6)), { better: "higher", settings }).points[3]!.status === "worse")
        flakeSeen++;
      const steady = nightlySeries({ seed, flakeAt: null, stepAt: null });
      const early = judgeSeries(samplesOf(steady.slice(0, 6)), { better: "higher", settings }).points;
      if (early.some((point) => point.status === "worse")) earlyFalse++;
    }
    expect(flakeSeen).toBeGreaterThanOrEqual(400);
    expect(earlyFalse).toBeLessThanOrEqual(10);
  });
});

describe("a short baseline sees a change but does not confirm it", () => {
  it("two bad nights judged against three and four earlier nights stay suspicious; the night after, long, confirms", () => {
    const early = nightlySeries({ seed: 7, flakeAt: null, stepAt: 3, nights: 12 });
    const { points, changes } = judgeSeries(samplesOf(early), { better: "higher", settings });
    expect(points.slice(3, 5).map((point) => [point.status, point.baseline!.short])).toEqual([
      ["worse", true],
      ["worse", true],
    ]);
    // The step's points never join their own baseline: it stays the three nights before it, short, so the step is
    // seen (suspicious, every night) and never declared a regression by a baseline of the prior's noise.
    expect(changes.map((change) => [change.kind, change.startRunId])).toEqual([["suspicious", "run-3"]]);
  });
});

describe("a change point confirms a step whose noise keeps breaking the streak", () => {
  // Twenty steady nights (±1%), then a −8% step where every other night comes back to −4.5%: within the 5% threshold,
  // so never two bad nights in a row and the window rule alone only ever says "suspicious".
  const steady = Array.from({ length: 20 }, (_, night) => (night % 2 === 0 ? 101 : 99));
  const choppyStep = [...steady, 92, 95.5, 92, 95.5, 92, 95.5, 92];
  const samples = (values: readonly number[]): SeriesSample[] =>
    values.map((value, night) => ({ runId: `night-${night}`, group: `night-${night}`, values: [value] }));

  it("declares it on the fifth night of the step, from its first night, last good the night before", () => {
    const judged = (nights: number) =>
      judgeSeries(samples(choppyStep.slice(0, nights)), { better: "higher", settings }).changes;
    // Nights 20, 22: bad, each alone; night 24 is the fifth of the step and its change point is significant.
    expect(judged(24).map((change) => change.kind)).toEqual(["suspicious", "suspicious"]);
    const declared = judged(25);
    expect(declared).toHaveLength(1);
    expect(declared[0]).toMatchObject({
      kind: "regression",
      startRunId: "night-20",
      lastGoodRunId: "night-19",
      declaredRunId: "night-24",
      confirmedBy: "change-point",
      violations: 5,
      active: true,
    });
    expect(declared[0]!.change_pct).toBeCloseTo(((92 * 3 + 95.5 * 2) / 5 / 100 - 1) * 100, 6);
    // The nights after belong to the change as a confirmed change's later nights do.
    const whole = judgeSeries(samples(choppyStep), { better: "higher", settings });
    expect(whole.changes).toHaveLength(1);
    expect(whole.changes[0]).toMatchObject({ startRunId: "night-20", declaredRunId: "night-24", violations: 7 });
    expect(whole.points.slice(20).map((point) => point.status)).toEqual(Array(7).fill("worse"));
  });

  it("judges causally: a regression is declared, night by night, on the night the whole series says it was", () => {
    // Noisy steps (−10% at night 20 under 5% noise), where the change points confirm most of what is confirmed.
    const scenario = detectionScenarios(FIXTURES).find(
      (row) => row.name === "step −10%, 5% noise" && row.repeats === 1,
    )!;
    let byChangePoint = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const all = seriesOf(scenario, seed);
      const whole = judgeSeries(all, { better: "higher", settings }).changes.filter(
        (change) => change.kind === "regression",
      );
      // Replayed as a CI job uploads: each night judged over the nights so far.
      const declaredNights: string[] = [];
      let known = 0;
      for (let nights = 3; nights <= all.length; nights++) {
        const regressions = judgeSeries(all.slice(0, nights), { better: "higher", settings }).changes.filter(
          (change) => change.kind === "regression",
        );
        if (regressions.length > known) declaredNights.push(all[nights - 1]!.runId);
        known = regressions.length;
      }
      expect(declaredNights).toEqual(whole.map((change) => change.declaredRunId));
      byChangePoint += whole.filter((change) => change.confirmedBy === "change-point").length;
    }
    expect(byChangePoint).toBeGreaterThan(0);
  });

  it("leaves a dip of three nights that recovers suspicious, and the window rule alone never confirms the step", () => {
    const dip = [...steady, 92, 95.5, 92, 100, 101, 99, 100];
    expect(judgeSeries(samples(dip), { better: "higher", settings }).changes.map((change) => change.kind)).toEqual([
      "suspicious",
      "suspicious",
    ]);
    const windowOnly = judgeSeries(samples(choppyStep), { better: "higher", settings, changePoints: false });
    expect(windowOnly.changes.map((change) => [change.kind, change.startRunId])).toEqual([
      ["suspicious", "night-20"],
      ["suspicious", "night-22"],
      ["suspicious", "night-24"],
      ["suspicious", "night-26"],
    ]);
  });

  it("a clean step is still confirmed by K nights in a row, on its second night", () => {
    const clean = [...steady, 90, 91, 90];
    expect(judgeSeries(samples(clean), { better: "higher", settings }).changes).toMatchObject([
      { kind: "regression", startRunId: "night-20", declaredRunId: "night-21", confirmedBy: "consecutive" },
    ]);
  });
});
