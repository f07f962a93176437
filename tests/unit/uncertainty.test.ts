/**
 * Every figure with its uncertainty: order-statistic intervals of percentiles, Wilson intervals of shares, SLO
 * attainment, pooled repeats. Expectations are worked out by hand below, or (for ranks of large n) with an exact
 * binomial outside this code: Python's fractions for n ≤ 1,000, scipy.stats.binom and mpmath beyond.
 */
import { describe, expect, it } from "vitest";
import {
  binomialAtMost,
  formatInterval,
  formatUncertainty,
  goodputInterval,
  inconclusiveByIntervals,
  latencyUncertainty,
  minSampleForUpperBound,
  percentileInterval,
  percentileSupport,
  percentileWithInterval,
  pooledPercentile,
  sloAttainment,
  uncertaintyInterval,
  wilsonInterval,
} from "@/lib/analysis/uncertainty";
import { aggregateLevel, type RequestRecord } from "@/lib/bench/metrics";
import { type RequestDetail, type ResultPoint, RunDocumentSchema } from "@/lib/document/schema";
import { seededUniform } from "@/lib/seeded-random";
import { percentile } from "@/lib/stats";

describe("percentileInterval: ranks of the order-statistic interval", () => {
  it("median of 10: ranks 2 and 9, coverage 97.85%", () => {
    // B ~ Binomial(10, 0.5). P(B ≤ 1) = (1 + 10) / 1024 = 0.0107 ≤ 0.025, P(B ≤ 2) = (1 + 10 + 45) / 1024 = 0.0547
    // > 0.025, so l = 2. By symmetry P(B ≥ 9) = 11 / 1024 ≤ 0.025 and P(B ≥ 8) = 56 / 1024 > 0.025, so u = 9.
    // Coverage = 1 − 11/1024 − 11/1024 = 1002 / 1024 = 0.978515625.
    const ranks = percentileInterval(10, 50);
    expect(ranks).toMatchObject({ lowRank: 2, highRank: 9 });
    expect(ranks.coverage).toBeCloseTo(1002 / 1024, 12);
    expect(ranks.coverage).toBeGreaterThanOrEqual(0.95);
  });

  it("p90 of 100: ranks 84 and 96, coverage 95.57%", () => {
    // B ~ Binomial(100, 0.9). P(B ≤ 83) = 0.020599 ≤ 0.025 < P(B ≤ 84) = 0.039891, so l = 84.
    // P(B ≥ 96) = 0.023711 ≤ 0.025 < P(B ≥ 95) = 0.057577, so u = 96.
    // Coverage = 1 − 0.020599 − 0.023711 = 0.955690.
    const ranks = percentileInterval(100, 90);
    expect(ranks).toMatchObject({ lowRank: 84, highRank: 96 });
    expect(ranks.coverage).toBeCloseTo(0.955690107191223, 10);
  });

  it("p99 of 50: a lower end only; the upper end is unbounded", () => {
    // B ~ Binomial(50, 0.99). P(B ≤ 47) = 0.013817 ≤ 0.025 < P(B ≤ 48) = 0.089435, so l = 48.
    // P(B ≥ 50) = P(B = 50) = 0.99^50 = 0.605 > 0.025: even the maximum is below ξ0.99 too often, so no u.
    // Coverage of [X(48), ∞) = 1 − 0.013817 = 0.986183.
    const ranks = percentileInterval(50, 99);
    expect(ranks).toMatchObject({ lowRank: 48, highRank: null });
    expect(ranks.coverage).toBeCloseTo(1 - 0.013817270830600421, 10);
  });

  it("p99 of 1,000: ranks 983 and 997, coverage 97.61%", () => {
    // Exact binomial (Python fractions): P(B ≤ 982) = 0.0138326 ≤ 0.025 < P(B ≤ 983) = 0.0263910, so l = 983;
    // P(B ≥ 997) = 0.0100727 ≤ 0.025 < P(B ≥ 996) = 0.0286864, so u = 997.
    // Coverage = 1 − 0.0138326 − 0.0100727 = 0.9760948.
    const ranks = percentileInterval(1000, 99);
    expect(ranks).toMatchObject({ lowRank: 983, highRank: 997 });
    expect(ranks.coverage).toBeCloseTo(0.976094763497977, 10);
  });

  it("agrees with an exact binomial for large n (scipy.stats.binom, mpmath for n = 100,000 at p99)", () => {
    const cases: [n: number, p: number, low: number, high: number, coverage: number][] = [
      [100_000, 99, 98938, 99062, 0.9512338612967914],
      [100_000, 50, 49690, 50311, 0.9504442853304775],
      [100_000, 99.9, 99880, 99920, 0.954789056801905],
      [10_000, 95, 9457, 9543, 0.9515280546543347],
      [2_000, 90, 1773, 1827, 0.9558847994980609],
    ];
    for (const [n, p, low, high, coverage] of cases) {
      const ranks = percentileInterval(n, p);
      expect([n, p, ranks.lowRank, ranks.highRank]).toEqual([n, p, low, high]);
      expect(ranks.coverage).toBeCloseTo(coverage, 9);
    }
  });

  it("computes binomial tails exactly, without a normal approximation", () => {
    // P(B ≤ 3), B ~ Binomial(10, 0.5) = (1 + 10 + 45 + 120) / 1024 = 176 / 1024 = 0.171875.
    expect(binomialAtMost(10, 50, 3)).toBeCloseTo(0.171875, 14);
    // scipy.stats.binom.cdf
    expect(binomialAtMost(1000, 99, 985)).toBeCloseTo(0.0824123195160892, 12);
    expect(binomialAtMost(100_000, 99, 98950)).toBeCloseTo(0.05870091529906223, 10);
    expect(binomialAtMost(100_000, 50, 49800)).toBeCloseTo(0.10351948588211125, 10);
  });

  it("leaves both ends unbounded when the sample is too small, and covers what it claims", () => {
    // Median of 5: P(B = 0) = 1/32 = 0.03125 > 0.025, so neither end exists.
    expect(percentileInterval(5, 50)).toEqual({ lowRank: null, highRank: null, coverage: 1 });
    expect(percentileInterval(0, 99)).toEqual({ lowRank: null, highRank: null, coverage: 1 });
    for (const n of [1, 2, 7, 20, 99, 368, 5000]) {
      for (const p of [1, 10, 50, 90, 95, 99]) {
        const { lowRank, highRank, coverage } = percentileInterval(n, p);
        expect(coverage).toBeGreaterThanOrEqual(0.95);
        if (lowRank !== null && highRank !== null) expect(lowRank).toBeLessThan(highRank);
      }
    }
  });

  it("covers the true quantile at least 95% of the time (simulated: p90 of 100 uniform values)", () => {
    const uniform = seededUniform(20_240_613);
    let covered = 0;
    const trials = 2000;
    for (let trial = 0; trial < trials; trial += 1) {
      const sample = Array.from({ length: 100 }, uniform);
      const { low, high } = percentileWithInterval(sample, 90);
      if (low! <= 0.9 && 0.9 <= high!) covered += 1;
    }
    // Expected 0.9557; three standard errors (0.0046 each) below is still above 0.94.
    expect(covered / trials).toBeGreaterThan(0.94);
  });

  it("refuses a percentile outside 0–100 and a sample size that is not a count", () => {
    expect(() => percentileInterval(10, 101)).toThrow(RangeError);
    expect(() => percentileInterval(10, -1)).toThrow(RangeError);
    expect(() => percentileInterval(10.5, 50)).toThrow(RangeError);
    expect(() => percentileInterval(10, 50, 1)).toThrow(RangeError);
  });
});

