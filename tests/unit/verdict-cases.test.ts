/**
 * The verdicts of real comparisons, rebuilt from the demo runs and real tool files: every sentence says what
 * differs between the sides, says first when the runs are not like for like, compares peaks at a common load
 * level or says it did not, and names the statistic it was computed at.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diffConfigs } from "@/lib/analysis/config-diff";
import { percentilesInconclusive } from "@/lib/analysis/level-uncertainty";
import { buildComparison } from "@/lib/comparisons/build";
import { type CompareView, parseCompareView } from "@/lib/comparisons/view";
import { DEMO_RUNS } from "@/lib/demo/runs";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { seriesIdentity } from "@/lib/series/key";

const FIXTURES = path.join(__dirname, "..", "fixtures");
let counter = 0;

function stored(document: Record<string, unknown>): StoredRun {
  counter += 1;
  const doc = normalizeRunDocument(document);
  return { ...doc, id: `case${String(counter).padStart(6, "0")}`, created_at: "2026-12-01T09:30:00.000Z" };
}

function demo(name: string, changes: Record<string, unknown> = {}): StoredRun {
  const run = DEMO_RUNS.find((item) => item.name === name);
  if (!run) throw new Error(`no demo run ${name}`);
  return stored({ ...run, ...changes });
}

/** The SGLang online sweep of Llama-3.3-70B (request rates 1 … 16 req/s), as an upload stores it. */
function sglangLlamaSweep(changes: Record<string, unknown> = {}): StoredRun {
  const file = "sglang/llama_3_3_70b_online_output.jsonl";
  const parsed = readUploads([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES, file)) }], FORMAT_PARSERS);
  const plan = planRuns(parsed, { split: true });
  const document = plan.runs[0]!.document;
  return stored({
    ...document,
    // The file's backend "sglang" says SGLang; its version is the person's word.
    engine: "sglang",
    engine_version: "0.4.3",
    model: "meta-llama/Llama-3.3-70B-Instruct",
    hardware: { gpu: "H200", gpu_count: 8 },
    ...changes,
  });
}

function view(runs: StoredRun[], changes: Partial<CompareView> = {}): CompareView {
  return { ...parseCompareView({ runs: runs.map((run) => run.id).join(",") }), ...changes };
}

