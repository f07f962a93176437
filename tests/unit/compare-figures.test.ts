/**
 * The comparison's new figures, each against values worked out by hand (the working is in the comments):
 * intervals and the inconclusive rule, the shared axis and its bridges, the Pareto frontier and the
 * interpolation at equal interactivity, the SLO point and its interpolation, cost, the verdict line, names.
 */
import { describe, expect, it, test } from "vitest";
import { loadDomain, logTicks } from "@/lib/analysis/axis";
import type { ConfigChange } from "@/lib/analysis/config-diff";
import {
  efficiencyPoints,
  frontierAt,
  monotoneInterpolate,
  paretoFrontier,
  perGpu,
  roundPointIn,
  sharedRange,
} from "@/lib/analysis/efficiency";
import { intervalsOverlap, isInconclusive, spreadOf, tQuantile975 } from "@/lib/analysis/intervals";
import { linearYScale, lineChart, logYScale, resolveStat } from "@/lib/analysis/lines";
import { costPerMillionTokens, meetsSlo, priceFor, type SloTargets, sloPoint, sloText } from "@/lib/analysis/slo";
import { peakClause, sloClause, verdictSentence, verdictSides } from "@/lib/analysis/verdict";
import { defaultRunName, engineDisplayName, shortModelName, workloadText } from "@/lib/document/names";
import type { ResultPoint } from "@/lib/document/schema";

describe("repeats: intervals and the inconclusive rule", () => {
  test.each([
    [1, 12.706],
    [2, 4.303],
    [30, 2.042],
  ])("t(0.975, %d) = %d from the table", (df, t) => {
    expect(tQuantile975(df)).toBe(t);
  });

  it("extends the table past 30 degrees of freedom within 0.001 of the exact quantile", () => {
    // Exact values: t(0.975, 31) = 2.0395, t(0.975, 120) = 1.9799.
    expect(tQuantile975(31)).toBeCloseTo(2.0395, 3);
    expect(tQuantile975(120)).toBeCloseTo(1.9799, 3);
    expect(() => tQuantile975(0)).toThrow(RangeError);
  });

  it("gives two repeats their range and no 95% interval", () => {
    expect(spreadOf([199, 93.7])).toMatchObject({ n: 2, mean: 146.35, min: 93.7, max: 199, ci95: null });
    expect(spreadOf([199, 93.7]).interval).toEqual([93.7, 199]);
    // s = |199 − 93.7| / √2 = 74.458…
    expect(spreadOf([199, 93.7]).std).toBeCloseTo(74.4584, 3);
  });

  it("gives three repeats the t-based 95% interval of their mean", () => {
    // 60, 63, 66: mean 63, s = 3, half-width 4.303 × 3 / √3 = 7.4530.
    const spread = spreadOf([60, 63, 66]);
    expect(spread.mean).toBe(63);
    expect(spread.std).toBe(3);
    expect(spread.ci95![0]).toBeCloseTo(55.547, 3);
    expect(spread.ci95![1]).toBeCloseTo(70.453, 3);
    expect(spread.interval).toEqual(spread.ci95);
  });

  it("calls overlapping intervals inconclusive, and a change between single runs never", () => {
    expect(intervalsOverlap([1, 2], [2, 3])).toBe(true);
    expect(intervalsOverlap([1, 2], [2.01, 3])).toBe(false);
    // 189 lies inside 93.7–199.
    expect(isInconclusive(spreadOf([189]), spreadOf([199, 93.7]))).toBe(true);
    expect(isInconclusive(spreadOf([250]), spreadOf([199, 93.7]))).toBe(false);
    expect(isInconclusive(spreadOf([27]), spreadOf([27]))).toBe(false);
    // Three repeats: their 95% interval 55.5–70.5 decides, not the range 60–66.
    expect(isInconclusive(spreadOf([68]), spreadOf([60, 63, 66]))).toBe(true);
    expect(isInconclusive(spreadOf([71]), spreadOf([60, 63, 66]))).toBe(false);
  });
});

