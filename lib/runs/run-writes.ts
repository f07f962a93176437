/**
 * Writing a batch of runs (their series, rows, tags and points) in one transaction, and the lookups that come
 * before it, at the database's own speed: on SQLite straight on the connection with statements prepared once
 * (lib/db/sqlite-writes.ts), on PostgreSQL as one statement a table for the whole batch (lib/db/row-inserts.ts).
 */
import { db } from "@/lib/db/client";
import type { RowsTable } from "@/lib/db/row-inserts";
import { prepared, sqliteRead, sqliteValue, sqliteWrite } from "@/lib/db/sqlite-writes";
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
  const written = await sqliteWrite((connection) => {
    for (const [sql, rows] of [
      [SQLITE_INSERTS.series, series],
      [SQLITE_INSERTS.run, runs],
      [SQLITE_INSERTS.tag, tags],
      [SQLITE_INSERTS.point, points],
    ] as const) {
      const statement = prepared(connection, sql);
      for (const row of rows) statement.run(row.map(sqliteValue));
    }
  });
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
