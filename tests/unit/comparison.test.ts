import { describe, expect, it, test } from "vitest";
import { verdictOf } from "@/lib/analysis/deltas";
import { checkLikeForLike } from "@/lib/analysis/fairness";
import { configurationKey, groupRepeats } from "@/lib/analysis/repeats";
import { PRESET_TIERS } from "@/lib/analysis/slo-tiers";
import { buildComparison } from "@/lib/comparisons/build";
import { comparisonCsv } from "@/lib/comparisons/csv";
import { type CompareView, compareQuery, parseCompareView } from "@/lib/comparisons/view";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";
import { type SeedRun, SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, seedDocument, VLLM_RUN } from "./seeds";

let counter = 0;
function stored(run: SeedRun, overrides: Record<string, unknown> = {}): StoredRun {
  counter += 1;
  const doc = normalizeRunDocument({ ...seedDocument(run), ...overrides });
  return { ...doc, id: `run${String(counter).padStart(9, "0")}`, created_at: "2026-02-14T09:30:00.000Z" };
}

function view(runs: StoredRun[], changes: Partial<CompareView> = {}): CompareView {
  return { ...parseCompareView({ runs: runs.map((run) => run.id).join(",") }), noisePct: 3, ...changes };
}

describe("noise", () => {
  test.each<[number, "higher" | "lower", number, string]>([
    [0.029, "higher", 0.03, "noise"],
    [-0.029, "higher", 0.03, "noise"],
    [0.03, "higher", 0.03, "better"],
    [-0.031, "higher", 0.03, "worse"],
    [-0.05, "lower", 0.03, "better"],
    [0.05, "lower", 0.03, "worse"],
    [0, "higher", 0.03, "noise"],
    [0, "higher", 0, "same"],
    [0.001, "higher", 0, "better"],
  ])("a change of %d (%s is better, noise %d) is %s", (change, better, noise, verdict) => {
    expect(verdictOf(change, better, noise)).toBe(verdict);
  });
});

describe("repeats", () => {
  it("groups runs of one configuration, keeping first-appearance order", () => {
    const a1 = stored(SGLANG_GRAPHS_RUN, { name: "graphs #1" });
    const b = stored(VLLM_RUN);
    const a2 = stored(SGLANG_GRAPHS_RUN, { name: "graphs #2", notes: "another day", tags: ["x"] });
    const groups = groupRepeats([a1, b, a2]);
    expect(groups.map((group) => group.runs.map((run) => run.name))).toEqual([
      ["graphs #1", "graphs #2"],
      ["vLLM TP8 baseline"],
    ]);
    expect(configurationKey(a1)).toBe(configurationKey(a2));
    expect(configurationKey(a1)).not.toBe(configurationKey(stored(SGLANG_NO_GRAPHS_RUN)));
  });

  it("averages repeats per load level and keeps their min–max range", () => {
    const r1 = stored(SGLANG_GRAPHS_RUN, {
      results: [
        { concurrency: 1, output_throughput: 60, mean_tpot_ms: 16 },
        { concurrency: 8, output_throughput: 400 },
      ],
    });
    const r2 = stored(SGLANG_GRAPHS_RUN, { results: [{ concurrency: 1, output_throughput: 66, mean_tpot_ms: 15 }] });
    const [group] = groupRepeats([r1, r2]);
    expect(group!.results).toEqual([
      { concurrency: 1, output_throughput: 63, mean_tpot_ms: 15.5 },
      { concurrency: 8, output_throughput: 400 },
    ]);
    // C=8 was measured once: a mean of one, no band.
    expect(Object.keys(group!.spreads)).toEqual(["c:1"]);
    expect(group!.spreads["c:1"]!.output_throughput).toMatchObject({ n: 2, mean: 63, min: 60, max: 66, ci95: null });
    expect(group!.spreads["c:1"]!.output_throughput!.interval).toEqual([60, 66]);
    expect(group!.repeats).toBe(2);
  });

  it("reads a run that stores its repeats as points with repeat numbers the same way", () => {
    const one = stored(SGLANG_GRAPHS_RUN, {
      results: [
        { concurrency: 1, repeat: 1, output_throughput: 60 },
        { concurrency: 1, repeat: 2, output_throughput: 66 },
        { concurrency: 1, repeat: 3, output_throughput: 63 },
        { concurrency: 8, output_throughput: 400 },
      ],
    });
    const [group] = groupRepeats([one]);
    expect(group!.results).toEqual([
      { concurrency: 1, output_throughput: 63 },
      { concurrency: 8, output_throughput: 400 },
    ]);
    // Three repeats: s = 3, t(0.975, 2) = 4.303, half-width 4.303 · 3 / √3 = 7.453.
    const spread = group!.spreads["c:1"]!.output_throughput!;
    expect(spread.std).toBeCloseTo(3, 10);
    expect(spread.ci95![0]).toBeCloseTo(63 - 7.453, 3);
    expect(spread.ci95![1]).toBeCloseTo(63 + 7.453, 3);
    expect(group!.repeats).toBe(3);
  });
});