describe("the shared load axis", () => {
  const at = (concurrency: number, output_throughput: number): ResultPoint => ({ concurrency, output_throughput });
  const rate = (request_rate: number | "inf", output_throughput: number): ResultPoint => ({
    request_rate,
    output_throughput,
  });

  it("puts concurrency on log2 with power-of-two ticks over every run's levels", () => {
    const domain = loadDomain([
      { label: "a", results: [at(1, 27), at(128, 2216)] },
      { label: "b", results: [at(2, 120)] },
    ]);
    expect(domain.scale).toBe("log2");
    expect(domain.domain).toEqual([0, 7]);
    expect(domain.ticks.map((tick) => tick.label)).toEqual(["1", "2", "4", "8", "16", "32", "64", "128"]);
    expect(domain.levels.map((level) => [level.label, level.x])).toEqual([
      ["C=1", 0],
      ["C=2", 1],
      ["C=128", 7],
    ]);
  });

  it("puts a rate sweep spanning more than 8× on a log axis, with the unbounded rate last as ∞", () => {
    const domain = loadDomain([{ label: "a", results: [rate(0.5, 1), rate(2, 3), rate(8, 9), rate("inf", 10)] }]);
    expect(domain.scale).toBe("log10");
    expect(domain.ticks.map((tick) => tick.label)).toEqual(["0.5", "1", "2", "5", "∞"]);
    // ∞ sits one tick step (log10 5 − log10 2 = 0.39794) past log10 8 = 0.90309.
    expect(domain.levels.at(-1)!.x).toBeCloseTo(1.30103, 5);
    expect(domain.domain[0]).toBeCloseTo(Math.log10(0.5), 10);
    expect(logTicks(1, 10_000)).toEqual([1, 10, 100, 1000, 10_000]);
  });

  it("keeps a narrow rate sweep linear from 0, and names levels that have no place on the axis", () => {
    const domain = loadDomain([
      { label: "a", results: [rate(1, 1), rate(2, 2), rate(4, 3)] },
      { label: "b", results: [rate(3, 2)] },
    ]);
    expect(domain.scale).toBe("linear");
    expect(domain.ticks.map((tick) => tick.label)).toEqual(["0", "1", "2", "3", "4"]);
    const mixed = loadDomain([
      { label: "a", results: [at(1, 1)] },
      { label: "b", results: [rate(3, 2)] },
    ]);
    expect(mixed.axis).toBe("concurrency");
    expect(mixed.offAxis).toEqual([{ series: "b", levels: ["3 req/s"] }]);
  });

  it("bridges a level a series lacks with a dashed segment between its neighbours, never a zero", () => {
    const inputs = [
      { key: "s0", label: "a", color: "#000", results: [at(1, 27), at(128, 2216)], spreads: {} },
      { key: "s1", label: "b", color: "#111", results: [at(2, 120)], spreads: {} },
    ];
    const chart = lineChart(inputs, loadDomain(inputs), {
      title: "t",
      unit: "tok/s",
      valueOf: (_input, point) => ({ value: point.output_throughput ?? null, spreadKey: "output_throughput" }),
    });
    expect(chart.rows).toEqual([
      { i: 0, x: 0, level: "C=1", s0: 27, s0_gap0: 27, s1: null },
      { i: 1, x: 1, level: "C=2", s0: null, s1: 120 },
      { i: 2, x: 7, level: "C=128", s0: 2216, s0_gap0: 2216, s1: null },
    ]);
    expect(chart.series.map((item) => item.bridges)).toEqual([["s0_gap0"], []]);
    // Round ticks: 2,216 × 1.05 = 2,326.8 → steps of 1,000 up to 3,000.
    expect(chart.y).toEqual({ domain: [0, 3000], ticks: [0, 1000, 2000, 3000] });
  });

  test.each([
    [91, { domain: [0, 100], ticks: [0, 25, 50, 75, 100] }],
    // 220 × 1.05 = 231: a quarter is 57.75, the next round step 100.
    [220, { domain: [0, 300], ticks: [0, 100, 200, 300] }],
    [0, { domain: [0, 1], ticks: [0, 1] }],
  ])("round y ticks up to %d", (max, scale) => {
    expect(linearYScale(max)).toEqual(scale);
  });

  it("gives a log y axis 1-2-5 ticks over short spans", () => {
    expect(logYScale(27, 2370)).toEqual({
      domain: [10, 10_000],
      ticks: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000],
    });
    expect(logYScale(0, 5)).toBeNull();
  });

  it("shows another statistic where a run lacks the chosen one, and says which", () => {
    const sglang: ResultPoint[] = [{ concurrency: 1, median_ttft_ms: 40, p90_ttft_ms: 55 }];
    expect(resolveStat(sglang, "ttft", "mean")).toEqual({ stat: "median", key: "median_ttft_ms", fallback: true });
    expect(resolveStat(sglang, "ttft", "p90")).toEqual({ stat: "p90", key: "p90_ttft_ms", fallback: false });
    expect(resolveStat(sglang, "tpot", "mean")).toBeNull();
  });
});

