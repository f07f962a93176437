/**
 * Applies prisma/migrations/<name>/migration.sql in order and records each in `_prisma_migrations`, the
 * table Prisma's own CLI keeps, so the database stays readable by Prisma tooling. Prisma's migrate command
 * needs a native engine that cannot be downloaded on offline machines; the SQL files are the same either way.
 */
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: string | null;
}

function listMigrations(dir: string): { name: string; sql: string; checksum: string }[] {
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
    return result;
  } finally {
    database.close();
  }
}