describe("verdicts of real comparisons", () => {
  it("says first that the demo vLLM run and an uploaded SGLang sweep are not like for like, and that the peaks are not at a common load", () => {
    const vllm = demo("vLLM TP8 baseline");
    const sglang = sglangLlamaSweep();
    const comparison = buildComparison([vllm, sglang], view([vllm, sglang]));
    const [verdict] = comparison.verdicts;
    expect(verdict!.caveat).toBe("Not like for like (model, GPU, dataset, output length differ)");
    expect(verdict!.text.startsWith("Not like for like (")).toBe(true);
    expect(verdict!.sides).toEqual([
      "SGLang 0.4.3 · Llama-3.3-70B-Instruct · 8× H200",
      "vLLM · Kimi-K2.5 INT4 · 8× RTX PRO 6000 Blackwell",
    ]);
    const peak = verdict!.clauses.find((clause) => clause.text.startsWith("peak"))!;
    expect(peak.text).toMatch(
      /^peak 1,536 tok\/s \(C=128\) → [\d,]+ tok\/s \([\d.]+ req\/s\), not at a common load level$/,
    );
    expect(peak.verdict).toBe("none");
    // The link preview's description is the same sentence, caveat first.
    expect(comparison.summary.description.startsWith("Not like for like (")).toBe(true);
  });

  it("tells three SGLang runs against one vLLM baseline apart", () => {
    const vllm = demo("vLLM TP8 baseline");
    const llama = sglangLlamaSweep();
    const llamaH100 = sglangLlamaSweep({ hardware: { gpu: "H100", gpu_count: 8 } });
    const kimi = demo("SGLang TP8, CUDA graphs on");
    const comparison = buildComparison([vllm, llama, llamaH100, kimi], view([vllm, llama, llamaH100, kimi]));
    const leads = comparison.verdicts.map((verdict) => verdict.versus);
    expect(new Set(leads).size).toBe(3);
    // Like for like first: the Kimi pair differs only in the engine.
    expect(comparison.verdicts[0]!.caveat).toBeNull();
    expect(leads[0]).toBe("SGLang vs vLLM");
    expect(leads.slice(1).sort()).toEqual([
      // The file records no launch flags: the tensor parallelism the vLLM side sets cannot be compared, only counted.
      "SGLang 0.4.3 · Llama-3.3-70B-Instruct · 8× H100 vs vLLM · Kimi-K2.5 INT4 · 8× RTX PRO 6000 Blackwell (+1 more change)",
      "SGLang 0.4.3 · Llama-3.3-70B-Instruct · 8× H200 vs vLLM · Kimi-K2.5 INT4 · 8× RTX PRO 6000 Blackwell (+1 more change)",
    ]);
  });

  it("names the statistic interactivity was computed at, and the verdict changes with it only as the statistic says", () => {
    const base = stored({
      format: "servebench/v1",
      name: "base",
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Llama-3.1-8B",
      hardware: { gpu: "H100", gpu_count: 1 },
      results: [
        { concurrency: 1, output_throughput: 90, mean_tpot_ms: 10, p99_tpot_ms: 12 },
        { concurrency: 8, output_throughput: 600, mean_tpot_ms: 12, p99_tpot_ms: 16 },
        { concurrency: 32, output_throughput: 1800, mean_tpot_ms: 16, p99_tpot_ms: 25 },
      ],
    });
    const other = stored({
      format: "servebench/v1",
      name: "other",
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Llama-3.1-8B",
      hardware: { gpu: "H100", gpu_count: 1 },
      flags: { "--max-num-seqs": 64 },
      results: [
        { concurrency: 1, output_throughput: 88, mean_tpot_ms: 10.5, p99_tpot_ms: 13 },
        { concurrency: 8, output_throughput: 620, mean_tpot_ms: 12.5, p99_tpot_ms: 20 },
        { concurrency: 32, output_throughput: 1750, mean_tpot_ms: 17, p99_tpot_ms: 40 },
      ],
    });
    const mean = buildComparison([base, other], view([base, other], { stat: "mean", atUser: 70 }));
    const p99 = buildComparison([base, other], view([base, other], { stat: "p99", atUser: 70 }));
    expect(mean.verdicts[0]!.text).toContain("at 70 tok/s/user (mean TPOT):");
    expect(p99.verdicts[0]!.text).toContain("at 70 tok/s/user (p99 TPOT):");
    expect(mean.charts.efficiency.tpotStat).toBe("mean");
    expect(p99.charts.efficiency.tpotStat).toBe("p99");
    // Runs that state no mean TPOT are drawn at what they state, and the axis says so, as the verdict does.
    const medianOnly = (run: StoredRun) => ({
      ...run,
      results: run.results.map(({ mean_tpot_ms, ...point }) => ({ ...point, median_tpot_ms: mean_tpot_ms })),
    });
    const medians = buildComparison(
      [medianOnly(base), medianOnly(other)],
      view([base, other], { stat: "mean", atUser: 70 }),
    );
    expect(medians.verdicts[0]!.text).toContain("at 70 tok/s/user (median TPOT):");
    expect(medians.charts.efficiency.tpotStat).toBe("median");
    // The baseline records no launch flags at all: its setting is unknown, never assumed to be the default.
    expect(mean.verdicts[0]!.sides).toEqual(["--max-num-seqs 64", "max concurrent sequences unknown"]);
  });

  it("quotes the highest measured level meeting the SLO, and never cuts a card's sentence", () => {
    const vllm = demo("vLLM TP8 baseline");
    const sglang = sglangLlamaSweep();
    const comparison = buildComparison(
      [sglang, vllm],
      view([sglang, vllm], { slo: { ttft_ms: 500, tpot_ms: null, stat: "median" } }),
    );
    // The vLLM demo run states no TTFT at all: the card says which figure is missing, never "states no".
    const vllmSeries = comparison.series.find((item) => item.id === vllm.id)!;
    expect(vllmSeries.slo).toMatchObject({ status: "unknown", reason: "it states no median TTFT" });
    // The SGLang sweep is measured by request rate, off this comparison's concurrency axis: judged along its own.
    const sglangSeries = comparison.series.find((item) => item.id === sglang.id)!;
    expect(sglangSeries.slo!.status).not.toBe("unknown");
    expect(sglangSeries.slo!.load).not.toBeNull();
    // The capacity is a measured level: a whole request rate of the sweep, never an interpolated one.
    const rates = sglang.results.map((point) => point.request_rate);
    expect(rates).toContain(sglangSeries.slo!.load!.request_rate ?? "inf");
  });
});

