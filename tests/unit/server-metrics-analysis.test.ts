/**
 * The preparers behind the server-metrics panels, the per-request distributions and the CSV rows: aligned by
 * load level on the client curves' axis, gaps for what a run lacks, repeats averaged as their series are.
 */

import { describe, expect, it } from "vitest";
import { loadDomain } from "@/lib/analysis/axis";
import {
  hasRequestDetail,
  hasServerMetrics,
  latencyDistributions,
  panelYTicks,
  rowField,
  serverMetricRows,
  serverMetricsChart,
  serverSummaryLines,
} from "@/lib/analysis/server-metrics";
import type { ResultPoint } from "@/lib/document/schema";

const run = (id: string, results: ResultPoint[]) => ({ id, name: `run ${id}`, results });

const A = run("a", [
  { concurrency: 1, mean_ttft_ms: 50, server_kv_cache_usage_mean: 0.1, server_waiting_requests_mean: 0 },
  {
    concurrency: 8,
    mean_ttft_ms: 200,
    p99_ttft_ms: 400,
    server_kv_cache_usage_mean: 0.9,
    server_kv_cache_usage_max: 1,
    server_waiting_requests_mean: 6,
    server_waiting_requests_max: 12,
    server_mean_ttft_ms: 180,
    server_preemptions: 4,
  },
]);
const B = run("b", [{ concurrency: 8, mean_ttft_ms: 120, server_kv_cache_usage_mean: 0.5 }]);
const CLIENT_ONLY = run("c", [{ concurrency: 4, mean_ttft_ms: 80 }]);

describe("serverMetricsChart", () => {
  it("one run: TTFT, KV-cache usage and waiting requests first, with the server's and the max as dashed lines", () => {
    const data = serverMetricsChart([A]);
    expect(data.axis).toBe("concurrency");
    expect(data.ticks).toEqual([0, 1, 2, 3]);
    expect(data.domain).toEqual([0, 3]);
    expect(data.panels.map((panel) => panel.id)).toEqual(["ttft", "kv", "waiting", "preemptions"]);
    expect(data.panels[0]!.lines).toEqual([
      { field: "s0__mean_ttft_ms", label: "client", kind: "client", dashed: false },
      { field: "s0__server_mean_ttft_ms", label: "server", kind: "server", dashed: true },
    ]);
    expect(data.panels[1]!.lines.map((line) => [line.label, line.dashed])).toEqual([
      ["mean", false],
      ["max", true],
    ]);
    // Shares as percentages; a level without a figure is null, never 0.
    expect(data.rows).toHaveLength(2);
    expect(data.rows[1]).toMatchObject({
      x: 3,
      level: "C=8",
      [rowField("s0", "server_kv_cache_usage_mean")]: 90,
      [rowField("s0", "server_kv_cache_usage_max")]: 100,
      [rowField("s0", "server_waiting_requests_max")]: 12,
    });
    expect(data.rows[0]![rowField("s0", "server_mean_ttft_ms")]).toBeNull();
    // The tooltip's summary of the level, in a few lines.
    expect(serverSummaryLines(data.rows[1]!, "s0")).toEqual([
      "waiting 6 (max 12)",
      "KV cache 90% (max 100%)",
      "preemptions 4",
      "server TTFT 180 ms",
    ]);
  });

  it("a comparison: one mean line per series on the axis and domain it is given, a gap where a run has no level", () => {
    const data = serverMetricsChart(
      [A, B],
      [
        { key: "s0", label: "A", color: "#111", runIds: ["a"] },
        { key: "s1", label: "B", color: "#222", runIds: ["b"] },
      ],
      {
        // The comparison's shared domain reaches C=128 though neither run has a server figure there.
        domain: loadDomain([
          { label: "shared", results: [{ concurrency: 1 }, { concurrency: 128 }, ...A.results, ...B.results] },
        ]),
        ttftField: "p99_ttft_ms",
      },
    );
    expect(data.domain).toEqual([0, 7]);
    const kv = data.panels.find((panel) => panel.id === "kv")!;
    expect(kv.lines).toEqual([
      { field: "s0__server_kv_cache_usage_mean", label: "A", kind: "mean", dashed: false },
      { field: "s1__server_kv_cache_usage_mean", label: "B", kind: "mean", dashed: false },
    ]);
    expect(data.panels[0]!.lines.map((line) => line.field)).toEqual(["s0__p99_ttft_ms"]);
    expect(data.rows[0]![rowField("s1", "server_kv_cache_usage_mean")]).toBeNull();
    expect(data.rows[1]![rowField("s1", "server_kv_cache_usage_mean")]).toBe(50);
  });

  it("repeats: figures averaged level by level, the largest maximum kept; hidden series are not drawn", () => {
    const again = run("a2", [
      { concurrency: 8, mean_ttft_ms: 220, server_kv_cache_usage_mean: 0.7, server_kv_cache_usage_max: 0.8 },
    ]);
    const data = serverMetricsChart(
      [A, again, B],
      [
        { key: "s0", label: "A (×2)", color: "#111", runIds: ["a", "a2"] },
        { key: "s1", label: "B", color: "#222", runIds: ["b"], hidden: true },
      ],
    );
    expect(data.series.map((series) => series.key)).toEqual(["s0"]);
    const c8 = data.rows.find((row) => row.level === "C=8")!;
    expect(c8[rowField("s0", "server_kv_cache_usage_mean")]).toBeCloseTo(80, 9);
    expect(c8[rowField("s0", "server_kv_cache_usage_max")]).toBe(100);
    expect(c8[rowField("s0", "mean_ttft_ms")]).toBe(210);
  });

  it("a rate sweep is drawn against request rate; runs without server figures have no panel", () => {
    const rates = run("r", [
      { request_rate: 2, mean_ttft_ms: 40, server_waiting_requests_mean: 0 },
      { request_rate: "inf", mean_ttft_ms: 900, server_waiting_requests_mean: 50 },
    ]);
    const data = serverMetricsChart([rates]);
    expect(data.axis).toBe("request_rate");
    // The client charts' rule: a linear rate axis from 0, the unbounded rate one step past the last tick.
    expect(data.ticks).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    expect(data.tickLabels).toEqual(["0", "0.5", "1", "1.5", "2", "∞"]);
    expect(data.domain).toEqual([0, 2.5]);
    expect(data.rows.map((row) => [row.x, row.level])).toEqual([
      [2, "2 req/s"],
      [2.5, "rate ∞"],
    ]);
    expect(hasServerMetrics([CLIENT_ONLY])).toBe(false);
    expect(hasServerMetrics([CLIENT_ONLY, rates])).toBe(true);
  });
});