describe("percentileWithInterval", () => {
  it("takes numpy's value and the sorted values at the ranks", () => {
    // 10 values; median at numpy rank (10 − 1) · 0.5 = 4.5 → between 50 and 60: 55. Ranks 2 and 9 → 20 and 90.
    const values = [70, 10, 100, 30, 90, 20, 60, 40, 80, 50];
    expect(percentileWithInterval(values, 50)).toEqual({ value: 55, low: 20, high: 90, n: 10, supported: true });
  });

  it("says a p99 of 50 values cannot be told from their maximum", () => {
    const values = Array.from({ length: 50 }, (_, index) => index + 1);
    // numpy rank 49 · 0.99 = 48.51 → 49 + 0.51 · (50 − 49) = 49.51; l = 48 → the 48th value, 48.
    expect(percentileWithInterval(values, 99)).toEqual({ value: 49.51, low: 48, high: null, n: 50, supported: false });
  });

  it("throws on an empty sample", () => {
    expect(() => percentileWithInterval([], 50)).toThrow(RangeError);
  });
});

describe("percentileSupport and the ≈ max threshold", () => {
  it("needs n ≥ ln(α/2) / ln(p): 6 for the median, 36 for p90, 72 for p95, 368 for p99", () => {
    // ln(0.025) = −3.68888. p99: −3.68888 / ln 0.99 = −3.68888 / −0.0100503 = 367.04 → 368
    // (0.99^367 = 0.02501 > 0.025, 0.99^368 = 0.02476 ≤ 0.025). p95: 3.68888 / 0.0512933 = 71.92 → 72.
    // p90: 3.68888 / 0.1053605 = 35.01 → 36. Median: 3.68888 / 0.693147 = 5.32 → 6. p99.9: 3687.03 → 3688.
    expect([50, 90, 95, 99, 99.9].map((p) => minSampleForUpperBound(p))).toEqual([6, 36, 72, 368, 3688]);
    expect(minSampleForUpperBound(100)).toBe(Number.POSITIVE_INFINITY);
    for (const p of [50, 90, 95, 99]) {
      const threshold = minSampleForUpperBound(p);
      expect(percentileInterval(threshold - 1, p).highRank).toBeNull();
      expect(percentileInterval(threshold, p).highRank).toBe(threshold);
    }
  });

  it("flags a p99 of 50, 99 or 100 requests as ≈ max, not one of 1,000", () => {
    expect(percentileSupport(50, 99)).toBe("approx-max");
    expect(percentileSupport(99, 99)).toBe("approx-max");
    expect(percentileSupport(100, 99)).toBe("approx-max");
    expect(percentileSupport(367, 99)).toBe("approx-max");
    expect(percentileSupport(368, 99)).toBe("supported");
    expect(percentileSupport(1000, 99)).toBe("supported");
    expect(percentileSupport(undefined, 99)).toBe("unknown");
    expect(percentileSupport(0, 99)).toBe("unknown");
  });

  it("flags every n where numpy's p ≥ 50 percentile interpolates between the two largest values", () => {
    // numpy's rank (n − 1) · p / 100 above n − 2: the figure is the maximum or next to it.
    for (const p of [50, 75, 90, 95, 99, 99.9]) {
      for (let n = 2; n <= 2000; n += 1) {
        if (((n - 1) * p) / 100 > n - 2) expect([p, n, percentileSupport(n, p)]).toEqual([p, n, "approx-max"]);
      }
    }
  });
});