describe("percentiles judged with their uncertainty", () => {
  const run = (name: string, completed: number, p99: number) =>
    stored({
      format: "servebench/v1",
      name,
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Llama-3.1-8B",
      hardware: { gpu: "H100", gpu_count: 1 },
      // Two configurations, so the runs are two series rather than repeats of one.
      flags: { "--max-num-seqs": name === "base" ? 128 : 256 },
      results: [{ concurrency: 8, completed, output_throughput: 600, p99_tpot_ms: p99, mean_tpot_ms: 10 }],
    });

  it("calls a p99 of 50 requests ≈ max and its change inconclusive, however large", () => {
    // 0.99^50 = 0.605 > 0.025: the order-statistic interval of a p99 from 50 requests has no upper end.
    const base = run("base", 50, 20);
    const other = run("other", 50, 30);
    const comparison = buildComparison([base, other], view([base, other]));
    const table = comparison.deltaTables.find((item) => item.metric === "p99_tpot_ms")!;
    const [baseCell, cell] = table.rows[0]!.cells;
    expect(baseCell!.uncertainty).toMatchObject({ support: "approx-max", basis: "summary", n: 50 });
    expect(cell!.change).toBeCloseTo(0.5, 10);
    expect(cell!.verdict).toBe("inconclusive");
  });

  it("judges a p99 of 1,000 requests by the noise threshold alone when only summary figures exist", () => {
    // 0.99^1000 ≈ 4.3e-5 ≤ 0.025: supported; no requests stored, so no interval: +50% is worse (lower is better).
    const base = run("base", 1000, 20);
    const other = run("other", 1000, 30);
    const comparison = buildComparison([base, other], view([base, other]));
    const cell = comparison.deltaTables.find((item) => item.metric === "p99_tpot_ms")!.rows[0]!.cells[1]!;
    expect(cell.uncertainty).toMatchObject({ support: "supported", basis: "summary" });
    expect(cell.verdict).toBe("worse");
  });

  it("calls overlapping request intervals inconclusive and separate ones decisive", () => {
    const requests = (low: number | null, high: number | null) =>
      ({ value: 10, low, high, n: 1000, basis: "requests", support: "supported" }) as const;
    expect(percentilesInconclusive(requests(9, 12), requests(11, 14))).toBe(true);
    expect(percentilesInconclusive(requests(9, 10.5), requests(11, 14))).toBe(false);
    expect(percentilesInconclusive(requests(9, null), requests(11, 14))).toBe(true);
    expect(
      percentilesInconclusive(
        { value: 10, low: null, high: null, n: 2000, basis: "summary", support: "supported" },
        requests(11, 14),
      ),
    ).toBeNull();
  });
});

