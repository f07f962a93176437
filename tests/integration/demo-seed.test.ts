/**
 * The demo a fresh start loads, seeded into a real migrated database: the campaign's three runs as they are, and
 * the MiniMax-M2.5 example imported from its real result files, with a comparison whose every chart and card has
 * something to show, and a series whose regression raises an alert.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { listComparisons } from "@/lib/comparisons/queries";
import { openSavedComparison } from "@/lib/comparisons/save";
import { db } from "@/lib/db/client";
import { EXAMPLE_ALERT_NOTE, EXAMPLE_SERIES_NAME } from "@/lib/demo/example-sweeps";
import { seedDemoRunsIfEmpty } from "@/lib/demo/seed";
import { getRunsByIds } from "@/lib/runs/read";
import { listAlerts } from "@/lib/series/alerts";
import { leadingMetric } from "@/lib/series/metrics";
import { getSeriesViewOrThrow, listSeries } from "@/lib/series/queries";

let loaded = 0;

beforeAll(async () => {
  loaded = await seedDemoRunsIfEmpty();
});

async function exampleRuns() {
  const rows = await db().run.findMany({
    where: { seriesName: EXAMPLE_SERIES_NAME },
    orderBy: { sortAt: "asc" },
    select: { id: true },
  });
  const { runs } = await getRunsByIds(rows.map((row) => row.id));
  return runs;
}

describe("the demo seed", () => {
  it("loads the campaign and the four example sweeps once, into an empty database only", async () => {
    expect(loaded).toBe(7);
    expect(await db().run.count()).toBe(7);
    expect(await seedDemoRunsIfEmpty()).toBe(0);
    expect(await db().run.count()).toBe(7);
    const campaign = await db().run.findMany({ where: { engine: "sglang" }, select: { name: true } });
    expect(campaign.map((run) => run.name).sort()).toEqual([
      "SGLang TP8, --disable-cuda-graph",
      "SGLang TP8, CUDA graphs on",
    ]);
  });

  it("imports the example's real files: sweeps with TTFT and TPOT, 8 H200s, oldest first", async () => {
    const runs = await exampleRuns();
    expect(runs.map((run) => run.name)).toEqual([
      "MiniMax-M2.5 DEP8, 1024 in",
      "MiniMax-M2.5 DEP8, 2048 in",
      "MiniMax-M2.5 TEP8, 1024 in",
      "MiniMax-M2.5 TEP8, 2048 in",
    ]);
    for (const run of runs) {
      expect(run.results.length).toBeGreaterThanOrEqual(3);
      for (const point of run.results) {
        expect(point.median_ttft_ms).toBeGreaterThan(0);
        expect(point.p99_tpot_ms).toBeGreaterThan(0);
      }
      expect(run.hardware).toMatchObject({ gpu: "H200", gpu_count: 8 });
      expect(run.tags).toContain("demo");
      expect(run.notes).toMatch(/^Example data\. Real vLLM benchmark_serving\.py results/);
      expect(run.source_format).toBe("vllm-bench-serve");
    }
    const tep8 = runs[2]!;
    // minimax_m25_vllm_tep8_isl1024_osl128_conc16.json: median_ttft 0.44992… s, p99_tpot 0.039047… s.
    const c16 = tep8.results.find((point) => point.concurrency === 16)!;
    expect(c16.median_ttft_ms).toBeCloseTo(449.9, 1);
    expect(c16.p99_tpot_ms).toBeCloseTo(39.05, 2);
    expect(tep8.results.map((point) => point.concurrency)).toEqual([4, 8, 16, 32, 48, 64]);
    expect(tep8.measured_at).toBe("2026-02-14T14:22:20.000Z");
  });

  it("saves a comparison of DEP8 and TEP8 with per-GPU frontiers, SLO goodput and $ per million tokens", async () => {
    const { comparisons } = await listComparisons({ page: 1, per_page: 10 });
    expect(comparisons).toHaveLength(1);
    const opened = await openSavedComparison(comparisons[0]!.slug);
    const comparison = opened.comparison!;
    expect(comparison.series.map((series) => series.name)).toEqual([
      "MiniMax-M2.5 DEP8, 1024 in",
      "MiniMax-M2.5 TEP8, 1024 in",
    ]);
    for (const series of comparison.series) {
      expect(series.gpuCount).toBe(8);
      expect(series.price).toBe(3.5);
      expect(series.efficiency.frontier.length).toBeGreaterThanOrEqual(2);
      expect(series.slo?.status).toBe("partial");
      expect(series.slo?.output_tok_s).toBeGreaterThan(0);
      expect(series.slo?.cost_per_m_tokens).toBeGreaterThan(0);
    }
    const [dep8, tep8] = comparison.series;
    // p99 TTFT ≤ 2 s and p99 TPOT ≤ 50 ms: DEP8 holds them to C=16 (514.5 tok/s), TEP8 too (525.9 tok/s).
    expect(dep8!.slo?.load).toMatchObject({ concurrency: 16 });
    expect(dep8!.slo?.output_tok_s).toBeCloseTo(514.5, 1);
    expect(tep8!.slo?.output_tok_s).toBeCloseTo(525.9, 1);
    // $3.50 per GPU-hour over 514.5 / 8 tok/s per GPU: 3.5 / (64.31 × 3600 / 10⁶) ≈ $15.12 per million tokens.
    expect(dep8!.slo?.cost_per_m_tokens).toBeCloseTo(3.5 / (((514.508715972044 / 8) * 3600) / 1e6), 6);
    // The sides are named by what differs: the parallelism each sweep's name states.
    expect(comparison.verdicts[0]?.sides).toEqual([
      "data parallel size 1 + --tensor-parallel-size 8",
      "--data-parallel-size 8 + tensor parallel size 1",
    ]);
    expect(comparison.charts.ttft.series.length).toBe(2);
    expect(comparison.charts.tpot.series.length).toBe(2);
  });

  it("judges the example's series: DEP8 then TEP8 is an open p99 TPOT regression at C=16", async () => {
    const alerts = await listAlerts({ status: "open", page: 1, per_page: 10 });
    expect(alerts.alerts).toHaveLength(1);
    const alert = alerts.alerts[0]!;
    expect(alert.series.name).toBe(EXAMPLE_SERIES_NAME);
    expect(alert.metric).toBe("p99_tpot_ms@c:16");
    expect(alert.before).toBeCloseTo((30.39 + 29.93) / 2, 1);
    expect(alert.after).toBeGreaterThan(alert.before);
    expect(alert.direction).toBe("worse");
    expect(alert.violations).toBe(2);
    expect(alert.note).toBe(EXAMPLE_ALERT_NOTE);
    // The page opens on the judged figure the alert is about, and the series list's trend follows it.
    const view = await getSeriesViewOrThrow(alert.series.id, { onlyMetric: "" });
    expect(view.points).toHaveLength(4);
    expect(leadingMetric(view.metrics, view.settings.figures)?.key).toBe("p99_tpot_ms@c:16");
    expect(Object.keys(view.judgements)).toEqual(["p99_tpot_ms@c:16"]);
    const [listed] = (await listSeries({ all: false, page: 1, per_page: 10 })).series;
    expect(listed?.last_metric?.key).toBe("p99_tpot_ms@c:16");
    expect(listed?.trend.map((value) => Math.round(value! * 100) / 100)).toEqual([30.39, 29.93, 39.05, 32.42]);
  });
});
