import { describe, expect, it, test } from "vitest";
import { buildComparison, type CompareView, compareQuery, parseCompareView } from "@/lib/analysis/comparison";
import { verdictOf } from "@/lib/analysis/deltas";
import { comparisonCsv } from "@/lib/analysis/export";
import { checkLikeForLike } from "@/lib/analysis/fairness";
import { paretoCurve, paretoFrontier } from "@/lib/analysis/pareto";
import { configurationKey, groupRepeats } from "@/lib/analysis/repeats";
import { normalizeRunDocument } from "@/lib/runs/normalize";
import type { StoredRun } from "@/lib/runs/queries";
import type { ResultPoint } from "@/lib/runs/schema";
import { type SeedRun, SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, seedDocument, VLLM_RUN } from "./seeds";

let counter = 0;
function stored(run: SeedRun, overrides: Record<string, unknown> = {}): StoredRun {
  counter += 1;
  const doc = normalizeRunDocument({ ...seedDocument(run), ...overrides });
  return { ...doc, id: `run${String(counter).padStart(9, "0")}`, created_at: "2026-02-14T09:30:00.000Z" };
}

function view(runs: StoredRun[], changes: Partial<CompareView> = {}): CompareView {
  return { runIds: runs.map((run) => run.id), baselineId: null, noisePct: 3, hidden: [], stat: "mean", ...changes };
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
    expect(group!.ranges).toEqual({ "c:1": { output_throughput: [60, 66], mean_tpot_ms: [15, 16] } });
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

describe("Pareto", () => {
  const points: ResultPoint[] = [
    { concurrency: 8, output_throughput: 900, mean_tpot_ms: 20 },
    { concurrency: 1, output_throughput: 60, mean_tpot_ms: 15 },
    { concurrency: 32, output_throughput: 2000, mean_tpot_ms: 40 },
    { concurrency: 64, output_throughput: 1900, mean_tpot_ms: 50 },
    { concurrency: 128, output_throughput: 2370 },
  ];

  it("plots per-user tok/s (1000 / TPOT) against total tok/s, in load order, labelled", () => {
    expect(paretoCurve(points)).toEqual([
      { per_user_tok_s: 1000 / 15, output_tok_s: 60, label: "C=1" },
      { per_user_tok_s: 50, output_tok_s: 900, label: "C=8" },
      { per_user_tok_s: 25, output_tok_s: 2000, label: "C=32" },
      { per_user_tok_s: 20, output_tok_s: 1900, label: "C=64" },
    ]);
  });

  it("keeps the points no other beats on both axes", () => {
    expect(paretoFrontier(paretoCurve(points)).map((point) => point.label)).toEqual(["C=32", "C=8", "C=1"]);
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
    expect(comparison.summary).toEqual({
      title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      description:
        "single stream 27 → 63.6 tok/s (+135.6%), peak 2,216 → 2,370 tok/s (+6.9%); --disable-cuda-graph removed",
    });
    expect(comparison.fairness.differences).toEqual([]);
    expect(comparison.charts.throughput.rows).toEqual([
      { concurrency: 1, x: 0, s0: 27, s1: 63.6 },
      { concurrency: 128, x: 7, s0: 2216, s1: 2370 },
    ]);
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
    expect(comparison.series[1]!.label).toBe("SGLang TP8, CUDA graphs on (×2)");
    expect(comparison.series[1]!.runs.map((run) => run.id)).toEqual([r1.id, r2.id]);
    expect(comparison.series[1]!.headline.singleStream).toMatchObject({ base: 27, value: 63 });
    expect(comparison.charts.throughput.rows[0]).toEqual({ concurrency: 1, x: 0, s0: 27, s1: 63, s1_range: [60, 66] });
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
    expect(csv.split("\r\n")).toEqual([
      "metric,unit,load,concurrency,request_rate,series,runs,value,baseline_value,change_pct,verdict",
      `output_throughput,tok/s,C=1,1,,'=cmd|' /C calc'!A0,${a.id},27,,,baseline`,
      `output_throughput,tok/s,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},63.6,27,135.56,better`,
      `output_throughput,tok/s,C=128,128,,'=cmd|' /C calc'!A0,${a.id},2216,,,baseline`,
      `output_throughput,tok/s,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},2370,2216,6.95,better`,
      `mean_tpot_ms,ms,C=1,1,,'=cmd|' /C calc'!A0,${a.id},37,,,baseline`,
      `mean_tpot_ms,ms,C=1,1,,"SGLang TP8, CUDA graphs on",${b.id},15.7,37,-57.57,better`,
      `mean_tpot_ms,ms,C=128,128,,'=cmd|' /C calc'!A0,${a.id},,,,baseline`,
      `mean_tpot_ms,ms,C=128,128,,"SGLang TP8, CUDA graphs on",${b.id},,,,missing`,
      "",
    ]);
  });
});

describe("the view in the URL", () => {
  it("reads and writes every part, leaving defaults out", () => {
    const parsed = parseCompareView({ runs: "a,b,c", baseline: "b", noise: "5", hide: "c", stat: "p99" });
    expect(parsed).toEqual({ runIds: ["a", "b", "c"], baselineId: "b", noisePct: 5, hidden: ["c"], stat: "p99" });
    expect(compareQuery(parsed)).toBe("runs=a,b,c&baseline=b&noise=5&hide=c&stat=p99");
    expect(compareQuery(parseCompareView({ runs: "a,b", baseline: "a", noise: "3", stat: "mean" }))).toBe("runs=a,b");
  });

  test.each([
    [{ noise: "-1" }, 3],
    [{ noise: "abc" }, 3],
    [{ noise: "0" }, 0],
    [{ noise: "12.5" }, 12.5],
  ])("noise %j reads as %d", (params, noise) => {
    expect(parseCompareView({ runs: "a", ...params }).noisePct).toBe(noise);
  });

  it("falls back to the mean for an unknown statistic and drops duplicate ids", () => {
    expect(parseCompareView({ runs: ["a,b", "a"], stat: "p50" })).toMatchObject({ runIds: ["a", "b"], stat: "mean" });
  });
});