describe("wilsonInterval", () => {
  it("8 of 10: 0.490–0.943", () => {
    // z² = 3.841459, z²/n = 0.384146; centre = (0.8 + 0.192073) / 1.384146 = 0.716738;
    // half = (1.959964 / 1.384146) · √(0.8 · 0.2 / 10 + 3.841459 / 400) = 1.416010 · √0.025604 = 0.226576.
    const [low, high] = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.490162, 6);
    expect(high).toBeCloseTo(0.943318, 6);
  });

  it("0 of 20 and 20 of 20 reach the edge on their side only", () => {
    // 0 of 20: high = (z²/n) / (1 + z²/n) = 0.192073 / 1.192073 = 0.161125.
    expect(wilsonInterval(0, 20)[0]).toBe(0);
    expect(wilsonInterval(0, 20)[1]).toBeCloseTo(0.161125, 6);
    expect(wilsonInterval(20, 20)[0]).toBeCloseTo(1 - 0.161125, 6);
    expect(wilsonInterval(20, 20)[1]).toBe(1);
  });

  it("no trials: anything from 0 to 1; refuses impossible counts", () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
  });
});

// Six requests, targets TTFT ≤ 200 ms and TPOT ≤ 25 ms:
// 1 meets both; 2 misses TTFT (250); 3 misses TPOT (30); 4 failed; 5 has one output token, no TPOT, counts as 0
// against the TPOT target (vLLM's rule); 6 sits on both targets (≤ meets). Met: 1, 5, 6 = 3 of 6.
const SIX_REQUESTS: RequestDetail = {
  total: 6,
  ttft_ms: [100, 250, 150, null, 120, 200],
  tpot_ms: [20, 10, 30, null, null, 25],
  e2el_ms: [2000, 1500, 3000, null, 120, 2600],
  output_tokens: [96, 126, 96, null, 1, 97],
  error: [null, null, null, 0, null, null],
  errors: ["HTTP 500"],
};

