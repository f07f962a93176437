/**
 * Every database access for runs. Pages and route handlers call these functions; nothing else touches Prisma.
 */

import { db, provider, sqliteRowsReady } from "@/lib/db/client";
import { isUniqueViolation, retryWhileBusy } from "@/lib/db/errors";
import { ROWS_FUNCTION, rowsSelectList, setAsideRows } from "@/lib/db/sqlite-rows";
import { contentHash } from "@/lib/document/content-hash";
import { type Headline, headline } from "@/lib/document/derived";
import type { RunDocument } from "@/lib/document/normalize";
import {
  forbiddenCharacter,
  LATENCY_KEYS,
  type ResultPoint,
  RUN_FORMAT,
  SERVER_METRIC_KEYS,
} from "@/lib/document/schema";
import { pairsOfQuery, searchPairsOf, searchTriplesOf, wordsToken } from "@/lib/document/search-pairs";
import type { StoredRun } from "@/lib/document/stored-run";
import { notFoundError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { ID_PATTERN } from "@/lib/ids";
import { randomId } from "@/lib/random-id";
import { newSeriesId, seriesIdentity } from "@/lib/series/key";
import {
  buildSearchSample,
  planSearch,
  SEARCH_SAMPLE_CHARS,
  SEARCH_SAMPLE_ROWS,
  type SearchSample,
} from "./search-plan";

/** Short, URL-safe and unguessable: 12 base64url characters (~71.9 random bits), the first a letter or digit. */
export function newRunId(): string {
  return randomId(12);
}

export interface RunSummary extends Headline {
  id: string;
  url: string;
  name: string;
  engine: string;
  engine_version: string | null;
  model: string;
  hardware: { gpu: string | null; gpu_count: number | null };
  tags: string[];
  measured_at: string | null;
  created_at: string;
  point_count: number;
  source_format: string;
  /** The series the run belongs to (/series/<id>). */
  series_id: string | null;
}

export const SORT_KEYS = ["date", "name", "engine", "model", "single_stream", "peak"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface RunListQuery {
  engine?: string | undefined;
  model?: string | undefined;
  gpu?: string | undefined;
  tag?: string | undefined;
  q?: string | undefined;
  page: number;
  per_page: number;
  sort: SortKey;
  dir: "asc" | "desc";
}

const POINT_NUMBER_KEYS = [
  "completed",
  "failed",
  "duration_s",
  "total_input_tokens",
  "total_output_tokens",
  "request_throughput",
  "request_goodput",
  "output_throughput",
  "total_token_throughput",
  "decode_throughput",
  ...LATENCY_KEYS,
  ...SERVER_METRIC_KEYS,
] as const;

type PointRow = Omit<Prisma.ResultPointGetPayload<object>, "requestsJson"> & { requestsJson?: string | null };
type RunRowWithPoints = Omit<Prisma.RunGetPayload<{ include: { tags: true; points: true } }>, "points"> & {
  points: PointRow[];
};

/** Every column a stored point has, in one order: the statements that insert points name them all. */
const POINT_COLUMNS = [
  "runId",
  "position",
  "concurrency",
  "request_rate",
  "request_rate_infinite",
  "repeat",
  ...POINT_NUMBER_KEYS,
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
]);
const POINT_TEXT_COLUMNS: ReadonlySet<string> = new Set(["runId", "percentilesJson", "requestsJson", "sourcesJson"]);

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
function pointInserts(
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

function pointToRow(point: ResultPoint, position: number): Omit<Prisma.ResultPointCreateManyInput, "runId"> {
  const row: Omit<Prisma.ResultPointCreateManyInput, "runId"> = {
    position,
    sourcesJson: point.sources ? JSON.stringify(point.sources) : null,
    percentilesJson: point.percentiles ? JSON.stringify(point.percentiles) : null,
    requestsJson: point.requests ? JSON.stringify(point.requests) : null,
    concurrency: point.concurrency ?? null,
    request_rate: typeof point.request_rate === "number" ? point.request_rate : null,
    request_rate_infinite: point.request_rate === "inf",
    repeat: point.repeat ?? null,
  };
  for (const key of POINT_NUMBER_KEYS) {
    const value = point[key];
    if (value !== undefined) row[key] = value;
  }
  return row;
}

export function rowToPoint(row: PointRow): ResultPoint {
  const point: ResultPoint = {};
  if (row.concurrency !== null) point.concurrency = row.concurrency;
  if (row.request_rate_infinite) point.request_rate = "inf";
  else if (row.request_rate !== null) point.request_rate = row.request_rate;
  if (row.repeat !== null) point.repeat = row.repeat;
  for (const key of POINT_NUMBER_KEYS) {
    const value = row[key];
    if (value !== null) point[key] = value;
  }
  const percentiles = parseJson<ResultPoint["percentiles"]>(row.percentilesJson);
  if (percentiles) point.percentiles = percentiles;
  // Absent when the query left the column out (comparisons do: per-request rows are shown on the run page only).
  const requests = parseJson<ResultPoint["requests"]>(row.requestsJson ?? null);
  if (requests) point.requests = requests;
  const sources = parseJson<Record<string, string>>(row.sourcesJson);
  if (sources) point.sources = sources;
  return point;
}

function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

type SearchedFields = Pick<RunDocument, "name" | "engine" | "model" | "command" | "notes">;

export function searchTextOf(doc: SearchedFields): string {
  return [doc.name, doc.engine, doc.model, doc.command ?? "", doc.notes ?? ""].join("\n").toLowerCase();
}

/** The columns the text search reads, written together wherever a run's searched fields are. */
export function searchColumnsOf(doc: SearchedFields): {
  searchText: string;
  searchPairs: string;
  searchTriples: string;
} {
  const searchText = searchTextOf(doc);
  return { searchText, searchPairs: searchPairsOf(searchText), searchTriples: searchTriplesOf(searchText) };
}

function headlineColumns(points: readonly ResultPoint[]) {
  const figures = headline(points);
  return {
    singleStreamTokS: figures.single_stream?.output_tok_s ?? null,
    singleStreamDerived: figures.single_stream?.derived ?? false,
    peakTokS: figures.peak?.output_tok_s ?? null,
    peakConcurrency: figures.peak?.concurrency ?? null,
    peakRequestRate: figures.peak?.request_rate == null ? null : String(figures.peak.request_rate),
  };
}

/**
 * What a history row shows, and only that: a run's other columns (its flags, metadata, import report, search
 * text) can be kilobytes each, read and parsed for nothing on every page. Its tags come as a JSON array.
 */
interface SummaryRow {
  id: string;
  name: string;
  engine: string;
  engineVersion: string | null;
  model: string;
  gpu: string | null;
  gpuCount: number | null;
  measuredAt: Date | null;
  createdAt: Date;
  pointCount: number;
  sourceFormat: string;
  seriesId: string | null;
  singleStreamTokS: number | null;
  singleStreamDerived: boolean;
  peakTokS: number | null;
  peakConcurrency: number | null;
  peakRequestRate: string | null;
  tagsJson: string;
}

/**
 * The summaries of these runs, in no particular order: only the columns a row shows, and each run's tags
 * gathered by the database in the same query. Prisma's findMany with the tags relation spent ~35 µs a row of the
 * history page's CPU (a profile of 400 pages of 25 rows against 400 of 1) reading and joining its two results;
 * this one query ~10 µs. The integration suite runs it on both databases.
 */
async function readSummaries(ids: readonly string[]): Promise<SummaryRow[]> {
  if (ids.length === 0) return [];
  const tagsJson =
    provider() === "postgresql"
      ? Prisma.sql`(SELECT coalesce(json_agg(t."tag"), '[]'::json)::text FROM "RunTag" t WHERE t."runId" = r."id")`
      : Prisma.sql`(SELECT json_group_array(t."tag") FROM "RunTag" t WHERE t."runId" = r."id")`;
  return db().$queryRaw<SummaryRow[]>`
    SELECT r."id", r."name", r."engine", r."engineVersion", r."model", r."gpu", r."gpuCount", r."measuredAt",
      r."createdAt", r."pointCount", r."sourceFormat", r."seriesId", r."singleStreamTokS", r."singleStreamDerived",
      r."peakTokS", r."peakConcurrency", r."peakRequestRate", ${tagsJson} AS "tagsJson"
    FROM "Run" r WHERE r."id" IN (${Prisma.join(ids)})`;
}

function summaryOf(row: SummaryRow): RunSummary {
  return {
    id: row.id,
    url: `/runs/${row.id}`,
    name: row.name,
    engine: row.engine,
    engine_version: row.engineVersion,
    model: row.model,
    hardware: { gpu: row.gpu, gpu_count: row.gpuCount },
    tags: (JSON.parse(row.tagsJson) as string[]).sort(),
    measured_at: row.measuredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    point_count: row.pointCount,
    source_format: row.sourceFormat,
    series_id: row.seriesId,
    single_stream:
      row.singleStreamTokS === null ? null : { output_tok_s: row.singleStreamTokS, derived: row.singleStreamDerived },
    peak:
      row.peakTokS === null
        ? null
        : {
            output_tok_s: row.peakTokS,
            concurrency: row.peakConcurrency,
            request_rate:
              row.peakRequestRate === null ? null : row.peakRequestRate === "inf" ? "inf" : Number(row.peakRequestRate),
          },
  };
}

function documentOf(row: RunRowWithPoints): StoredRun {
  const doc: StoredRun = {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    source_format: row.sourceFormat,
    format: RUN_FORMAT,
    name: row.name,
    engine: row.engine,
    model: row.model,
    flags: parseJson(row.flagsJson) ?? {},
    env: parseJson(row.envJson) ?? {},
    tags: row.tags.map((tag) => tag.tag).sort(),
    metadata: parseJson(row.metadataJson) ?? {},
    warnings: parseJson(row.warningsJson) ?? [],
    not_imported: parseJson(row.notImportedJson) ?? [],
    results: [...row.points].sort((a, b) => a.position - b.position).map(rowToPoint),
  };
  if (row.engineVersion !== null) doc.engine_version = row.engineVersion;
  if (row.gpu !== null || row.gpuCount !== null || row.gpuMemoryMib !== null) {
    doc.hardware = {};
    if (row.gpu !== null) doc.hardware.gpu = row.gpu;
    if (row.gpuCount !== null) doc.hardware.gpu_count = row.gpuCount;
    if (row.gpuMemoryMib !== null) doc.hardware.gpu_memory_mib = row.gpuMemoryMib;
  }
  if (row.command !== null) doc.command = row.command;
  const workload = parseJson<RunDocument["workload"]>(row.workloadJson);
  if (workload) doc.workload = workload;
  const speculative = parseJson<RunDocument["speculative"]>(row.speculativeJson);
  if (speculative) doc.speculative = speculative;
  if (row.serverStartupS !== null) doc.server_startup_s = row.serverStartupS;
  if (row.notes !== null) doc.notes = row.notes;
  if (row.measuredAt !== null) doc.measured_at = row.measuredAt.toISOString();
  if (row.seriesName !== null) doc.series = row.seriesName;
  if (row.gitCommit !== null) doc.git_commit = row.gitCommit;
  if (row.gitBranch !== null) doc.git_branch = row.gitBranch;
  if (row.ciUrl !== null) doc.ci_url = row.ciUrl;
  return doc;
}

export interface CreateRunOptions {
  /** For tests and the demo loader: a fixed creation time. */
  createdAt?: Date;
}

/** The run's row with its tags and series; its points are stored by pointInserts in the same transaction. */
function runCreateData(doc: RunDocument, id: string, now: Date): Prisma.RunCreateInput {
  const measuredAt = doc.measured_at ? new Date(doc.measured_at) : null;
  const series = seriesIdentity(doc);
  return {
    id,
    name: doc.name,
    engine: doc.engine,
    engineVersion: doc.engine_version ?? null,
    model: doc.model,
    gpu: doc.hardware?.gpu ?? null,
    gpuCount: doc.hardware?.gpu_count ?? null,
    gpuMemoryMib: doc.hardware?.gpu_memory_mib ?? null,
    command: doc.command ?? null,
    flagsJson: JSON.stringify(doc.flags),
    envJson: JSON.stringify(doc.env),
    workloadJson: doc.workload ? JSON.stringify(doc.workload) : null,
    speculativeJson: doc.speculative ? JSON.stringify(doc.speculative) : null,
    serverStartupS: doc.server_startup_s ?? null,
    notes: doc.notes ?? null,
    metadataJson: JSON.stringify(doc.metadata),
    warningsJson: JSON.stringify(doc.warnings),
    notImportedJson: JSON.stringify(doc.not_imported),
    sourceFormat: doc.source_format,
    measuredAt,
    createdAt: now,
    updatedAt: now,
    sortAt: measuredAt ?? now,
    ...searchColumnsOf(doc),
    ...headlineColumns(doc.results),
    pointCount: doc.results.length,
    seriesName: doc.series ?? null,
    gitCommit: doc.git_commit ?? null,
    gitBranch: doc.git_branch ?? null,
    ciUrl: doc.ci_url ?? null,
    // The unique key makes this safe when two uploads start the same series at once: one creates, and the
    // other's transaction fails on the key and is retried (storeRuns), finding it.
    series: {
      connectOrCreate: {
        where: { key: series.key },
        create: { id: newSeriesId(), key: series.key, name: series.name, explicit: series.explicit, createdAt: now },
      },
    },
    tags: { createMany: { data: doc.tags.map((tag) => ({ tag })) } },
  };
}

/** Store a run and all its points in one transaction: all of it or nothing. */
export async function createRun(doc: RunDocument, options: CreateRunOptions = {}): Promise<{ id: string }> {
  const id = newRunId();
  // One transaction: the run, its points and its tags land together or not at all.
  await db().$transaction([
    db().run.create({
      data: { ...runCreateData(doc, id, options.createdAt ?? new Date()), contentHash: contentHash(doc) },
      select: { id: true },
    }),
    ...pointInserts([{ runId: id, results: doc.results }]),
  ]);
  return { id };
}

export interface RunToStore {
  document: RunDocument;
  /** Restoring an export: keep the run's id when no run has it yet. */
  restoreId?: string | undefined;
  /** Restoring an export: keep the run's upload time. */
  restoreCreatedAt?: Date | undefined;
}

export interface StoredRunRef {
  id: string;
  name: string;
  /** True when the same content was already stored: nothing was added, `id` is the existing run. */
  duplicate: boolean;
}

/** Ids a restored run may keep: the one id rule of documents (lib/ids.ts), which validation has applied already. */
const RESTORABLE_ID = ID_PATTERN;

async function storeRunsOnce(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
  const hashed = entries.map((entry) => ({ ...entry, hash: contentHash(entry.document) }));
  const existing = await db().run.findMany({
    where: { contentHash: { in: [...new Set(hashed.map((entry) => entry.hash))] } },
    select: { id: true, name: true, contentHash: true },
  });
  const byHash = new Map(existing.map((row) => [row.contentHash, row]));
  const wantedIds = hashed
    .map((entry) => entry.restoreId)
    .filter((id): id is string => id !== undefined && RESTORABLE_ID.test(id));
  const takenIds = new Set(
    wantedIds.length === 0
      ? []
      : (await db().run.findMany({ where: { id: { in: wantedIds } }, select: { id: true } })).map((row) => row.id),
  );

  const now = new Date();
  const results: StoredRunRef[] = [];
  const creates: Pick<RestoreCreate, "data" | "results">[] = [];
  const batchByHash = new Map<string, StoredRunRef>();
  for (const entry of hashed) {
    const found = byHash.get(entry.hash) ?? batchByHash.get(entry.hash);
    if (found) {
      results.push({ id: found.id, name: found.name, duplicate: true });
      continue;
    }
    const keepId =
      entry.restoreId !== undefined && RESTORABLE_ID.test(entry.restoreId) && !takenIds.has(entry.restoreId);
    const id = keepId ? entry.restoreId! : newRunId();
    takenIds.add(id);
    // A millisecond apart: runs of one upload without a measured_at keep their order in a series.
    const createdAt =
      keepId && entry.restoreCreatedAt ? entry.restoreCreatedAt : new Date(now.getTime() + creates.length);
    const data = runCreateData(entry.document, id, createdAt);
    creates.push({ data: { ...data, contentHash: entry.hash }, results: entry.document.results });
    const ref = { id, name: entry.document.name, duplicate: false };
    batchByHash.set(entry.hash, ref);
    results.push(ref);
  }
  if (creates.length > 0) {
    await db().$transaction(batchStatements(creates));
  }
  return results;
}

/**
 * Store runs in one transaction: all of them or none. Content already stored is not stored again: its
 * entry comes back as a duplicate with the existing run's id.
 */
export async function storeRuns(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
  return retryWhileBusy(async () => {
    try {
      return await storeRunsOnce(entries);
    } catch (error) {
      // Two uploads of the same content at the same moment: the unique hash let one in. Looking again finds it.
      if (isUniqueViolation(error)) return storeRunsOnce(entries);
      throw error;
    }
  });
}

/** Store several runs in one transaction: all of them or none. */
export async function createRuns(docs: readonly RunDocument[]): Promise<StoredRunRef[]> {
  return storeRuns(docs.map((document) => ({ document })));
}

export async function getRunOrThrow(id: string): Promise<StoredRun> {
  const row = await db().run.findUnique({ where: { id }, include: { tags: true, points: true } });
  if (!row) throw notFoundError(`Run "${id}"`);
  return documentOf(row);
}

export interface GetRunsOptions {
  /**
   * Leave out each point's per-request rows (`requests`): a comparison charts the points' figures and would
   * otherwise load, and send to the browser, thousands of rows per run for nothing.
   */
  withoutRequestDetail?: boolean;
}

/** The columns of a stored point a run's document is made of, for pointRowsOf. */
const POINT_READ_COLUMNS = Prisma.raw(
  ["runId", "position", "concurrency", "request_rate", "request_rate_infinite", "repeat", ...POINT_NUMBER_KEYS]
    .concat(["percentilesJson", "sourcesJson"])
    .map((column) => `p."${column}"`)
    .join(", "),
);

/**
 * One run's points, read with SQL and a turn for the event loop before: a comparison of 12 runs of 1,000 levels
 * read through Prisma's relation took ~600 ms of this thread in one piece (its rows mapped value by value), these
 * ~15 ms a run.
 */
async function pointRowsOf(runId: string, withRequests: boolean): Promise<PointRow[]> {
  await yieldToEventLoop();
  const requests = withRequests ? Prisma.sql`, p."requestsJson"` : Prisma.empty;
  const rows = await db().$queryRaw<Record<string, unknown>[]>`
    SELECT ${POINT_READ_COLUMNS}${requests} FROM "ResultPoint" p WHERE p."runId" = ${runId} ORDER BY p."position"`;
  return rows.map((row) => {
    // Counts may come back as bigint, SQLite's booleans as 0 or 1: as Prisma's own read gives them.
    for (const [key, value] of Object.entries(row)) if (typeof value === "bigint") row[key] = Number(value);
    row.request_rate_infinite = row.request_rate_infinite === true || row.request_rate_infinite === 1;
    return row as unknown as PointRow;
  });
}

/** Runs by id, in the order asked for; unknown ids are returned separately so a page can say which. */
export async function getRunsByIds(
  ids: readonly string[],
  options: GetRunsOptions = {},
): Promise<{ runs: StoredRun[]; missing: string[] }> {
  const rows = await db().run.findMany({ where: { id: { in: [...ids] } }, include: { tags: true } });
  const byId = new Map<string, StoredRun>();
  for (const [index, row] of rows.entries()) {
    // A turn for other requests between runs: 12 runs of 1,000 levels are ~12,000 rows read on SQLite's thread.
    if (index > 0) await yieldToEventLoop();
    byId.set(row.id, documentOf({ ...row, points: await pointRowsOf(row.id, !options.withoutRequestDetail) }));
  }
  const runs: StoredRun[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const run = byId.get(id);
    if (run) runs.push(run);
    else missing.push(id);
  }
  return { runs, missing };
}

/**
 * The history's list, written to stay fast at a million runs on both databases (docs/benchmarks.md):
 *
 * - One SQL query picks the page's run ids with the filters, the order and LIMIT/OFFSET, served by an index for
 *   every sort; Prisma then loads those runs with their tags. The SQL is the subset SQLite and PostgreSQL share
 *   (double-quoted names; nulls placed by splitting, not by NULLS LAST); only the text search differs.
 * - Sorting by a figure lists the runs that have it (by the figure, then newest first) and then those that do not
 *   (newest first), as two index scans rather than one sort of every row.
 * - The same query reads a page past the one asked for (`PAGES_AHEAD`), which is the total of a filtered list
 *   when it ends there; when it does not, the answer is "more than N" (`total_exact: false`): an exact count would
 *   read every matching run, which at a million runs costs more than the page. The unfiltered total is exact,
 *   from the RunTotal row the database's triggers keep.
 * - The text search is "searchText contains q" (both lower-cased). With three characters or more it is answered
 *   by a trigram index (SQLite's FTS5 trigram table, PostgreSQL's pg_trgm GIN index) asked for the few trigrams of
 *   q that narrow it most, or by a walk of the order's index when q is common (searchCondition); shorter queries
 *   read rows.
 */
const PAGES_AHEAD = 1;

const FIGURE_COLUMNS = { single_stream: "singleStreamTokS", peak: "peakTokS" } as const;
const TEXT_SORT_COLUMNS = { name: "name", engine: "engine", model: "model" } as const;

type Sql = Prisma.Sql;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** An FTS5 phrase for a substring (three characters or more: a trigram or several in a row), quotes doubled. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

interface CachedSample {
  sample: SearchSample;
  /** The run total when it was read, and when. */
  total: number;
  readAt: number;
}
/** Each database client's sample of the newest runs' texts, for planSearch (lib/runs/search-plan.ts). */
const searchSamples = new WeakMap<object, { cached: CachedSample | null; reading: Promise<CachedSample> | null }>();
/** A sample older than this is read again in the background; searches meanwhile use the one they have. */
const SAMPLE_MAX_AGE_MS = 300_000;

async function readSearchSample(total: number): Promise<CachedSample> {
  const rows = await db().$queryRaw<{ t: string }[]>`
    SELECT substr(r."searchText", 1, ${SEARCH_SAMPLE_CHARS}) AS t
    FROM "Run" r ORDER BY r."sortAt" DESC, r."id" DESC LIMIT ${SEARCH_SAMPLE_ROWS}`;
  const whole = rows.length < SEARCH_SAMPLE_ROWS;
  return {
    sample: buildSearchSample(
      rows.map((row) => row.t),
      whole,
    ),
    total,
    readAt: Date.now(),
  };
}

/**
 * The sample the search plans with. It steers only the cost of a search, never its answer, so it is kept for five
 * minutes rather than read per search (2,000 texts, 20–100 ms): read again in the background when older, and before
 * answering when the history's size moved by more than a tenth since (a first search, an import, a restore).
 */
async function searchSample(total: number): Promise<SearchSample> {
  const client = db();
  let slot = searchSamples.get(client);
  if (!slot) {
    slot = { cached: null, reading: null };
    searchSamples.set(client, slot);
  }
  const holder = slot;
  const read = () => {
    holder.reading ??= readSearchSample(total).then(
      (fresh) => {
        holder.cached = fresh;
        holder.reading = null;
        return fresh;
      },
      (error: unknown) => {
        holder.reading = null;
        throw error;
      },
    );
    return holder.reading;
  };
  const cached = holder.cached;
  if (!cached || Math.abs(total - cached.total) > cached.total / 10) return (await read()).sample;
  if (Date.now() - cached.readAt > SAMPLE_MAX_AGE_MS) read().catch(() => {});
  return cached.sample;
}

/**
 * SQLite's list entry against a run tested, measured at a million runs: ~18 ns an entry of an FTS5 `AND`
 * (60,000 entries of two pair lists in 1.1 ms) against ~0.2 µs a candidate joined and tested with instr (837 in
 * 0.18 ms), the rows being small and mostly cached.
 */
const SQLITE_LIST_ENTRY_COST = 1 / 10;

/** PostgreSQL's pg_trgm keeps trigrams of letters and digits only: LIKE '%abc%' asks its index for "abc" alone. */
const PG_TRGM_ALONE = /^[a-z0-9]{3}$/;

/**
 * Whether every run's word pairs (triples) are stored, so that index may be asked: runs written before they
 * existed (or by an older instance during an upgrade) have none until `npm run db:migrate` fills them in. One
 * probe of a partial index each, in one query, so that a run without them is never missed.
 */
async function wordIndexesComplete(): Promise<{ pairs: boolean; triples: boolean }> {
  const [row] = await db().$queryRaw<{ pairs: number | bigint | null; triples: number | bigint | null }[]>`
    SELECT (SELECT 1 FROM "Run" r WHERE r."searchPairs" IS NULL LIMIT 1) AS pairs,
      (SELECT 1 FROM "Run" r WHERE r."searchTriples" IS NULL LIMIT 1) AS triples`;
  return { pairs: row?.pairs === null, triples: row?.triples === null };
}

interface SearchFilter {
  /**
   * The condition on `r`; null when no index narrows the text down (fewer than three characters, a common text, one
   * the indexes gave too many candidates for): the runs' text is then read run by run, within a budget (walkSearch).
   */
  condition: Sql | null;
  /**
   * Every run matching, newest first as the history orders by date (sortAt, then id), when the indexes found them
   * all: the page of a search alone is then a slice of it, with no second visit to the rows.
   */
  newestFirst?: string[];
}

/**
 * The condition on `r` for "r.searchText contains text" (text lower-cased), as each database answers it best.
 * From three characters on, planSearch (lib/runs/search-plan.ts) chooses between walking the page's order and
 * asking the indexes for a few of the text's trigrams, word pairs and triples, the whole text then checked on the
 * runs they return.
 */
async function searchCondition(text: string, take: number): Promise<SearchFilter> {
  const indexed = [...text].length >= 3;
  const postgresql = provider() === "postgresql";
  if (!indexed) return { condition: null };
  const total = Math.max(1, await countRuns());
  const sample = await searchSample(total);
  // A text without a whole pair of words has no triple either: no probe, and neither index to ask.
  const words = pairsOfQuery(text).length > 0 ? await wordIndexesComplete() : { pairs: false, triples: false };
  if (postgresql) {
    const plan = planSearch(sample, text, { total, take, ...words, usable: (trigram) => PG_TRGM_ALONE.test(trigram) });
    // A common text: its matches come soon in the page's order, read run by run within the search's budget.
    if (plan.kind === "walk") return { condition: null };
    // A rare one: only the chosen trigrams (LIKE), pairs and triples (@>, the GIN indexes of their tokens) reach
    // the indexes; the whole text is checked by strpos, which no index serves, on the candidates.
    const parts = plan.trigrams.map((trigram) => Prisma.sql`r."searchText" LIKE ${likePattern(trigram)}`);
    for (const [sequences, column] of [
      [plan.pairs, Prisma.raw(`r."searchPairs"`)],
      [plan.triples, Prisma.raw(`r."searchTriples"`)],
    ] as const) {
      if (sequences.length === 0) continue;
      const tokens = Prisma.join(sequences.map((sequence) => Prisma.sql`${wordsToken(sequence)}`));
      parts.push(Prisma.sql`string_to_array(${column}, ' ') @> ARRAY[${tokens}]::text[]`);
    }
    return { condition: Prisma.sql`${Prisma.join(parts, " AND ")} AND strpos(r."searchText", ${text}) > 0` };
  }
  const plan = planSearch(sample, text, { total, take, ...words, listEntryCost: SQLITE_LIST_ENTRY_COST });
  if (plan.kind === "walk") return { condition: null };
  // The matches, read from the indexes and checked, while there are at most √(take × total) of them: past that a
  // walk of the order's index finds a page's worth sooner than sorting them all.
  const sparseLimit = Math.max(200, Math.round(Math.sqrt(take * total)));
  // The rarest kind's index drives (triples', then pairs', then trigrams': their lists are the shorter); the
  // others' matches are read once each, as sets the driving rows are looked up in.
  const asked = [
    { table: "RunTriples", keys: plan.triples.map(wordsToken) },
    { table: "RunPairs", keys: plan.pairs.map(wordsToken) },
    { table: "RunSearch", keys: plan.trigrams },
  ]
    .filter((index) => index.keys.length > 0)
    .map((index) => ({ table: Prisma.raw(`"${index.table}"`), match: index.keys.map(ftsPhrase).join(" AND ") }));
  const [driving, ...others] = asked;
  if (!driving) return { condition: null };
  const alsoIn = others.map(
    (index) =>
      Prisma.sql`AND d.rowid IN (SELECT o.rowid FROM ${index.table} o WHERE o.${index.table} MATCH ${index.match})`,
  );
  const candidates = Prisma.sql`SELECT d.rowid AS id FROM ${driving.table} d WHERE d.${driving.table} MATCH ${driving.match}
    ${alsoIn.length === 0 ? Prisma.empty : Prisma.join(alsoIn, " ")}`;
  // The matches come back as JSON arrays and go into the page's query as one parameter: hundreds of rows and
  // as many bound parameters through the client cost more than finding them (0.7 and 0.5 ms for 431). They come
  // in the history's date order, read from the rows the text was checked on: the page of a search sorted by date
  // needs no second visit to them (0.9 ms for 431 at a million runs, the rows no longer in the CPU's caches).
  const [found] = await db().$queryRaw<{ n: number | bigint; rowids: string | null; ids: string | null }[]>`
    SELECT count(*) AS n,
      json_group_array(m.rowid) AS rowids,
      json_group_array(m.id ORDER BY m.sortAt DESC, m.id DESC) AS ids
    FROM (
      SELECT c.id AS rowid, r."id" AS id, r."sortAt" AS sortAt FROM (${candidates}) AS c
      JOIN "Run" r ON r.rowid = c.id
      WHERE instr(r."searchText", ${text}) > 0 LIMIT ${sparseLimit + 1}
    ) AS m`;
  const matches = Number(found?.n ?? 0);
  if (matches === 0) return { condition: Prisma.sql`1 = 0`, newestFirst: [] };
  if (matches <= sparseLimit) {
    return {
      condition: Prisma.sql`r.rowid IN (SELECT j.value FROM json_each(${found?.rowids ?? "[]"}) AS j)`,
      newestFirst: JSON.parse(found?.ids ?? "[]") as string[],
    };
  }
  return { condition: null };
}

interface ListConditions {
  conditions: Sql[];
  /** The search's matches newest first, when it found them all (SearchFilter). */
  searchNewestFirst?: string[] | undefined;
  /** The text (lower-cased) to read the runs meeting `conditions` for, run by run (walkSearch). */
  walkText?: string | undefined;
}

async function conditionsOf(query: RunListQuery, take: number): Promise<ListConditions> {
  // A filter holding a character no stored text can (a NUL, say) matches no run, and would break FTS5's query parser
  // and PostgreSQL's text parameters: answered without asking the database.
  const filters = [query.q, query.engine, query.model, query.gpu, query.tag];
  if (filters.some((value) => value !== undefined && forbiddenCharacter(value, true) !== null)) {
    return { conditions: [Prisma.sql`1 = 0`], searchNewestFirst: [] };
  }
  const conditions: Sql[] = [];
  if (query.engine) conditions.push(Prisma.sql`r."engine" = ${query.engine.toLowerCase()}`);
  if (query.model) conditions.push(Prisma.sql`r."model" = ${query.model}`);
  if (query.gpu) conditions.push(Prisma.sql`r."gpu" = ${query.gpu}`);
  if (query.tag) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "RunTag" t WHERE t."runId" = r."id" AND t."tag" = ${query.tag.toLowerCase()})`,
    );
  }
  if (!query.q) return { conditions };
  const text = query.q.toLowerCase();
  const search = await searchCondition(text, take);
  if (search.condition === null) return { conditions, walkText: text };
  conditions.push(search.condition);
  return { conditions, searchNewestFirst: search.newestFirst };
}

/**
 * What a search may read when no index narrows its text down, in characters of the runs' text, each run read
 * counting SEARCH_ROW_COST more: ~160 ms of one core (measured on 2 cores: ~2 ns a character, ~5 µs a run read a
 * statement at a time). A history of runs with short texts (~300 characters) is searched whole up to ~28,000 runs;
 * of runs with 10,000 characters of notes, ~6,500; of runs carrying the largest notes and commands (40,000
 * characters), ~1,900. Past it the answer says how far it read (`search_complete: false`, `runs_searched`) rather
 * than holding the server: a text no run holds read 23,000 runs of ~25,000 characters for 0.8 s, and 20 such
 * searches held /api/health 5 s.
 */
export const SEARCH_BUDGET = 80_000_000;
/** What reading one run costs beyond its text, in characters: its row found, its text fetched and tested. */
export const SEARCH_ROW_COST = 2_500;
/**
 * What one statement of the walk reads, in the same units: its runs are read a statement at a time, so the other
 * requests of the process (on SQLite the one connection, which holds the event loop while it runs a statement)
 * wait ~2 ms for one of them, never for the whole walk. Searches in parallel take turns statement by statement,
 * and a request arriving meanwhile waits for one turn of each: at 5,000,000 (~7 ms, 10–50 ms on a busy machine)
 * 20 searches at once held /api/health up to 2 s.
 */
const WALK_CHUNK_COST = 1_250_000;

interface WalkPhase {
  /** The phase's own condition (a figure sort reads the runs with the figure, then those without it). */
  where: Sql | null;
  /** The column ordered by before the date (a sort by name, engine, model or figure); null: by date alone. */
  lead: { column: string; dir: "ASC" | "DESC" } | null;
  /** The direction of (sortAt, id): the page's for a sort by date, newest first after a leading column. */
  dateDir: "ASC" | "DESC";
}

/** The page's order as phases read one after the other, each in the order pageIds and listRunIds use. */
function walkPhases(query: RunListQuery): WalkPhase[] {
  const dir = query.dir === "asc" ? "ASC" : "DESC";
  if (query.sort === "date") return [{ where: null, lead: null, dateDir: dir }];
  if (query.sort === "single_stream" || query.sort === "peak") {
    const column = FIGURE_COLUMNS[query.sort];
    return [
      { where: Prisma.raw(`r."${column}" IS NOT NULL`), lead: { column, dir }, dateDir: "DESC" },
      { where: Prisma.raw(`r."${column}" IS NULL`), lead: null, dateDir: "DESC" },
    ];
  }
  return [{ where: null, lead: { column: TEXT_SORT_COLUMNS[query.sort], dir }, dateDir: "DESC" }];
}

interface WalkChunk {
  hits: string[];
  rows: number;
  chars: number;
  lastId: string | null;
}

/**
 * One statement of the walk: up to `limit` runs meeting `where` in `order`, and of them only the ids of those whose
 * text holds `text`, the count and text length of all, and the last one's id (where the next statement starts).
 */
async function walkChunk(text: string, where: readonly Sql[], order: Sql, outer: Sql, limit: number, lead: Sql) {
  const test =
    provider() === "postgresql"
      ? Prisma.sql`strpos(r."searchText", ${text}) > 0`
      : Prisma.sql`instr(r."searchText", ${text}) > 0`;
  const rows = await db().$queryRaw<
    { id: string; hit: number | bigint; n: number | bigint; chars: number | bigint | string | null }[]
  >`
    SELECT w."id", w."hit", w."n", w."chars" FROM (
      SELECT s."id", s."hit", count(*) OVER () AS "n", sum(s."chars") OVER () AS "chars",
        row_number() OVER (ORDER BY ${outer}) AS "rn"
      FROM (
        SELECT r."id" AS "id", r."sortAt" AS "sortAt", ${lead} AS "lead",
          CASE WHEN ${test} THEN 1 ELSE 0 END AS "hit", length(r."searchText") AS "chars"
        FROM "Run" r ${whereSql(where)} ORDER BY ${order} LIMIT ${limit}
      ) AS s
    ) AS w
    WHERE w."hit" = 1 OR w."rn" = w."n"
    ORDER BY w."rn"`;
  const last = rows.at(-1);
  return {
    hits: rows.filter((row) => Number(row.hit) === 1).map((row) => row.id),
    rows: last ? Number(last.n) : 0,
    chars: last ? Number(last.chars ?? 0) : 0,
    lastId: last?.id ?? null,
  } satisfies WalkChunk;
}

export interface SearchWalk {
  /** The matches in the page's order, at most `needed` of them. */
  ids: string[];
  /** Every run meeting the filters was read (the matches are all of them, or `needed` were found). */
  complete: boolean;
  /** How many runs' text was read. */
  runsSearched: number;
}

/**
 * "Which runs meeting `conditions` hold `text`", in the page's order, read a statement at a time from the start of
 * that order until `needed` matches are found, the runs end, or the budget is spent. Each statement starts after the
 * last run of the one before (its order values read from that run's row, so no value makes a round trip through
 * JavaScript), so the walk reads each run once however far it goes.
 */
async function walkSearch(
  query: RunListQuery,
  conditions: readonly Sql[],
  text: string,
  needed: number,
  { budget, statementRows }: { budget: number; statementRows: number | null },
): Promise<SearchWalk> {
  const ids: string[] = [];
  let spent = 0;
  let runsSearched = 0;
  // The first statement reads a few runs; later ones as many as WALK_CHUNK_COST buys at the text length seen so far.
  let limit = statementRows ?? 200;
  for (const phase of walkPhases(query)) {
    const base = phase.where ? [...conditions, phase.where] : [...conditions];
    // The order inside a statement (on `r`) and again over what it read (on `s`), to find its last run.
    const lead = phase.lead ? Prisma.raw(`r."${phase.lead.column}"`) : Prisma.raw("NULL");
    const order = Prisma.raw(
      phase.lead
        ? `r."${phase.lead.column}" ${phase.lead.dir}, r."sortAt" DESC, r."id" DESC`
        : `r."sortAt" ${phase.dateDir}, r."id" ${phase.dateDir}`,
    );
    const outer = Prisma.raw(
      phase.lead
        ? `s."lead" ${phase.lead.dir}, s."sortAt" DESC, s."id" DESC`
        : `s."sortAt" ${phase.dateDir}, s."id" ${phase.dateDir}`,
    );
    let lastId: string | null = null;
    for (;;) {
      if (ids.length >= needed) return { ids: ids.slice(0, needed), complete: true, runsSearched };
      if (spent >= budget) return { ids, complete: false, runsSearched };
      // A turn for the event loop between statements: awaiting one statement after another is a chain of promises
      // that never lets the loop accept a new connection, so 20 searches held /api/health until all had ended.
      if (runsSearched > 0) await yieldToEventLoop();
      const chunks: WalkChunk[] = [];
      const of = (column: string) =>
        Prisma.sql`(SELECT c.${Prisma.raw(`"${column}"`)} FROM "Run" c WHERE c."id" = ${lastId})`;
      const after = Prisma.raw(phase.dateDir === "DESC" ? "<" : ">");
      if (lastId === null) {
        chunks.push(await walkChunk(text, base, order, outer, limit, lead));
      } else if (!phase.lead) {
        const cursor = Prisma.sql`(r."sortAt", r."id") ${after} (SELECT c."sortAt", c."id" FROM "Run" c WHERE c."id" = ${lastId})`;
        chunks.push(await walkChunk(text, [...base, cursor], order, outer, limit, lead));
      } else {
        // After a run in (lead, sortAt DESC, id DESC) order: the rest of its lead value's runs, then the next values.
        const column = Prisma.raw(`r."${phase.lead.column}"`);
        const ties = Prisma.sql`${column} = ${of(phase.lead.column)} AND (r."sortAt", r."id") < (SELECT c."sortAt", c."id" FROM "Run" c WHERE c."id" = ${lastId})`;
        const tieOrder = Prisma.raw(`r."sortAt" DESC, r."id" DESC`);
        const tieOuter = Prisma.raw(`s."sortAt" DESC, s."id" DESC`);
        const first = await walkChunk(text, [...base, ties], tieOrder, tieOuter, limit, lead);
        chunks.push(first);
        if (first.rows < limit) {
          const beyond = Prisma.sql`${column} ${Prisma.raw(phase.lead.dir === "ASC" ? ">" : "<")} ${of(phase.lead.column)}`;
          chunks.push(await walkChunk(text, [...base, beyond], order, outer, limit - first.rows, lead));
        }
      }
      let rows = 0;
      for (const chunk of chunks) {
        ids.push(...chunk.hits);
        rows += chunk.rows;
        spent += chunk.chars + SEARCH_ROW_COST * chunk.rows;
        runsSearched += chunk.rows;
        if (chunk.lastId !== null) lastId = chunk.lastId;
      }
      if (rows < limit) {
        // The phase ended, or the run the walk stood on was deleted meanwhile (then where it stood is unknown).
        if (
          lastId !== null &&
          rows === 0 &&
          !(await db().run.findUnique({ where: { id: lastId }, select: { id: true } }))
        )
          return { ids, complete: false, runsSearched };
        break;
      }
      const perRow = spent / Math.max(1, runsSearched);
      limit = statementRows ?? Math.max(50, Math.min(5_000, Math.floor(WALK_CHUNK_COST / perRow)));
    }
  }
  return { ids: ids.slice(0, needed), complete: true, runsSearched };
}

function whereSql(conditions: readonly Sql[]): Sql {
  return conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;
}

async function pageIds(conditions: readonly Sql[], order: Sql, limit: number, offset: number): Promise<string[]> {
  if (limit <= 0) return [];
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT r."id" AS id FROM "Run" r ${whereSql(conditions)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  return rows.map((row) => row.id);
}

async function countUpTo(conditions: readonly Sql[], limit: number): Promise<number> {
  const [row] = await db().$queryRaw<{ n: number | bigint }[]>`
    SELECT count(*) AS n FROM (SELECT 1 FROM "Run" r ${whereSql(conditions)} LIMIT ${limit}) AS m`;
  return Number(row?.n ?? 0);
}

/** Up to `take` run ids from `offset` on, in the query's order. */
async function listRunIds(query: RunListQuery, conditions: readonly Sql[], take: number): Promise<string[]> {
  const offset = (query.page - 1) * query.per_page;
  const dir = Prisma.raw(query.dir === "asc" ? "ASC" : "DESC");
  if (query.sort === "date") return pageIds(conditions, Prisma.sql`r."sortAt" ${dir}, r."id" ${dir}`, take, offset);
  if (query.sort === "single_stream" || query.sort === "peak") {
    const column = Prisma.raw(`r."${FIGURE_COLUMNS[query.sort]}"`);
    const withFigure = [...conditions, Prisma.sql`${column} IS NOT NULL`];
    const first = await pageIds(withFigure, Prisma.sql`${column} ${dir}, r."sortAt" DESC, r."id" DESC`, take, offset);
    if (first.length === take) return first;
    // The window runs past the runs with the figure: fewer than offset + take of them, so counting is cheap.
    const figured = first.length > 0 ? offset + first.length : await countUpTo(withFigure, offset + 1);
    const rest = await pageIds(
      [...conditions, Prisma.sql`${column} IS NULL`],
      Prisma.sql`r."sortAt" DESC, r."id" DESC`,
      take - first.length,
      Math.max(0, offset - figured),
    );
    return [...first, ...rest];
  }
  const column = Prisma.raw(`r."${TEXT_SORT_COLUMNS[query.sort]}"`);
  return pageIds(conditions, Prisma.sql`${column} ${dir}, r."sortAt" DESC, r."id" DESC`, take, offset);
}

export interface RunList {
  runs: RunSummary[];
  /** Exact when `total_exact`; otherwise there are more than this many. */
  total: number;
  total_exact: boolean;
  /**
   * Set (false) only when the search read its budget's worth of runs (SEARCH_BUDGET) and stopped: the runs listed
   * are matches, but runs after `runs_searched` in the page's order were not searched.
   */
  search_complete?: false;
  /** With `search_complete`: how many runs' text the search read. */
  runs_searched?: number;
}

export interface ListRunsOptions {
  /** What a search read run by run may read (SEARCH_BUDGET). */
  searchBudget?: number;
  /** Runs per statement of such a search, fixed (tests: a few, so a page crosses many statements). */
  searchStatementRows?: number;
}

export async function listRuns(query: RunListQuery, options: ListRunsOptions = {}): Promise<RunList> {
  const offset = (query.page - 1) * query.per_page;
  const take = query.per_page * (1 + PAGES_AHEAD) + 1;
  const { conditions, searchNewestFirst, walkText } = await conditionsOf(query, take);
  if (walkText !== undefined) {
    const walk = await walkSearch(query, conditions, walkText, offset + take, {
      budget: options.searchBudget ?? SEARCH_BUDGET,
      statementRows: options.searchStatementRows ?? null,
    });
    const window = walk.ids.slice(offset, offset + take);
    const runs = await summariesInOrder(window.slice(0, query.per_page));
    if (!walk.complete) {
      return {
        runs,
        total: walk.ids.length,
        total_exact: false,
        search_complete: false,
        runs_searched: walk.runsSearched,
      };
    }
    // All matches read (fewer than a window past the page), or a window's worth: "more than" as any filtered list.
    if (window.length === take) return { runs, total: offset + take - 1, total_exact: false };
    return { runs, total: walk.ids.length, total_exact: true };
  }
  // A search alone, by date: its matches came in that order (searchCondition), the window is a slice of them.
  const matchesInOrder =
    conditions.length === 1 && query.sort === "date" && searchNewestFirst !== undefined
      ? query.dir === "asc"
        ? [...searchNewestFirst].reverse()
        : searchNewestFirst
      : null;
  const [window, totalAll] = await Promise.all([
    matchesInOrder ? matchesInOrder.slice(offset, offset + take) : listRunIds(query, conditions, take),
    conditions.length === 0 ? countRuns() : Promise.resolve(null),
  ]);
  const runs = await summariesInOrder(window.slice(0, query.per_page));
  if (totalAll !== null) return { runs, total: totalAll, total_exact: true };
  if (window.length === take) return { runs, total: offset + take - 1, total_exact: false };
  // A page past the end: how many there are is below the offset, counted up to it.
  const total =
    window.length > 0 || offset === 0
      ? offset + window.length
      : matchesInOrder
        ? Math.min(matchesInOrder.length, offset)
        : await countUpTo(conditions, offset);
  return { runs, total, total_exact: true };
}

/** The history rows of these runs, in this order (a run deleted meanwhile is left out). */
async function summariesInOrder(ids: readonly string[]): Promise<RunSummary[]> {
  const rows = await readSummaries(ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [summaryOf(row)] : [];
  });
}

/** Every run as a document, oldest first, fetched a page at a time so memory stays flat however many there are. */
export async function* allRunDocuments(pageSize = 200): AsyncGenerator<StoredRun> {
  let cursor: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const rows: RunRowWithPoints[] = await db().run.findMany({
      where: cursor
        ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] }
        : {},
      include: { tags: true, points: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: pageSize,
    });
    for (const row of rows) yield documentOf(row);
    const last = rows[rows.length - 1];
    if (!last || rows.length < pageSize) return;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

/** Every run, counted by the database's triggers into one row (the migration history_at_scale). */
export async function countRuns(): Promise<number> {
  const row = await db().runTotal.findUnique({ where: { id: 1 } });
  return row?.runs ?? 0;
}

/** The values the history filters offer, each with its count. */
export async function listFilterOptions(): Promise<{
  engines: string[];
  models: string[];
  gpus: string[];
  tags: string[];
}> {
  const [engines, models, gpus, tags] = await Promise.all([
    distinctValues("Run", "engine"),
    distinctValues("Run", "model"),
    distinctValues("Run", "gpu"),
    distinctValues("RunTag", "tag"),
  ]);
  return { engines, models, gpus, tags };
}

/**
 * The distinct values of an indexed column, in order, by hopping through its index: each step asks for the
 * smallest value above the last one, an index seek. It costs one seek per distinct value whatever the number of
 * rows, where GROUP BY reads the whole index (40 ms at a million runs). The same SQL runs on both databases.
 */
async function distinctValues(table: "Run" | "RunTag", column: "engine" | "model" | "gpu" | "tag"): Promise<string[]> {
  const t = Prisma.raw(`"${table}"`);
  const c = Prisma.raw(`"${column}"`);
  const rows = await db().$queryRaw<{ value: string | null }[]>`
    WITH RECURSIVE v(value) AS (
      SELECT min(${c}) FROM ${t}
      UNION ALL
      SELECT (SELECT min(${c}) FROM ${t} WHERE ${c} > v.value) FROM v WHERE v.value IS NOT NULL
    )
    SELECT value FROM v WHERE value IS NOT NULL`;
  return rows.map((row) => row.value).filter((value): value is string => value !== null);
}
export interface RunPatch {
  name?: string | undefined;
  tags?: string[] | undefined;
  notes?: string | null | undefined;
}

export async function updateRunOrThrow(id: string, patch: RunPatch): Promise<StoredRun> {
  const existing = await db().run.findUnique({
    where: { id },
    select: { id: true, name: true, engine: true, model: true, command: true, notes: true },
  });
  if (!existing) throw notFoundError(`Run "${id}"`);
  const name = patch.name ?? existing.name;
  const notes = patch.notes === undefined ? existing.notes : patch.notes;
  const searchColumns = searchColumnsOf({
    name,
    engine: existing.engine,
    model: existing.model,
    command: existing.command ?? undefined,
    notes: notes ?? undefined,
  });
  await db().$transaction([
    db().run.update({
      where: { id },
      data: { name, notes, ...searchColumns, updatedAt: new Date() },
    }),
    ...(patch.tags === undefined
      ? []
      : [
          db().runTag.deleteMany({ where: { runId: id } }),
          db().runTag.createMany({ data: patch.tags.map((tag) => ({ runId: id, tag })) }),
        ]),
  ]);
  return getRunOrThrow(id);
}

/** Delete a run; returns the series it was in, which has to be judged again. */
export async function deleteRunOrThrow(id: string): Promise<{ seriesId: string | null }> {
  const row = await db().run.findUnique({ where: { id }, select: { seriesId: true } });
  const result = await db().run.deleteMany({ where: { id } });
  if (result.count === 0) throw notFoundError(`Run "${id}"`);
  return { seriesId: row?.seriesId ?? null };
}

// ---------------------------------------------------------------------------------------------------------
// Restoring an export

export interface RunToRestore {
  line: number;
  /** The id the export gives the run; kept unless it is not an id servebench could have made. */
  id: string | undefined;
  createdAt: Date | undefined;
  /** The canonical document as JSON text, parsed a batch at a time so a large export never is all at once. */
  documentJson: string;
}

export interface RestoredRun {
  line: number;
  id: string;
  status: "stored" | "already_present" | "refused";
  error?: { code: string; message: string };
}

/**
 * Runs stored per transaction while restoring, and the most document text one transaction takes: 25 runs of 8
 * levels, or one 1,000-level run (~110 kB). The event loop gets a turn between batches, so a batch is what stands
 * between /api/health and its answer: ~3 ms of the thread a run of 8 levels (measured: 100 runs a batch held it
 * 400–650 ms, and with the upload worker on the other core /api/health waited up to 2 s).
 */
const RESTORE_BATCH = 25;
const RESTORE_BATCH_BYTES = 100_000;

/** The entries in batches of at most RESTORE_BATCH runs and RESTORE_BATCH_BYTES of text (and at least one run). */
function restoreBatches(entries: readonly RunToRestore[]): RunToRestore[][] {
  const batches: RunToRestore[][] = [];
  let current: RunToRestore[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (
      current.length > 0 &&
      (current.length >= RESTORE_BATCH || bytes + entry.documentJson.length > RESTORE_BATCH_BYTES)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.documentJson.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Store an export's runs, each under the id it had, even when two runs' contents coincide (PATCH can make two
 * runs identical; both come back). A run whose id is already here is left alone: reported present when its
 * content is the same, refused when a different run has that id. Content hashes stay unique: a restored run
 * whose content another run already has is stored without one, so it never answers for later uploads.
 * Storage failures (a full disk, a read-only database) are thrown: what was stored stays, and restoring the
 * same export again reports it present.
 */
export async function restoreRuns(entries: readonly RunToRestore[]): Promise<RestoredRun[]> {
  const results: RestoredRun[] = [];
  /** Ids this restore stored, with the identity of what it stored under each. */
  const restoredIdentityById = new Map<string, string>();
  const usedHashes = new Set<string>();
  for (const [index, slice] of restoreBatches(entries).entries()) {
    if (index > 0) await yieldToEventLoop();
    const batch = slice.map((entry) => {
      const document = JSON.parse(entry.documentJson) as RunDocument;
      const keepId = entry.id !== undefined && RESTORABLE_ID.test(entry.id) ? entry.id : undefined;
      return { ...entry, document, keepId, hash: contentHash(document), identity: restoreIdentity(document) };
    });
    const wantedIds = batch.flatMap((entry) => (entry.keepId ? [entry.keepId] : []));
    const existingRows =
      wantedIds.length === 0
        ? []
        : await db().run.findMany({ where: { id: { in: wantedIds } }, include: { tags: true, points: true } });
    const existingIdentity = new Map(
      existingRows.map((row) => [row.id, restoreIdentity(stripServerFields(documentOf(row)))]),
    );
    const hashRows = await db().run.findMany({
      where: { contentHash: { in: [...new Set(batch.map((entry) => entry.hash))] } },
      select: { contentHash: true },
    });
    for (const row of hashRows) if (row.contentHash) usedHashes.add(row.contentHash);

    const now = new Date();
    const creates: RestoreCreate[] = [];
    for (const entry of batch) {
      const present = entry.keepId
        ? (existingIdentity.get(entry.keepId) ?? restoredIdentityById.get(entry.keepId))
        : undefined;
      if (entry.keepId && present !== undefined) {
        results.push(
          present === entry.identity
            ? { line: entry.line, id: entry.keepId, status: "already_present" }
            : {
                line: entry.line,
                id: entry.keepId,
                status: "refused",
                error: {
                  code: "id_taken",
                  message: `A different run already has the id "${entry.keepId}" here (edited since the export?); it was left as it is.`,
                },
              },
        );
        continue;
      }
      const id = entry.keepId ?? newRunId();
      const hash = usedHashes.has(entry.hash) ? null : entry.hash;
      if (hash) usedHashes.add(hash);
      restoredIdentityById.set(id, entry.identity);
      const result: RestoredRun = { line: entry.line, id, status: "stored" };
      results.push(result);
      creates.push({
        result,
        data: { ...runCreateData(entry.document, id, entry.createdAt ?? now), contentHash: hash },
        results: entry.document.results,
      });
    }
    if (creates.length > 0) await storeRestoreBatch(creates);
  }
  return results;
}

/** What makes a restored run the same as one already here: its content, tags in any order. */
function restoreIdentity(document: RunDocument): string {
  return contentHash({ ...document, tags: [...document.tags].sort() });
}

/** The document without what the server adds, as contentHash sees an upload. */
function stripServerFields(stored: StoredRun): RunDocument {
  const { id: _id, created_at: _createdAt, ...document } = stored;
  return document;
}

interface RestoreCreate {
  result: RestoredRun;
  data: Prisma.RunCreateInput;
  results: readonly ResultPoint[];
}

/** Runs with their points, as one transaction's statements (built anew for each attempt). */
function batchStatements(creates: readonly Pick<RestoreCreate, "data" | "results">[]) {
  return [
    ...creates.map(({ data }) => db().run.create({ data, select: { id: true } })),
    ...pointInserts(creates.map(({ data, results }) => ({ runId: data.id!, results }))),
  ];
}

async function storeRestoreBatch(creates: RestoreCreate[]): Promise<void> {
  try {
    await retryWhileBusy(() => db().$transaction(batchStatements(creates)));
    return;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Someone stored one of these ids or contents at the same moment: one at a time, each reporting its own fate.
  for (const create of creates) {
    try {
      await db().$transaction(batchStatements([create]));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      try {
        await db().$transaction(batchStatements([{ ...create, data: { ...create.data, contentHash: null } }]));
      } catch (again) {
        if (!isUniqueViolation(again)) throw again;
        create.result.status = "refused";
        create.result.error = {
          code: "id_taken",
          message: `Another run took the id "${create.result.id}" while restoring.`,
        };
      }
    }
  }
}