describe("like for like", () => {
  it("finds nothing to flag in the seed pair", () => {
    const a = stored(SGLANG_NO_GRAPHS_RUN);
    const b = stored(SGLANG_GRAPHS_RUN);
    expect(checkLikeForLike([a, b].map((run) => ({ label: run.name, config: run, results: run.results })))).toEqual({
      differences: [],
      unstated: [],
      missing: [],
      missingCount: 0,
    });
  });

  it("names a different model, GPU count and output length, and what some runs do not state", () => {
    const a = stored(SGLANG_GRAPHS_RUN, { name: "A" });
    const b = stored(VLLM_RUN, {
      name: "B",
      model: "Llama-3.1-70B",
      hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 4 },
      workload: { output_len: 1024 },
    });
    const report = checkLikeForLike([a, b].map((run) => ({ label: run.name, config: run, results: run.results })));
    expect(report.differences.map((difference) => difference.text)).toEqual([
      "Model differs: Kimi-K2.5 INT4 (A) vs Llama-3.1-70B (B)",
      "GPU count differs: 8 (A) vs 4 (B)",
      "Output length differs: 256 (A) vs 1024 (B)",
    ]);
    expect(report.unstated).toEqual([
      { label: "Dataset", series: ["B"] },
      { label: "Temperature", series: ["B"] },
    ]);
  });

  it("counts the load levels each run lacks", () => {
    const a = stored(SGLANG_GRAPHS_RUN, {
      name: "A",
      results: [{ concurrency: 1 }, { concurrency: 4 }, { concurrency: 8 }],
    });
    const b = stored(SGLANG_GRAPHS_RUN, { name: "B", results: [{ concurrency: 1 }, { concurrency: 16 }] });
    const report = checkLikeForLike([a, b].map((run) => ({ label: run.name, config: run, results: run.results })));
    expect(report.missing).toEqual([
      { series: "A", levels: ["C=16"] },
      { series: "B", levels: ["C=4", "C=8"] },
    ]);
    expect(report.missingCount).toBe(3);
  });
});

