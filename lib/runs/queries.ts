/**
 * Every database access for runs. Pages and route handlers call these functions; nothing else touches Prisma.
 */
import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import { notFoundError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { contentHash } from "./content-hash";
import { type Headline, headline } from "./derived";
import type { RunDocument } from "./normalize";
import { LATENCY_KEYS, type ResultPoint, RUN_FORMAT } from "./schema";

/** Short, URL-safe and unguessable: 72 random bits in 12 base64url characters. */
export function newRunId(): string {
  return randomBytes(9).toString("base64url");
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
}

export interface StoredRun extends RunDocument {
  id: string;
  created_at: string;
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
  ...LATENCY_KEYS,
] as const;

type PointRow = Prisma.ResultPointGetPayload<object>;
type RunRow = Prisma.RunGetPayload<{ include: { tags: true } }>;
type RunRowWithPoints = Prisma.RunGetPayload<{ include: { tags: true; points: true } }>;

function pointToRow(point: ResultPoint, position: number): Omit<Prisma.ResultPointCreateManyInput, "runId"> {
  const row: Omit<Prisma.ResultPointCreateManyInput, "runId"> = {
    position,
    sourcesJson: point.sources ? JSON.stringify(point.sources) : null,
    concurrency: point.concurrency ?? null,
    request_rate: typeof point.request_rate === "number" ? point.request_rate : null,
    request_rate_infinite: point.request_rate === "inf",
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
  for (const key of POINT_NUMBER_KEYS) {
    const value = row[key];
    if (value !== null) point[key] = value;
  }
  const sources = parseJson<Record<string, string>>(row.sourcesJson);
  if (sources) point.sources = sources;
  return point;
}

function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

/**
 * Text search runs over `searchText` with `contains`, which both SQLite and PostgreSQL carry out with LIKE, where
 * `%` and `_` (and in PostgreSQL `\`) match anything. Both the stored text and the query hold those characters
 * as three Unicode noncharacters instead (U+FDD0–U+FDD2, which no text a person types contains), so a query
 * matches exactly what it says: "a_b" finds "a_b", not "axb".
 */
export function literalSearchText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[%_\\]/g, (char) => (char === "%" ? "\ufdd0" : char === "_" ? "\ufdd1" : "\ufdd2"));
}

export function searchTextOf(doc: Pick<RunDocument, "name" | "engine" | "model" | "command" | "notes">): string {
  return literalSearchText([doc.name, doc.engine, doc.model, doc.command ?? "", doc.notes ?? ""].join("\n"));
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

function summaryOf(row: RunRow): RunSummary {
  return {
    id: row.id,
    url: `/runs/${row.id}`,
    name: row.name,
    engine: row.engine,
    engine_version: row.engineVersion,
    model: row.model,
    hardware: { gpu: row.gpu, gpu_count: row.gpuCount },
    tags: row.tags.map((tag) => tag.tag).sort(),
    measured_at: row.measuredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    point_count: row.pointCount,
    source_format: row.sourceFormat,
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
  return doc;
}

export interface CreateRunOptions {
  /** For tests and the demo loader: a fixed creation time. */
  createdAt?: Date;
}

function runCreateData(doc: RunDocument, id: string, now: Date): Prisma.RunCreateInput {
  const measuredAt = doc.measured_at ? new Date(doc.measured_at) : null;
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
    sourceFormat: doc.source_format,
    measuredAt,
    createdAt: now,
    updatedAt: now,
    sortAt: measuredAt ?? now,
    searchText: searchTextOf(doc),
    ...headlineColumns(doc.results),
    pointCount: doc.results.length,
    points: { createMany: { data: doc.results.map(pointToRow) } },
    tags: { createMany: { data: doc.tags.map((tag) => ({ tag })) } },
  };
}

/** Store a run and all its points in one transaction: all of it or nothing. */
export async function createRun(doc: RunDocument, options: CreateRunOptions = {}): Promise<{ id: string }> {
  const id = newRunId();
  // A nested write is one transaction: the run, its points and its tags land together or not at all.
  await db().run.create({
    data: { ...runCreateData(doc, id, options.createdAt ?? new Date()), contentHash: contentHash(doc) },
  });
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

/** Ids a restored run may keep: what servebench makes (12 base64url characters) and similar ids from elsewhere. */
const RESTORABLE_ID = /^[A-Za-z0-9_-]{6,64}$/;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

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
  const creates: Prisma.RunCreateInput[] = [];
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
    const data = runCreateData(entry.document, id, keepId && entry.restoreCreatedAt ? entry.restoreCreatedAt : now);
    creates.push({ ...data, contentHash: entry.hash });
    const ref = { id, name: entry.document.name, duplicate: false };
    batchByHash.set(entry.hash, ref);
    results.push(ref);
  }
  if (creates.length > 0) {
    await db().$transaction(creates.map((data) => db().run.create({ data, select: { id: true } })));
  }
  return results;
}

/**
 * Store runs in one transaction: all of them or none. Content already stored is not stored again: its
 * entry comes back as a duplicate with the existing run's id.
 */
