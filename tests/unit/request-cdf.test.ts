/**
 * The per-request latency distributions of the compare page (lib/analysis/request-cdf.ts) and their URL
 * parameters (lib/comparisons/view.ts): every expectation below is worked out by hand from the values given.
 */
import { describe, expect, it } from "vitest";
import { levelOf } from "@/lib/analysis/levels";
import {
  CDF_MAX_POINTS,
  completedValues,
  defaultCdfLevel,
  isLevelKey,
  levelOfKey,
  requestCdf,
} from "@/lib/analysis/request-cdf";
import {
  compareQuery,
  parseCompareView,
  savedCompareView,
  saveFieldsOf,
  VIEW_OVERRIDE_KEYS,
  withViewOverrides,
} from "@/lib/comparisons/view";

const c = (concurrency: number) => levelOf({ concurrency });
const rate = (request_rate: number | "inf") => levelOf({ request_rate });

describe("completed requests", () => {
  const detail = {
    ttft_ms: [120, 80, null, 100, 50],
    tpot_ms: [10, null, null, 12, 11],
    e2el_ms: [900, 95, null, 700, 40],
    // Row 2 failed (its figures are null); row 4 failed after its first token: its TTFT is known but left out too.
    error: [null, null, 0, null, 1],
  };

  it("leave out failed requests and requests without the figure", () => {
    expect(completedValues(detail, "ttft")).toEqual([120, 80, 100]);
    // Row 1 generated one token: no TPOT.
    expect(completedValues(detail, "tpot")).toEqual([10, 12]);
    expect(completedValues(detail, "e2e")).toEqual([900, 95, 700]);
  });

  it("without an error column, a null figure is what marks a failure", () => {
    expect(completedValues({ ttft_ms: [3, null, 1], tpot_ms: [1, null, 1], e2el_ms: [5, null, 2] }, "ttft")).toEqual([
      3, 1,
    ]);
  });
});

