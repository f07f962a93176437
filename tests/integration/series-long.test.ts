/**
 * A long series: 1,000 nightly runs, more than SQLite binds parameters in one statement (999). The series page
 * loads up to 2,000 runs and counts their load levels; that count must not be one statement over every run id.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getSeries } from "@/app/api/series/[id]/route";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { createRuns } from "@/lib/runs/store";
import type { SeriesView } from "@/lib/series/queries";
import { BASE, idContext } from "./helpers";

const RUNS = 1_000;
const DAY_MS = 86_400_000;
const START = Date.parse("2024-01-01T02:00:00Z");

function nightly(index: number) {
  // Every run measured at C=1 and C=64; every other one at C=8 too.
  const levels = index % 2 === 0 ? [1, 8, 64] : [1, 64];
  return normalizeRunDocument({
    format: "servebench/v1",
    name: `nightly ${index}`,
    engine: "vllm",
    model: "meta-llama/Llama-3.1-8B-Instruct",
    series: "long-nightly",
    measured_at: new Date(START + index * DAY_MS).toISOString(),
    results: levels.map((concurrency) => ({
      concurrency,
      output_throughput: concurrency * 100 * (1 + ((index * 7919) % 41) / 2000),
      mean_tpot_ms: 10 + concurrency / 8,
    })),
  });
}

let seriesId = "";

beforeAll(async () => {
  for (let start = 0; start < RUNS; start += 100) {
    await createRuns(Array.from({ length: 100 }, (_, offset) => nightly(start + offset)));
  }
  const { db } = await import("@/lib/db/client");
  seriesId = (await db().series.findFirstOrThrow({ where: { name: "long-nightly" } })).id;
});

describe("a series of 1,000 runs", () => {
  it("loads whole, with its load levels counted over every run", async () => {
    const response = await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId));
    expect(response.status).toBe(200);
    const view = (await response.json()) as SeriesView;
    expect(view.run_count).toBe(RUNS);
    expect(view.truncated).toBe(false);
    expect(view.points).toHaveLength(RUNS);
    // Most common first; C=1 and C=64 tie and the higher concurrency comes first.
    expect(view.levels).toEqual([
      { key: "c:64", runs: 1000 },
      { key: "c:1", runs: 1000 },
      { key: "c:8", runs: 500 },
    ]);
    expect(view.level).toBe("c:64");
    expect(view.points[0]!.values["output_throughput@c:64"]).toBeCloseTo(6400, 6);
    expect(view.points[999]!.values["mean_tpot_ms@c:64"]).toBe(18);
  });

  it("shows another level on request, over every run", async () => {
    const url = `${BASE}/api/series/${seriesId}?level=c:8`;
    const view = (await (await getSeries(new Request(url), idContext(seriesId))).json()) as SeriesView;
    expect(view.level).toBe("c:8");
    expect(view.points.filter((point) => point.values["output_throughput@c:8"] != null)).toHaveLength(500);
  });
});

describe("a series measured by request rate", () => {
  it("reads its points at an unbounded and at a finite rate", async () => {
    await createRuns(
      [0, 1, 2].map((index) =>
        normalizeRunDocument({
          format: "servebench/v1",
          engine: "sglang",
          model: "Qwen/Qwen3-32B",
          series: "by-rate",
          measured_at: new Date(START + index * DAY_MS).toISOString(),
          results: [
            { request_rate: 2.5, output_throughput: 500 + index, mean_ttft_ms: 40 },
            ...(index === 2
              ? []
              : [{ request_rate: "inf" as const, output_throughput: 900 + index, mean_ttft_ms: 80 }]),
          ],
        }),
      ),
    );
    const { db } = await import("@/lib/db/client");
    const id = (await db().series.findFirstOrThrow({ where: { name: "by-rate" } })).id;
    const view = (await (await getSeries(new Request(`${BASE}/api/series/${id}`), idContext(id))).json()) as SeriesView;
    expect(view.levels).toEqual([
      { key: "r:2.5", runs: 3 },
      { key: "r:inf", runs: 2 },
    ]);
    expect(view.points.map((point) => point.values["output_throughput@r:2.5"])).toEqual([500, 501, 502]);
    const url = `${BASE}/api/series/${id}?level=r:inf`;
    const atInf = (await (await getSeries(new Request(url), idContext(id))).json()) as SeriesView;
    expect(atInf.level).toBe("r:inf");
    expect(atInf.points.map((point) => point.values["output_throughput@r:inf"])).toEqual([900, 901, null]);
  });
});
