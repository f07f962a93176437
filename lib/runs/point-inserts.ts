/**
 * Storing result points: every point of a batch of runs in one statement, for the transaction that stores the runs.
 */

import { type ColumnKind, type RowsTable, rowsInsert } from "@/lib/db/row-inserts";
import type { ResultPoint } from "@/lib/document/schema";
import type { Prisma } from "@/lib/generated/prisma/client";
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
/** The point columns stored as integers and as a boolean; the rest are numbers (double) or text. */
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

function pointColumnKind(column: string): ColumnKind {
  if (POINT_TEXT_COLUMNS.has(column)) return "text";
  if (column === "request_rate_infinite") return "boolean";
  return POINT_INTEGER_COLUMNS.has(column) ? "integer" : "double";
}

export const POINT_TABLE: RowsTable = {
  table: "ResultPoint",
  columns: POINT_COLUMNS.map((name) => ({ name, kind: pointColumnKind(name) })),
};

/**
 * The statement that stores the points of some runs, for the transaction that stores the runs: every point of
 * them in one statement (lib/db/row-inserts.ts), its run's id first. A statement per run (or a VALUES list of 65
 * parameters a point) cost the server's thread about a millisecond a run in Prisma and grew its heap by tens of kB
 * a statement, where this costs about what building the rows does. On the JSON path the numbers reach the database
 * as the shortest decimal text that round-trips, which both parse exactly (a number bound as a raw-query parameter
 * could move by one unit in the last place: 12412.394674113431 was stored as 12412.39467411343).
 */
export function pointInserts(
  runs: readonly { runId: string; results: readonly ResultPoint[] }[],
): Prisma.PrismaPromise<number>[] {
  return rowsInsert(POINT_TABLE, pointRowsOf(runs));
}

/** Every point of the runs as a row of values in POINT_TABLE's column order. */
export function pointRowsOf(runs: readonly { runId: string; results: readonly ResultPoint[] }[]): unknown[][] {
  return runs.flatMap(({ runId, results }) =>
    results.map((point, position) => {
      const row = { runId, ...pointToRow(point, position) } as Record<string, unknown>;
      return POINT_COLUMNS.map((column) => row[column] ?? null);
    }),
  );
}
