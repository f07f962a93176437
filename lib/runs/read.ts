/**
 * Reading runs whole: one run, runs by id, every run. A stored row becomes the run's document (documentOf).
 */

import { db } from "@/lib/db/client";
import type { RunDocument } from "@/lib/document/normalize";
import { RUN_FORMAT } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { notFoundError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { yieldToEventLoop } from "./event-loop";
import { POINT_NUMBER_KEYS, type PointRow, parseJson, rowToPoint } from "./point-rows";

type RunRowWithPoints = Omit<Prisma.RunGetPayload<{ include: { tags: true; points: true } }>, "points"> & {
  points: PointRow[];
};

export function documentOf(row: RunRowWithPoints): StoredRun {
  const doc: StoredRun = {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    source_format: row.sourceFormat,
    format: RUN_FORMAT,
    name: row.name,
    engine: row.engine,
    model: row.model,
    flags: parseJson(row.flagsJson) ?? {},
    env: parseJson(row.envJson) ?? {},
    tags: row.tags.map((tag) => tag.tag).sort(),
    metadata: parseJson(row.metadataJson) ?? {},
    warnings: parseJson(row.warningsJson) ?? [],
    not_imported: parseJson(row.notImportedJson) ?? [],
    results: [...row.points].sort((a, b) => a.position - b.position).map(rowToPoint),
  };
  if (row.engineVersion !== null) doc.engine_version = row.engineVersion;
  if (row.gpu !== null || row.gpuCount !== null || row.gpuMemoryMib !== null) {
    doc.hardware = {};
    if (row.gpu !== null) doc.hardware.gpu = row.gpu;
    if (row.gpuCount !== null) doc.hardware.gpu_count = row.gpuCount;
    if (row.gpuMemoryMib !== null) doc.hardware.gpu_memory_mib = row.gpuMemoryMib;
  }
  if (row.command !== null) doc.command = row.command;
  const workload = parseJson<RunDocument["workload"]>(row.workloadJson);
  if (workload) doc.workload = workload;
  const speculative = parseJson<RunDocument["speculative"]>(row.speculativeJson);
  if (speculative) doc.speculative = speculative;
  const modelSize = parseJson<RunDocument["model_size"]>(row.modelSizeJson);
  if (modelSize) doc.model_size = modelSize;
  const accuracy = parseJson<RunDocument["accuracy"]>(row.accuracyJson);
  if (accuracy && accuracy.length > 0) doc.accuracy = accuracy;
  if (row.serverStartupS !== null) doc.server_startup_s = row.serverStartupS;
  if (row.notes !== null) doc.notes = row.notes;
  if (row.measuredAt !== null) doc.measured_at = row.measuredAt.toISOString();
  if (row.seriesName !== null) doc.series = row.seriesName;
  if (row.seriesOverride) doc.series_override = true;
  if (row.gitCommit !== null) doc.git_commit = row.gitCommit;
  if (row.gitBranch !== null) doc.git_branch = row.gitBranch;
  if (row.ciUrl !== null) doc.ci_url = row.ciUrl;
  return doc;
}

export async function getRunOrThrow(id: string): Promise<StoredRun> {
  const row = await db().run.findUnique({ where: { id }, include: { tags: true, points: true } });
  if (!row) throw notFoundError(`Run "${id}"`);
  return documentOf(row);
}

export interface GetRunsOptions {
  /**
   * Leave out each point's per-request rows (`requests`): a comparison charts the points' figures and would
   * otherwise load, and send to the browser, thousands of rows per run for nothing.
   */
  withoutRequestDetail?: boolean;
}

/** The columns of a stored point a run's document is made of, for pointRowsOf. */
const POINT_READ_COLUMNS = Prisma.raw(
  ["runId", "position", "concurrency", "request_rate", "request_rate_infinite", "repeat", ...POINT_NUMBER_KEYS]
    .concat(["power_source", "percentilesJson", "sourcesJson"])
    .map((column) => `p."${column}"`)
    .join(", "),
);

/**
 * One run's points, read with SQL and a turn for the event loop before: a comparison of 12 runs of 1,000 levels
 * read through Prisma's relation took ~600 ms of this thread in one piece (its rows mapped value by value), these
 * ~15 ms a run.
 */
async function pointRowsOf(runId: string, withRequests: boolean): Promise<PointRow[]> {
  await yieldToEventLoop();
  const requests = withRequests ? Prisma.sql`, p."requestsJson"` : Prisma.empty;
  const rows = await db().$queryRaw<Record<string, unknown>[]>`
    SELECT ${POINT_READ_COLUMNS}${requests} FROM "ResultPoint" p WHERE p."runId" = ${runId} ORDER BY p."position"`;
  return rows.map((row) => {
    // Counts may come back as bigint, SQLite's booleans as 0 or 1: as Prisma's own read gives them.
    for (const [key, value] of Object.entries(row)) if (typeof value === "bigint") row[key] = Number(value);
    row.request_rate_infinite = row.request_rate_infinite === true || row.request_rate_infinite === 1;
    return row as unknown as PointRow;
  });
}

/** Runs by id, in the order asked for; unknown ids are returned separately so a page can say which. */
export async function getRunsByIds(
  ids: readonly string[],
  options: GetRunsOptions = {},
): Promise<{ runs: StoredRun[]; missing: string[] }> {
  const rows = await db().run.findMany({ where: { id: { in: [...ids] } }, include: { tags: true } });
  const byId = new Map<string, StoredRun>();
  for (const [index, row] of rows.entries()) {
    // A turn for other requests between runs: 12 runs of 1,000 levels are ~12,000 rows read on SQLite's thread.
    if (index > 0) await yieldToEventLoop();
    byId.set(row.id, documentOf({ ...row, points: await pointRowsOf(row.id, !options.withoutRequestDetail) }));
  }
  const runs: StoredRun[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const run = byId.get(id);
    if (run) runs.push(run);
    else missing.push(id);
  }
  return { runs, missing };
}

/** Every run as a document, oldest first, fetched a page at a time so memory stays flat however many there are. */
export async function* allRunDocuments(pageSize = 200): AsyncGenerator<StoredRun> {
  let cursor: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const rows: RunRowWithPoints[] = await db().run.findMany({
      where: cursor
        ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] }
        : {},
      include: { tags: true, points: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: pageSize,
    });
    for (const row of rows) yield documentOf(row);
    const last = rows[rows.length - 1];
    if (!last || rows.length < pageSize) return;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}
