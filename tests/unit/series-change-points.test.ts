import { describe, expect, it } from "vitest";
import { benjaminiHochberg, bestSplit, eDivisive } from "@/lib/series/change-points";
import { nightlySeries } from "@/tests/support/synthetic-series";

/** Q(τ) written out pair by pair, as the paper states it. */
function bruteForce(values: readonly number[], tau: number): number {
  const left = values.slice(0, tau);
  const right = values.slice(tau);
  const mean = (pairs: number[]) => (pairs.length === 0 ? 0 : pairs.reduce((a, b) => a + b, 0) / pairs.length);
  const between = mean(left.flatMap((a) => right.map((b) => Math.abs(a - b))));
  const within = (side: number[]) => mean(side.flatMap((a, i) => side.slice(i + 1).map((b) => Math.abs(a - b))));
  return ((left.length * right.length) / values.length) * (2 * between - within(left) - within(right));
}

describe("E-divisive means", () => {
  it("finds the split the pairwise definition finds, with the same statistic", () => {
    const values = nightlySeries({ seed: 3, nights: 25, stepAt: 11, flakeAt: null }).map((run) => run.value);
    let best = { index: -1, statistic: -Infinity };
    for (let tau = 2; tau <= values.length - 2; tau++) {
      const statistic = bruteForce(values, tau);
      if (statistic > best.statistic) best = { index: tau, statistic };
    }
    const split = bestSplit(values, 2)!;
    expect(split.index).toBe(best.index);
    expect(split.statistic).toBeCloseTo(best.statistic, 9);
    expect(split.index).toBe(11);
  });

  it("places a −10% step at night 20 of 30 at the night it started, significant, the same every time", () => {
    let exact = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const values = nightlySeries({ seed, stepAt: 20, flakeAt: null }).map((run) => run.value);
      const points = eDivisive(values);
      if (points.length === 1 && points[0]!.index === 20 && points[0]!.p < 0.05) exact++;
    }
    expect(exact).toBeGreaterThanOrEqual(85);
    const values = nightlySeries({ seed: 7, stepAt: 20, flakeAt: null }).map((run) => run.value);
    expect(eDivisive(values)).toEqual(eDivisive(values));
    const [point] = eDivisive(values);
    expect(point!.before).toBeGreaterThan(98);
    expect(point!.after).toBeLessThan(92);
  });

  it("finds nothing in most steady series: false alarms near the level asked for", () => {
    let alarms = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const values = nightlySeries({ seed, stepAt: null, flakeAt: null }).map((run) => run.value);
      if (eDivisive(values, { seed }).length > 0) alarms++;
    }
    // α = 0.05 per stretch: about 10 of 200, with room for the permutations' own noise.
    expect(alarms).toBeLessThanOrEqual(20);
  });

  it("Benjamini–Hochberg keeps the discoveries a false discovery rate of 5% allows", () => {
    // Sorted: 0.001 ≤ 0.01, 0.008 ≤ 0.02, 0.039 > 0.03, 0.041 > 0.04, 0.2 > 0.05.
    expect(benjaminiHochberg([0.039, 0.001, 0.2, 0.008, 0.041], 0.05)).toEqual([false, true, false, true, false]);
    // A p that fails its own rank is kept when a later rank passes (step-up).
    expect(benjaminiHochberg([0.03, 0.04], 0.05)).toEqual([true, true]);
    expect(benjaminiHochberg([], 0.05)).toEqual([]);
  });
});