describe("sloAttainment and goodputInterval", () => {
  it("counts completed requests within every target; a failed request never meets it", () => {
    const attainment = sloAttainment(SIX_REQUESTS, { ttft_ms: 200, tpot_ms: 25 });
    // Wilson 3 of 6: centre 0.5 (symmetric); half = (1.959964 / 1.640243) · √(0.25/6 + 3.841459/144)
    // = 1.194922 · √0.068344 = 0.312384 → 0.187616–0.812384.
    expect(attainment).toMatchObject({ met: 3, total: 6, share: 0.5, levelRequests: 6 });
    expect(attainment!.interval[0]).toBeCloseTo(0.187616, 5);
    expect(attainment!.interval[1]).toBeCloseTo(0.812384, 5);
  });

  it("judges only the targets given", () => {
    // TTFT only: 1, 3, 5, 6 (request 3's TPOT is not judged).
    expect(sloAttainment(SIX_REQUESTS, { ttft_ms: 200 })?.met).toBe(4);
    // TPOT only: 1, 2, 5, 6.
    expect(sloAttainment(SIX_REQUESTS, { ttft_ms: null, tpot_ms: 25 })?.met).toBe(4);
    // e2e latency only: ≤ 2000 ms → 1, 2, 5.
    expect(sloAttainment(SIX_REQUESTS, { e2el_ms: 2000 })?.met).toBe(3);
  });

  it("is null without per-request results or without a target", () => {
    expect(sloAttainment(undefined, { ttft_ms: 200 })).toBeNull();
    expect(sloAttainment(SIX_REQUESTS, {})).toBeNull();
    const noRows = { ...SIX_REQUESTS, ttft_ms: [], tpot_ms: [], e2el_ms: [], output_tokens: [], error: [] };
    expect(sloAttainment(noRows, { ttft_ms: 1 })).toBeNull();
  });

  it("goodput: the share of the level's requests per second, with the Wilson interval scaled alike", () => {
    const attainment = sloAttainment(SIX_REQUESTS, { ttft_ms: 200, tpot_ms: 25 })!;
    // 0.5 · 6 requests / 2 s = 1.5 req/s; interval 0.187616 · 3 = 0.562849 to 0.812384 · 3 = 2.437151.
    const goodput = goodputInterval(attainment, 2)!;
    expect(goodput.goodput_rps).toBeCloseTo(1.5, 12);
    expect(goodput.low_rps).toBeCloseTo(0.562849, 5);
    expect(goodput.high_rps).toBeCloseTo(2.437151, 5);
    // The same six rows kept as a sample of a level of 12 requests: 0.5 · 12 / 2 = 3 req/s.
    const sampled = sloAttainment({ ...SIX_REQUESTS, total: 12 }, { ttft_ms: 200, tpot_ms: 25 })!;
    expect(goodputInterval(sampled, 2)?.goodput_rps).toBeCloseTo(3, 12);
    expect(goodputInterval(attainment, 0)).toBeNull();
  });
});

function detailOf(ttft_ms: number[]): RequestDetail {
  return {
    total: ttft_ms.length,
    ttft_ms,
    tpot_ms: ttft_ms.map(() => 10),
    e2el_ms: ttft_ms.map((value) => value + 1000),
    output_tokens: ttft_ms.map(() => 101),
  };
}

