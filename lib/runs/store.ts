/**
 * Storing runs: a run's row with its tags, series and search columns, its points in the same transaction, content
 * already stored answered with the run that has it.
 */

import { db } from "@/lib/db/client";
import { isUniqueViolation, retryWhileBusy } from "@/lib/db/errors";
import { contentHash } from "@/lib/document/content-hash";
import { headline } from "@/lib/document/derived";
import type { RunDocument } from "@/lib/document/normalize";
import type { ResultPoint } from "@/lib/document/schema";
import { searchPairsOf, searchTriplesOf } from "@/lib/document/search-pairs";
import type { Prisma } from "@/lib/generated/prisma/client";
import { ID_PATTERN } from "@/lib/ids";
import { randomId } from "@/lib/random-id";
import { newSeriesId, seriesIdentity } from "@/lib/series/key";
import { pointInserts } from "./point-inserts";

/** Short, URL-safe and unguessable: 12 base64url characters (~71.9 random bits), the first a letter or digit. */
export function newRunId(): string {
  return randomId(12);
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

export interface CreateRunOptions {
  /** For tests and the demo loader: a fixed creation time. */
  createdAt?: Date;
}

/** The run's row with its tags and series; its points are stored by pointInserts in the same transaction. */
export function runCreateData(doc: RunDocument, id: string, now: Date): Prisma.RunCreateInput {
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
    modelSizeJson: doc.model_size ? JSON.stringify(doc.model_size) : null,
    accuracyJson: doc.accuracy ? JSON.stringify(doc.accuracy) : null,
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
    seriesOverride: doc.series_override === true,
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
export const RESTORABLE_ID = ID_PATTERN;

/** A run's row and its points, as the transaction that stores them takes them. */
export interface RunCreate {
  data: Prisma.RunCreateInput;
  results: readonly ResultPoint[];
}

/** Runs with their points, as one transaction's statements (built anew for each attempt). */
export function batchStatements(creates: readonly RunCreate[]) {
  return [
    ...creates.map(({ data }) => db().run.create({ data, select: { id: true } })),
    ...pointInserts(creates.map(({ data, results }) => ({ runId: data.id!, results }))),
  ];
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
  const creates: RunCreate[] = [];
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