describe("the empirical distribution", () => {
  it("of nine requests: every value kept, the exact share at each, percentiles by numpy's linear method", () => {
    const cdf = requestCdf([120, 80, 100, 140, 90, 110, 130, 150, 60])!;
    expect(cdf.n).toBe(9);
    expect(cdf.min_ms).toBe(60);
    expect(cdf.max_ms).toBe(150);
    // Ranks (n − 1)·p: 4 → 110; 7.2 → 140 + 0.2·10; 7.92 → 140 + 0.92·10.
    expect(cdf.p50_ms).toBe(110);
    expect(cdf.p90_ms).toBeCloseTo(142, 10);
    expect(cdf.p99_ms).toBeCloseTo(149.2, 10);
    expect(cdf.points.map((point) => point.latency_ms)).toEqual([60, 60, 80, 90, 100, 110, 120, 130, 140, 150]);
    expect(cdf.points.map((point) => point.share_pct)).toEqual([
      0,
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((rank) => (rank / 9) * 100),
    ]);
  });

  it("gives equal values one point, at the share of all of them", () => {
    const cdf = requestCdf([5, 10, 5, 5])!;
    expect(cdf.points).toEqual([
      { latency_ms: 5, share_pct: 0 },
      { latency_ms: 5, share_pct: 75 },
      { latency_ms: 10, share_pct: 100 },
    ]);
    // Ranks 1.5 → 5; 2.7 → 5 + 0.7·5; 2.97 → 5 + 0.97·5.
    expect(cdf.p50_ms).toBe(5);
    expect(cdf.p90_ms).toBeCloseTo(8.5, 10);
    expect(cdf.p99_ms).toBeCloseTo(9.85, 10);
  });

  it("is nothing without a completed request", () => {
    expect(requestCdf([])).toBeNull();
    expect(requestCdf(completedValues({ ttft_ms: [null], tpot_ms: [null], e2el_ms: [null], error: [0] }, "ttft"))).toBe(
      null,
    );
  });

  describe("of 100,000 requests (1, 2, …, 100,000 ms, shuffled)", () => {
    const n = 100_000;
    // Shuffled with a fixed stride (coprime with n): the order of the input must not matter.
    const values = Array.from({ length: n }, (_, index) => ((index * 7_919) % n) + 1);
    const cdf = requestCdf(values)!;
    const at = (latency: number) => cdf.points.find((point) => point.latency_ms === latency);

    it(`keeps at most ${CDF_MAX_POINTS} points, from (min, 0) to (max, 100%)`, () => {
      expect(cdf.n).toBe(n);
      expect(cdf.points.length).toBeLessThanOrEqual(CDF_MAX_POINTS);
      expect(cdf.points.length).toBeGreaterThan(150);
      expect(cdf.points[0]).toEqual({ latency_ms: 1, share_pct: 0 });
      expect(cdf.points.at(-1)).toEqual({ latency_ms: n, share_pct: 100 });
    });

    it("puts every kept point at its exact share: value v is the v-th of n, so v / 1,000 %", () => {
      for (const point of cdf.points.slice(1)) expect(point.share_pct).toBeCloseTo(point.latency_ms / 1_000, 9);
      const latencies = cdf.points.map((point) => point.latency_ms);
      expect(latencies).toEqual([...latencies].sort((a, b) => a - b));
    });

    it("keeps both order statistics each percentile lies between, so the table's figures are on the curve", () => {
      // p50 at rank 49,999.5 (values 50,000 and 50,001), p90 at 89,999.1, p99 at 98,999.01.
      expect(cdf.p50_ms).toBeCloseTo(50_000.5, 9);
      expect(cdf.p90_ms).toBeCloseTo(90_000.1, 9);
      expect(cdf.p99_ms).toBeCloseTo(99_000.01, 9);
      for (const latency of [50_000, 50_001, 90_000, 90_001, 99_000, 99_001]) expect(at(latency)).toBeDefined();
    });

    it("keeps the tails at doubling distances from each end: the slowest requests one by one at first", () => {
      // Ranks n − 2, n − 3, n − 5, n − 9, … are values n − 1, n − 2, n − 4, n − 8, …
      for (const distance of [1, 2, 4, 8, 16, 1_024, 32_768]) {
        expect(at(n - distance)?.share_pct).toBeCloseTo((n - distance) / 1_000, 9);
        expect(at(distance + 1)?.share_pct).toBeCloseTo((distance + 1) / 1_000, 9);
      }
    });
  });

  it("moves a kept rank to the last of its equal values when many requests took the same time", () => {
    // 99,000 requests of 10 ms, then 1,000 of 1,001 … 2,000 ms.
    const values = [...Array.from({ length: 99_000 }, () => 10), ...Array.from({ length: 1_000 }, (_, i) => 1_001 + i)];
    const cdf = requestCdf(values)!;
    expect(cdf.points[0]).toEqual({ latency_ms: 10, share_pct: 0 });
    expect(cdf.points[1]).toEqual({ latency_ms: 10, share_pct: 99 });
    expect(cdf.points.filter((point) => point.latency_ms === 10)).toHaveLength(2);
    expect(cdf.p50_ms).toBe(10);
    expect(cdf.p90_ms).toBe(10);
    // Rank 98,999.01: between the last 10 ms (rank 98,999) and the first 1,001 ms (rank 99,000).
    // (The rank's fraction carries a rounding error of about 5e-12, times the 991 ms step.)
    expect(cdf.p99_ms).toBeCloseTo(10 + 0.01 * 991, 6);
    expect(cdf.points.at(-1)).toEqual({ latency_ms: 2_000, share_pct: 100 });
    for (const point of cdf.points.slice(2))
      expect(point.share_pct).toBeCloseTo(99 + (point.latency_ms - 1_000) / 1_000, 9);
  });

  it("refuses a budget too small to hold its fixed points", () => {
    expect(() => requestCdf([1, 2, 3], 10)).toThrow(RangeError);
  });
});

