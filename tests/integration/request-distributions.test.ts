/**
 * The compare page's latency distributions against the real database, migrated by the real migrations: runs
 * uploaded through the API with per-request results (tests/fixtures/servebench/hand-made-requests-*.json), the
 * comparison loaded as the page loads it, and the distributions read for one level. Every figure below is
 * worked out by hand from the fixtures.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getComparison } from "@/app/api/comparisons/[slug]/route";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { POST as postRun } from "@/app/api/runs/route";
import type { LatencyCdfData, SeriesCdf } from "@/lib/analysis/request-cdf";
import { loadComparison } from "@/lib/comparisons/loader";
import { latencyCdfsOf, loadLatencyCdfs } from "@/lib/comparisons/request-distributions";
import { openSavedComparison } from "@/lib/comparisons/save";
import { parseCompareView } from "@/lib/comparisons/view";
import { BASE, fixtureJson, jsonRequest, noContext, SEED_FILES } from "./helpers";

async function upload(file: string): Promise<string> {
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureJson(file)), noContext);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

let vllm: string;
let sglang: string;
/** A run without per-request results. */
let summaryOnly: string;

beforeAll(async () => {
  vllm = await upload("servebench/hand-made-requests-vllm.json");
  sglang = await upload("servebench/hand-made-requests-sglang.json");
  summaryOnly = await upload(SEED_FILES.vllm);
});

async function distributions(params: Record<string, string>): Promise<LatencyCdfData> {
  const { comparison } = await loadComparison(
    parseCompareView({ runs: [vllm, sglang, summaryOnly].join(","), ...params }),
  );
  return latencyCdfsOf(comparison!);
}

function of(data: LatencyCdfData, id: string): SeriesCdf {
  return data.series.find((item) => item.id === id)!;
}