// Two repeats of three requests. Repeat 1: 10, 20, 30 ms, median 20. Repeat 2: 40, 41, 42 ms, median 41.
// Mean of the medians: (20 + 41) / 2 = 30.5. Pooled: 10, 20, 30, 40, 41, 42; numpy rank (6 − 1) · 0.5 = 2.5
// → 30 + 0.5 · (40 − 30) = 35. Median of 6: P(B = 0) = 1/64 = 0.0156 ≤ 0.025, so l = 1 and u = 6: 10–42.
const REPEAT_1: ResultPoint = {
  concurrency: 4,
  repeat: 1,
  completed: 3,
  median_ttft_ms: 20,
  requests: detailOf([10, 20, 30]),
};
const REPEAT_2: ResultPoint = {
  concurrency: 4,
  repeat: 2,
  completed: 3,
  median_ttft_ms: 41,
  requests: detailOf([40, 41, 42]),
};

describe("pooled repeats", () => {
  it("takes the percentile of the pooled requests, not the mean of the repeats' percentiles", () => {
    expect(pooledPercentile([REPEAT_1, REPEAT_2], "ttft", 50)).toEqual({
      value: 35,
      low: 10,
      high: 42,
      n: 6,
      supported: true,
    });
    expect((REPEAT_1.median_ttft_ms! + REPEAT_2.median_ttft_ms!) / 2).toBe(30.5);
  });

  it("is null when any repeat lacks per-request results, and for ITL (no per-request column)", () => {
    const { requests: _, ...summaryOnly } = REPEAT_2;
    expect(pooledPercentile([REPEAT_1, summaryOnly], "ttft", 50)).toBeNull();
    expect(pooledPercentile([REPEAT_1, REPEAT_2], "itl", 50)).toBeNull();
    expect(pooledPercentile([], "ttft", 50)).toBeNull();
  });
});

describe("latencyUncertainty", () => {
  it("uses the pooled requests when every repeat has them", () => {
    expect(latencyUncertainty([REPEAT_1, REPEAT_2], "ttft", "median")).toEqual({
      value: 35,
      low: 10,
      high: 42,
      n: 6,
      basis: "requests",
      support: "supported",
    });
  });

  it("falls back to the stated figures, judging support by the smallest repeat", () => {
    const points: ResultPoint[] = [
      { concurrency: 8, repeat: 1, completed: 400, p99_ttft_ms: 300 },
      { concurrency: 8, repeat: 2, completed: 50, p99_ttft_ms: 500 },
    ];
    // Mean (300 + 500) / 2 = 400 ms from 450 requests; the second p99 is of 50 requests: ≈ its maximum.
    const uncertainty = latencyUncertainty(points, "ttft", "p99");
    expect(uncertainty).toEqual({ value: 400, low: null, high: null, n: 450, basis: "summary", support: "approx-max" });
    expect(formatUncertainty(uncertainty)).toBe("≈ max 400 ms (n=450)");
    expect(latencyUncertainty([points[0]!], "ttft", "p99").support).toBe("supported");
  });

  it("says unknown without a request count, for ITL, and without a stated figure", () => {
    expect(latencyUncertainty([{ concurrency: 1, p99_ttft_ms: 120 }], "ttft", "p99")).toMatchObject({
      value: 120,
      n: null,
      support: "unknown",
    });
    expect(latencyUncertainty([{ concurrency: 1, completed: 1000, p99_itl_ms: 12 }], "itl", "p99").support).toBe(
      "unknown",
    );
    expect(latencyUncertainty([{ concurrency: 1, completed: 10 }], "tpot", "p90")).toEqual({
      value: null,
      low: null,
      high: null,
      n: null,
      basis: "summary",
      support: "unknown",
    });
  });
});

