import { describe, expect, it, test } from "vitest";
import { compareLevels, type LoadLevel, levelOf, pointAt, unionLevels } from "@/lib/analysis/levels";
import type { ResultPoint } from "@/lib/document/schema";

const c = (concurrency: number): LoadLevel => ({ key: `c:${concurrency}`, concurrency, request_rate: null });
const r = (rate: number | "inf"): LoadLevel => ({ key: `r:${rate}`, concurrency: null, request_rate: rate });

describe("levelOf", () => {
  test.each<[Pick<ResultPoint, "concurrency" | "request_rate">, LoadLevel]>([
    [{ concurrency: 1 }, { key: "c:1", concurrency: 1, request_rate: null }],
    [{ concurrency: 128 }, { key: "c:128", concurrency: 128, request_rate: null }],
    [
      { concurrency: 8, request_rate: 4 },
      { key: "c:8", concurrency: 8, request_rate: 4 },
    ],
    [{ request_rate: 2.5 }, { key: "r:2.5", concurrency: null, request_rate: 2.5 }],
    [{ request_rate: "inf" }, { key: "r:inf", concurrency: null, request_rate: "inf" }],
  ])("%j", (point, expected) => {
    expect(levelOf(point)).toEqual(expected);
  });
});

describe("compareLevels", () => {
  test.each<[LoadLevel, LoadLevel, "<" | ">" | "="]>([
    [c(1), c(128), "<"],
    [c(128), c(1), ">"],
    [c(8), c(8), "="],
    [c(1024), r(0.5), "<"],
    [r(0.5), c(1), ">"],
    [r(1), r(2.5), "<"],
    [r(100), r("inf"), "<"],
    [r("inf"), r(100), ">"],
    [r("inf"), r("inf"), "="],
  ])("%j vs %j is %s", (a, b, relation) => {
    const result = compareLevels(a, b);
    if (relation === "<") expect(result).toBeLessThan(0);
    else if (relation === ">") expect(result).toBeGreaterThan(0);
    else expect(result).toBe(0);
  });

  it("sorts concurrencies ascending, then rates ascending with inf last", () => {
    const levels = [r("inf"), c(64), r(2), c(1), r(0.5), c(8)];
    expect([...levels].sort(compareLevels).map((level) => level.key)).toEqual([
      "c:1",
      "c:8",
      "c:64",
      "r:0.5",
      "r:2",
      "r:inf",
    ]);
  });
});

describe("unionLevels", () => {
  it("is the sorted union of every run's levels, each once", () => {
    const runs = [
      { results: [{ concurrency: 128 }, { concurrency: 1 }, { request_rate: "inf" as const }] },
      { results: [{ concurrency: 4 }, { concurrency: 1 }, { request_rate: 2 }] },
      { results: [{ concurrency: 128 }] },
    ];
    expect(unionLevels(runs)).toEqual([c(1), c(4), c(128), r(2), r("inf")]);
  });

  it("is empty for no runs", () => {
    expect(unionLevels([])).toEqual([]);
  });
});

describe("pointAt", () => {
  const results: ResultPoint[] = [
    { concurrency: 128, output_throughput: 2370 },
    { concurrency: 1, output_throughput: 63.6 },
    { request_rate: "inf", output_throughput: 2300 },
  ];

  test.each<[LoadLevel, number | undefined]>([
    [c(1), 63.6],
    [c(128), 2370],
    [r("inf"), 2300],
    [c(64), undefined],
    [r(1), undefined],
  ])("%j → %j", (level, throughput) => {
    expect(pointAt(results, level)?.output_throughput).toBe(throughput);
  });
});
