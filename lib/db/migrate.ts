/**
 * Applies the committed migrations in order and records each in `_prisma_migrations`, the table Prisma's own CLI
 * keeps, so the database stays readable by Prisma tooling. Prisma's migrate command needs a native engine that
 * cannot be downloaded on offline machines; the SQL files are the same either way.
 *
 * SQLite: prisma/migrations/<name>/migration.sql. PostgreSQL: prisma/postgresql/migrations/<name>/migration.sql,
 * applied under the advisory lock Prisma's CLI takes, so app instances starting together (or the CLI) apply each
 * migration once: the others wait, then find it applied. Each migration runs in a transaction on both.
 */
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type DatabaseTarget, describeDatabase } from "@/lib/env";
import { migrationsDirOf } from "./schema-files";
import { fillSearchWordsPostgresql, fillSearchWordsSqlite, type WordColumnsFilled } from "./search-pairs-backfill";

export const MIGRATIONS_DIR = migrationsDirOf("sqlite");
export const POSTGRESQL_MIGRATIONS_DIR = migrationsDirOf("postgresql");

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
  /** Runs whose word pairs were filled in (lib/db/search-pairs-backfill.ts); absent when there were none. */
  searchPairsFilled?: number;
  /** Runs whose word triples were filled in; absent when there were none. */
  searchTriplesFilled?: number;
}

function noteFilled(result: MigrationResult, filled: WordColumnsFilled): void {
  if (filled.pairs > 0) result.searchPairsFilled = filled.pairs;
  if (filled.triples > 0) result.searchTriplesFilled = filled.triples;
}

/** What a migrate filled in, for its log line: "" when nothing. */
export function describeFilled(result: MigrationResult): string {
  const parts = [
    result.searchPairsFilled ? `search word pairs filled in for ${result.searchPairsFilled} run(s)` : null,
    result.searchTriplesFilled ? `search word triples filled in for ${result.searchTriplesFilled} run(s)` : null,
  ].filter((part) => part !== null);
  return parts.length === 0 ? "" : `; ${parts.join(", ")}`;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: string | null;
}

export function listMigrations(dir: string): { name: string; sql: string; checksum: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export function migrateDatabase(file: string, migrationsDir: string = MIGRATIONS_DIR): MigrationResult {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new Database(file);
  try {
    // WAL lets readers and one writer work at once; it is a property of the file, set once here.
    database.pragma("journal_mode = WAL");
    database.pragma("foreign_keys = ON");
    database.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    const rows = database
      .prepare(`SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`)
      .all() as AppliedRow[];
    const applied = new Map(rows.filter((row) => row.finished_at !== null).map((row) => [row.migration_name, row]));

    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of listMigrations(migrationsDir)) {
      const done = applied.get(migration.name);
      if (done) {
        if (done.checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.name} was changed after it was applied to ${file}. ` +
              "Add a new migration instead of editing an applied one.",
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      const startedAt = new Date().toISOString();
      database.transaction(() => {
        database.exec(migration.sql);
        database
          .prepare(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
             VALUES (?, ?, ?, ?, ?, 1)`,
          )
          .run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, startedAt);
      })();
      result.applied.push(migration.name);
    }
    noteFilled(result, fillSearchWordsSqlite(database));
    return result;
  } finally {
    database.close();
  }
}

/** The key of the advisory lock Prisma's CLI holds while it migrates a PostgreSQL database: we hold the same one. */
const PRISMA_MIGRATE_LOCK_KEY = 72_707_369;

/** Connection settings for scripts: the URL, and a clear failure instead of a long hang when nobody answers. */
export function postgresqlClientConfig(url: string): pg.ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: 10_000 };
}

/** Create or upgrade the PostgreSQL database at `url`; safe to run from several processes at once. */
export async function migratePostgresql(
  url: string,
  migrationsDir: string = POSTGRESQL_MIGRATIONS_DIR,
): Promise<MigrationResult> {
  const client = new pg.Client(postgresqlClientConfig(url));
  await client.connect();
  try {
    // Held until released below or the connection closes: a crashed migrator never leaves it taken.
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const rows = (
      await client.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
      )
    ).rows;
    const applied = new Map(rows.filter((row) => row.finished_at !== null).map((row) => [row.migration_name, row]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of listMigrations(migrationsDir)) {
      const done = applied.get(migration.name);
      if (done) {
        if (done.checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.name} was changed after it was applied to the PostgreSQL database. ` +
              "Add a new migration instead of editing an applied one.",
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      const startedAt = new Date();
      await client.query("BEGIN");
      try {
        // No parameters: the simple query protocol, which runs every statement of the file.
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(
          `Migration ${migration.name} failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      result.applied.push(migration.name);
    }
    // Still under the lock: instances starting together fill the pairs and triples once.
    noteFilled(result, await fillSearchWordsPostgresql(client));
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    return result;
  } finally {
    await client.end();
  }
}

/** Create or upgrade whichever database the target names. */
export async function migrate(target: DatabaseTarget): Promise<MigrationResult> {
  try {
    return target.provider === "sqlite" ? migrateDatabase(target.file) : await migratePostgresql(target.url);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    if (
      target.provider === "postgresql" &&
      typeof code === "string" &&
      /^(ECONN|ENOTFOUND|ETIMEDOUT|EAI_)/.test(code)
    ) {
      throw new Error(`Could not reach ${describeDatabase(target)} (${code}): is the server running and reachable?`);
    }
    if (target.provider === "postgresql" && /timeout/i.test(message) && !message.startsWith("Migration ")) {
      throw new Error(`Could not reach ${describeDatabase(target)}: ${message}`);
    }
    throw error;
  }
}