describe("a comparison of runs that stored their requests", () => {
  // 10 completed requests of TTFT 100, 110, …, 190 ms (base) and 400, 410, …, 490 ms (other), TPOT 10 ms each.
  const detail = (start: number) => {
    const ttft_ms = Array.from({ length: 10 }, (_, index) => start + 10 * index);
    return {
      total: 10,
      ttft_ms,
      tpot_ms: ttft_ms.map(() => 10),
      e2el_ms: ttft_ms.map((value) => value + 1000),
      output_tokens: ttft_ms.map(() => 101),
    };
  };
  const run = (name: string, start: number, seqs: number) =>
    stored({
      format: "servebench/v1",
      name,
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Llama-3.1-8B",
      hardware: { gpu: "H100", gpu_count: 1 },
      flags: { "--max-num-seqs": seqs },
      results: [
        {
          concurrency: 4,
          completed: 10,
          output_throughput: 400,
          median_ttft_ms: start + 45,
          p99_ttft_ms: start + 89.1,
          requests: detail(start),
        },
      ],
    });

  it("gives the median its order-statistic interval and decides by it", () => {
    const base = run("base", 100, 128);
    const other = run("other", 400, 256);
    const comparison = buildComparison(
      [base, other],
      view([base, other], { slo: { ttft_ms: 150, tpot_ms: null, stat: "median" } }),
    );
    // Median of 10: ranks 2 and 9 (coverage 97.85%): 110–180 ms and 410–480 ms, apart: the change is decided.
    const median = comparison.series.map((item) => item.uncertaintyAt("c:4")!.median_ttft_ms!);
    expect(median[0]).toMatchObject({ basis: "requests", low: 110, high: 180, n: 10, support: "supported" });
    expect(median[1]).toMatchObject({ low: 410, high: 480 });
    // A p99 of ten requests is ≈ max.
    expect(comparison.series[0]!.uncertaintyAt("c:4")!.p99_ttft_ms).toMatchObject({ support: "approx-max" });
    // Median TTFT ≤ 150 ms: the base meets it at C=4 (145 ms); 6 of its 10 requests (100 … 150 ms) are within
    // 150 ms on their own. Wilson 6/10: (0.6 + 0.192 ± 1.96·√(0.024 + 0.0096)) / 1.384 = 0.313–0.832.
    const slo = comparison.series[0]!.slo!;
    expect(slo.attainment).toMatchObject({ met: 6, total: 10, share: 0.6 });
    expect(slo.attainment!.interval[0]).toBeCloseTo(0.3127, 3);
    expect(slo.attainment!.interval[1]).toBeCloseTo(0.8318, 3);
  });
});

describe("a run whose engine nothing stated", () => {
  const unknown = () =>
    stored({
      format: "servebench/v1",
      engine: "unknown",
      model: "Llama-3.1-8B",
      hardware: { gpu: "H100", gpu_count: 1 },
      results: [
        { concurrency: 1, output_throughput: 90, mean_tpot_ms: 10 },
        { concurrency: 8, output_throughput: 600, mean_tpot_ms: 12 },
      ],
    });

  it("is named engine not stated in verdicts, changes and series, never an engine called unknown", () => {
    const base = unknown();
    const vllm = stored({ ...base, name: undefined, engine: "vllm", engine_version: "0.11.0" });
    expect(base.name).toBe("Llama-3.1-8B");
    const comparison = buildComparison([base, vllm], view([base, vllm]));
    expect(comparison.verdicts[0]!.sides).toEqual(["vLLM 0.11.0", "engine not stated"]);
    expect(diffConfigs(base, vllm).map((change) => change.text)).toContain("engine: not stated → vllm");
    expect(seriesIdentity(base).name).toBe("engine not stated · Llama-3.1-8B · 1× H100");
    // Two runs of it at one configuration are one series, as runs of one named engine are.
    expect(seriesIdentity(unknown()).key).toBe(seriesIdentity(base).key);
    expect(seriesIdentity(vllm).key).not.toBe(seriesIdentity(base).key);
  });
});