describe("inconclusiveByIntervals and formatInterval", () => {
  it("overlapping intervals are inconclusive; without an interval on a side there is nothing to judge by", () => {
    expect(inconclusiveByIntervals([398, 431], [425, 470])).toBe(true);
    expect(inconclusiveByIntervals([398, 431], [440, 470])).toBe(false);
    expect(inconclusiveByIntervals([398, 431], null)).toBeNull();
    // An unbounded upper end reaches everything above its lower end.
    expect(inconclusiveByIntervals([398, Number.POSITIVE_INFINITY], [900, 1000])).toBe(true);
    const pooled = latencyUncertainty([REPEAT_1, REPEAT_2], "ttft", "median");
    expect(uncertaintyInterval(pooled)).toEqual([10, 42]);
    expect(uncertaintyInterval({ ...pooled, basis: "summary" })).toBeNull();
  });

  it("writes the interval, or ≈ max with the request count", () => {
    expect(formatInterval(412, 398, 431, "ms")).toBe("412 ms (95% CI 398–431)");
    expect(formatInterval(1204, 1100, null, "ms", { n: 50 })).toBe("≈ max 1,204 ms (n=50)");
    expect(formatInterval(1204, null, null, "ms", { n: 50, support: "approx-max" })).toBe("≈ max 1,204 ms (n=50)");
    expect(formatInterval(412, null, null, "ms")).toBe("412 ms");
    expect(formatInterval(12.34, null, 15.2, "ms")).toBe("12.3 ms (95% CI ≤ 15.2)");
    expect(formatInterval(null, 1, 2, "ms")).toBe("—");
    expect(formatInterval(0.5, 0.19, 0.81, "")).toBe("0.5 (95% CI 0.19–0.81)");
  });
});

describe("a level measured by servebench bench", () => {
  // 1,000 requests with exponential-tailed TTFTs, run through the benchmark's own aggregation with
  // per-request results kept: the point states a p99 from all requests, and keeps every row.
  const uniform = seededUniform(7);
  const records: RequestRecord[] = Array.from({ length: 1000 }, (_, index) => {
    const start = index * 5;
    const ttft = 40 + 60 * -Math.log(1 - uniform());
    const chunks = Array.from({ length: 32 }, (_, token) => ttft + token * (8 + 4 * uniform()));
    return {
      status: "ok",
      start_ms: start,
      end_ms: start + chunks[chunks.length - 1]! + 1,
      text_chunk_ms: chunks,
      usage_output_tokens: 32,
      usage_input_tokens: 128,
    };
  });
  const { point } = aggregateLevel(16, records, { detail: true });
  const document = RunDocumentSchema.parse({
    format: "servebench/v1",
    engine: "vllm",
    model: "test-model",
    results: [point],
  });
  const stored = document.results[0]!;

  it("gives its stated p99 an interval that contains it", () => {
    const uncertainty = latencyUncertainty([stored], "ttft", "p99");
    expect(uncertainty).toMatchObject({ basis: "requests", n: 1000, support: "supported" });
    expect(uncertainty.low!).toBeLessThanOrEqual(stored.p99_ttft_ms!);
    expect(uncertainty.high!).toBeGreaterThanOrEqual(stored.p99_ttft_ms!);
    expect(uncertainty.value!).toBeCloseTo(stored.p99_ttft_ms!, 1);
    // The interval's ends are the 983rd and 997th of the sorted rows.
    const sorted = stored.requests!.ttft_ms.map(Number).sort((a, b) => a - b);
    expect([uncertainty.low, uncertainty.high]).toEqual([sorted[982], sorted[996]]);
    expect(percentile(sorted, 99)).toBeCloseTo(uncertainty.value!, 10);
  });

  it("every request met a loose SLO, and the goodput interval holds the stated goodput", () => {
    const attainment = sloAttainment(stored.requests, { ttft_ms: 10_000, tpot_ms: 1_000 })!;
    expect(attainment).toMatchObject({ met: 1000, total: 1000, share: 1 });
    const goodput = goodputInterval(attainment, stored.duration_s!)!;
    expect(goodput.goodput_rps).toBeCloseTo(stored.request_throughput!, 2);
    expect(goodput.high_rps).toBe(goodput.goodput_rps);
  });
});