describe("throughput per GPU and interactivity", () => {
  it("divides by the stated GPU count and never guesses it", () => {
    expect(perGpu(2370, 8)).toBe(296.25);
    expect(perGpu(2370, undefined)).toBeNull();
    expect(perGpu(2370, 0)).toBeNull();
    // C=1: 1000 / 15.7 = 63.69 tok/s per user, 63.6 / 8 = 7.95 tok/s per GPU.
    const points = efficiencyPoints(
      [
        { concurrency: 1, output_throughput: 63.6, mean_tpot_ms: 15.7 },
        { concurrency: 128, output_throughput: 2370 },
      ],
      8,
      "mean_tpot_ms",
    );
    expect(points).toHaveLength(1);
    expect(points[0]!.tok_s_per_user).toBeCloseTo(63.694, 3);
    expect(points[0]!.tok_s_per_gpu).toBe(7.95);
  });

  it("keeps a run's levels that no other level beats on both axes", () => {
    const points = [
      { tok_s_per_user: 10, tok_s_per_gpu: 1000, label: "C=64" },
      { tok_s_per_user: 15, tok_s_per_gpu: 700, label: "C=32" },
      { tok_s_per_user: 20, tok_s_per_gpu: 800, label: "C=16" },
      { tok_s_per_user: 40, tok_s_per_gpu: 300, label: "C=1" },
    ];
    // C=32 (15, 700) is beaten by C=16 (20, 800) on both.
    expect(paretoFrontier(points).map((point) => point.label)).toEqual(["C=64", "C=16", "C=1"]);
  });

  it("interpolates monotonically between measured points and never extrapolates", () => {
    const frontier = [
      { x: 10, y: 1000 },
      { x: 20, y: 800 },
      { x: 40, y: 300 },
    ];
    // Slopes −20 and −25; inner tangent (50 + 40) / (50 / −20 + 40 / −25) = −21.951; end tangents the slopes.
    // At x = 15 (t = ½ on the first interval): ½·1000 + ⅛·10·(−20) + ½·800 − ⅛·10·(−21.951) = 902.439.
    expect(monotoneInterpolate(frontier, 15)).toBeCloseTo(902.439, 3);
    expect(monotoneInterpolate(frontier, 10)).toBe(1000);
    expect(monotoneInterpolate(frontier, 40)).toBe(300);
    expect(monotoneInterpolate(frontier, 9.99)).toBeNull();
    expect(monotoneInterpolate(frontier, 40.01)).toBeNull();
    // A straight line stays straight.
    expect(
      monotoneInterpolate(
        [
          { x: 10, y: 100 },
          { x: 20, y: 200 },
          { x: 30, y: 300 },
        ],
        25,
      ),
    ).toBeCloseTo(250, 10);
  });

  it("compares two frontiers at a round interactivity both cover", () => {
    const a = [
      { tok_s_per_user: 30, tok_s_per_gpu: 1400, label: "C=64" },
      { tok_s_per_user: 60, tok_s_per_gpu: 900, label: "C=8" },
    ];
    const b = [
      { tok_s_per_user: 20, tok_s_per_gpu: 1500, label: "C=64" },
      { tok_s_per_user: 55, tok_s_per_gpu: 800, label: "C=8" },
    ];
    expect(sharedRange(a, b)).toEqual([30, 55]);
    // Geometric middle √(30 · 55) = 40.6; a round step for a 25-wide range is 20: 40.
    expect(roundPointIn([30, 55])).toBe(40);
    // Two points are a straight line: a at 40 = 1400 − 500 · 10 / 30 = 1233.3; b = 1500 − 700 · 20 / 35 = 1100.
    expect(frontierAt(a, 40)).toBeCloseTo(1233.333, 3);
    expect(frontierAt(b, 40)).toBeCloseTo(1100, 6);
    expect(sharedRange(a, [{ tok_s_per_user: 70, tok_s_per_gpu: 1, label: "x" }])).toBeNull();
  });
});

