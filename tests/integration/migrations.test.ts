/**
 * The committed migrations are the database's only definition at run time; these tests hold them to the
 * Prisma schema the client was generated from, and check how they are applied (SQLite; the PostgreSQL folder is
 * held to these tables by postgresql-migrations.test.ts). And every SQLite migration has its PostgreSQL
 * counterpart: this runs wherever the suite runs, PostgreSQL installed or not.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { counterparts, missingCounterparts } from "@/lib/db/counterpart-files";
import { MIGRATIONS_DIR, migrateDatabase, POSTGRESQL_MIGRATIONS_DIR } from "@/lib/db/migrate";
import { searchPairsOf, searchTriplesOf, wordsToken } from "@/lib/document/search-pairs";
import { Prisma } from "@/lib/generated/prisma/client";

const dirs: string[] = [];
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-migrate-"));
  dirs.push(dir);
  return path.join(dir, "db.sqlite");
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const MODELS = {
  Run: Prisma.RunScalarFieldEnum,
  ResultPoint: Prisma.ResultPointScalarFieldEnum,
  RunTag: Prisma.RunTagScalarFieldEnum,
  Series: Prisma.SeriesScalarFieldEnum,
  SeriesChange: Prisma.SeriesChangeScalarFieldEnum,
  SeriesChangeRun: Prisma.SeriesChangeRunScalarFieldEnum,
  SeriesAnnotation: Prisma.SeriesAnnotationScalarFieldEnum,
  WebhookDelivery: Prisma.WebhookDeliveryScalarFieldEnum,
  WebhookAttempt: Prisma.WebhookAttemptScalarFieldEnum,
  RunTotal: Prisma.RunTotalScalarFieldEnum,
  RestoreJob: Prisma.RestoreJobScalarFieldEnum,
  RestoreJobPart: Prisma.RestoreJobPartScalarFieldEnum,
} as const;

describe("the PostgreSQL migrations", () => {
  it("have a counterpart for every SQLite migration", () => {
    const missing = missingCounterparts(MIGRATIONS_DIR, POSTGRESQL_MIGRATIONS_DIR);
    if (missing.length > 0) {
      throw new Error(
        `SQLite migration(s) without a PostgreSQL counterpart: ${missing.join(", ")}. ` +
          "Run `npm run db:counterparts`, review prisma/postgresql/migrations/<name>/migration.sql " +
          '(docs/development.md, "Database and migrations"), and commit it with the SQLite one.',
      );
    }
    expect(missing).toEqual([]);
  });

  it("each name the SQLite migrations they stand for, and no SQLite migration twice", () => {
    const named = [...counterparts(POSTGRESQL_MIGRATIONS_DIR)];
    expect(named.length).toBeGreaterThan(0);
    for (const [name, covers] of named) expect({ name, covers: covers.length > 0 }).toEqual({ name, covers: true });
    const all = named.flatMap(([, covers]) => covers);
    expect(all.length).toBe(new Set(all).size);
    const sqlite = fs
      .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(all.filter((name) => !sqlite.includes(name))).toEqual([]);
  });
});

describe("migrations", () => {
  it("create exactly the tables and columns of prisma/schema.prisma", () => {
    const file = tempFile();
    migrateDatabase(file);
    const database = new Database(file, { readonly: true });
    const tables = (
      database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    )
      .map((row) => row.name)
      // SQLite's own, and the FTS5 search indexes with their shadow tables (history_at_scale, search_pairs).
      .filter(
        (name) =>
          name !== "sqlite_sequence" &&
          !name.startsWith("RunSearch") &&
          !name.startsWith("RunPairs") &&
          !name.startsWith("RunTriples"),
      );
    expect(tables).toEqual([
      "Comparison",
      "RestoreJob",
      "RestoreJobPart",
      "ResultPoint",
      "Run",
      "RunTag",
      "RunTotal",
      "Series",
      "SeriesAnnotation",
      "SeriesChange",
      "SeriesChangeRun",
      "WebhookAttempt",
      "WebhookDelivery",
      "_prisma_migrations",
    ]);
    for (const [model, fields] of Object.entries(MODELS)) {
      const columns = (database.prepare(`PRAGMA table_info("${model}")`).all() as { name: string }[]).map(
        (row) => row.name,
      );
      expect(columns.sort()).toEqual(Object.values(fields).sort());
    }
    database.close();
  });

  it("record each applied migration as Prisma does, in WAL mode, and apply nothing twice", () => {
    const file = tempFile();
    const names = fs
      .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(migrateDatabase(file)).toEqual({ applied: names, alreadyApplied: [] });
    expect(migrateDatabase(file)).toEqual({ applied: [], alreadyApplied: names });
    const database = new Database(file, { readonly: true });
    const rows = database
      .prepare('SELECT migration_name, finished_at, applied_steps_count FROM "_prisma_migrations"')
      .all() as {
      migration_name: string;
      finished_at: string | null;
      applied_steps_count: number;
    }[];
    expect(rows.map((row) => row.migration_name)).toEqual(names);
    expect(rows.every((row) => row.finished_at !== null && row.applied_steps_count === 1)).toBe(true);
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
    database.close();
  });

  it("refuse a migration that was edited after it was applied", () => {
    const file = tempFile();
    const copy = path.join(path.dirname(file), "migrations");
    fs.cpSync(MIGRATIONS_DIR, copy, { recursive: true });
    migrateDatabase(file, copy);
    const first = fs
      .readdirSync(copy, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()[0]!;
    fs.appendFileSync(path.join(copy, first, "migration.sql"), "\n-- edited\n");
    expect(() => migrateDatabase(file, copy)).toThrow(`Migration ${first} was changed after it was applied`);
  });

  it("roll back a migration that fails, leaving no record of it", () => {
    const file = tempFile();
    const copy = path.join(path.dirname(file), "migrations");
    fs.cpSync(MIGRATIONS_DIR, copy, { recursive: true });
    fs.mkdirSync(path.join(copy, "99999999999999_broken"));
    fs.writeFileSync(
      path.join(copy, "99999999999999_broken", "migration.sql"),
      'CREATE TABLE "Half" ("id" TEXT);\nNOT SQL;',
    );
    expect(() => migrateDatabase(file, copy)).toThrow();
    const database = new Database(file, { readonly: true });
    const half = database.prepare("SELECT name FROM sqlite_master WHERE name = 'Half'").all();
    const recorded = database
      .prepare(`SELECT migration_name FROM "_prisma_migrations" WHERE migration_name = '99999999999999_broken'`)
      .all();
    expect(half).toEqual([]);
    expect(recorded).toEqual([]);
    database.close();
  });

  /**
   * A database of the version before `migration`: the migrations up to it, in a folder of their own, and 1,200 runs
   * written as that version wrote them (with word pairs when it had them).
   */
  function olderHistory(migration: string, withPairs: boolean): string {
    const file = tempFile();
    const older = path.join(path.dirname(file), "older-migrations");
    for (const name of fs.readdirSync(MIGRATIONS_DIR)) {
      if (name.startsWith("2026") && name < migration) {
        fs.cpSync(path.join(MIGRATIONS_DIR, name), path.join(older, name), { recursive: true });
      }
    }
    const first = migrateDatabase(file, older);
    expect([first.searchPairsFilled, first.searchTriplesFilled]).toEqual([undefined, undefined]);
    const before = new Database(file);
    const insert = before.prepare(
      `INSERT INTO "Run" (id, name, engine, model, flagsJson, envJson, metadataJson, sourceFormat, createdAt, updatedAt,
         sortAt, searchText, singleStreamDerived, pointCount${withPairs ? ", searchPairs" : ""})
       VALUES (?, ?, 'vllm', 'm', '{}', '{}', '{}', 'servebench/v1', ?, ?, ?, ?, 0, 0${withPairs ? ", ?" : ""})`,
    );
    for (let index = 0; index < 1_200; index += 1) {
      const name = `old run ${index} · h100 ×8`;
      const text = `${name}\nvllm\nm\n\n`;
      insert.run(`old${index}`, name, index, index, index, text, ...(withPairs ? [searchPairsOf(text)] : []));
    }
    before.close();
    return file;
  }

  /** Every run's pairs and triples are those of its text; both indexes hold them all and stay whole after deletes. */
  function expectWordIndexesWhole(file: string): void {
    const database = new Database(file);
    const rows = database
      .prepare(`SELECT "searchText" AS text, "searchPairs" AS pairs, "searchTriples" AS triples FROM "Run"`)
      .all() as { text: string; pairs: string | null; triples: string | null }[];
    expect(rows).toHaveLength(1_200);
    expect(rows.filter((row) => row.pairs !== searchPairsOf(row.text))).toEqual([]);
    expect(rows.filter((row) => row.triples !== searchTriplesOf(row.text))).toEqual([]);
    for (const [table, sequence] of [
      ["RunPairs", "h100 ×8"],
      ["RunTriples", "h100 ×8 vllm"],
    ] as const) {
      const count = database.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${table}" MATCH ?`);
      expect({ table, ...(count.get(`"${wordsToken(sequence)}"`) as object) }).toEqual({ table, n: 1_200 });
    }
    database.exec(`DELETE FROM "Run" WHERE "id" IN ('old1', 'old2')`);
    // Throws "database disk image is malformed" when an index and the runs differ.
    for (const table of ["RunPairs", "RunTriples"]) {
      database.exec(`INSERT INTO "${table}" ("${table}", rank) VALUES ('integrity-check', 1)`);
    }
    database.close();
  }

  it("upgrade a history stored before the word pairs: every run gets its pairs and triples, the indexes whole", () => {
    const file = olderHistory("20261208000000", false);
    const upgraded = migrateDatabase(file);
    expect(upgraded).toMatchObject({
      applied: [
        "20261208000000_search_pairs",
        "20261209000000_search_triples",
        "20261210000000_filter_indexes_with_id",
        "20261211000000_restore_jobs",
        "20261212000000_model_size",
        "20261213000000_series_override",
        "20261214000000_change_last_good",
        "20261215000000_run_accuracy",
        "20261216000000_point_power",
      ],
      searchPairsFilled: 1_200,
      searchTriplesFilled: 1_200,
    });
    expectWordIndexesWhole(file);
  });

  it("upgrade a history stored with pairs but before the triples: only the triples are filled in", () => {
    const file = olderHistory("20261209000000", true);
    const upgraded = migrateDatabase(file);
    expect({ ...upgraded, alreadyApplied: undefined }).toEqual({
      applied: [
        "20261209000000_search_triples",
        "20261210000000_filter_indexes_with_id",
        "20261211000000_restore_jobs",
        "20261212000000_model_size",
        "20261213000000_series_override",
        "20261214000000_change_last_good",
        "20261215000000_run_accuracy",
        "20261216000000_point_power",
      ],
      alreadyApplied: undefined,
      searchTriplesFilled: 1_200,
    });
    expectWordIndexesWhole(file);
    expect(migrateDatabase(file)).toMatchObject({ applied: [] });
    expect(migrateDatabase(file).searchTriplesFilled).toBeUndefined();
  });
});