describe("latencyDistributions", () => {
  const detail = (ttft: (number | null)[]) => ({
    total: ttft.length,
    ttft_ms: ttft,
    tpot_ms: ttft.map(() => null),
    e2el_ms: ttft.map((value) => (value === null ? null : value * 2)),
    output_tokens: ttft.map(() => 1),
  });

  it("gives each level with per-request results its 101 whole percentiles, failures left out", () => {
    const results: ResultPoint[] = [
      { concurrency: 1, requests: detail([10, 20, 30, 40, null]) },
      { concurrency: 4 },
      { concurrency: 8, requests: { ...detail([100, 300]), total: 10 } },
    ];
    expect(hasRequestDetail(results)).toBe(true);
    expect(hasRequestDetail([{ concurrency: 1 }])).toBe(false);
    const ttft = latencyDistributions(results, "ttft");
    expect(ttft.levels.map((level) => [level.label, level.requests, level.total])).toEqual([
      ["C=1", 5, 5],
      ["C=8", 2, 10],
    ]);
    const first = ttft.levels[0]!.quantiles;
    expect(first).toHaveLength(101);
    expect(first[0]).toEqual({ p: 0, value: 10 });
    expect(first[50]).toEqual({ p: 50, value: 25 });
    expect(first[100]).toEqual({ p: 100, value: 40 });
    expect(latencyDistributions(results, "e2el").levels[1]!.quantiles[50]!.value).toBe(400);
    // A level whose requests have no TPOT (one token each) has no TPOT curve.
    expect(latencyDistributions(results, "tpot").levels).toEqual([]);
  });
});

describe("serverMetricRows", () => {
  it("lists every server figure of every series and level in the stored units", () => {
    const rows = serverMetricRows(
      [A, B],
      [
        { key: "s0", label: "A", color: "#111", runIds: ["a"] },
        { key: "s1", label: "B", color: "#222", runIds: ["b"] },
      ],
    );
    expect(rows.filter((row) => row.metric === "server_kv_cache_usage_mean")).toEqual([
      {
        metric: "server_kv_cache_usage_mean",
        unit: "0-1",
        concurrency: 1,
        request_rate: null,
        seriesKey: "s0",
        series: "A",
        runs: "a",
        value: 0.1,
      },
      {
        metric: "server_kv_cache_usage_mean",
        unit: "0-1",
        concurrency: 8,
        request_rate: null,
        seriesKey: "s0",
        series: "A",
        runs: "a",
        value: 0.9,
      },
      {
        metric: "server_kv_cache_usage_mean",
        unit: "0-1",
        concurrency: 8,
        request_rate: null,
        seriesKey: "s1",
        series: "B",
        runs: "b",
        value: 0.5,
      },
    ]);
    expect(rows.find((row) => row.metric === "server_preemptions")).toMatchObject({ unit: "requests", value: 4 });
  });
});

describe("panelYTicks", () => {
  const panel = (unit: string) => ({
    id: "waiting" as const,
    title: "Waiting requests",
    unit,
    lines: [{ field: "s0__mean", label: "mean", kind: "mean", dashed: false }],
  });
  const rows = (...values: (number | null)[]) =>
    values.map((value, index) => ({ x: index, level: `C=${index}`, s0__mean: value }));

  it("steps counts of requests by whole requests from 0 to a round top", () => {
    expect(panelYTicks(panel("requests"), rows(3.2, null))).toEqual({ domain: [0, 4], ticks: [0, 1, 2, 3, 4] });
    expect(panelYTicks(panel("requests"), rows(0.4))).toEqual({ domain: [0, 1], ticks: [0, 1] });
    expect(panelYTicks(panel("requests"), rows(230))).toEqual({ domain: [0, 300], ticks: [0, 100, 200, 300] });
  });

  it("gives milliseconds round steps, shares 0–100%, and an empty panel an axis of 0–1", () => {
    expect(panelYTicks(panel("ms"), rows(212))).toEqual({ domain: [0, 300], ticks: [0, 100, 200, 300] });
    expect(panelYTicks(panel("ms"), rows(180))).toEqual({ domain: [0, 200], ticks: [0, 50, 100, 150, 200] });
    expect(panelYTicks(panel("ms"), rows(0.7))).toEqual({ domain: [0, 0.8], ticks: [0, 0.2, 0.4, 0.6, 0.8] });
    expect(panelYTicks(panel("%"), rows(41))).toEqual({ domain: [0, 100], ticks: [0, 25, 50, 75, 100] });
    expect(panelYTicks(panel("ms"), rows(null))).toEqual({ domain: [0, 1], ticks: [0, 0.25, 0.5, 0.75, 1] });
  });
});