describe("goodput at an SLO, and cost", () => {
  // log2 positions 0, 1, 2, 3.
  const results: ResultPoint[] = [
    { concurrency: 1, output_throughput: 100, p99_tpot_ms: 10, p99_ttft_ms: 100 },
    { concurrency: 2, output_throughput: 190, p99_tpot_ms: 14, p99_ttft_ms: 120 },
    { concurrency: 4, output_throughput: 350, p99_tpot_ms: 22, p99_ttft_ms: 200 },
    { concurrency: 8, output_throughput: 600, p99_tpot_ms: 40, p99_ttft_ms: 900 },
  ];
  const domain = loadDomain([{ label: "a", results }]);
  const slo = (changes: Partial<SloTargets>): SloTargets => ({ ttft_ms: null, tpot_ms: null, stat: "p99", ...changes });

  it("is the highest measured level that meets it, with the interpolated crossing beside it as an estimate", () => {
    // TPOT ≤ 20: C=2 (14) meets, C=4 (22) does not. Capacity: C=2, 190 tok/s as measured. The estimate: the line
    // reaches 20 at (20 − 14) / (22 − 14) = 0.75 of the way: x = 1.75, C = 2^1.75 = 3.364, 190 + 0.75 · 160 = 310.
    const point = sloPoint(results, domain, slo({ tpot_ms: 20 }));
    expect(point).toMatchObject({
      status: "partial",
      x: 1,
      load: { concurrency: 2 },
      output_tok_s: 190,
      violating: ["c:4", "c:8"],
    });
    expect(point.estimate!.x).toBeCloseTo(1.75, 10);
    expect(point.estimate!.load.concurrency).toBeCloseTo(3.3636, 4);
    expect(point.estimate!.output_tok_s).toBe(310);
  });

  it("takes the earliest crossing when several targets break", () => {
    // TTFT ≤ 160 crosses at (160 − 120) / (200 − 120) = 0.5, before TPOT's 0.75: C = 2^1.5, 190 + 80 = 270 tok/s.
    const point = sloPoint(results, domain, slo({ tpot_ms: 20, ttft_ms: 160 }));
    expect(point.output_tok_s).toBe(190);
    expect(point.estimate!.output_tok_s).toBe(270);
    expect(point.estimate!.load.concurrency).toBeCloseTo(2.8284, 4);
    expect(sloText(slo({ tpot_ms: 20, ttft_ms: 160 }))).toBe("TTFT ≤ 160 ms, TPOT ≤ 20 ms (p99)");
  });

  it("says when every level meets, when none does, and when the run states no such figure", () => {
    expect(sloPoint(results, domain, slo({ tpot_ms: 50 }))).toMatchObject({
      status: "every",
      estimate: null,
      output_tok_s: 600,
      load: { concurrency: 8 },
    });
    expect(sloPoint(results, domain, slo({ tpot_ms: 5 }))).toMatchObject({ status: "none", output_tok_s: null });
    expect(sloPoint(results, domain, slo({ tpot_ms: 20, stat: "p90" }))).toMatchObject({
      status: "unknown",
      unstated: ["p90 TPOT"],
      reason: "it states no p90 TPOT",
    });
    // A run whose levels are not on the comparison's axis (a rate sweep beside concurrency runs) is never judged
    // with a sentence cut short.
    const rateSweep: ResultPoint[] = [{ request_rate: 4, output_throughput: 300, p99_tpot_ms: 12 }];
    expect(sloPoint(rateSweep, domain, slo({ tpot_ms: 20 }))).toMatchObject({
      status: "unknown",
      reason: "none of its levels lies on this comparison's concurrency axis",
    });
    expect(meetsSlo({ concurrency: 1, p99_tpot_ms: 9 }, slo({ tpot_ms: 10, ttft_ms: 100 }))).toBeNull();
  });

  it("turns a GPU-hour price into dollars per million output tokens", () => {
    // 2.5 $/h ÷ (146.56 tok/s × 3600 / 10⁶ = 0.527616 M tokens/h) = 4.7383 $/M.
    expect(costPerMillionTokens(2.5, 146.56)).toBeCloseTo(4.7383, 4);
    // 310 tok/s on 2 GPUs at 2 $/h: 2 ÷ (155 × 0.0036) = 3.5842.
    expect(costPerMillionTokens(2, perGpu(310, 2))).toBeCloseTo(3.5842, 4);
    expect(costPerMillionTokens(null, 100)).toBeNull();
    expect(costPerMillionTokens(2, 0)).toBeNull();
    const prices = { all: 2, byGpu: { h100: 3.1 } };
    expect(priceFor(prices, "H100")).toBe(3.1);
    expect(priceFor(prices, "RTX PRO 6000 Blackwell")).toBe(2);
    expect(priceFor({ all: null, byGpu: { h100: 3.1 } }, undefined)).toBeNull();
  });
});

