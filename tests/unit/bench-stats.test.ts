/** Statistics as numpy computes them (vLLM's `bench serve` reports np.mean, np.median, np.std, np.percentile). */
import { describe, expect, it, test } from "vitest";
import { mean, percentile, std, summarize } from "@/lib/stats";

describe("percentile (numpy's default, linear interpolation)", () => {
  // Hand-computed: rank = (n − 1) · p / 100, interpolated between its neighbours.
  test.each([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50, 5.5], // rank 4.5 → 5 + 0.5 · 1
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90, 9.1], // rank 8.1
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95, 9.55], // rank 8.55
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99, 9.91], // rank 8.91
    [[15, 20, 35, 40, 50], 40, 29], // rank 1.6 → 20 + 0.6 · 15
    [[50, 15, 40, 20, 35], 40, 29], // order does not matter
    [[10, 20], 99, 19.9], // rank 0.99
    [[7], 99, 7],
    [[3, 1, 2], 50, 2],
    [[1, 2, 3, 4], 0, 1],
    [[1, 2, 3, 4], 100, 4],
  ])("%j at p%d is %d", (values, p, expected) => {
    expect(percentile(values, p)).toBeCloseTo(expected, 12);
  });

  it("does not reorder the caller's array", () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe("mean and std", () => {
  it("std is the population standard deviation (ddof = 0), like np.std", () => {
    // mean 5.5; squared deviations sum to 82.5; 82.5 / 10 = 8.25.
    expect(std([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBeCloseTo(Math.sqrt(8.25), 12);
    expect(std([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    expect(std([42])).toBe(0);
  });

  it("mean", () => {
    expect(mean([100, 101, 102, 105])).toBe(102);
  });
});

describe("summarize", () => {
  it("gives mean, median, std, p90, p95, p99", () => {
    const summary = summarize([10, 20, 30, 40]);
    expect(summary).not.toBeNull();
    expect(summary!.mean).toBe(25);
    expect(summary!.median).toBe(25);
    expect(summary!.std).toBeCloseTo(Math.sqrt(125), 12); // deviations 15², 5², 5², 15² → 500 / 4
    expect(summary!.p90).toBeCloseTo(37, 12); // rank 2.7 → 30 + 0.7 · 10
    expect(summary!.p95).toBeCloseTo(38.5, 12); // rank 2.85
    expect(summary!.p99).toBeCloseTo(39.7, 12); // rank 2.97
  });

  it("is null for an empty sample: no data, never a zero", () => {
    expect(summarize([])).toBeNull();
  });
});
