/**
 * Rows read straight from the app's SQLite connection (lib/db/sqlite-writes.ts, `sqliteRead`) turned into the
 * objects Prisma's client gives for the same columns, so code that reads either way sees one shape.
 *
 * What the connection answers: text as text, integers as BigInt (Prisma's adapter opens it with safe integers),
 * booleans as 0 or 1, dates as the ISO 8601 text Prisma stores ("2026-12-06T20:12:11.225+00:00").
 */

/** How a column is held: text (and JSON text) as it is, a number, a boolean, a date. */
export type ColumnKind = "text" | "number" | "boolean" | "date";

/** The kind of every column of a row type: a column added to the type and not here fails to compile. */
export type ColumnKinds<Row> = { readonly [Column in keyof Row]-?: ColumnKind };

/** The columns' names, quoted, for a SELECT list; with `alias`, each prefixed by it (`r."id"`). */
export function columnList<Row>(kinds: ColumnKinds<Row>, alias?: string): string {
  const prefix = alias ? `${alias}.` : "";
  return Object.keys(kinds)
    .map((column) => `${prefix}"${column}"`)
    .join(", ");
}

function decoded(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "number":
      return typeof value === "bigint" ? Number(value) : value;
    case "boolean":
      return Number(value) !== 0;
    case "date":
      // Prisma writes ISO text; a number would be milliseconds since the epoch, which its adapter also reads.
      return typeof value === "string" ? new Date(value) : new Date(Number(value));
    default:
      return value;
  }
}

/** One row as Prisma's client would give it. */
export function decodeRow<Row>(raw: Record<string, unknown>, kinds: ColumnKinds<Row>): Row {
  const row: Record<string, unknown> = {};
  for (const column of Object.keys(kinds) as (keyof Row & string)[]) row[column] = decoded(kinds[column], raw[column]);
  return row as Row;
}