describe("buildComparison", () => {
  it("tells the CUDA-graph story of the seed runs", () => {
    const noGraphs = stored(SGLANG_NO_GRAPHS_RUN);
    const graphs = stored(SGLANG_GRAPHS_RUN);
    const comparison = buildComparison([noGraphs, graphs], view([noGraphs, graphs]));
    expect(comparison.baselineIndex).toBe(0);
    const [, other] = comparison.series;
    expect(other!.changes.map((change) => change.text)).toEqual(["--disable-cuda-graph removed"]);
    expect(other!.headline.singleStream).toMatchObject({ base: 27, value: 63.6, verdict: "better" });
    expect(other!.headline.peak).toMatchObject({ base: 2216, value: 2370, verdict: "better" });
    // SGLang captures CUDA graphs unless told not to: the catalogue reads the flag's absence as "on (default)".
    const sentence =
      "CUDA graphs on vs CUDA graphs off: single stream 27 → 63.6 tok/s (+135.6%); peak at C=128: 2,216 → 2,370 tok/s (+6.9%)";
    expect(comparison.verdicts.map((verdict) => verdict.text)).toEqual([sentence]);
    expect(comparison.verdicts[0]!.clauses.map((clause) => clause.verdict)).toEqual(["better", "better"]);
    expect(comparison.summary).toEqual({
      title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      description: sentence,
    });
    expect(comparison.fairness.differences).toEqual([]);
    expect(comparison.charts.throughput.rows).toEqual([
      { i: 0, x: 0, level: "C=1", s0: 27, s1: 63.6 },
      { i: 1, x: 7, level: "C=128", s0: 2216, s1: 2370 },
    ]);
    // 8 GPUs each: per GPU 27 / 8 = 3.375 and 63.6 / 8 = 7.95 tok/s/GPU at C=1.
    const perGpu = comparison.deltaTables.find((table) => table.metric === "output_tok_s_per_gpu")!;
    expect(perGpu.rows[0]!.cells.map((cell) => cell.value)).toEqual([3.375, 7.95]);
  });

  it("takes the baseline from the view, and calls small changes noise", () => {
    const a = stored(SGLANG_GRAPHS_RUN, { name: "A", results: [{ concurrency: 1, output_throughput: 100 }] });
    const b = stored(SGLANG_NO_GRAPHS_RUN, { name: "B", results: [{ concurrency: 1, output_throughput: 102 }] });
    const comparison = buildComparison([a, b], view([a, b], { baselineId: b.id, noisePct: 3 }));
    expect(comparison.baselineIndex).toBe(1);
    expect(comparison.series[0]!.headline.singleStream.verdict).toBe("noise");
    const strict = buildComparison([a, b], view([a, b], { baselineId: b.id, noisePct: 1 }));
    expect(strict.series[0]!.headline.singleStream.verdict).toBe("worse");
  });

  it("compares repeats by their mean and draws their band", () => {
    const base = stored(SGLANG_NO_GRAPHS_RUN);
    const r1 = stored(SGLANG_GRAPHS_RUN, { results: [{ concurrency: 1, output_throughput: 60 }] });
    const r2 = stored(SGLANG_GRAPHS_RUN, { results: [{ concurrency: 1, output_throughput: 66 }] });
    const comparison = buildComparison([base, r1, r2], view([base, r1, r2]));
    expect(comparison.series).toHaveLength(2);
    expect(comparison.series[1]!.label).toBe("SGLang TP8, CUDA graphs on · mean of 2 repeats");
    expect(comparison.series[1]!.runs.map((run) => run.id)).toEqual([r1.id, r2.id]);
    expect(comparison.series[1]!.headline.singleStream).toMatchObject({ base: 27, value: 63, verdict: "better" });
    expect(comparison.charts.throughput.rows[0]).toEqual({
      i: 0,
      x: 0,
      level: "C=1",
      s0: 27,
      s1: 63,
      s1_band: [60, 66],
      s1_err: [3, 3],
    });
  });

  it("calls a change inside the repeats' range inconclusive, and takes the noise default from their spread", () => {
    // The vLLM sweep's two repeats at C=2 measured 199 and 93.7 tok/s: mean 146.35, half-range 52.65 (36.0%).
    const base = stored(SGLANG_NO_GRAPHS_RUN, { results: [{ concurrency: 2, output_throughput: 189 }] });
    const r1 = stored(SGLANG_GRAPHS_RUN, { results: [{ concurrency: 2, output_throughput: 199 }] });
    const r2 = stored(SGLANG_GRAPHS_RUN, { results: [{ concurrency: 2, output_throughput: 93.7 }] });
    const comparison = buildComparison([base, r1, r2], view([base, r1, r2], { noisePct: null }));
    expect(comparison.noise).toEqual({ pct: 36, source: "repeats" });
    const table = comparison.deltaTables.find((item) => item.metric === "output_throughput")!;
    const cell = table.rows[0]!.cells[1]!;
    expect(cell.value).toBeCloseTo(146.35, 10);
    expect(cell.verdict).toBe("inconclusive");
    expect(cell.spread).toMatchObject({ n: 2, min: 93.7, max: 199 });
    // A baseline of 250 lies outside 93.7–199: the change is no longer inconclusive, but still within ±36% noise.
    const high = stored(SGLANG_NO_GRAPHS_RUN, { results: [{ concurrency: 2, output_throughput: 250 }] });
    const second = buildComparison([high, r1, r2], view([high, r1, r2], { noisePct: 10 }));
    expect(second.deltaTables[0]!.rows[0]!.cells[1]!.verdict).toBe("worse");
  });

  it("keeps hidden series in the line charts' legends but out of the other charts", () => {
    const a = stored(SGLANG_NO_GRAPHS_RUN);
    const b = stored(SGLANG_GRAPHS_RUN);
    const comparison = buildComparison([a, b], view([a, b], { hidden: [b.id] }));
    expect(comparison.charts.throughput.series.map((series) => [series.label, series.hidden])).toEqual([
      ["SGLang TP8, --disable-cuda-graph", false],
      ["SGLang TP8, CUDA graphs on", true],
    ]);
    expect(comparison.charts.singleStream.map((bar) => bar.label)).toEqual(["SGLang TP8, --disable-cuda-graph"]);
  });

  it("writes its deltas as CSV", () => {
    const a = stored(SGLANG_NO_GRAPHS_RUN, { name: "=cmd|' /C calc'!A0" });
    const b = stored(SGLANG_GRAPHS_RUN);
    const csv = comparisonCsv(buildComparison([a, b], view([a, b])));
    const lines = csv.split("\r\n");
    // The capacity rows follow the deltas: neither run states a p99, so no tier can be judged, and neither frontier
    // has two levels (TPOT is missing at C=128), so the per-interactivity table has no row.
    const tiers = lines.filter((line) => line.startsWith("tier:"));
    expect(tiers.slice(0, 2)).toEqual([
      `tier:interactive:tok_s_per_gpu,tok/s/GPU,,,,'=cmd|' /C calc'!A0,${a.id},,,,baseline`,
      `tier:interactive:tok_s_per_gpu,tok/s/GPU,,,,"SGLang TP8, CUDA graphs on",${b.id},,,,unknown`,
    ]);
    expect(tiers).toHaveLength(8);
    expect(lines.filter((line) => line.startsWith("tok_s_per_gpu_at_tok_s_per_user,"))).toEqual([]);
    expect(lines.filter((line) => !line.startsWith("tier:"))).toEqual([
      "metric,unit,load,concurrency,request_rate,series,runs,value,baseline_value,change_pct,verdict",
      `output_throughput,tok/s,C=1,1,,'=cmd|' /C calc'!A0,${a.id},27,,,baseline`,
      `output_throughput,tok/s,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},63.6,27,135.56,better`,
      `output_throughput,tok/s,C=128,128,,'=cmd|' /C calc'!A0,${a.id},2216,,,baseline`,
      `output_throughput,tok/s,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},2370,2216,6.95,better`,
      `output_tok_s_per_gpu,tok/s/GPU,C=1,1,,'=cmd|' /C calc'!A0,${a.id},3.375,,,baseline`,
      `output_tok_s_per_gpu,tok/s/GPU,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},7.95,3.375,135.56,better`,
      `output_tok_s_per_gpu,tok/s/GPU,C=128,128,,'=cmd|' /C calc'!A0,${a.id},277,,,baseline`,
      `output_tok_s_per_gpu,tok/s/GPU,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},296.25,277,6.95,better`,
      `mean_tpot_ms,ms,C=1,1,,'=cmd|' /C calc'!A0,${a.id},37,,,baseline`,
      `mean_tpot_ms,ms,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},15.7,37,-57.57,better`,
      `mean_tpot_ms,ms,C=128,128,,'=cmd|' /C calc'!A0,${a.id},,,,baseline`,
      `mean_tpot_ms,ms,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},,,,missing`,
      "",
    ]);
  });

  it("quotes a restored run's id that begins with a minus sign, as a spreadsheet would read it as a formula", () => {
    // New ids never begin with "-", but a restore keeps the ids of other instances and older versions.
    const a = { ...stored(SGLANG_NO_GRAPHS_RUN), id: "-dashFirst12" };
    const b = stored(SGLANG_GRAPHS_RUN);
    const lines = comparisonCsv(buildComparison([a, b], view([a, b]))).split("\r\n");
    expect(lines.filter((line) => line.startsWith("output_throughput,"))).toEqual([
      'output_throughput,tok/s,C=1,1,,"SGLang TP8, --disable-cuda-graph",\'-dashFirst12,27,,,baseline',
      `output_throughput,tok/s,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},63.6,27,135.56,better`,
      'output_throughput,tok/s,C=128,128,,"SGLang TP8, --disable-cuda-graph",\'-dashFirst12,2216,,,baseline',
      `output_throughput,tok/s,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},2370,2216,6.95,better`,
    ]);
  });
});

