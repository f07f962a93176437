/**
 * PostgreSQL's migrations (prisma/postgresql/migrations) held to SQLite's: applied to a fresh database, they must
 * make the same tables, columns (with the mapped type, the same nullability and default), keys, indexes and
 * foreign keys as the SQLite migrations do; SQLite's tables are held to the models by migrations.test.ts. Text is
 * COLLATE "C" so that ordering is byte order as on SQLite. Runs in the integration-postgresql project only.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { postgresqlType, readSqliteSchema, type Schema } from "@/lib/db/counterpart";
import { migrateDatabase, migratePostgresql, POSTGRESQL_MIGRATIONS_DIR } from "@/lib/db/migrate";

/** Indexes that exist on PostgreSQL only, standing in for a SQLite-only object (the FTS5 table). */
const POSTGRESQL_ONLY_INDEXES = new Set<string>([
  "Run_searchText_trgm_idx",
  "Run_searchPairs_gin_idx",
  "Run_searchTriples_gin_idx",
]);

const clusterUrl = inject("postgresqlClusterUrl");
const created: string[] = [];

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function freshDatabase(): Promise<string> {
  const name = `mig_${randomBytes(5).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  created.push(name);
  return clusterUrl.replace(/\/postgres$/, `/${name}`);
}

afterAll(async () => {
  await admin(async (client) => {
    for (const name of created) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
});

interface PgColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: string;
  column_default: string | null;
  collation_name: string | null;
}

async function readPostgresqlSchema(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = (
      await client.query<PgColumn>(
        `SELECT table_name, column_name, data_type, is_nullable, column_default, collation_name
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
      )
    ).rows;
    const indexes = (
      await client.query<{ name: string; table: string; unique: boolean; primary: boolean; columns: string[] }>(
        `SELECT i.relname AS name, t.relname AS table, x.indisunique AS unique, x.indisprimary AS primary,
                array(SELECT a.attname || CASE WHEN (x.indoption[k.n - 1] & 1) = 1 THEN ' DESC' ELSE '' END
                      FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
                      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace s ON s.oid = t.relnamespace
         WHERE s.nspname = 'public' AND t.relname <> '_prisma_migrations'`,
      )
    ).rows;
    const foreignKeys = (
      await client.query<{ table: string; definition: string }>(
        `SELECT c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace
         WHERE c.contype = 'f' AND s.nspname = 'public'`,
      )
    ).rows;
    return { columns, indexes, foreignKeys };
  } finally {
    await client.end();
  }
}

