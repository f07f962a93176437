/**
 * Many rows handed to SQLite in one statement without SQL text or JSON to parse: a table-valued function of the
 * app's own connection (better-sqlite3's `Database.table`) that yields rows the app set aside for it.
 *
 * `INSERT INTO "ResultPoint" (…) SELECT … FROM servebench_rows('<key>')` stores rows set aside with
 * `setAsideRows` under that key, in whatever transaction the statement runs in (the one connection's). Each value
 * reaches SQLite as the JavaScript value it is (a double stays that double): ~5 µs a row of 65 columns, where the
 * same rows sent as JSON took ~50 µs (one `->>` per column) and as a VALUES list of parameters more still, all of
 * it on the server's one thread, during which /api/health waits.
 */
import type BetterSqlite3 from "better-sqlite3";
import { randomId } from "@/lib/random-id";

export const ROWS_FUNCTION = "servebench_rows";
/** The widest row the function yields; a narrower one is padded with nulls (its statement selects its own). */
export const ROWS_FUNCTION_WIDTH = 96;
/** Rows set aside for a statement that never ran (its transaction failed first) are dropped after this long. */
const ABANDONED_MS = 10 * 60_000;

interface SetAside {
  rows: readonly (readonly unknown[])[];
  at: number;
}
// Once per process: Next.js may load this module more than once.
const shared = globalThis as unknown as { servebenchRowsSetAside?: Map<string, SetAside> };
shared.servebenchRowsSetAside ??= new Map();
const setAside = shared.servebenchRowsSetAside;

/** Give a connection the function (once, as it opens). */
export function registerRowsFunction(database: BetterSqlite3.Database): void {
  database.table(ROWS_FUNCTION, {
    columns: Array.from({ length: ROWS_FUNCTION_WIDTH }, (_, index) => `v${index}`),
    parameters: ["batch"],
    *rows(...args: unknown[]) {
      const key = String(args[0]);
      const entry = setAside.get(key);
      if (!entry) return;
      // Read once: a statement retried (a busy database) sets its rows aside again, under a new key.
      setAside.delete(key);
      for (const row of entry.rows) {
        const values = row.map((value: unknown) => (typeof value === "boolean" ? (value ? 1 : 0) : value));
        while (values.length < ROWS_FUNCTION_WIDTH) values.push(null);
        yield values;
      }
    },
  });
}

/** Set rows aside for one statement that reads them from `servebench_rows(<the key returned>)`. */
export function setAsideRows(rows: readonly (readonly unknown[])[]): string {
  const now = Date.now();
  for (const [key, entry] of setAside) if (now - entry.at > ABANDONED_MS) setAside.delete(key);
  const key = randomId(16);
  setAside.set(key, { rows, at: now });
  return key;
}

/** The select list that reads the first `count` values of each row. */
export function rowsSelectList(count: number): string {
  if (count > ROWS_FUNCTION_WIDTH) throw new Error(`rows of ${count} values are wider than ${ROWS_FUNCTION_WIDTH}`);
  return Array.from({ length: count }, (_, index) => `r.v${index}`).join(", ");
}
