/**
 * The PostgreSQL counterpart of a SQLite migration, made mechanically: the SQLite schema before and after the
 * migration is read back from a real SQLite file (tables, columns, keys, indexes, foreign keys) and the
 * difference is written as PostgreSQL DDL in Prisma's style. Diffing the resulting schemas rather than
 * translating the SQL text handles Prisma's SQLite table rebuilds (`new_X`, copy, drop, rename) as what they
 * are: a column changed. Statements that move data (UPDATE, INSERT, DELETE outside a rebuild) and SQLite-only
 * objects (FTS5 tables, triggers) cannot be derived: they are flagged for the author (docs/development.md).
 */
import Database from "better-sqlite3";

export interface Column {
  name: string;
  /** SQLite's declared type, upper-case: TEXT, INTEGER, REAL, DATETIME, BOOLEAN, … */
  type: string;
  notNull: boolean;
  /** The default as SQL text, or null. */
  defaultSql: string | null;
}

export interface Index {
  name: string;
  table: string;
  unique: boolean;
  columns: { name: string; desc: boolean }[];
}

export interface ForeignKey {
  table: string;
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

export interface Table {
  name: string;
  columns: Column[];
  primaryKey: string[];
  autoincrement: boolean;
  foreignKeys: ForeignKey[];
}

export interface Schema {
  tables: Map<string, Table>;
  indexes: Map<string, Index>;
}

/** Tables that are not the application's: Prisma's own, SQLite's, and the FTS5 index and its shadow tables. */
function isForeignTable(name: string, virtualTables: readonly string[]): boolean {
  if (name === "_prisma_migrations" || name.startsWith("sqlite_")) return true;
  return virtualTables.some((vt) => name === vt || /^_(data|idx|content|docsize|config)$/.test(name.slice(vt.length)));
}

/** The application's schema as SQLite has it in `file`. */
export function readSqliteSchema(file: string): Schema {
  const database = new Database(file, { readonly: true });
  try {
    const objects = database
      .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
      .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
    const virtualTables = objects
      .filter((o) => o.type === "table" && /^CREATE VIRTUAL TABLE/i.test(o.sql ?? ""))
      .map((o) => o.name);
    const tables = new Map<string, Table>();
    const indexes = new Map<string, Index>();
    for (const object of objects) {
      if (object.type !== "table" || isForeignTable(object.name, virtualTables)) continue;
      const info = database.prepare(`PRAGMA table_info("${object.name}")`).all() as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[];
      const fks = database.prepare(`PRAGMA foreign_key_list("${object.name}")`).all() as {
        id: number;
        table: string;
        from: string;
        to: string;
        on_update: string;
        on_delete: string;
      }[];
      const byId = new Map<number, ForeignKey>();
      for (const fk of fks) {
        const key = byId.get(fk.id) ?? {
          table: object.name,
          columns: [],
          references: fk.table,
          referencedColumns: [],
          onDelete: fk.on_delete,
          onUpdate: fk.on_update,
        };
        key.columns.push(fk.from);
        key.referencedColumns.push(fk.to);
        byId.set(fk.id, key);
      }
      tables.set(object.name, {
        name: object.name,
        columns: info.map((column) => ({
          name: column.name,
          type: column.type.toUpperCase(),
          // SQLite lets a primary-key column be null unless it says otherwise; PostgreSQL never does.
          notNull: column.notnull === 1 || column.pk > 0,
          defaultSql: column.dflt_value,
        })),
        primaryKey: info
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        autoincrement: /AUTOINCREMENT/i.test(object.sql ?? ""),
        foreignKeys: [...byId.values()],
      });
      const list = database.prepare(`PRAGMA index_list("${object.name}")`).all() as {
        name: string;
        unique: number;
        origin: string;
      }[];
      for (const index of list) {
        if (index.origin === "pk") continue;
        const columns = (
          database.prepare(`PRAGMA index_xinfo("${index.name}")`).all() as {
            name: string | null;
            desc: number;
            key: number;
          }[]
        )
          .filter((c) => c.key === 1 && c.name !== null)
          .map((c) => ({ name: c.name as string, desc: c.desc === 1 }));
        indexes.set(index.name, { name: index.name, table: object.name, unique: index.unique === 1, columns });
      }
    }
    return { tables, indexes };
  } finally {
    database.close();
  }
}

/**
 * Prisma's PostgreSQL type for a SQLite column type that Prisma's SQLite DDL writes. Text is `COLLATE "C"`:
 * SQLite compares text byte by byte, and so does PostgreSQL's C collation, whatever the database's default
 * locale is; the history sorts by name, engine and model in the same order on both.
 */
export function postgresqlType(sqliteType: string): string {
  const types: Record<string, string> = {
    TEXT: 'TEXT COLLATE "C"',
    INTEGER: "INTEGER",
    BIGINT: "BIGINT",
    REAL: "DOUBLE PRECISION",
    DATETIME: "TIMESTAMP(3)",
    BOOLEAN: "BOOLEAN",
    BLOB: "BYTEA",
    DECIMAL: "DECIMAL(65,30)",
    JSONB: "JSONB",
    JSON: "JSONB",
  };
  const type = types[sqliteType];
  if (!type)
    throw new Error(`No PostgreSQL type known for the SQLite type ${sqliteType}: add it to lib/db/counterpart.ts`);
  return type;
}

function postgresqlDefault(column: Column): string | null {
  if (column.defaultSql === null) return null;
  if (/^current_timestamp$/i.test(column.defaultSql)) return "CURRENT_TIMESTAMP";
  if (column.type === "BOOLEAN") {
    if (/^(1|true)$/i.test(column.defaultSql)) return "true";
    if (/^(0|false)$/i.test(column.defaultSql)) return "false";
  }
  return column.defaultSql;
}

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

function columnDdl(table: Table, column: Column): string {
  const serial = table.autoincrement && table.primaryKey.length === 1 && table.primaryKey[0] === column.name;
  const type = serial ? (column.type === "BIGINT" ? "BIGSERIAL" : "SERIAL") : postgresqlType(column.type);
  const fallback = serial ? null : postgresqlDefault(column);
  return `${q(column.name)} ${type}${column.notNull ? " NOT NULL" : ""}${fallback === null ? "" : ` DEFAULT ${fallback}`}`;
}

function createTable(table: Table): string {
  const lines = table.columns.map((column) => `    ${columnDdl(table, column)}`);
  if (table.primaryKey.length > 0) {
    lines.push(`    CONSTRAINT ${q(`${table.name}_pkey`)} PRIMARY KEY (${table.primaryKey.map(q).join(", ")})`);
  }
  return `-- CreateTable\nCREATE TABLE ${q(table.name)} (\n${lines.join(",\n")}\n);`;
}

function createIndex(index: Index): string {
  const columns = index.columns.map((c) => `${q(c.name)}${c.desc ? " DESC" : ""}`).join(", ");
  return `-- CreateIndex\nCREATE ${index.unique ? "UNIQUE " : ""}INDEX ${q(index.name)} ON ${q(index.table)}(${columns});`;
}

function foreignKeyName(fk: ForeignKey): string {
  return `${fk.table}_${fk.columns.join("_")}_fkey`;
}

function addForeignKey(fk: ForeignKey): string {
  return (
    `-- AddForeignKey\nALTER TABLE ${q(fk.table)} ADD CONSTRAINT ${q(foreignKeyName(fk))} FOREIGN KEY (${fk.columns.map(q).join(", ")}) ` +
    `REFERENCES ${q(fk.references)}(${fk.referencedColumns.map(q).join(", ")}) ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate};`
  );
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** PostgreSQL DDL that takes the `before` schema to the `after` schema, in Prisma's order and style. */
export function postgresqlDiff(before: Schema, after: Schema): string[] {
  const statements: string[] = [];
  const fkKey = (fk: ForeignKey) => JSON.stringify(fk);
  const droppedFks: ForeignKey[] = [];
  const addedFks: ForeignKey[] = [];
  for (const [name, table] of before.tables) {
    const next = after.tables.get(name);
    for (const fk of table.foreignKeys) {
      if (!next?.foreignKeys.some((other) => fkKey(other) === fkKey(fk))) droppedFks.push(fk);
    }
  }
  for (const [name, table] of after.tables) {
    const previous = before.tables.get(name);
    for (const fk of table.foreignKeys) {
      if (!previous?.foreignKeys.some((other) => fkKey(other) === fkKey(fk))) addedFks.push(fk);
    }
  }
  for (const fk of droppedFks.filter((fk) => after.tables.has(fk.table))) {
    statements.push(`-- DropForeignKey\nALTER TABLE ${q(fk.table)} DROP CONSTRAINT ${q(foreignKeyName(fk))};`);
  }
  for (const [name, index] of before.indexes) {
    const next = after.indexes.get(name);
    if ((!next || !sameJson(next, index)) && after.tables.has(index.table)) {
      statements.push(`-- DropIndex\nDROP INDEX ${q(name)};`);
    }
  }
  for (const name of before.tables.keys()) {
    if (!after.tables.has(name)) statements.push(`-- DropTable\nDROP TABLE ${q(name)};`);
  }
  for (const [name, table] of after.tables) {
    const previous = before.tables.get(name);
    if (!previous) {
      statements.push(createTable(table));
      continue;
    }
    const alters: string[] = [];
    for (const column of previous.columns) {
      if (!table.columns.some((c) => c.name === column.name)) alters.push(`DROP COLUMN ${q(column.name)}`);
    }
    for (const column of table.columns) {
      const old = previous.columns.find((c) => c.name === column.name);
      if (!old) {
        alters.push(`ADD COLUMN ${columnDdl(table, column)}`);
        continue;
      }
      if (old.type !== column.type) {
        alters.push(
          `ALTER COLUMN ${q(column.name)} SET DATA TYPE ${postgresqlType(column.type)} USING ${q(column.name)}::${postgresqlType(column.type).replace(/ COLLATE .*/, "")}`,
        );
      }
      if (old.notNull !== column.notNull) {
        alters.push(`ALTER COLUMN ${q(column.name)} ${column.notNull ? "SET" : "DROP"} NOT NULL`);
      }
      if (old.defaultSql !== column.defaultSql) {
        const value = postgresqlDefault(column);
        alters.push(`ALTER COLUMN ${q(column.name)} ${value === null ? "DROP DEFAULT" : `SET DEFAULT ${value}`}`);
      }
    }
    if (!sameJson(previous.primaryKey, table.primaryKey)) {
      alters.push(`DROP CONSTRAINT ${q(`${name}_pkey`)}`);
      if (table.primaryKey.length > 0) {
        alters.push(`ADD CONSTRAINT ${q(`${name}_pkey`)} PRIMARY KEY (${table.primaryKey.map(q).join(", ")})`);
      }
    }
    if (alters.length > 0) statements.push(`-- AlterTable\nALTER TABLE ${q(name)} ${alters.join(",\n")};`);
  }
  for (const [name, index] of after.indexes) {
    const previous = before.indexes.get(name);
    if (!previous || !sameJson(previous, index)) statements.push(createIndex(index));
  }
  for (const fk of addedFks) statements.push(addForeignKey(fk));
  return statements;
}

/**
 * Statements of a SQLite migration that a schema diff cannot carry over: data changes outside Prisma's table
 * rebuild, triggers, FTS5 tables. The author ports them by hand and says so in the counterpart.
 */
export function statementsToPortByHand(sqliteSql: string): string[] {
  const withoutComments = sqliteSql.replace(/--[^\n]*/g, "");
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "")
    .filter((statement) => {
      if (/^INSERT INTO "new_/i.test(statement)) return false; // the copy of a table rebuild
      return /^(INSERT|UPDATE|DELETE|REPLACE|CREATE\s+(TEMP\s+)?TRIGGER|CREATE\s+VIRTUAL|DROP\s+TRIGGER)/i.test(
        statement,
      );
    });
}