function sqliteSchema(): Schema {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-pgmig-"));
  try {
    const file = path.join(dir, "db.sqlite");
    migrateDatabase(file);
    return readSqliteSchema(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const PG_DATA_TYPE: Record<string, string> = {
  TEXT: "text",
  INTEGER: "integer",
  BIGINT: "bigint",
  "DOUBLE PRECISION": "double precision",
  "TIMESTAMP(3)": "timestamp without time zone",
  BOOLEAN: "boolean",
  BYTEA: "bytea",
  JSONB: "jsonb",
};

describe("PostgreSQL migrations", () => {
  it("make the tables, columns, keys, indexes and foreign keys the SQLite migrations make", async () => {
    const url = await freshDatabase();
    await migratePostgresql(url);
    const expected = sqliteSchema();
    const actual = await readPostgresqlSchema(url);

    const tables = [...new Set(actual.columns.map((c) => c.table_name))].sort();
    expect(tables).toEqual([...expected.tables.keys()].sort());
    for (const table of expected.tables.values()) {
      const got = actual.columns.filter((c) => c.table_name === table.name);
      expect({ table: table.name, columns: got.map((c) => c.column_name).sort() }).toEqual({
        table: table.name,
        columns: table.columns.map((c) => c.name).sort(),
      });
      for (const column of table.columns) {
        const pgColumn = got.find((c) => c.column_name === column.name)!;
        const type = postgresqlType(column.type).replace(/ COLLATE .*/, "");
        const serial = table.autoincrement && table.primaryKey.join() === column.name;
        expect({
          column: `${table.name}.${column.name}`,
          type: pgColumn.data_type,
          notNull: pgColumn.is_nullable === "NO",
          collation: pgColumn.collation_name,
          default: serial ? "serial" : pgColumn.column_default,
        }).toEqual({
          column: `${table.name}.${column.name}`,
          type: PG_DATA_TYPE[type] ?? type,
          notNull: column.notNull,
          collation: column.type === "TEXT" ? "C" : null,
          default: serial
            ? "serial"
            : column.defaultSql === null
              ? null
              : column.type === "TEXT"
                ? `${column.defaultSql}::text`
                : column.defaultSql.toLowerCase(),
        });
      }
      const primary = actual.indexes.find((i) => i.table === table.name && i.primary);
      expect({ table: table.name, primaryKey: primary?.columns ?? [] }).toEqual({
        table: table.name,
        primaryKey: table.primaryKey,
      });
    }

    const pgIndexes = actual.indexes
      .filter((i) => !i.primary && !POSTGRESQL_ONLY_INDEXES.has(i.name))
      .map((i) => ({ name: i.name, table: i.table, unique: i.unique, columns: i.columns }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const sqliteIndexes = [...expected.indexes.values()]
      .map((i) => ({
        name: i.name,
        table: i.table,
        unique: i.unique,
        columns: i.columns.map((c) => `${c.name}${c.desc ? " DESC" : ""}`),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(pgIndexes).toEqual(sqliteIndexes);

    const sqliteFks = [...expected.tables.values()]
      .flatMap((t) => t.foreignKeys)
      .map(
        (fk) =>
          `${fk.table}: FOREIGN KEY (${fk.columns.map((c) => `"${c}"`).join(", ")}) REFERENCES "${fk.references}"(${fk.referencedColumns.map((c) => `"${c}"`).join(", ")}) ON UPDATE ${fk.onUpdate} ON DELETE ${fk.onDelete}`,
      )
      .sort();
    const pgFks = actual.foreignKeys.map((fk) => `${fk.table.replaceAll('"', "")}: ${fk.definition}`).sort();
    const unquoted = (list: string[]) => list.map((fk) => fk.replaceAll('"', "")).sort();
    expect(unquoted(pgFks)).toEqual(unquoted(sqliteFks));
  });

  it("are applied once when several instances start together, and recorded as Prisma records them", async () => {
    const url = await freshDatabase();
    const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
    const starts = Array.from(
      { length: 3 },
      () =>
        new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = spawn(tsx, ["scripts/migrate.ts"], {
            env: { ...process.env, DATABASE_URL: url },
            stdio: ["ignore", "pipe", "pipe"],
          });
          let output = "";
          child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
          child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
          child.on("exit", (code) => resolve({ code, output }));
        }),
    );
    const results = await Promise.all(starts);
    expect(results.map((result) => result.code)).toEqual([0, 0, 0]);
    expect(results.filter((result) => result.output.includes("applied ")).length).toBe(1);
    expect(results.filter((result) => result.output.includes("already up to date")).length).toBe(2);

    const names = fs
      .readdirSync(POSTGRESQL_MIGRATIONS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = (
      await client.query<{ migration_name: string; finished_at: Date | null; applied_steps_count: number }>(
        `SELECT migration_name, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
      )
    ).rows;
    await client.end();
    expect(rows.map((row) => row.migration_name)).toEqual(names);
    expect(rows.every((row) => row.finished_at !== null && row.applied_steps_count === 1)).toBe(true);
    expect(await migratePostgresql(url)).toEqual({ applied: [], alreadyApplied: names });
  });

  it("refuse a migration that was edited after it was applied", async () => {
    const url = await freshDatabase();
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-pgmig-"));
    try {
      fs.cpSync(POSTGRESQL_MIGRATIONS_DIR, copy, { recursive: true });
      await migratePostgresql(url, copy);
      const first = fs
        .readdirSync(copy, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()[0]!;
      fs.appendFileSync(path.join(copy, first, "migration.sql"), "\n-- edited\n");
      await expect(migratePostgresql(url, copy)).rejects.toThrow(`Migration ${first} was changed after it was applied`);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("roll back a migration that fails, leaving no trace of it", async () => {
    const url = await freshDatabase();
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-pgmig-"));
    try {
      fs.cpSync(POSTGRESQL_MIGRATIONS_DIR, copy, { recursive: true });
      fs.mkdirSync(path.join(copy, "99999999999999_broken"));
      fs.writeFileSync(
        path.join(copy, "99999999999999_broken", "migration.sql"),
        'CREATE TABLE "Half" ("id" TEXT);\nNOT SQL;',
      );
      await expect(migratePostgresql(url, copy)).rejects.toThrow(
        "Migration 99999999999999_broken failed and was rolled back",
      );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const half = (await client.query(`SELECT to_regclass('public."Half"') AS half`)).rows[0] as { half: unknown };
      const recorded = await client.query(
        `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '99999999999999_broken'`,
      );
      const applied = await client.query(`SELECT 1 FROM "_prisma_migrations"`);
      await client.end();
      expect(half.half).toBeNull();
      expect(recorded.rowCount).toBe(0);
      // The migrations before the broken one were applied and stay.
      expect(applied.rowCount).toBeGreaterThan(0);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
