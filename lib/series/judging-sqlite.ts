/**
 * Judging's reads and its summary write, straight on the app's SQLite connection: each statement prepared once and
 * kept, its run ids as one JSON parameter. Every function answers null when the app is on PostgreSQL, where the
 * callers use Prisma's client for the same rows.
 *
 * Why: under a load of uploads into one series, the judgement that follows them runs back to back, and through
 * Prisma's query engine its nine queries (the series, its newest 200 runs, their levels and points, the stored
 * changes, the summary) were ~17% of the server thread's time: each compiled by the engine, prepared anew with
 * up to 200 bound ids, its answer converted (docs/benchmarks.md, "Ingest"). The rows here are those Prisma gives.
 */
import { type ColumnKinds, columnList, decodeRow } from "@/lib/db/sqlite-columns";
import { prepared, sqliteRead, sqliteValue, sqliteWrite } from "@/lib/db/sqlite-writes";
import type { ChangeRow } from "./change-summary";
import type { RunRow, SeriesRow } from "./load";

const SERIES_KINDS: ColumnKinds<SeriesRow> = {
  id: "text",
  key: "text",
  name: "text",
  explicit: "boolean",
  settingsJson: "text",
  createdAt: "date",
  status: "text",
  trendJson: "text",
  lastValue: "number",
  lastMetric: "text",
  judgedAt: "date",
};

/** The columns judging reads of a run (load.ts, RUN_SELECT). */
const RUN_KINDS: ColumnKinds<RunRow> = {
  id: "text",
  name: "text",
  engine: "text",
  engineVersion: "text",
  model: "text",
  gpu: "text",
  gpuCount: "number",
  gpuMemoryMib: "number",
  flagsJson: "text",
  envJson: "text",
  workloadJson: "text",
  speculativeJson: "text",
  gitCommit: "text",
  gitBranch: "text",
  ciUrl: "text",
  sortAt: "date",
  createdAt: "date",
  singleStreamTokS: "number",
  peakTokS: "number",
  accuracyJson: "text",
};

const CHANGE_KINDS: ColumnKinds<ChangeRow> = {
  id: "text",
  seriesId: "text",
  metric: "text",
  startGroup: "text",
  startRunId: "text",
  lastGoodRunId: "text",
  lastRunId: "text",
  kind: "text",
  direction: "text",
  status: "text",
  note: "text",
  before: "number",
  after: "number",
  changePct: "number",
  zScore: "number",
  pValue: "number",
  violations: "number",
  active: "boolean",
  detectedAt: "date",
  confirmedAt: "date",
  updatedAt: "date",
};

type Raw = Record<string, unknown>;

// The statements' texts, made once: a kept statement is found by its text.
const SERIES_SQL = `SELECT ${columnList(SERIES_KINDS)} FROM "Series" WHERE "id" = ?`;
const TAIL_SQL = `SELECT ${columnList(RUN_KINDS)} FROM "Run" WHERE "seriesId" = ? AND "seriesOverride" = 0
  ORDER BY "sortAt" DESC, "createdAt" DESC, "id" DESC LIMIT ?`;
const CHANGES_OF_RUNS_SQL = `SELECT ${columnList(CHANGE_KINDS, "c")} FROM "SeriesChange" c
  WHERE c."seriesId" = ? AND EXISTS (
    SELECT 1 FROM "SeriesChangeRun" l WHERE l."changeId" = c."id" AND l."runId" IN (SELECT value FROM json_each(?)))
  ORDER BY c."detectedAt" ASC`;
const CHANGES_AT_SQL = `SELECT ${columnList(CHANGE_KINDS)} FROM "SeriesChange"
  WHERE "seriesId" = ? AND "startGroup" IN (SELECT value FROM json_each(?))`;

export interface SeriesTail {
  row: SeriesRow | null;
  /** Newest first, as read. */
  runRows: RunRow[];
  /** The runs the series' baseline restarts at. */
  annotatedRunIds: string[];
}

/**
 * The series, its newest `count` runs not stored by override (newest first: sortAt, then createdAt, then id, all
 * descending) and its annotated runs.
 */
export async function readSeriesTail(seriesId: string, count: number): Promise<SeriesTail | null> {
  const series = await sqliteRead<Raw>(SERIES_SQL, [seriesId]);
  if (!series) return null;
  const runs = (await sqliteRead<Raw>(TAIL_SQL, [seriesId, count])) ?? [];
  const annotations =
    (await sqliteRead<{ runId: string }>(`SELECT "runId" FROM "SeriesAnnotation" WHERE "seriesId" = ?`, [seriesId])) ??
    [];
  return {
    row: series[0] ? decodeRow(series[0], SERIES_KINDS) : null,
    runRows: runs.map((raw) => decodeRow(raw, RUN_KINDS)),
    annotatedRunIds: annotations.map((annotation) => annotation.runId),
  };
}

