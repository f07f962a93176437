/**
 * Fills in `Run.searchPairs` (lib/runs/search-pairs.ts) for runs stored before it existed, or by an older app
 * instance during an upgrade: part of every migrate, after the migrations, in batches so that a large history
 * never holds one long transaction. The pairs are a function of the stored search text alone. Until every run has
 * them the search does not ask the pair index (lib/runs/queries.ts), so a run is never missed meanwhile.
 */
import type Database from "better-sqlite3";
import type pg from "pg";
import { searchPairsOf } from "@/lib/runs/search-pairs";

/** Runs per transaction: ~20 ms of work each, so writers from the app wait little for the lock. */
const BATCH_RUNS = 1_000;

/**
 * SQLite: fill every missing run's pairs; how many were filled. A database migrated only up to before the column
 * (an older set of migrations) has nothing to fill.
 */
export function fillSearchPairsSqlite(database: Database.Database): number {
  const columns = database.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('Run')`).all();
  if (!columns.some((column) => column.name === "searchPairs")) return 0;
  const missing = database.prepare<[number], { rowid: number | bigint; text: string }>(
    `SELECT rowid AS rowid, "searchText" AS text FROM "Run" WHERE "searchPairs" IS NULL LIMIT ?`,
  );
  const update = database.prepare<[string, number | bigint]>(
    `UPDATE "Run" SET "searchPairs" = ? WHERE rowid = ? AND "searchPairs" IS NULL`,
  );
  const fill = database.transaction((rows: { rowid: number | bigint; text: string }[]) => {
    for (const row of rows) update.run(searchPairsOf(row.text), row.rowid);
  });
  let filled = 0;
  for (;;) {
    const rows = missing.all(BATCH_RUNS);
    if (rows.length === 0) return filled;
    fill(rows);
    filled += rows.length;
  }
}

/** PostgreSQL: the same, one statement per batch; safe beside instances writing runs (only NULLs are filled). */
export async function fillSearchPairsPostgresql(client: pg.Client): Promise<number> {
  const column = await client.query(
    `SELECT 1 FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'Run' AND column_name = 'searchPairs'`,
  );
  if (column.rows.length === 0) return 0;
  let filled = 0;
  for (;;) {
    const rows = (
      await client.query<{ id: string; text: string }>(
        `SELECT "id" AS id, "searchText" AS text FROM "Run" WHERE "searchPairs" IS NULL LIMIT $1`,
        [BATCH_RUNS],
      )
    ).rows;
    if (rows.length === 0) return filled;
    await client.query(
      `UPDATE "Run" AS r SET "searchPairs" = v.pairs FROM unnest($1::text[], $2::text[]) AS v(id, pairs)
       WHERE r."id" = v.id AND r."searchPairs" IS NULL`,
      [rows.map((row) => row.id), rows.map((row) => searchPairsOf(row.text))],
    );
    filled += rows.length;
  }
}
