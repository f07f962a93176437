/**
 * Restoring an export: its runs stored under the ids they had, a batch per transaction, with turns for other
 * requests between batches.
 */

import { db, provider } from "@/lib/db/client";
import { isUniqueViolation, retryWhileBusy } from "@/lib/db/errors";
import { contentHash } from "@/lib/document/content-hash";
import type { RunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";
import { yieldToEventLoop } from "./event-loop";
import { documentOf } from "./read";
import { restoreIdentity } from "./restore-identity";
import type { RunCreate } from "./run-rows";
import { runsWithHashes, storedRunIds, writeRunBatch } from "./run-writes";
import { newRunId, RESTORABLE_ID } from "./store";

export interface RunToRestore {
  line: number;
  /** The id the export gives the run; kept unless it is not an id servebench could have made. */
  id: string | undefined;
  createdAt: Date | undefined;
  /** The canonical document as JSON text, parsed a batch at a time so a large export never is all at once. */
  documentJson: string;
  /** Its content hash and restore identity when the upload worker made them already (made here otherwise). */
  hash?: string | undefined;
  identity?: string | undefined;
}

export interface RestoredRun {
  line: number;
  id: string;
  status: "stored" | "already_present" | "refused";
  error?: { code: string; message: string };
}

/**
 * Runs stored per transaction while restoring, and the most document text one transaction takes. On SQLite, 25
 * runs of 8 levels, or one 1,000-level run (~110 kB): the event loop gets a turn between batches, so a batch is what
 * stands between /api/health and its answer, ~3 ms of the thread a run of 8 levels (measured: 100 runs a batch held
 * it 400–650 ms, and with the upload worker on the other core /api/health waited up to 2 s). On PostgreSQL the
 * statements are sent and answered without holding the thread, and each transaction costs round trips and a commit
 * of its own: a batch of 25 left the server waiting on the database two thirds of the time, so batches are larger.
 */
const RESTORE_BATCH = { sqlite: { runs: 25, bytes: 100_000 }, postgresql: { runs: 200, bytes: 1_000_000 } } as const;

/** The entries in batches of at most RESTORE_BATCH's runs and bytes of text (and at least one run). */
function restoreBatches(entries: readonly RunToRestore[]): RunToRestore[][] {
  const limit = RESTORE_BATCH[provider() === "sqlite" ? "sqlite" : "postgresql"];
  const batches: RunToRestore[][] = [];
  let current: RunToRestore[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (current.length > 0 && (current.length >= limit.runs || bytes + entry.documentJson.length > limit.bytes)) {
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
      return {
        ...entry,
        document,
        keepId,
        hash: entry.hash ?? contentHash(document),
        identity: entry.identity ?? restoreIdentity(document),
      };
    });
    const wantedIds = batch.flatMap((entry) => (entry.keepId ? [entry.keepId] : []));
    // Most restores find none of their ids: asked first by id alone, the whole runs only for those present.
    const presentIds = [...(await storedRunIds(wantedIds))];
    const existingRows =
      presentIds.length === 0
        ? []
        : await db().run.findMany({ where: { id: { in: presentIds } }, include: { tags: true, points: true } });
    const existingIdentity = new Map(
      existingRows.map((row) => [row.id, restoreIdentity(stripServerFields(documentOf(row)))]),
    );
    const hashRows = await runsWithHashes([...new Set(batch.map((entry) => entry.hash))]);
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
      creates.push({ result, id, document: entry.document, createdAt: entry.createdAt ?? now, contentHash: hash });
    }
    if (creates.length > 0) await storeRestoreBatch(creates);
  }
  return results;
}

/** The document without what the server adds, as contentHash sees an upload. */
function stripServerFields(stored: StoredRun): RunDocument {
  const { id: _id, created_at: _createdAt, ...document } = stored;
  return document;
}

interface RestoreCreate extends RunCreate {
  result: RestoredRun;
}

async function storeRestoreBatch(creates: RestoreCreate[]): Promise<void> {
  try {
    await retryWhileBusy(() => writeRunBatch(creates));
    return;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Someone stored one of these ids or contents at the same moment: one at a time, each reporting its own fate.
  for (const create of creates) {
    try {
      await writeRunBatch([create]);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      try {
        await writeRunBatch([{ ...create, contentHash: null }]);
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
