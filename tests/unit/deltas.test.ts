import { describe, expect, it, test } from "vitest";
import {
  anyRunHas,
  buildDeltaTable,
  compareHeadlines,
  storedFigure,
  type Verdict,
  verdictOf,
} from "@/lib/analysis/deltas";
import type { ResultPoint } from "@/lib/document/schema";
import { SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, VLLM_RUN } from "./seeds";

const SEEDS = [VLLM_RUN, SGLANG_NO_GRAPHS_RUN, SGLANG_GRAPHS_RUN];
const NO_GRAPHS = 1;

describe("verdictOf", () => {
  test.each<[number | null, "higher" | "lower", Verdict]>([
    [0.5, "higher", "better"],
    [-0.5, "higher", "worse"],
    [0.5, "lower", "worse"],
    [-0.5, "lower", "better"],
    [0, "higher", "same"],
    [0, "lower", "same"],
    [null, "higher", "none"],
    [null, "lower", "none"],
  ])("change %s with %s better → %s", (change, better, verdict) => {
    expect(verdictOf(change, better)).toBe(verdict);
  });
});

describe("buildDeltaTable", () => {
  const runs: { results: ResultPoint[] }[] = [
    {
      results: [
        { concurrency: 128, output_throughput: 2000, mean_tpot_ms: 50 },
        { concurrency: 1, output_throughput: 40, mean_tpot_ms: 25 },
      ],
    },
    {
      results: [
        { concurrency: 1, output_throughput: 50, mean_tpot_ms: 20 },
        { concurrency: 16, output_throughput: 600, mean_tpot_ms: 26 },
        { concurrency: 128, output_throughput: 1500, mean_tpot_ms: 60 },
      ],
    },
  ];

  it("has one row per load level of any run, sorted", () => {
    const table = buildDeltaTable(runs, 0, storedFigure("output_throughput"));
    expect(table.metric).toBe("output_throughput");
    expect(table.rows.map((row) => row.level.key)).toEqual(["c:1", "c:16", "c:128"]);
  });

  it("gives throughput cells their change and verdict, baseline cells no change", () => {
    const table = buildDeltaTable(runs, 0, storedFigure("output_throughput"));
    expect(table.rows.map((row) => row.cells)).toEqual([
      [
        { value: 40, change: null, verdict: "none" },
        { value: 50, change: 0.25, verdict: "better" },
      ],
      [
        { value: null, change: null, verdict: "none" },
        { value: 600, change: null, verdict: "none" },
      ],
      [
        { value: 2000, change: null, verdict: "none" },
        { value: 1500, change: -0.25, verdict: "worse" },
      ],
    ]);
  });

  it("treats lower latency as better", () => {
    const table = buildDeltaTable(runs, 0, storedFigure("mean_tpot_ms"));
    expect(table.rows[0]?.cells[1]).toEqual({ value: 20, change: -0.2, verdict: "better" });
    expect(table.rows[2]?.cells[1]).toEqual({ value: 60, change: 0.2, verdict: "worse" });
  });

  it("compares against any baseline index", () => {
    const table = buildDeltaTable(runs, 1, storedFigure("output_throughput"));
    expect(table.rows[0]?.cells).toEqual([
      { value: 40, change: -0.2, verdict: "worse" },
      { value: 50, change: null, verdict: "none" },
    ]);
    expect(table.rows[1]?.cells).toEqual([
      { value: null, change: null, verdict: "none" },
      { value: 600, change: null, verdict: "none" },
    ]);
  });

  it("gives a metric a run did not record value null", () => {
    const table = buildDeltaTable(runs, 0, storedFigure("p99_ttft_ms"));
    expect(table.rows.flatMap((row) => row.cells)).toEqual(
      Array.from({ length: 6 }, () => ({ value: null, change: null, verdict: "none" })),
    );
  });

  it("marks an unchanged value as same", () => {
    const table = buildDeltaTable(
      [
        { results: [{ concurrency: 4, output_throughput: 300 }] },
        { results: [{ concurrency: 4, output_throughput: 300 }] },
      ],
      0,
      storedFigure("output_throughput"),
    );
    expect(table.rows[0]?.cells[1]).toEqual({ value: 300, change: 0, verdict: "same" });
  });

  it("builds the seed table against the no-graphs run", () => {
    const table = buildDeltaTable(SEEDS, NO_GRAPHS, storedFigure("output_throughput"));
    expect(table.rows.map((row) => row.level.key)).toEqual(["c:1", "c:128"]);
    const [single, peak] = table.rows;
    expect(single?.cells.map((cell) => cell.value)).toEqual([82.5, 27, 63.6]);
    expect(single?.cells.map((cell) => cell.verdict)).toEqual(["better", "none", "better"]);
    expect(single?.cells[0]?.change).toBeCloseTo((82.5 - 27) / 27, 12);
    expect(single?.cells[2]?.change).toBeCloseTo(1.3555555556, 9);
    expect(peak?.cells.map((cell) => cell.value)).toEqual([1536, 2216, 2370]);
    expect(peak?.cells.map((cell) => cell.verdict)).toEqual(["worse", "none", "better"]);
    expect(peak?.cells[0]?.change).toBeCloseTo(-0.3068592058, 9);
    expect(peak?.cells[2]?.change).toBeCloseTo(0.0694945848, 9);
  });
});

