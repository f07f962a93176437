/**
 * Uploads that arrive together are stored in one shared transaction and their series judged together
 * (lib/runs/store.ts storeRuns, lib/series/judging.ts judgeStoredSeries): each upload still answers for itself,
 * is stored exactly once with all its rows, gets its own verdict, and one upload's failure is its own.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { RunToStore } from "@/lib/runs/store";
import { storeRuns } from "@/lib/runs/store";
import { JUDGE_PACE, JUDGE_PACE_MAX_WAIT_MS, judgeStoredSeries, judgingActivity } from "@/lib/series/judging";
import { clearDatabase, counts, jsonRequest, noContext } from "./helpers";

function nightly(night: number, outputTokS: number): Record<string, unknown> {
  return {
    format: "servebench/v1",
    name: `nightly ${night}`,
    engine: "vllm",
    engine_version: "0.11.0",
    model: "meta-llama/Llama-3.1-8B-Instruct",
    hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1 },
    series: "grouped-nightly",
    measured_at: new Date(Date.UTC(2026, 10, 1 + night)).toISOString(),
    tags: ["nightly", `night-${night}`],
    results: [1, 8].map((concurrency) => ({
      concurrency,
      completed: 100,
      output_throughput: outputTokS * concurrency,
      mean_tpot_ms: 10 + concurrency,
      mean_ttft_ms: 30 + concurrency,
    })),
  };
}

function other(index: number): Record<string, unknown> {
  return {
    format: "servebench/v1",
    name: `other upload ${index}`,
    engine: "sglang",
    model: `org/model-${index}`,
    tags: [`t${index}`],
    results: [{ concurrency: 4, output_throughput: 100 + index, mean_tpot_ms: 20 }],
  };
}

beforeEach(async () => {
  await clearDatabase();
});

describe("uploads that arrive together", () => {
  it("stores each once with all its rows, and answers each with its own id and series verdict", async () => {
    const documents = [
      ...Array.from({ length: 12 }, (_, night) => nightly(night + 1, 1000 + night)),
      ...Array.from({ length: 8 }, (_, index) => other(index)),
    ];
    const responses = await Promise.all(
      documents.map((document) => postRun(jsonRequest("/api/runs", "POST", document), noContext)),
    );
    expect(responses.map((response) => response.status)).toEqual(documents.map(() => 201));
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      id: string;
      series?: { verdict: string };
    }[];
    expect(new Set(bodies.map((body) => body.id)).size).toBe(20);
    expect(await counts()).toEqual({ runs: 20, points: 12 * 2 + 8, tags: 12 * 2 + 8 });
    // Each answer names the run stored from its own document.
    for (const [index, body] of bodies.entries()) {
      const row = await db().run.findUniqueOrThrow({ where: { id: body.id }, include: { tags: true } });
      expect(row.name).toBe(documents[index]!.name);
      expect(row.tags.map((tag) => tag.tag).sort()).toEqual([...(documents[index]!.tags as string[])].sort());
    }
    // Every run of the named series was judged: each answer carries its verdict, and the series holds all 12.
    for (const body of bodies.slice(0, 12)) expect(body.series?.verdict).toMatch(/^(ok|insufficient)$/);
    const series = await db().series.findFirstOrThrow({
      where: { name: "grouped-nightly" },
      include: { _count: { select: { runs: true } } },
    });
    expect(series._count.runs).toBe(12);
    expect(series.judgedAt).not.toBeNull();
    // The series' summary is that of a judgement that read all 12 nights: its trend ends at night 12's figure.
    expect(JSON.parse(series.trendJson).length).toBe(12);
  });

  it("keeps one upload's failure its own: the others of its group are stored", async () => {
    const good = [other(1), other(2), other(3)].map(
      (document): RunToStore => ({ document: normalizeRunDocument(document) }),
    );
    const broken = normalizeRunDocument(other(4));
    // A value no database column can take: the shared transaction fails on it, and each upload is stored again alone.
    (broken.results[0] as Record<string, unknown>).output_throughput = { not: "a number" };
    const outcomes = await Promise.allSettled([
      storeRuns([good[0]!]),
      storeRuns([{ document: broken }]),
      storeRuns([good[1]!, good[2]!]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await counts()).toEqual({ runs: 3, points: 3, tags: 3 });
    const names = (await db().run.findMany({ select: { name: true }, orderBy: { name: "asc" } })).map((r) => r.name);
    expect(names).toEqual(["other upload 1", "other upload 2", "other upload 3"]);
  });

  it("answers identical content within one group as one run, the later ones as duplicates of it", async () => {
    const document = other(7);
    const responses = await Promise.all(
      [document, other(8), document].map((body) => postRun(jsonRequest("/api/runs", "POST", body), noContext)),
    );
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      id: string;
      duplicate?: boolean;
    }[];
    expect(responses.map((response) => response.status).sort()).toEqual([200, 201, 201]);
    expect(bodies[0]!.id).toBe(bodies[2]!.id);
    expect(bodies[1]!.id).not.toBe(bodies[0]!.id);
    expect(await counts()).toEqual({ runs: 2, points: 2, tags: 2 });
  });
});

describe("an upload's columns made in the upload worker", () => {
  it("are those made on the server's thread: the same Run row, content hash, search columns and series", async () => {
    const document = { ...nightly(3, 1234), notes: "Driver 580.65, CUDA graphs on" };
    const response = await postRun(jsonRequest("/api/runs", "POST", document), noContext);
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const {
      id: _id,
      createdAt,
      updatedAt,
      sortAt,
      ...fromWorker
    } = await db().run.findUniqueOrThrow({ where: { id } });
    await db().run.delete({ where: { id } });
    const [stored] = await storeRuns([{ document: normalizeRunDocument(document) }]);
    expect(stored!.duplicate).toBe(false);
    const {
      id: _again,
      createdAt: _c,
      updatedAt: _u,
      sortAt: _s,
      ...fromHere
    } = await db().run.findUniqueOrThrow({
      where: { id: stored!.id },
    });
    expect(fromHere).toEqual(fromWorker);
    expect(fromWorker.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(fromWorker.searchText).toContain("driver 580.65");
    expect(createdAt.getTime()).toBe(updatedAt.getTime());
    expect(sortAt).toEqual(new Date(nightly(3, 1234).measured_at as string));
  });
});

describe("judgements of one series under a stream of uploads", () => {
  it("start the one queued behind a running judgement twice its time after it, with every upload of the wait", async () => {
    for (let night = 1; night <= 10; night++) {
      expect((await postRun(jsonRequest("/api/runs", "POST", nightly(night, 1000)), noContext)).status).toBe(201);
    }
    const { seriesId } = await db().run.findFirstOrThrow({ where: { name: "nightly 1" }, select: { seriesId: true } });
    const startedBefore = judgingActivity(seriesId!).started;
    // A lone judgement: nothing runs, so it starts at once and leaves nothing to pace by.
    await judgeStoredSeries(seriesId!);
    expect(judgingActivity(seriesId!)).toMatchObject({ running: false, lastMs: null, started: startedBefore + 1 });

    let firstDone = false;
    const first = judgeStoredSeries(seriesId!).finally(() => {
      firstDone = true;
    });
    // Turn by turn (judging lets the event loop go between its steps) until the first is seen running.
    while (!judgingActivity(seriesId!).running && !firstDone) await new Promise((resolve) => setImmediate(resolve));
    expect(firstDone).toBe(false);
    // Asked while the first runs: one judgement queued behind it, which the next three requests join.
    const queued = [1, 2, 3, 4].map(() => judgeStoredSeries(seriesId!));
    await first;
    const firstEnded = performance.now();
    const firstMs = judgingActivity(seriesId!).lastMs;
    expect(firstMs).toBeGreaterThan(0);
    await Promise.all(queued);
    const pacedMs = performance.now() - firstEnded;
    expect(pacedMs).toBeGreaterThanOrEqual(Math.min(firstMs! * JUDGE_PACE, JUDGE_PACE_MAX_WAIT_MS) - 1);
    // The first and one queued judgement for the five requests.
    expect(judgingActivity(seriesId!)).toMatchObject({ running: false, lastMs: null, started: startedBefore + 3 });
  });
});