export interface LevelCountRow {
  concurrency: number | bigint | null;
  request_rate: number | null;
  /** A boolean on PostgreSQL, 0 or 1 on SQLite. */
  request_rate_infinite: boolean | number | bigint;
  points: number | bigint;
}

/** How many points these runs hold at each load level. */
export function readLevelCounts(runIds: readonly string[]): Promise<LevelCountRow[] | null> {
  return sqliteRead<LevelCountRow>(
    `SELECT p."concurrency", p."request_rate", p."request_rate_infinite", count(*) AS "points"
     FROM "ResultPoint" p
     WHERE p."runId" IN (SELECT value FROM json_each(?))
     GROUP BY p."concurrency", p."request_rate", p."request_rate_infinite"`,
    [JSON.stringify(runIds)],
  );
}

/** A load level as a condition on `p` (ResultPoint) and its parameters. */
export interface LevelFilter {
  sql: string;
  parameters: unknown[];
}

/** The runs' points at one level, with the given columns (a constant list), in run and position order. */
export function readPointsAt(
  runIds: readonly string[],
  columnsSql: string,
  level: LevelFilter,
): Promise<(Raw & { runId: string })[] | null> {
  return sqliteRead<Raw & { runId: string }>(
    `SELECT p."runId", ${columnsSql}
     FROM "ResultPoint" p
     WHERE p."runId" IN (SELECT value FROM json_each(?)) AND ${level.sql}
     ORDER BY p."runId", p."position"`,
    [JSON.stringify(runIds), ...level.parameters],
  );
}

/** A stored change with the runs linked to it. */
export type ChangeWithRuns = ChangeRow & { runs: { runId: string }[] };

async function withLinks(rows: ChangeRow[]): Promise<ChangeWithRuns[]> {
  if (rows.length === 0) return [];
  const links =
    (await sqliteRead<{ changeId: string; runId: string }>(
      `SELECT "changeId", "runId" FROM "SeriesChangeRun" WHERE "changeId" IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(rows.map((row) => row.id))],
    )) ?? [];
  const byChange = new Map<string, { runId: string }[]>(rows.map((row) => [row.id, []]));
  for (const link of links) byChange.get(link.changeId)?.push({ runId: link.runId });
  return rows.map((row) => ({ ...row, runs: byChange.get(row.id) ?? [] }));
}

/** The series' stored changes any of these runs is linked to, oldest detected first, each with its runs. */
export async function readChangesOfRuns(seriesId: string, runIds: readonly string[]): Promise<ChangeWithRuns[] | null> {
  const rows = await sqliteRead<Raw>(CHANGES_OF_RUNS_SQL, [seriesId, JSON.stringify(runIds)]);
  return rows ? withLinks(rows.map((raw) => decodeRow(raw, CHANGE_KINDS))) : null;
}

/** The series' stored changes that start at these repeat groups, each with its runs. */
export async function readChangesAt(
  seriesId: string,
  startGroups: readonly string[],
): Promise<ChangeWithRuns[] | null> {
  const rows = await sqliteRead<Raw>(CHANGES_AT_SQL, [seriesId, JSON.stringify(startGroups)]);
  return rows ? withLinks(rows.map((raw) => decodeRow(raw, CHANGE_KINDS))) : null;
}

export interface SeriesSummaryWrite {
  seriesId: string;
  status: string;
  trendJson: string;
  lastValue: number | null;
  lastMetric: string | null;
  now: Date;
  /** The runs judged: stored changes active and starting among them but not in `keptChangeIds` are retired. */
  judgedRunIds: readonly string[];
  keptChangeIds: readonly string[];
}

/** The series' summary and the retirement of changes not found again, in one transaction; null on PostgreSQL. */
export async function writeSeriesSummary(summary: SeriesSummaryWrite): Promise<true | null> {
  const now = sqliteValue(summary.now);
  const written = await sqliteWrite((connection) => {
    prepared(
      connection,
      `UPDATE "SeriesChange" SET "active" = 0, "updatedAt" = ?
       WHERE "seriesId" = ? AND "active" = 1
         AND "startRunId" IN (SELECT value FROM json_each(?))
         AND "id" NOT IN (SELECT value FROM json_each(?))`,
    ).run(now, summary.seriesId, JSON.stringify(summary.judgedRunIds), JSON.stringify(summary.keptChangeIds));
    prepared(
      connection,
      `UPDATE "Series" SET "status" = ?, "trendJson" = ?, "lastValue" = ?, "lastMetric" = ?, "judgedAt" = ?
       WHERE "id" = ?`,
    ).run(summary.status, summary.trendJson, summary.lastValue, summary.lastMetric, now, summary.seriesId);
  });
  return written ? true : null;
}