describe("the default level", () => {
  it("is the highest level every series with per-request results stored them at", () => {
    expect(
      defaultCdfLevel([
        [c(1), c(8)],
        [c(1), c(8), c(16)],
      ]),
    ).toBe("c:8");
    // A series without any is left out of "every".
    expect(defaultCdfLevel([[c(1), c(8)], [], [c(8), c(4)]])).toBe("c:8");
    expect(
      defaultCdfLevel([
        [rate(2), rate("inf")],
        [rate("inf"), rate(2)],
      ]),
    ).toBe("r:inf");
  });

  it("else the level most series stored them at, the highest of a tie", () => {
    expect(defaultCdfLevel([[c(1)], [c(8)], [c(8), c(32)]])).toBe("c:8");
    expect(defaultCdfLevel([[c(1)], [c(16)]])).toBe("c:16");
  });

  it("is null when no series stored any", () => {
    expect(defaultCdfLevel([])).toBeNull();
    expect(defaultCdfLevel([[], []])).toBeNull();
  });
});

describe("level keys", () => {
  it("are the keys levelOf writes, and nothing else", () => {
    for (const key of ["c:1", "c:8", "c:1024", "r:2.5", "r:0.1", "r:inf", "r:1e-7"]) expect(isLevelKey(key)).toBe(true);
    for (const key of ["c:0", "c:-1", "c:8.5", "c:08", "r:02.5", "r:-1", "r:0", "r:", "8", "c:8 ", "x:8", "r:Infinity"])
      expect(isLevelKey(key)).toBe(false);
    expect(levelOf({ request_rate: 0.1 }).key).toBe("r:0.1");
    expect(levelOfKey("c:8")).toEqual(c(8));
    expect(levelOfKey("r:2.5")).toEqual(rate(2.5));
    expect(levelOfKey("r:inf")).toEqual(rate("inf"));
  });
});

describe("the URL's cdf_level and cdf_metric", () => {
  it("are read, written back and left out at their defaults", () => {
    const view = parseCompareView({ runs: "a,b", cdf_level: "c:8", cdf_metric: "e2e" });
    expect(view.cdfLevel).toBe("c:8");
    expect(view.cdfMetric).toBe("e2e");
    expect(compareQuery(view)).toBe("runs=a,b&cdf_level=c:8&cdf_metric=e2e");
    const plain = parseCompareView({ runs: "a,b", cdf_metric: "ttft" });
    expect(plain).toMatchObject({ cdfLevel: null, cdfMetric: "ttft" });
    expect(compareQuery(plain)).toBe("runs=a,b");
  });

  it("fall back to the defaults when invalid (ITL has no per-request column)", () => {
    expect(parseCompareView({ runs: "a", cdf_level: "C=8", cdf_metric: "itl" })).toMatchObject({
      cdfLevel: null,
      cdfMetric: "ttft",
    });
  });

  it("are saved with a comparison and overridden by its page's URL", () => {
    expect(VIEW_OVERRIDE_KEYS).toEqual(expect.arrayContaining(["cdf_level", "cdf_metric"]));
    const fields = saveFieldsOf(parseCompareView({ runs: "a,b", cdf_level: "r:2.5", cdf_metric: "tpot" }));
    expect(fields).toMatchObject({ cdf_level: "r:2.5", cdf_metric: "tpot" });
    expect(saveFieldsOf(parseCompareView({ runs: "a,b" }))).not.toHaveProperty("cdf_level");
    const saved = savedCompareView({ baseline: null, noise: null, ...fields });
    expect(saved).toMatchObject({ cdfLevel: "r:2.5", cdfMetric: "tpot" });
    expect(withViewOverrides(saved, { cdf_level: "c:16", cdf_metric: "e2e" })).toMatchObject({
      cdfLevel: "c:16",
      cdfMetric: "e2e",
    });
    // An empty level goes back to the default level; an invalid metric keeps the saved one.
    expect(withViewOverrides(saved, { cdf_level: "", cdf_metric: "nope" })).toMatchObject({
      cdfLevel: null,
      cdfMetric: "tpot",
    });
    expect(withViewOverrides(saved, {})).toMatchObject({ cdfLevel: "r:2.5", cdfMetric: "tpot" });
  });
});
