/**
 * The benchmark's runs written straight into PostgreSQL: the very rows scripts/bench/seed.ts writes into SQLite
 * (runRow, pointRow), sent a few thousand at a time as one array per column (`INSERT … SELECT * FROM unnest(…)`),
 * each cast to the column's type as the migrated table declares it. The benchmark then checks that both servers
 * answer the same runs with the same documents (run.ts), so the two databases hold the same history.
 */
import pg from "pg";
import { migratePostgresql } from "@/lib/db/migrate";
import { POINT_COLUMNS, type Row, RUN_COLUMNS, type RunRows, rowsOf, type SeedRun } from "./seed";

async function columnTypes(client: pg.Client, table: string): Promise<Map<string, string>> {
  const rows = (
    await client.query<{ column_name: string; type: string }>(
      `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
      [`"${table}"`],
    )
  ).rows;
  return new Map(rows.map((row) => [row.column_name, row.type]));
}

function inserter(client: pg.Client, table: string, columns: readonly string[], types: Map<string, string>) {
  const missing = columns.filter((column) => !types.has(column));
  if (missing.length > 0) throw new Error(`Table ${table} has no column ${missing.join(", ")}: update scripts/bench`);
  const casts = columns.map((column, index) => `$${index + 1}::${types.get(column)}[]`);
  const sql = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT * FROM unnest(${casts.join(", ")})`;
  return async (rows: readonly Row[]) => {
    if (rows.length === 0) return;
    const arrays = columns.map((column) => {
      const type = types.get(column);
      return rows.map((row) => {
        const value = row[column] ?? null;
        // SQLite's rows carry booleans as 0/1 and dates as ISO text with +00:00: the casts take the text as UTC.
        if (value !== null && type === "boolean") return value === 1 || value === "1";
        return value;
      });
    });
    await client.query(sql, arrays);
  };
}

/**
 * Inserts of runs' rows into a migrated PostgreSQL database, in createRun's order (each series once, before the
 * first of its runs, then the runs, their points, their tags), one statement per table for all the runs given;
 * the caller holds the transaction. Every index and trigger does its work unless the caller dropped or disabled it
 * (writePostgresql's bulk load).
 */
export async function postgresqlRunInserter(client: pg.Client): Promise<(runs: readonly RunRows[]) => Promise<void>> {
  const insertRuns = inserter(client, "Run", RUN_COLUMNS, await columnTypes(client, "Run"));
  const insertPoints = inserter(client, "ResultPoint", POINT_COLUMNS, await columnTypes(client, "ResultPoint"));
  const insertTags = inserter(client, "RunTag", ["runId", "tag"], await columnTypes(client, "RunTag"));
  const insertSeries = inserter(
    client,
    "Series",
    ["id", "key", "name", "explicit", "createdAt"],
    await columnTypes(client, "Series"),
  );
  // Each series once, before the first of its runs (Run.seriesId references it).
  const seriesSeen = new Set<string>();
  return async (runs) => {
    const series: Row[] = [];
    for (const rows of runs) {
      if (seriesSeen.has(String(rows.series.id))) continue;
      seriesSeen.add(String(rows.series.id));
      series.push(rows.series);
    }
    await insertSeries(series);
    await insertRuns(runs.map((rows) => rows.run));
    await insertPoints(runs.flatMap((rows) => rows.points));
    await insertTags(runs.flatMap((rows) => rows.tags));
  };
}

/** Create the database's tables with the real migrations and insert the runs, committing every few thousand. */
export async function writePostgresql(url: string, runs: Iterable<SeedRun>): Promise<void> {
  await migratePostgresql(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const insertRows = await postgresqlRunInserter(client);
    // A bulk load: indexes are built once at the end and the run total set once, instead of per row.
    const indexes = (
      await client.query<{ indexdef: string; indexname: string }>(
        `SELECT indexname, indexdef FROM pg_indexes i WHERE schemaname = current_schema()
           AND tablename IN ('Run', 'ResultPoint', 'RunTag')
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
      )
    ).rows;
    for (const index of indexes) await client.query(`DROP INDEX "${index.indexname}"`);
    await client.query(`ALTER TABLE "Run" DISABLE TRIGGER "Run_total_after_insert"`);
    const flush = async (batch: SeedRun[]) => {
      await client.query("BEGIN");
      await insertRows(batch.map(rowsOf));
      await client.query("COMMIT");
    };
    let batch: SeedRun[] = [];
    for (const run of runs) {
      batch.push(run);
      if (batch.length === 2_000) {
        await flush(batch);
        batch = [];
      }
    }
    await flush(batch);
    await client.query(`UPDATE "RunTotal" SET "runs" = (SELECT count(*) FROM "Run") WHERE "id" = 1`);
    await client.query(`ALTER TABLE "Run" ENABLE TRIGGER "Run_total_after_insert"`);
    await client.query("SET maintenance_work_mem = '512MB'");
    for (const index of indexes) await client.query(index.indexdef);
    // What autovacuum would do after a bulk load: statistics for the planner, a visibility map for index-only scans.
    await client.query('VACUUM ANALYZE "Run", "ResultPoint", "RunTag", "RunTotal"');
  } finally {
    await client.end();
  }
}
