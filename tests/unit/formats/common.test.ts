/**
 * PointBuilder's percentiles (what every importer files a stated percentile through) and the import report's default
 * reasons for the statistics no point keeps.
 */
import { describe, expect, it } from "vitest";
import { LIMITS, ResultPointSchema } from "@/lib/document/schema";
import { PointBuilder, percentileKey } from "@/lib/formats/common";
import { REASONS, statisticReason } from "@/lib/formats/report";

describe("percentileKey", () => {
  it("names a percentile as the keys of `percentiles` do", () => {
    expect(percentileKey(99.9)).toBe("p99.9");
    expect(percentileKey(0.1)).toBe("p0.1");
    expect(percentileKey(5)).toBe("p5");
    expect(percentileKey(100)).toBe("p100");
    expect(percentileKey(0)).toBe("p0");
    expect(percentileKey(99.999)).toBe("p99.999");
  });

  it("has no key for what is no percentile or cannot be named exactly", () => {
    expect(percentileKey(99.9999)).toBeUndefined();
    expect(percentileKey(100.5)).toBeUndefined();
    expect(percentileKey(-1)).toBeUndefined();
    expect(percentileKey(Number.NaN)).toBeUndefined();
  });
});

describe("PointBuilder.percentile", () => {
  const level = (builder: PointBuilder) => builder.concurrency(4, "c");

  it("files p50 as the median, p90/p95/p99 in their fields, the others in percentiles, converting units", () => {
    const builder = level(new PointBuilder("x"));
    for (const [p, value] of [
      [0.1, 0.01],
      [25, 0.02],
      [50, 0.03],
      [90, 0.04],
      [95, 0.05],
      [99, 0.06],
      [99.9, 0.07],
    ] as const)
      builder.percentile("ttft", p, value, `ttft.p${p}`, "s");
    const point = builder.build();
    expect(point.median_ttft_ms).toBe(30);
    expect(point.p90_ttft_ms).toBe(40);
    expect(point.p99_ttft_ms).toBe(60);
    expect(point.percentiles).toEqual({ ttft: { "p0.1": 10, p25: 20, "p99.9": 70 } });
    expect(point.sources).toMatchObject({
      median_ttft_ms: "ttft.p50",
      p95_ttft_ms: "ttft.p95",
      "percentiles.ttft.p0.1": "ttft.p0.1",
      "percentiles.ttft.p99.9": "ttft.p99.9",
    });
    expect(builder.refused).toEqual([]);
    // What the builder makes is a valid point.
    expect(ResultPointSchema.safeParse(point).success).toBe(true);
  });

  it("keeps the tool's own median and reports p50 as the same figure, in whichever order they come", () => {
    const first = level(new PointBuilder("x"));
    first.percentile("e2el", 50, 812, "p50_e2el_ms");
    first.set("median_e2el_ms", 811.5, "median_e2el_ms");
    const point = first.build();
    expect(point.median_e2el_ms).toBe(811.5);
    expect(point.sources?.median_e2el_ms).toBe("median_e2el_ms");
    expect(point.percentiles).toBeUndefined();
    expect(first.notImported("f.json", "line 2")).toEqual([
      {
        file: "f.json",
        field: "line 2.p50_e2el_ms",
        value: 812,
        reason: "the 50th percentile, which is the median: the point keeps it from median_e2el_ms",
      },
    ]);
  });

  it(`keeps at most ${LIMITS.extraPercentiles} per metric, the highest, and reports the rest with the reason`, () => {
    const builder = level(new PointBuilder("x"));
    const stated = [1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 25, 30, 40, 60, 70, 75, 80, 85, 97, 98, 99.5, 99.9, 99.99];
    for (const p of stated) builder.percentile("itl", p, p / 10, `itl_p${p}`);
    const point = builder.build();
    const kept = Object.keys(point.percentiles?.itl ?? {});
    expect(kept).toHaveLength(LIMITS.extraPercentiles);
    expect(kept[0]).toBe("p4");
    expect(kept.at(-1)).toBe("p99.99");
    expect(builder.refused.map((entry) => entry.source)).toEqual(["itl_p3", "itl_p2", "itl_p1"]);
    expect(builder.refused[0]?.reason).toBe(
      "one of the 23 percentiles of ITL the file states besides the median, p90, p95 and p99: a point keeps 20 (the highest, from p4 up)",
    );
    expect(ResultPointSchema.safeParse(point).success).toBe(true);
  });

  it("refuses a negative value and a percentile it cannot name; warns about NaN; ignores what is absent", () => {
    const builder = level(new PointBuilder("x"));
    builder.percentile("tpot", 75, -1, "tpot.p75");
    builder.percentile("tpot", 99.99999, 12, "tpot.p99.99999");
    builder.percentile("tpot", 101, 12, "tpot.p101");
    builder.percentile("tpot", 25, "NaN", "tpot.p25");
    builder.percentile("tpot", 10, null, "tpot.p10");
    builder.percentile("tpot", 5, "7.5", "tpot.p5");
    const point = builder.build();
    expect(point.percentiles).toEqual({ tpot: { p5: 7.5 } });
    expect(builder.warnings).toEqual(["x: tpot.p25 is NaN; stored as no data."]);
    expect(builder.refused.map((entry) => [entry.source, entry.reason])).toEqual([
      ["tpot.p75", "a negative latency, which no request can have"],
      [
        "tpot.p99.99999",
        "the 99.99999th percentile: servebench names percentiles with at most three decimals (p99.999), so it cannot hold this one exactly",
      ],
      ["tpot.p101", "101 is not a percentile (0 to 100)"],
    ]);
  });

  it("reports the same percentile stated twice", () => {
    const builder = level(new PointBuilder("x"));
    builder.percentile("ttft", 99.9, 1, "a.p999");
    builder.percentile("ttft", 99.9, 1.1, "a.p99.9");
    const point = builder.build();
    expect(point.percentiles).toEqual({ ttft: { "p99.9": 1 } });
    expect(builder.refused).toEqual([
      { source: "a.p99.9", value: 1.1, reason: "the same percentile as a.p999, which the point keeps" },
    ]);
  });

  it("drops the percentiles of a level whose requests all failed, and says in the report why", () => {
    const builder = level(new PointBuilder("x"));
    builder.set("completed", 0, "completed");
    builder.set("mean_ttft_ms", 0, "mean_ttft_ms");
    builder.percentile("ttft", 99.9, 0, "p99.9_ttft_ms");
    const point = builder.build();
    expect(point.percentiles).toBeUndefined();
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point.sources).toEqual({ concurrency: "c", completed: "completed" });
    expect(builder.refused.map((entry) => entry.source).sort()).toEqual(["mean_ttft_ms", "p99.9_ttft_ms"]);
    expect(builder.refused[0]?.reason).toBe(
      "no request of this load level completed: the tool's figure is no data, not a measurement",
    );
  });

  it("keeps percentiles of end-to-end latency per token apart from TPOT", () => {
    const builder = level(new PointBuilder("x"));
    builder.percentile("e2el_per_token", 25, 0.009, "results_inter_token_latency_s_quantiles_p25", "s");
    const point = builder.build();
    expect(point.percentiles).toEqual({ e2el_per_token: { p25: 9 } });
    expect(point.percentiles?.tpot).toBeUndefined();
  });
});

describe("the import report's default reasons", () => {
  it("tells percentiles, extremes and other statistics apart by the end of the path", () => {
    expect(statisticReason("successes.prompt_len.p99.9")).toBe(REASONS.percentile);
    expect(statisticReason("results_number_input_tokens_quantiles_p25")).toBe(REASONS.percentile);
    expect(statisticReason("metrics.output_token_count.successful.percentiles.p999")).toBe(REASONS.percentile);
    expect(statisticReason("latency.epp.p0p1")).toBe(REASONS.percentile);
    expect(statisticReason("results_ttft_s_max")).toBe(REASONS.extreme);
    expect(statisticReason("records.ttft.min")).toBe(REASONS.extreme);
    expect(statisticReason("PERFORMANCE OVERVIEW.[TTFT] MINIMUM")).toBeUndefined();
    expect(statisticReason("metrics.ttft.successful.variance")).toBe(REASONS.otherStatistic);
    expect(statisticReason("burstiness")).toBeUndefined();
    // The text no longer claims that points keep only mean, median, std, p90, p95 and p99.
    expect(REASONS.percentile).not.toContain("p90, p95 and p99");
  });
});