describe("the view in the URL", () => {
  it("reads and writes every part, leaving defaults out", () => {
    const parsed = parseCompareView({
      runs: "a,b,c",
      baseline: "b",
      noise: "5",
      hide: "c",
      stat: "p95",
      logy: "1",
      slo_ttft: "500",
      slo_tpot: "50",
      slo_stat: "p90",
      price: "2.5,H100:3.1",
      at_user: "40",
      tiers: "chat,fast:ttft=300:tpot=25:p95",
      tier: "fast",
      demand: "users:500",
      gpus_per_node: "4",
      max_cost: "1.5",
      gpu_budget: "64",
      power_budget_kw: "40",
      bucket: "10",
    });
    expect(parsed).toEqual({
      runIds: ["a", "b", "c"],
      baselineId: "b",
      noisePct: 5,
      hidden: ["c"],
      stat: "p95",
      logY: true,
      slo: { ttft_ms: 500, tpot_ms: 50, stat: "p90" },
      prices: { all: 2.5, byGpu: { h100: 3.1 } },
      atUser: 40,
      cdfLevel: null,
      cdfMetric: "ttft",
      capacity: {
        tiers: [
          PRESET_TIERS[1],
          { id: "fast", name: "fast", ttft_ms: 300, tpot_ms: 25, e2el_ms: null, stat: "p95", source: null },
        ],
        tierId: "fast",
        demand: { kind: "users", value: 500 },
        gpusPerNode: 4,
        maxCostUsdPerM: 1.5,
        gpuBudget: 64,
        powerBudgetKw: 40,
        bucketStep: 10,
      },
    });
    expect(compareQuery(parsed)).toBe(
      "runs=a,b,c&baseline=b&noise=5&hide=c&stat=p95&logy=1&slo_ttft=500&slo_tpot=50&slo_stat=p90&price=2.5,h100:3.1&at_user=40&tiers=chat,fast:ttft=300:tpot=25:p95&tier=fast&demand=users:500&gpus_per_node=4&max_cost=1.5&gpu_budget=64&power_budget_kw=40&bucket=10",
    );
    expect(compareQuery(parseCompareView({ runs: "a,b", baseline: "a", stat: "mean", slo_stat: "p99" }))).toBe(
      "runs=a,b",
    );
  });

  test.each([
    [{ noise: "-1" }, null],
    [{ noise: "abc" }, null],
    [{ noise: "" }, null],
    [{ noise: "0" }, 0],
    [{ noise: "12.5" }, 12.5],
  ])("noise %j reads as %s", (params, noise) => {
    expect(parseCompareView({ runs: "a", ...params }).noisePct).toBe(noise);
  });

  test.each([
    [
      { slo_ttft: "-5", slo_tpot: "abc" },
      { ttft_ms: null, tpot_ms: null, stat: "p99" },
    ],
    [
      { slo_tpot: "20", slo_stat: "p50" },
      { ttft_ms: null, tpot_ms: 20, stat: "p99" },
    ],
    [{ slo_ttft: "0" }, { ttft_ms: null, tpot_ms: null, stat: "p99" }],
  ])("SLO %j reads as %j", (params, slo) => {
    expect(parseCompareView({ runs: "a", ...params }).slo).toEqual(slo);
  });

  test.each([
    ["3", { all: 3, byGpu: {} }],
    ["RTX PRO 6000 Blackwell:2.5,H100:-1,x", { all: null, byGpu: { "rtx pro 6000 blackwell": 2.5 } }],
    ["abc", { all: null, byGpu: {} }],
  ])("price %j reads as %j", (price, prices) => {
    expect(parseCompareView({ runs: "a", price }).prices).toEqual(prices);
  });

  it("falls back to the mean for an unknown statistic and drops duplicate ids", () => {
    expect(parseCompareView({ runs: ["a,b", "a"], stat: "p50" })).toMatchObject({ runIds: ["a", "b"], stat: "mean" });
  });
});
