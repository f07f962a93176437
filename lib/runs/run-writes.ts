/**
 * Writing a batch of runs (their series, rows, tags and points) in one transaction, and the lookups that come
 * before it, at the database's own speed: on SQLite with statements prepared once, on the writer thread's
 * connection (lib/db/sqlite-writer.ts), so the server's thread goes on while SQLite works; on PostgreSQL as one
 * statement a table for the whole batch (lib/db/row-inserts.ts).
 */
import { db } from "@/lib/db/client";
import type { RowsTable } from "@/lib/db/row-inserts";
import { writeRowsOnWriter } from "@/lib/db/sqlite-writer";
import { sqliteRead, sqliteValue } from "@/lib/db/sqlite-writes";
import { POINT_TABLE, pointRowsOf } from "./point-inserts";
import {
  batchStatements,
  RUN_TABLE,
  type RunCreate,
  runRowValues,
  SERIES_TABLE,
  seriesRowsOf,
  TAG_TABLE,
} from "./run-rows";

/** `INSERT … VALUES (?, …)` for one row of a table, each column's lookup (seriesId) applied to its placeholder. */
function insertText(spec: RowsTable): string {
  const columns = spec.columns.map((column) => `"${column.name}"`).join(", ");
  const values = spec.columns.map((column) => (column.select ? column.select("?") : "?")).join(", ");
  const conflict = spec.ignoreConflictOn
    ? ` ON CONFLICT (${spec.ignoreConflictOn.map((name) => `"${name}"`).join(", ")}) DO NOTHING`
    : "";
  return `INSERT INTO "${spec.table}" (${columns}) VALUES (${values})${conflict}`;
}

const SQLITE_INSERTS = {
  series: insertText(SERIES_TABLE),
  run: insertText(RUN_TABLE),
  tag: insertText(TAG_TABLE),
  point: insertText(POINT_TABLE),
};

/**
 * Store the runs, all of them or none, in one transaction. Throws what the database throws: a unique key broken
 * (isUniqueViolation), busy, full or read-only (lib/db/database-errors.ts, lib/db/storage.ts).
 */
export async function writeRunBatch(creates: readonly RunCreate[]): Promise<void> {
  if (creates.length === 0) return;
  const series = seriesRowsOf(creates);
  const runs = creates.map(runRowValues);
  const tags = creates.flatMap((create) => create.document.tags.map((tag) => [create.id, tag]));
  const points = pointRowsOf(creates.map((create) => ({ runId: create.id, results: create.document.results })));
  const sqliteRows = (rows: readonly (readonly unknown[])[]) => rows.map((row) => row.map(sqliteValue));
  const written = await writeRowsOnWriter([
    { sql: SQLITE_INSERTS.series, rows: sqliteRows(series) },
    { sql: SQLITE_INSERTS.run, rows: sqliteRows(runs) },
    { sql: SQLITE_INSERTS.tag, rows: sqliteRows(tags) },
    { sql: SQLITE_INSERTS.point, rows: sqliteRows(points) },
  ]);
  if (written) return;
  await db().$transaction(batchStatements(creates));
}

export interface HashedRun {
  id: string;
  name: string;
  contentHash: string | null;
}

/** The stored runs that have any of these content hashes. */
export async function runsWithHashes(hashes: readonly string[]): Promise<HashedRun[]> {
  if (hashes.length === 0) return [];
  const rows = await sqliteRead<HashedRun>(
    `SELECT "id", "name", "contentHash" FROM "Run" WHERE "contentHash" IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(hashes)],
  );
  return (
    rows ??
    db().run.findMany({
      where: { contentHash: { in: [...hashes] } },
      select: { id: true, name: true, contentHash: true },
    })
  );
}

/** Which of these run ids are stored. */
export async function storedRunIds(ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows =
    (await sqliteRead<{ id: string }>(`SELECT "id" FROM "Run" WHERE "id" IN (SELECT value FROM json_each(?))`, [
      JSON.stringify(ids),
    ])) ?? (await db().run.findMany({ where: { id: { in: [...ids] } }, select: { id: true } }));
  return new Set(rows.map((row) => row.id));
}
