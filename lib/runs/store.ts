/**
 * Storing runs: a run's row with its tags, series and search columns, its points in the same transaction, content
 * already stored answered with the run that has it.
 */

import { isUniqueViolation, isWriteRefusedNow, retryWhileBusy } from "@/lib/db/errors";
import { contentHash } from "@/lib/document/content-hash";
import type { RunDocument } from "@/lib/document/normalize";
import { ID_PATTERN } from "@/lib/ids";
import { randomId } from "@/lib/random-id";
import type { DocumentDerived } from "./derived-columns";
import type { RunCreate } from "./run-rows";
import { runsWithHashes, storedRunIds, writeRunBatch } from "./run-writes";

/** Short, URL-safe and unguessable: 12 base64url characters (~71.9 random bits), the first a letter or digit. */
export function newRunId(): string {
  return randomId(12);
}

export interface CreateRunOptions {
  /** For tests and the demo loader: a fixed creation time. */
  createdAt?: Date;
}

/** Store a run and all its points in one transaction: all of it or nothing. */
export async function createRun(doc: RunDocument, options: CreateRunOptions = {}): Promise<{ id: string }> {
  const id = newRunId();
  // One transaction: the run, its points and its tags land together or not at all.
  await writeRunBatch([
    { id, document: doc, createdAt: options.createdAt ?? new Date(), contentHash: contentHash(doc) },
  ]);
  return { id };
}

export interface RunToStore {
  document: RunDocument;
  /** Its content hash, search columns and series, made where the document was (the upload worker); else made here. */
  derived?: DocumentDerived | undefined;
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

async function storeRunsOnce(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
  const hashed = entries.map((entry) => ({
    ...entry,
    hash: entry.derived?.contentHash ?? contentHash(entry.document),
  }));
  const existing = await runsWithHashes([...new Set(hashed.map((entry) => entry.hash))]);
  const byHash = new Map(existing.map((row) => [row.contentHash, row]));
  const wantedIds = hashed
    .map((entry) => entry.restoreId)
    .filter((id): id is string => id !== undefined && RESTORABLE_ID.test(id));
  const takenIds = await storedRunIds(wantedIds);

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
    creates.push({
      id,
      document: entry.document,
      createdAt,
      contentHash: entry.hash,
      search: entry.derived?.search,
      series: entry.derived?.series,
    });
    const ref = { id, name: entry.document.name, duplicate: false };
    batchByHash.set(entry.hash, ref);
    results.push(ref);
  }
  await writeRunBatch(creates);
  return results;
}

/** Store runs in one transaction, all of them or none; busy and a racing writer of the same content retried. */
function storeRunsNow(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
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

interface WaitingStore {
  entries: readonly RunToStore[];
  resolve: (refs: StoredRunRef[]) => void;
  reject: (error: unknown) => void;
}

/** The most runs one shared transaction takes: a few milliseconds of the server's thread. */
const GROUP_MAX_RUNS = 64;
/** Per process (Next.js may load this module more than once): the uploads waiting, and whether a group is going. */
interface StoreQueue {
  waiting: WaitingStore[];
  going: boolean;
}
const storeHolder = globalThis as unknown as { servebenchStoreQueue?: StoreQueue };

/**
 * Store the uploads that arrived together in one transaction (group commit). A transaction costs SQLite's text
 * indexes a segment each (merged later), and every transaction its commit: 32 uploads at once stored one by one
 * spent most of their time there. Each upload stays all-or-nothing: when a shared transaction fails for anything
 * but a refusal of every write (busy, full, read-only), each upload is stored again on its own, so one upload's
 * problem is its own.
 */
async function storeWaiting(queue: StoreQueue): Promise<void> {
  try {
    await storeGroups(queue.waiting);
  } finally {
    // Whatever happened, the next upload sets the groups going again: none is left waiting for nothing.
    queue.going = false;
    if (queue.waiting.length > 0) {
      queue.going = true;
      setImmediate(() => void storeWaiting(queue));
    }
  }
}

async function storeGroups(waiting: WaitingStore[]): Promise<void> {
  while (waiting.length > 0) {
    const group: WaitingStore[] = [];
    let runs = 0;
    while (waiting.length > 0 && (group.length === 0 || runs + waiting[0]!.entries.length <= GROUP_MAX_RUNS)) {
      const next = waiting.shift()!;
      runs += next.entries.length;
      group.push(next);
    }
    if (group.length === 1) {
      const only = group[0]!;
      await storeRunsNow(only.entries).then(only.resolve, only.reject);
      continue;
    }
    try {
      const refs = await storeRunsNow(group.flatMap((member) => member.entries));
      let at = 0;
      for (const member of group) {
        member.resolve(refs.slice(at, at + member.entries.length));
        at += member.entries.length;
      }
    } catch (error) {
      if (isWriteRefusedNow(error)) {
        for (const member of group) member.reject(error);
        continue;
      }
      for (const member of group) await storeRunsNow(member.entries).then(member.resolve, member.reject);
    }
  }
}

/**
 * Store an upload's runs: all of them or none. Content already stored is not stored again: its entry comes back
 * as a duplicate with the existing run's id. Uploads that arrive together share a transaction (storeWaiting).
 */
export function storeRuns(entries: readonly RunToStore[]): Promise<StoredRunRef[]> {
  storeHolder.servebenchStoreQueue ??= { waiting: [], going: false };
  const queue = storeHolder.servebenchStoreQueue;
  return new Promise((resolve, reject) => {
    queue.waiting.push({ entries, resolve, reject });
    if (queue.going) return;
    // The first to wait sets the groups going once the requests ready in this turn of the event loop have joined;
    // those that arrive while a group is stored form the next.
    queue.going = true;
    setImmediate(() => void storeWaiting(queue));
  });
}

/** Store several runs in one transaction: all of them or none. */
export async function createRuns(docs: readonly RunDocument[]): Promise<StoredRunRef[]> {
  return storeRuns(docs.map((document) => ({ document })));
}
