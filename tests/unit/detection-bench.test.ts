import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  behindOld,
  detectionScenarios,
  measureRule,
  pairedDelay,
  type RuleFigures,
  realTpotNoise,
} from "@/scripts/bench/detection";

const FIXTURES = path.join(__dirname, "..", "fixtures");
const scenario = (name: string, repeats = 1) =>
  detectionScenarios(FIXTURES).find((row) => row.name === name && row.repeats === repeats)!;

describe("the detection-quality benchmark", () => {
  it("replays the real runs' noise: four relative TPOTs around 1, one slow", () => {
    const noise = realTpotNoise(FIXTURES);
    expect(noise).toHaveLength(4);
    expect(noise.reduce((a, b) => a + b, 0) / 4).toBeCloseTo(1, 9);
    expect(Math.max(...noise)).toBeGreaterThan(1.05);
  });

  it("old and new find a −10% step alike; only the new names nights 19 → 20", () => {
    const step = scenario("step −10%, 2% noise");
    const old = measureRule(step, "old", 60);
    const now = measureRule(step, "new", 60);
    expect(now.detected).toBeGreaterThanOrEqual(old.detected);
    expect(old.detected).toBeGreaterThan(0.9);
    expect(old.culpritExact).toBe(0);
    expect(now.culpritExact!).toBeGreaterThan(0.9);
  });

  it("only the new judges a flake at night 4", () => {
    const flake = scenario("flake −10% at night 4", 3);
    expect(measureRule(flake, "old", 60).detected).toBe(0);
    expect(measureRule(flake, "new", 60).detected).toBeGreaterThan(0.9);
  });

  it("on the real runs' heavy-tailed noise the new rule raises fewer false regressions than the old", () => {
    const steady = scenario("real vLLM TPOT noise, steady");
    const old = measureRule(steady, "old", 200);
    const now = measureRule(steady, "new", 200);
    expect(old.falseAlarmsPer100).toBeGreaterThan(1);
    expect(now.falseAlarmsPer100).toBeLessThan(old.falseAlarmsPer100);
  });
});

describe("the table's verdict line", () => {
  const figures = (overrides: Partial<RuleFigures>): RuleFigures => ({
    detected: 0.5,
    detectedWithoutEarlierFalseAlarm: 0.5,
    falseAlarmsPer100: 0.1,
    delayNights: 2,
    declaredNights: [],
    culpritExact: 0.5,
    ...overrides,
  });

  it("names every column where the new rule is behind the old, unrounded", () => {
    const old = figures({});
    expect(behindOld(old, figures({}), { old: 2, new: 2 })).toEqual([]);
    expect(
      behindOld(
        old,
        figures({
          detected: 0.499,
          falseAlarmsPer100: 0.1001,
          culpritExact: 0.4,
          detectedWithoutEarlierFalseAlarm: 0.4,
        }),
        { old: 2, new: 2.01 },
      ),
    ).toEqual([
      "detected",
      "detected without an earlier false alarm",
      "false alarms",
      "delay",
      "culprit named exactly",
    ]);
  });

  it("compares delay over the series both rules declared", () => {
    // Seed 1: both on night 21; seed 2: only the new, on night 27; seed 3: old 23, new 22.
    expect(pairedDelay([21, null, 23], [21, 27, 22], 20)).toEqual({ old: 2, new: 1.5 });
    expect(pairedDelay([null], [null], 20)).toEqual({ old: null, new: null });
  });

  it("on noisy steps the change points find more than the window rule did, from the night the step started", () => {
    const step = scenario("step −5%, 2% noise", 3);
    const old = measureRule(step, "old", 100);
    const now = measureRule(step, "new", 100);
    expect(now.detected).toBeGreaterThan(old.detected + 0.05);
    expect(now.falseAlarmsPer100).toBeLessThanOrEqual(old.falseAlarmsPer100);
    expect(now.culpritExact!).toBeGreaterThan(0.3);
  });
});
