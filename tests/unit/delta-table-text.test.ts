import { describe, expect, it } from "vitest";
import { deltaColumns, deltaTableText } from "@/components/compare/DeltaTables";
import type { DeltaTable } from "@/lib/analysis/deltas";
import type { ChartSeries } from "@/lib/analysis/series";

const level = (concurrency: number) => ({ key: `c:${concurrency}`, concurrency, request_rate: null });

const THROUGHPUT: DeltaTable = {
  metric: "output_throughput",
  label: "Output throughput",
  unit: "tok/s",
  better: "higher",
  rows: [
    {
      level: level(1),
      cells: [
        { value: 27, change: null, verdict: "none" },
        {
          value: 63.6,
          change: 1.3556,
          verdict: "better",
          spread: { n: 3, mean: 63.6, min: 60, max: 66, std: 3, ci95: [56.2, 71], interval: [56.2, 71] },
        },
        { value: 27.2, change: 0.0074, verdict: "noise" },
      ],
    },
    {
      level: level(128),
      cells: [
        { value: 2216, change: null, verdict: "none", overSlo: true },
        { value: 2856.7, change: 0.289, verdict: "inconclusive" },
        { value: null, change: null, verdict: "none" },
      ],
    },
  ],
};

describe("deltaTableText", () => {
  it("formats every cell as the table shows it, the baseline's column without a change", () => {
    const text = deltaTableText(THROUGHPUT, 0);
    expect(text).toMatchObject({ metric: "output_throughput", label: "Output throughput", unit: "tok/s" });
    expect(text.rows.map((row) => [row.key, row.level])).toEqual([
      ["c:1", "C=1"],
      ["c:128", "C=128"],
    ]);
    const [first, last] = text.rows;
    expect(first?.cells).toEqual([
      { value: "27", spread: null, interval: null, overSlo: false, change: null },
      {
        value: "63.6",
        spread: {
          text: "±7.4",
          title: "mean of 3 repeats: range 60–66, 95% interval 56.2–71; ± is half the 95% interval",
        },
        interval: null,
        overSlo: false,
        change: { text: "+135.6%", verdict: "better" },
      },
      { value: "27.2", spread: null, interval: null, overSlo: false, change: { text: "≈ +0.7%", verdict: "noise" } },
    ]);
    expect(last?.cells).toEqual([
      { value: "2,216", spread: null, interval: null, overSlo: true, change: null },
      {
        value: "2,857",
        spread: null,
        interval: null,
        overSlo: false,
        change: { text: "+28.9% inconclusive", verdict: "inconclusive" },
      },
      { value: null, spread: null, interval: null, overSlo: false, change: { text: "—", verdict: "none" } },
    ]);
  });

  it("writes money with its sign, two decimals and the unit per million, and moves the change to the baseline's column", () => {
    const cost: DeltaTable = { ...THROUGHPUT, metric: "cost_per_m_output_tokens", unit: "$", better: "lower" };
    const text = deltaTableText(cost, 1);
    expect(text.unit).toBe("$ per million");
    expect(text.rows[0]?.cells.map((cell) => [cell.value, cell.change?.text ?? null])).toEqual([
      ["$27.00", "—"],
      ["$63.60", null],
      ["$27.20", "≈ +0.7%"],
    ]);
  });
});

describe("deltaColumns", () => {
  it("names each run's column once, the baseline marked", () => {
    const series = [
      { key: "s0", label: "SGLang, CUDA graphs off", color: "#ea580c" },
      { key: "s1", label: "SGLang, CUDA graphs on", color: "#2563eb" },
    ] as unknown as ChartSeries[];
    expect(deltaColumns(series, 1)).toEqual([
      { key: "s0", label: "SGLang, CUDA graphs off", color: "#ea580c", baseline: false },
      { key: "s1", label: "SGLang, CUDA graphs on", color: "#2563eb", baseline: true },
    ]);
  });
});