describe("the latency distributions of a comparison", () => {
  it("default to the highest level every run with per-request results stored them at, TTFT", async () => {
    const data = await distributions({});
    expect(data.metric).toBe("ttft");
    // Both stored requests at C=1 and C=8; the SGLang run's C=16 has summary figures only.
    expect(data.level).toEqual({ key: "c:8", label: "C=8" });
    expect(data.unavailableLevel).toBeNull();
    expect(data.levels).toEqual([
      { key: "c:1", label: "C=1", series: 2 },
      { key: "c:8", label: "C=8", series: 2 },
    ]);

    // Two repeats pooled, the failed request left out: 60, 80, 90, 100, 110, 120, 130, 140, 150.
    const pooled = of(data, vllm);
    expect(pooled).toMatchObject({
      storedRows: 10,
      totalRequests: 10,
      points: 2,
      pointsWithRequests: 2,
      completedRequests: 9,
      capped: false,
    });
    expect(pooled.cdf).toMatchObject({ n: 9, min_ms: 60, max_ms: 150, p50_ms: 110 });
    expect(pooled.cdf!.p90_ms).toBeCloseTo(142, 9);
    expect(pooled.cdf!.p99_ms).toBeCloseTo(149.2, 9);
    expect(pooled.cdf!.points.map((point) => point.latency_ms)).toEqual([60, 60, 80, 90, 100, 110, 120, 130, 140, 150]);
    expect(pooled.cdf!.points.at(-1)!.share_pct).toBe(100);

    // A sample of 4 of the level's 8 requests: 70, 75, 85, 95.
    const sampled = of(data, sglang);
    expect(sampled).toMatchObject({ storedRows: 4, totalRequests: 8, points: 1, pointsWithRequests: 1 });
    expect(sampled.cdf).toMatchObject({ n: 4, p50_ms: 80 });
    expect(sampled.cdf!.p90_ms).toBeCloseTo(92, 9);
    expect(sampled.cdf!.p99_ms).toBeCloseTo(94.7, 9);

    // Named under the chart, never drawn.
    expect(of(data, summaryOnly)).toMatchObject({ cdf: null, points: 0, pointsWithRequests: 0, storedRows: 0 });
    expect(data.series.map((item) => item.color)).toEqual(
      (await loadComparison(parseCompareView({ runs: [vllm, sglang, summaryOnly].join(",") }))).comparison!.series.map(
        (item) => item.color,
      ),
    );
  });

  it("read the level and the latency the URL names", async () => {
    const tpot = await distributions({ cdf_level: "c:1", cdf_metric: "tpot" });
    expect(tpot.level?.key).toBe("c:1");
    // 8, 8.1, 8.2, 8.4 → rank 1.5; 7.5, 7.6, 7.7 → rank 1.
    expect(of(tpot, vllm).cdf).toMatchObject({ n: 4 });
    expect(of(tpot, vllm).cdf!.p50_ms).toBeCloseTo(8.15, 9);
    expect(of(tpot, sglang).cdf).toMatchObject({ n: 3, p50_ms: 7.6 });

    // TPOT at C=8 leaves out the failed request and the one that generated a single token: 8 of 10.
    const tpot8 = await distributions({ cdf_level: "c:8", cdf_metric: "tpot" });
    expect(of(tpot8, vllm).cdf).toMatchObject({ n: 8, p50_ms: 10.75, min_ms: 9, max_ms: 13 });

    const e2e = await distributions({ cdf_level: "c:8", cdf_metric: "e2e" });
    expect(of(e2e, vllm).cdf).toMatchObject({ n: 9, p50_ms: 1450, min_ms: 1100, max_ms: 1800 });
  });

  it("fall back to the default where no run stored requests at the level asked for, and say so", async () => {
    const data = await distributions({ cdf_level: "c:16" });
    expect(data.level?.key).toBe("c:8");
    expect(data.unavailableLevel).toEqual({ key: "c:16", label: "C=16" });
  });

  it("keep at most the cap of completed requests per series: a uniform sample, marked", async () => {
    const { comparison } = await loadComparison(parseCompareView({ runs: [vllm, sglang].join(",") }));
    const data = await loadLatencyCdfs(comparison!.series, "c:8", "ttft", 5);
    const capped = of(data, vllm);
    expect(capped).toMatchObject({ capped: true, completedRequests: 9 });
    expect(capped.cdf!.n).toBe(5);
    const kept = capped.cdf!.points.slice(1).map((point) => point.latency_ms);
    for (const value of kept) expect([60, 80, 90, 100, 110, 120, 130, 140, 150]).toContain(value);
    expect(of(data, sglang)).toMatchObject({ capped: false, completedRequests: 4 });
    expect(data.cap).toBe(5);
  });

  it("say there is nothing to draw when no run stored per-request results", async () => {
    const { comparison } = await loadComparison(parseCompareView({ runs: summaryOnly }));
    const data = await latencyCdfsOf(comparison!);
    expect(data.level).toBeNull();
    expect(data.levels).toEqual([]);
    expect(data.series.map((item) => item.cdf)).toEqual([null]);
  });
});

describe("a saved comparison's distributions", () => {
  it("keep the level and the latency it was saved with; its page's URL overrides them", async () => {
    const created = await postComparison(
      jsonRequest("/api/comparisons", "POST", { runs: [vllm, sglang], cdf_level: "c:1", cdf_metric: "e2e" }),
      noContext,
    );
    expect(created.status).toBe(201);
    const { slug } = (await created.json()) as { slug: string };
    const read = await getComparison(new Request(`${BASE}/api/comparisons/${slug}`), {
      params: Promise.resolve({ slug }),
    });
    expect(await read.json()).toMatchObject({ cdf_level: "c:1", cdf_metric: "e2e" });

    const opened = await openSavedComparison(slug);
    expect(opened.view).toMatchObject({ cdfLevel: "c:1", cdfMetric: "e2e" });
    const data = await latencyCdfsOf(opened.comparison!);
    // 1036, 1049.7, 1063.4, 1091.8 → rank 1.5.
    expect(of(data, vllm).cdf!.p50_ms).toBeCloseTo(1056.55, 9);
    const overridden = await openSavedComparison(slug, { cdf_level: "c:8", cdf_metric: "ttft" });
    expect(overridden.view).toMatchObject({ cdfLevel: "c:8", cdfMetric: "ttft" });
  });

  it("refuse a level that is no load level key, naming the field", async () => {
    const response = await postComparison(
      jsonRequest("/api/comparisons", "POST", { runs: [vllm], cdf_level: "C=8", cdf_metric: "itl" }),
      noContext,
    );
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((issue) => issue.path)).toEqual(["cdf_level", "cdf_metric"]);
  });
});
