/**
 * Storing result points: every point of a batch of runs in one statement, for the transaction that stores the runs.
 */

import { db, provider, sqliteRowsReady } from "@/lib/db/client";
import { ROWS_FUNCTION, rowsSelectList, setAsideRows } from "@/lib/db/sqlite-rows";
import type { ResultPoint } from "@/lib/document/schema";
import { Prisma } from "@/lib/generated/prisma/client";
import { POINT_NUMBER_KEYS, pointToRow } from "./point-rows";

/** Every column a stored point has, in one order: the statements that insert points name them all. */
const POINT_COLUMNS = [
  "runId",
  "position",
  "concurrency",
  "request_rate",
  "request_rate_infinite",
  "repeat",
  ...POINT_NUMBER_KEYS,
  "power_source",
  "percentilesJson",
  "requestsJson",
  "sourcesJson",
] as const;
/** The point columns PostgreSQL reads as integers and as a boolean; the rest are numbers (double) or text. */
const POINT_INTEGER_COLUMNS: ReadonlySet<string> = new Set([
  "position",
  "concurrency",
  "repeat",
  "completed",
  "failed",
  "total_input_tokens",
  "total_output_tokens",
  "server_preemptions",
  "server_metrics_samples",
  "power_gpu_count",
  "power_samples",
]);
const POINT_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  "runId",
  "power_source",
  "percentilesJson",
  "requestsJson",
  "sourcesJson",
]);

/** What each value of a row is read as, by position in the row: `->>` in SQLite, a cast in PostgreSQL. */
function pointSelectList(kind: "sqlite" | "postgresql"): string {
  return POINT_COLUMNS.map((column, index) => {
    if (kind === "sqlite") return `r.value ->> ${index}`;
    const cast = POINT_TEXT_COLUMNS.has(column)
      ? ""
      : column === "request_rate_infinite"
        ? "::boolean"
        : POINT_INTEGER_COLUMNS.has(column)
          ? "::integer"
          : "::double precision";
    return `(r ->> ${index})${cast}`;
  }).join(", ");
}

const POINT_SELECT_LIST = { sqlite: pointSelectList("sqlite"), postgresql: pointSelectList("postgresql") };

/**
 * The statement that stores the points of some runs, for the transaction that stores the runs: one INSERT … SELECT
 * from one parameter, every point of them as a JSON array of rows, its run's id first. One statement for a whole
 * batch of runs, with the same text every time: a statement per run (or a VALUES list of 65 parameters a point)
 * cost the server's thread about a millisecond a run in Prisma and grew its heap by tens of kB a statement, where
 * this costs about what building the JSON does. The numbers reach the database as the shortest decimal text that
 * round-trips, which both parse exactly (a number bound as a raw-query parameter could move by one unit in the
 * last place: 12412.394674113431 was stored as 12412.39467411343).
 */
export function pointInserts(
  runs: readonly { runId: string; results: readonly ResultPoint[] }[],
): Prisma.PrismaPromise<number>[] {
  if (runs.every((run) => run.results.length === 0)) return [];
  const values = runs.flatMap(({ runId, results }) =>
    results.map((point, position) => {
      const row = { runId, ...pointToRow(point, position) } as Record<string, unknown>;
      return POINT_COLUMNS.map((column) => row[column] ?? null);
    }),
  );
  const columns = Prisma.raw(POINT_COLUMNS.map((column) => `"${column}"`).join(", "));
  const kind = provider() === "sqlite" ? "sqlite" : "postgresql";
  if (kind === "sqlite" && sqliteRowsReady()) {
    // The rows as they are, read by the connection itself (lib/db/sqlite-rows.ts): no SQL or JSON to parse.
    const key = setAsideRows(values);
    return [
      db()
        .$executeRaw`INSERT INTO "ResultPoint" (${columns}) SELECT ${Prisma.raw(rowsSelectList(POINT_COLUMNS.length))} FROM ${Prisma.raw(ROWS_FUNCTION)}(${key}) AS r`,
    ];
  }
  const rows = JSON.stringify(values);
  const select = Prisma.raw(POINT_SELECT_LIST[kind]);
  return [
    kind === "sqlite"
      ? db().$executeRaw`INSERT INTO "ResultPoint" (${columns}) SELECT ${select} FROM json_each(${rows}) AS r`
      : db()
          .$executeRaw`INSERT INTO "ResultPoint" (${columns}) SELECT ${select} FROM json_array_elements(${rows}::json) AS r`,
  ];
}
