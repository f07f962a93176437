/**
 * Judging's direct SQLite reads (lib/series/judging-sqlite.ts) give exactly the rows Prisma's client gives for the
 * same question, on a series with stored changes, an annotation, runs stored by override and accuracy scores; on
 * PostgreSQL they answer null (the callers use Prisma there).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { db, provider } from "@/lib/db/client";
import {
  readChangesAt,
  readChangesOfRuns,
  readLevelCounts,
  readPointsAt,
  readSeriesTail,
} from "@/lib/series/judging-sqlite";
import { loadSeries, RUN_SELECT } from "@/lib/series/load";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { jsonRequest, noContext } from "./helpers";

const docs = nightlyDocuments({ seed: 11, series: "direct reads", flakeAt: null, stepAt: 14, stepEveryFigure: true });
let seriesId = "";
const runIds: string[] = [];

beforeAll(async () => {
  for (const [index, doc] of docs.entries()) {
    // One night stored by override (another GPU): it is in the series but never judged with it.
    const body =
      index === 5
        ? { ...doc, hardware: { gpu: "A100 80GB", gpu_count: 1 }, series_override: true }
        : index === 8
          ? {
              ...doc,
              accuracy: [
                { evaluator: "lm-evaluation-harness", task: "gsm8k", metric: "exact_match", value: 0.81, stderr: 0.01 },
              ],
            }
          : doc;
    const response = await postRun(jsonRequest("/api/runs", "POST", body), noContext);
    expect(response.status).toBe(201);
    runIds.push(((await response.json()) as { id: string }).id);
  }
  const run = await db().run.findUniqueOrThrow({ where: { id: runIds[0]! }, select: { seriesId: true } });
  seriesId = run.seriesId!;
  await db().seriesAnnotation.create({
    data: { id: "annot00001", seriesId, runId: runIds[3]!, note: "driver update", createdAt: new Date() },
  });
});

// On PostgreSQL every direct read answers null (the callers read through Prisma there), and loadSeries, which
// reads through Prisma, must give the same series.
const onSqlite = provider() === "sqlite";

describe("judging's direct reads", () => {
  it("read the series, its newest runs (override runs left out) and its annotations as Prisma does", async () => {
    const tail = await readSeriesTail(seriesId, 12);
    if (!onSqlite) return expect(tail).toBeNull();
    expect(tail).not.toBeNull();
    expect(tail!.row).toEqual(await db().series.findUnique({ where: { id: seriesId } }));
    const expected = await db().run.findMany({
      where: { seriesId, seriesOverride: false },
      select: RUN_SELECT,
      orderBy: [{ sortAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
      take: 12,
    });
    expect(tail!.runRows).toEqual(expected);
    expect(tail!.runRows).toHaveLength(12);
    expect(tail!.runRows[0]!.sortAt).toBeInstanceOf(Date);
    expect(typeof tail!.runRows[0]!.gpuCount).toBe("number");
    expect(tail!.annotatedRunIds).toEqual([runIds[3]]);
    // The whole series: 30 nights, one stored by override.
    const all = await readSeriesTail(seriesId, 200);
    expect(all!.runRows.map((row) => row.id)).not.toContain(runIds[5]);
    expect(all!.runRows).toHaveLength(29);
    expect(all!.runRows.find((row) => row.id === runIds[8])!.accuracyJson).toContain("gsm8k");
  });

  it("answer a missing series with no row", async () => {
    expect(await readSeriesTail("nosuchone0", 10)).toEqual(
      onSqlite ? { row: null, runRows: [], annotatedRunIds: [] } : null,
    );
  });

  it("count the levels and read the points at one as the raw queries do", async () => {
    const counts = await readLevelCounts(runIds);
    if (!onSqlite) return expect(counts).toBeNull();
    const byLevel = new Map(counts!.map((row) => [Number(row.concurrency), Number(row.points)]));
    const expected = await db().resultPoint.groupBy({
      by: ["concurrency"],
      where: { runId: { in: runIds } },
      _count: true,
    });
    expect(byLevel).toEqual(new Map(expected.map((row) => [row.concurrency, row._count])));
    const points = await readPointsAt(runIds, `p."output_throughput", p."mean_tpot_ms"`, {
      sql: `p."concurrency" = ?`,
      parameters: [64],
    });
    const stored = await db().resultPoint.findMany({
      where: { runId: { in: runIds }, concurrency: 64 },
      select: { runId: true, output_throughput: true, mean_tpot_ms: true },
      orderBy: [{ runId: "asc" }, { position: "asc" }],
    });
    expect(points).toEqual(stored);
    expect(points).toHaveLength(30);
  });

  it("read the stored changes of runs, and those at repeat groups, with their runs, as Prisma does", async () => {
    const stepRun = runIds[14]!;
    const changes = await readChangesOfRuns(seriesId, [stepRun, runIds[20]!]);
    if (!onSqlite) return expect([changes, await readChangesAt(seriesId, ["x"])]).toEqual([null, null]);
    const expected = await db().seriesChange.findMany({
      where: { seriesId, runs: { some: { runId: { in: [stepRun, runIds[20]!] } } } },
      include: { runs: { select: { runId: true } } },
      orderBy: { detectedAt: "asc" },
    });
    expect(expected.length).toBeGreaterThan(0);
    const sortRuns = (rows: typeof expected) =>
      rows
        .map((row) => ({ ...row, runs: row.runs.map((link) => link.runId).sort() }))
        .sort((a, b) => a.detectedAt.getTime() - b.detectedAt.getTime() || a.id.localeCompare(b.id));
    expect(sortRuns(changes!)).toEqual(sortRuns(expected));
    expect(changes![0]!.detectedAt).toBeInstanceOf(Date);
    expect(typeof changes![0]!.active).toBe("boolean");
    const groups = [...new Set(expected.map((row) => row.startGroup))];
    const atGroups = await readChangesAt(seriesId, groups);
    const expectedAt = await db().seriesChange.findMany({
      where: { seriesId, startGroup: { in: groups } },
      include: { runs: { select: { runId: true } } },
    });
    expect(sortRuns(atGroups!)).toEqual(sortRuns(expectedAt));
    expect(await readChangesAt(seriesId, ["no such group"])).toEqual([]);
  });

  it("load the series its page and judging read: the annotation restarts the baseline", async () => {
    const loaded = await loadSeries(seriesId, 200);
    expect(loaded.runs).toHaveLength(29);
    expect(loaded.resetRunIds).toEqual(new Set([runIds[3]]));
    expect(loaded.level).toBe("c:64");
    expect(loaded.accuracyMetrics.map((metric) => metric.key)).toHaveLength(1);
  });
});