describe("anyRunHas", () => {
  test.each<[string, boolean]>([
    ["output_throughput", true],
    ["mean_tpot_ms", true],
    ["p99_ttft_ms", false],
    ["request_throughput", false],
  ])("%s in the seed runs → %s", (metric, expected) => {
    expect(anyRunHas(SEEDS, metric as Parameters<typeof anyRunHas>[1])).toBe(expected);
  });
});

describe("compareHeadlines", () => {
  const comparison = compareHeadlines(SEEDS, NO_GRAPHS);

  it("gives the baseline no change", () => {
    expect(comparison[NO_GRAPHS]).toEqual({
      singleStream: { value: 27, base: 27, change: null, verdict: "none", derived: false },
      peak: { value: 2216, base: 2216, change: null, verdict: "none", concurrency: 128, request_rate: null },
    });
  });

  it("shows the CUDA-graphs run better on both figures", () => {
    const graphs = comparison[2];
    expect(graphs?.singleStream.value).toBe(63.6);
    expect(graphs?.singleStream.base).toBe(27);
    expect(graphs?.singleStream.change).toBeCloseTo((63.6 - 27) / 27, 12);
    expect(graphs?.singleStream.change).toBeCloseTo(1.3555555556, 9);
    expect(graphs?.singleStream.verdict).toBe("better");
    expect(graphs?.singleStream.derived).toBe(false);
    expect(graphs?.peak.value).toBe(2370);
    expect(graphs?.peak.base).toBe(2216);
    expect(graphs?.peak.change).toBeCloseTo(154 / 2216, 12);
    expect(graphs?.peak.verdict).toBe("better");
    expect(graphs?.peak.concurrency).toBe(128);
  });

  it("shows vLLM better for one user and worse at peak", () => {
    const vllm = comparison[0];
    expect(vllm?.singleStream.value).toBe(82.5);
    expect(vllm?.singleStream.change).toBeCloseTo(55.5 / 27, 12);
    expect(vllm?.singleStream.verdict).toBe("better");
    expect(vllm?.peak.value).toBe(1536);
    expect(vllm?.peak.change).toBeCloseTo(-680 / 2216, 12);
    expect(vllm?.peak.change).toBeLessThan(0);
    expect(vllm?.peak.verdict).toBe("worse");
  });

  it("carries the derived flag and request-rate peaks", () => {
    const [base, other] = compareHeadlines(
      [
        {
          results: [
            { concurrency: 1, output_throughput: 20 },
            { concurrency: 64, output_throughput: 1000 },
          ],
        },
        {
          results: [
            { concurrency: 1, mean_tpot_ms: 40 },
            { request_rate: "inf", output_throughput: 800 },
          ],
        },
      ],
      0,
    );
    expect(base?.singleStream).toEqual({ value: 20, base: 20, change: null, verdict: "none", derived: false });
    expect(other?.singleStream).toEqual({ value: 25, base: 20, change: 0.25, verdict: "better", derived: true });
    expect(other?.peak).toEqual({
      value: 800,
      base: 1000,
      change: -0.2,
      verdict: "worse",
      concurrency: null,
      request_rate: "inf",
    });
  });

  it("gives null figures when a run has no single-stream point", () => {
    const [, other] = compareHeadlines(
      [SGLANG_GRAPHS_RUN, { results: [{ concurrency: 128, output_throughput: 2400 }] }],
      0,
    );
    expect(other?.singleStream).toEqual({ value: null, base: 63.6, change: null, verdict: "none", derived: false });
    expect(other?.peak.change).toBeCloseTo(30 / 2370, 12);
    expect(other?.peak.verdict).toBe("better");
  });
});
