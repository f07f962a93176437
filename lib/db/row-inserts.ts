/**
 * Many rows of one table inserted by one statement, with the same text every time: `INSERT … SELECT` from one
 * parameter that carries every row. On SQLite the rows are read by the connection itself (servebench_rows,
 * lib/db/sqlite-rows.ts: no SQL or JSON to parse); otherwise they travel as one JSON array of rows, each value read
 * by position (`->>` in SQLite, a cast to the column's type in PostgreSQL).
 *
 * Why not Prisma's own `create`: a nested create (a run with its series and tags) is several statements a run,
 * each compiled, prepared and answered through the query engine, which cost the server's one thread several
 * milliseconds a run; this is one statement a table for a whole batch of runs (docs/benchmarks.md, "Ingest").
 */

import { db, provider, sqliteRowsReady } from "@/lib/db/client";
import { ROWS_FUNCTION, ROWS_FUNCTION_WIDTH, setAsideRows } from "@/lib/db/sqlite-rows";
import { Prisma } from "@/lib/generated/prisma/client";

/** What a column holds, so PostgreSQL can cast the JSON text to it and SQLite gets the value Prisma would write. */
export type ColumnKind = "text" | "integer" | "double" | "boolean" | "timestamp";

export interface TableColumn {
  name: string;
  kind: ColumnKind;
  /** The column's value as SQL made from the row's value (`v`), instead of the value itself: a lookup. */
  select?: (value: string) => string;
}

export interface RowsTable {
  table: string;
  columns: readonly TableColumn[];
  /** `ON CONFLICT … DO NOTHING` on these columns: rows that would break the unique key are left out. */
  ignoreConflictOn?: readonly string[];
}

const POSTGRESQL_CASTS: Record<ColumnKind, string> = {
  text: "",
  integer: "::integer",
  double: "::double precision",
  boolean: "::boolean",
  timestamp: "::timestamp(3)",
};

/** A date as Prisma writes it to SQLite (ISO 8601 with an explicit UTC offset) and PostgreSQL reads it from JSON. */
function sqliteDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

function columnValue(value: unknown, kind: ColumnKind): unknown {
  if (value === undefined || value === null) return null;
  if (kind === "timestamp") return value instanceof Date ? sqliteDate(value) : value;
  return value;
}

type Target = "sqlite-rows" | "sqlite-json" | "postgresql";

function selectList(columns: readonly TableColumn[], target: Target): string {
  return columns
    .map((column, index) => {
      const raw =
        target === "sqlite-rows"
          ? `r.v${index}`
          : target === "sqlite-json"
            ? `r.value ->> ${index}`
            : `(r ->> ${index})${POSTGRESQL_CASTS[column.kind]}`;
      return column.select ? column.select(raw) : raw;
    })
    .join(", ");
}

const statementCache = new WeakMap<RowsTable, Map<Target, string>>();

/** The statement's text for a table and a target, made once. */
function statementText(spec: RowsTable, target: Target): string {
  let byTarget = statementCache.get(spec);
  if (!byTarget) {
    byTarget = new Map();
    statementCache.set(spec, byTarget);
  }
  const cached = byTarget.get(target);
  if (cached) return cached;
  if (spec.columns.length > ROWS_FUNCTION_WIDTH) throw new Error(`${spec.table} is wider than ${ROWS_FUNCTION_WIDTH}`);
  const columns = spec.columns.map((column) => `"${column.name}"`).join(", ");
  const source =
    target === "sqlite-rows"
      ? `${ROWS_FUNCTION}($1) AS r`
      : target === "sqlite-json"
        ? "json_each($1) AS r"
        : "json_array_elements($1::json) AS r";
  // SQLite needs a WHERE before ON CONFLICT when the rows come from a SELECT (its grammar would read ON as a join).
  const conflict = spec.ignoreConflictOn
    ? ` WHERE true ON CONFLICT (${spec.ignoreConflictOn.map((name) => `"${name}"`).join(", ")}) DO NOTHING`
    : "";
  const text = `INSERT INTO "${spec.table}" (${columns}) SELECT ${selectList(spec.columns, target)} FROM ${source}${conflict}`;
  byTarget.set(target, text);
  return text;
}

/**
 * The statement that inserts `rows` (each a list of values in the order of `spec.columns`), for a transaction;
 * none when there are no rows.
 */
export function rowsInsert(spec: RowsTable, rows: readonly (readonly unknown[])[]): Prisma.PrismaPromise<number>[] {
  if (rows.length === 0) return [];
  const values = rows.map((row) => spec.columns.map((column, index) => columnValue(row[index], column.kind)));
  const target: Target = provider() !== "sqlite" ? "postgresql" : sqliteRowsReady() ? "sqlite-rows" : "sqlite-json";
  const text = statementText(spec, target);
  const parameter = target === "sqlite-rows" ? setAsideRows(values) : JSON.stringify(values);
  // The text around its one parameter, as a tagged template gives it to Prisma.sql.
  const at = text.indexOf("$1");
  return [db().$executeRaw(Prisma.sql([text.slice(0, at), text.slice(at + 2)], parameter))];
}