describe("the verdict", () => {
  const change = (partial: Partial<ConfigChange>): ConfigChange => ({
    section: "flag",
    key: "--x",
    kind: "changed",
    from: null,
    to: null,
    text: "",
    ...partial,
  });
  const names = { label: "other run", baseLabel: "base run", id: "b2", baseId: "a1" };
  const vllm = {
    engine: "vllm",
    engine_version: "0.11.0",
    model: "moonshotai/Kimi-K2.5",
    hardware: { gpu: "RTX PRO 6000", gpu_count: 8 },
  };
  const sglang = {
    engine: "sglang",
    engine_version: "0.5.8",
    model: "meta-llama/Llama-3.3-70B-Instruct",
    hardware: { gpu: "H200", gpu_count: 8 },
  };
  const effective = (label: string, from: string | null, to: string | null, changed: boolean | null) => ({
    label,
    from: { value: from, source: from === null ? "unknown" : "default" },
    to: { value: to, source: "flag" },
    changed,
  });

  test.each<[string, ConfigChange[], [string, string], number]>([
    [
      "a --disable switch removed, read by the catalogue",
      [
        {
          ...change({ key: "--disable-cuda-graph", kind: "removed", from: "on" }),
          effective: effective("CUDA graphs", "off", "on", true),
        } as ConfigChange,
      ],
      ["CUDA graphs on", "CUDA graphs off"],
      0,
    ],
    [
      "an uncatalogued switch added: what was typed, never what its absence means",
      [change({ key: "--enable-foo", kind: "added", to: "on" })],
      ["--enable-foo", "without --enable-foo"],
      0,
    ],
    [
      "a value changed",
      [change({ key: "--max-num-seqs", kind: "changed", from: "4", to: "8" })],
      ["--max-num-seqs 8", "--max-num-seqs 4"],
      0,
    ],
    [
      "a flag restating the default, and one changing a value",
      [
        {
          ...change({ key: "--enable-chunked-prefill", kind: "added", to: "on" }),
          effective: effective("chunked prefill", "on", "on", false),
        } as ConfigChange,
        change({ key: "--max-num-seqs", kind: "changed", from: "4", to: "8" }),
      ],
      ["--max-num-seqs 8", "--max-num-seqs 4"],
      0,
    ],
    [
      "a setting whose default this version's catalogue does not know",
      [
        {
          ...change({ key: "--enable-chunked-prefill", kind: "added", to: "on" }),
          effective: effective("chunked prefill", null, "on", null),
        } as ConfigChange,
      ],
      ["chunked prefill on", "chunked prefill unknown"],
      0,
    ],
    [
      "flags that differ alike in four settings and more",
      ["--a", "--b", "--c", "--d", "--e"].map((key) => change({ key, from: "1", to: "2" })),
      ["--a 2 + --b 2 + --c 2 + --d 2", "--a 1 + --b 1 + --c 1 + --d 1"],
      1,
    ],
    ["nothing", [], ["other run", "base run"], 0],
  ])("names the sides of %s", (_what, changes, sides, unnamed) => {
    expect(verdictSides(vllm, vllm, changes, names)).toMatchObject({ sides, unnamed });
  });

  it("names an engine switch by engine and version, then model and GPU, leaving the two vocabularies of flags out", () => {
    const changes = [
      change({ section: "engine", key: "engine", from: "vllm", to: "sglang" }),
      change({ section: "engine", key: "engine_version", from: "0.11.0", to: "0.5.8" }),
      change({ section: "model", key: "model", from: vllm.model, to: sglang.model }),
      change({ section: "hardware", key: "gpu", from: "RTX PRO 6000", to: "H200" }),
      change({ key: "--attention-backend", kind: "added", to: "triton" }),
    ];
    expect(verdictSides(vllm, sglang, changes, names)).toEqual({
      sides: ["SGLang 0.5.8 · Llama-3.3-70B-Instruct · 8× H200", "vLLM 0.11.0 · Kimi-K2.5 · 8× RTX PRO 6000"],
      unnamed: 0,
    });
  });

  it("says when every flag that differs restates a default", () => {
    const restated = {
      ...change({ key: "--enable-chunked-prefill", kind: "added", to: "on" }),
      effective: effective("chunked prefill", "on", "on", false),
    } as ConfigChange;
    expect(verdictSides(vllm, vllm, [restated], names)).toEqual({
      sides: ["other run", "base run"],
      unnamed: 0,
      sameEffective: true,
    });
  });

  it("gives runs of the same name their ids", () => {
    expect(verdictSides(vllm, vllm, [], { ...names, label: "nightly", baseLabel: "nightly" }).sides).toEqual([
      "nightly (run b2)",
      "nightly (run a1)",
    ]);
  });

  const flat = (results: ResultPoint[]) => ({ results, spreads: {} });
  it("compares peaks at a common load level, or says they were not", () => {
    const base = flat([
      { concurrency: 64, output_throughput: 2000 },
      { concurrency: 128, output_throughput: 2216 },
    ]);
    const same = flat([
      { concurrency: 64, output_throughput: 2100 },
      { concurrency: 128, output_throughput: 2370 },
    ]);
    // (2370 − 2216) / 2216 = +6.95%.
    expect(peakClause(base, same, 0.03)).toEqual({
      text: "peak at C=128: 2,216 → 2,370 tok/s (+6.9%)",
      verdict: "better",
    });
    const longer = flat([...same.results, { concurrency: 256, output_throughput: 2600 }]);
    expect(peakClause(base, longer, 0.03)!.text).toBe(
      "peak over the levels both measured at C=128: 2,216 → 2,370 tok/s (+6.9%)",
    );
    const rates = flat([{ request_rate: 16, output_throughput: 4288 }]);
    expect(peakClause(base, rates, 0.03)).toEqual({
      text: "peak 2,216 tok/s (C=128) → 4,288 tok/s (16 req/s), not at a common load level",
      verdict: "none",
    });
    // 2,216 → 2,250 is +1.5%: inside ±3%.
    const close = flat([{ concurrency: 128, output_throughput: 2250 }]);
    expect(peakClause(base, close, 0.03)!.text).toBe(
      "peak over the levels both measured at C=128: 2,216 → 2,250 tok/s (+1.5%) (within ±3% noise)",
    );
  });

  it("says first when the runs are not like for like, and names the statistic of interactivity", () => {
    const sentence = verdictSentence({
      sides: {
        sides: ["SGLang 0.5.8 · Llama-3.3-70B · 8× H200", "vLLM 0.11.0 · Kimi-K2.5 · 8× RTX PRO 6000"],
        unnamed: 0,
      },
      notLikeForLike: ["model", "GPU"],
      singleStream: { base: null, value: 40, verdict: "none" },
      peak: { text: "peak 1,536 tok/s (C=128) → 4,288 tok/s (16 req/s), not at a common load level", verdict: "none" },
      slo: null,
      interactivity: { at: 75, stat: "p99", figure: { base: 200, value: 180, verdict: "worse" } },
      noise: 0.03,
    });
    expect(sentence.text).toBe(
      "Not like for like (model, GPU differ) — SGLang 0.5.8 · Llama-3.3-70B · 8× H200 vs vLLM 0.11.0 · Kimi-K2.5 · 8× RTX PRO 6000: peak 1,536 tok/s (C=128) → 4,288 tok/s (16 req/s), not at a common load level; at 75 tok/s/user (p99 TPOT): 200 → 180 tok/s/GPU (-10.0%)",
    );
    expect(sentence.clauses.map((clause) => clause.verdict)).toEqual(["none", "worse"]);
  });

  it("reads as the campaign's sentence, the SLO answer first when targets are set", () => {
    const sentence = verdictSentence({
      sides: { sides: ["CUDA graphs on", "CUDA graphs off"], unnamed: 0 },
      notLikeForLike: [],
      singleStream: { base: 27, value: 63.6, verdict: "better" },
      peak: { text: "peak at C=128: 2,216 → 2,370 tok/s (+6.9%)", verdict: "better" },
      slo: sloClause(
        {
          targets: "TPOT ≤ 50 ms (p99)",
          base: { value: 1000, load: "C=32", status: "partial", reason: null },
          value: { value: 1500, load: "C=64", status: "partial", reason: null },
          unit: "tok/s/GPU",
          verdict: "better",
        },
        0.03,
      ),
      interactivity: null,
      noise: 0.03,
    });
    expect(sentence.text).toBe(
      "CUDA graphs on vs CUDA graphs off: at SLO TPOT ≤ 50 ms (p99), highest level meeting it C=32 → C=64: 1,000 → 1,500 tok/s/GPU (+50.0%); single stream 27 → 63.6 tok/s (+135.6%); peak at C=128: 2,216 → 2,370 tok/s (+6.9%)",
    );
    expect(
      sloClause(
        {
          targets: "TTFT ≤ 500 ms (p99)",
          base: { value: null, load: null, status: "unknown", reason: "it states no p99 TTFT" },
          value: { value: 900, load: "C=8", status: "partial", reason: null },
          unit: "tok/s",
          verdict: "none",
        },
        0.03,
      ).text,
    ).toBe("at SLO TTFT ≤ 500 ms (p99): the baseline cannot be judged: it states no p99 TTFT");
  });

  it("puts an SLO neither side can be judged against after the measured figures, not at the head", () => {
    const sentence = verdictSentence({
      sides: { sides: ["SGLang", "vLLM"], unnamed: 0 },
      notLikeForLike: [],
      singleStream: { base: 27, value: 63.6, verdict: "better" },
      peak: null,
      slo: sloClause(
        {
          targets: "TTFT ≤ 500 ms (median)",
          base: { value: null, load: null, status: "unknown", reason: "it states no median TTFT" },
          value: { value: null, load: null, status: "unknown", reason: "it states no median TTFT" },
          unit: "tok/s",
          verdict: "none",
        },
        0.03,
      ),
      interactivity: null,
      noise: 0.03,
    });
    expect(sentence.text).toBe(
      "SGLang vs vLLM: single stream 27 → 63.6 tok/s (+135.6%); at SLO TTFT ≤ 500 ms (median): the baseline cannot be judged: it states no median TTFT; this run cannot be judged: it states no median TTFT",
    );
    expect(sentence.clauses[0]!.verdict).toBe("better");
  });
});

describe("readable names", () => {
  it("names a run like a person would, never with JSON", () => {
    expect(
      defaultRunName("sglang", "0.4.3", "meta-llama/Llama-3.3-70B-Instruct", {
        dataset: "random",
        input_len: 1024,
        output_len: 1024,
      }),
    ).toBe("SGLang 0.4.3 · Llama-3.3-70B-Instruct · random 1024→1024");
    expect(workloadText({ dataset: "fixed chat prompt", output_len: 256, temperature: 0 })).toBe(
      "fixed chat prompt, 256 out",
    );
    expect(workloadText({ input_len: 128, output_len: 64 })).toBe("128→64");
    expect(workloadText({ num_prompts: 8 })).toBe("");
    expect(engineDisplayName("TensorRT-LLM")).toBe("TensorRT-LLM");
    expect(shortModelName("Kimi-K2.5 INT4")).toBe("Kimi-K2.5 INT4");
  });
});