export async function storeRuns(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
  try {
    return await storeRunsOnce(entries);
  } catch (error) {
    // Two uploads of the same content at the same moment: the unique hash let one in. Looking again finds it.
    if (isUniqueViolation(error)) return storeRunsOnce(entries);
    throw error;
  }
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

/** Runs by id, in the order asked for; unknown ids are returned separately so a page can say which. */
export async function getRunsByIds(ids: readonly string[]): Promise<{ runs: StoredRun[]; missing: string[] }> {
  const rows = await db().run.findMany({
    where: { id: { in: [...ids] } },
    include: { tags: true, points: true },
  });
  const byId = new Map(rows.map((row) => [row.id, documentOf(row)]));
  const runs: StoredRun[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const run = byId.get(id);
    if (run) runs.push(run);
    else missing.push(id);
  }
  return { runs, missing };
}

function whereOf(query: RunListQuery): Prisma.RunWhereInput {
  const where: Prisma.RunWhereInput = {};
  if (query.engine) where.engine = query.engine.toLowerCase();
  if (query.model) where.model = query.model;
  if (query.gpu) where.gpu = query.gpu;
  if (query.tag) where.tags = { some: { tag: query.tag.toLowerCase() } };
  if (query.q) where.searchText = { contains: literalSearchText(query.q) };
  return where;
}

function orderOf(sort: SortKey, dir: "asc" | "desc"): Prisma.RunOrderByWithRelationInput[] {
  const tieBreak: Prisma.RunOrderByWithRelationInput[] = [{ sortAt: "desc" }, { id: "asc" }];
  switch (sort) {
    case "date":
      return [{ sortAt: dir }, { id: "asc" }];
    case "name":
      return [{ name: dir }, ...tieBreak];
    case "engine":
      return [{ engine: dir }, ...tieBreak];
    case "model":
      return [{ model: dir }, ...tieBreak];
    case "single_stream":
      return [{ singleStreamTokS: { sort: dir, nulls: "last" } }, ...tieBreak];
    case "peak":
      return [{ peakTokS: { sort: dir, nulls: "last" } }, ...tieBreak];
  }
}

export async function listRuns(query: RunListQuery): Promise<{ runs: RunSummary[]; total: number }> {
  const where = whereOf(query);
  const [rows, total] = await Promise.all([
    db().run.findMany({
      where,
      include: { tags: true },
      orderBy: orderOf(query.sort, query.dir),
      skip: (query.page - 1) * query.per_page,
      take: query.per_page,
    }),
    db().run.count({ where }),
  ]);
  return { runs: rows.map(summaryOf), total };
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

export async function countRuns(): Promise<number> {
  return db().run.count();
}

/** The values the history filters offer, each with its count. */
export async function listFilterOptions(): Promise<{
  engines: string[];
  models: string[];
  gpus: string[];
  tags: string[];
}> {
  // GROUP BY runs in the database; Prisma's `distinct` would fetch every row and dedupe in JavaScript.
  const [engines, models, gpus, tags] = await Promise.all([
    db().run.groupBy({ by: ["engine"], orderBy: { engine: "asc" } }),
    db().run.groupBy({ by: ["model"], orderBy: { model: "asc" } }),
    db().run.groupBy({ by: ["gpu"], where: { gpu: { not: null } }, orderBy: { gpu: "asc" } }),
    db().runTag.groupBy({ by: ["tag"], orderBy: { tag: "asc" } }),
  ]);
  return {
    engines: engines.map((row) => row.engine),
    models: models.map((row) => row.model),
    gpus: gpus.map((row) => row.gpu).filter((gpu): gpu is string => gpu !== null),
    tags: tags.map((row) => row.tag),
  };
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
  const searchText = searchTextOf({
    name,
    engine: existing.engine,
    model: existing.model,
    command: existing.command ?? undefined,
    notes: notes ?? undefined,
  });
  await db().$transaction([
    db().run.update({
      where: { id },
      data: { name, notes, searchText, updatedAt: new Date() },
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

export async function deleteRunOrThrow(id: string): Promise<void> {
  const result = await db().run.deleteMany({ where: { id } });
  if (result.count === 0) throw notFoundError(`Run "${id}"`);
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

/** Runs stored per transaction while restoring; the event loop gets a turn between batches. */
const RESTORE_BATCH = 100;

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
  for (let start = 0; start < entries.length; start += RESTORE_BATCH) {
    if (start > 0) await yieldToEventLoop();
    const batch = entries.slice(start, start + RESTORE_BATCH).map((entry) => {
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
    const creates: { result: RestoredRun; data: Prisma.RunCreateInput }[] = [];
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

async function storeRestoreBatch(creates: { result: RestoredRun; data: Prisma.RunCreateInput }[]): Promise<void> {
  try {
    await db().$transaction(creates.map(({ data }) => db().run.create({ data, select: { id: true } })));
    return;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Someone stored one of these ids or contents at the same moment: one at a time, each reporting its own fate.
  for (const { result, data } of creates) {
    try {
      await db().run.create({ data, select: { id: true } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      try {
        await db().run.create({ data: { ...data, contentHash: null }, select: { id: true } });
      } catch (again) {
        if (!isUniqueViolation(again)) throw again;
        result.status = "refused";
        result.error = { code: "id_taken", message: `Another run took the id "${result.id}" while restoring.` };
      }
    }
  }
}
