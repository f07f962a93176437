/**
 * Fills in `Run.searchPairs` and `Run.searchTriples` (lib/document/search-pairs.ts) for runs stored before those
 * existed, or by an older app instance during an upgrade: part of every migrate, after the migrations, in batches
 * so that a large history never holds one long transaction. Both are a function of the stored search text alone.
 * Until every run has them the search does not ask their index (lib/runs/search.ts), so a run is never missed
 * meanwhile.
 */
import type Database from "better-sqlite3";
import type pg from "pg";
import { searchPairsOf, searchTriplesOf } from "@/lib/document/search-pairs";

/** Runs per transaction: ~20 ms of work each, so writers from the app wait little for the lock. */
const BATCH_RUNS = 1_000;

/** The word-sequence columns, each filled on its own (its own index's trigger fires only for it). */
const WORD_COLUMNS = [
  { column: "searchPairs", tokensOfText: searchPairsOf },
  { column: "searchTriples", tokensOfText: searchTriplesOf },
] as const;

/** How many runs had each column filled in. */
export interface WordColumnsFilled {
  pairs: number;
  triples: number;
}

function filledOf(counts: readonly number[]): WordColumnsFilled {
  return { pairs: counts[0] ?? 0, triples: counts[1] ?? 0 };
}

/**
 * SQLite: fill every missing run's pairs and triples. A database migrated only up to before a column (an older
 * set of migrations) has nothing to fill in it.
 */
export function fillSearchWordsSqlite(database: Database.Database): WordColumnsFilled {
  const present = new Set(
    database
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('Run')`)
      .all()
      .map((row) => row.name),
  );
  return filledOf(
    WORD_COLUMNS.map(({ column, tokensOfText }) => {
      if (!present.has(column)) return 0;
      const missing = database.prepare<[number], { rowid: number | bigint; text: string }>(
        `SELECT rowid AS rowid, "searchText" AS text FROM "Run" WHERE "${column}" IS NULL LIMIT ?`,
      );
      const update = database.prepare<[string, number | bigint]>(
        `UPDATE "Run" SET "${column}" = ? WHERE rowid = ? AND "${column}" IS NULL`,
      );
      const fill = database.transaction((rows: { rowid: number | bigint; text: string }[]) => {
        for (const row of rows) update.run(tokensOfText(row.text), row.rowid);
      });
      let filled = 0;
      for (;;) {
        const rows = missing.all(BATCH_RUNS);
        if (rows.length === 0) return filled;
        fill(rows);
        filled += rows.length;
      }
    }),
  );
}

/** PostgreSQL: the same, one statement per batch; safe beside instances writing runs (only NULLs are filled). */
export async function fillSearchWordsPostgresql(client: pg.Client): Promise<WordColumnsFilled> {
  const present = new Set(
    (
      await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'Run'`,
      )
    ).rows.map((row) => row.name),
  );
  const counts: number[] = [];
  for (const { column, tokensOfText } of WORD_COLUMNS) {
    let filled = 0;
    while (present.has(column)) {
      const rows = (
        await client.query<{ id: string; text: string }>(
          `SELECT "id" AS id, "searchText" AS text FROM "Run" WHERE "${column}" IS NULL LIMIT $1`,
          [BATCH_RUNS],
        )
      ).rows;
      if (rows.length === 0) break;
      await client.query(
        `UPDATE "Run" AS r SET "${column}" = v.tokens FROM unnest($1::text[], $2::text[]) AS v(id, tokens)
         WHERE r."id" = v.id AND r."${column}" IS NULL`,
        [rows.map((row) => row.id), rows.map((row) => tokensOfText(row.text))],
      );
      filled += rows.length;
    }
    counts.push(filled);
  }
  return filledOf(counts);
}
