import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectionScenarios, measureRule, realTpotNoise } from "@/scripts/bench/detection";

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
