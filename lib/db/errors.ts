/** What a database error means, the same on SQLite and PostgreSQL (Prisma maps both drivers' codes to its own). */
import { env } from "@/lib/env";
import { isDatabaseBusy, isUniqueConstraintViolation } from "./database-errors";
import { storageProblemOf } from "./storage";

/** A unique constraint refused the write: someone stored the same key first (lib/db/database-errors.ts). */
export function isUniqueViolation(error: unknown): boolean {
  return isUniqueConstraintViolation(error);
}

/**
 * Run a transaction again while the database answers busy, until SERVEBENCH_LOCK_TIMEOUT_MS has passed since the
 * first try. SQLite does not wait out every lock: a transaction that has read and then wants to write, while
 * another process has written since its read began, is refused at once (waiting could never help it), and
 * only starting again can. With two app processes on one SQLite file that is 12% of uploads under load. The
 * transaction was rolled back, so running it again is safe; the work must be the whole transaction.
 */
export async function retryWhileBusy<T>(transaction: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + env().SERVEBENCH_LOCK_TIMEOUT_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (!isDatabaseBusy(error) || Date.now() >= deadline) throw error;
      // Jittered back-off, 5–375 ms: the writers that collided do not collide again in step.
      const waitMs = Math.min(250, 10 * 2 ** attempt) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * Whether the database refused a write because it takes none right now: read-only (a read-only file or file system,
 * SQLite's query_only, PostgreSQL's default_transaction_read_only or a standby), full, or busy with another writer.
 */
export function isWriteRefusedNow(error: unknown): boolean {
  return storageProblemOf(error) !== null || isDatabaseBusy(error);
}

/**
 * For the `.catch` of a write a read can do without (filing old runs into their series as a page loads): a page
 * that only reads must answer on a database that takes no writes. The refused write is tried again on a later read;
 * any other error is thrown on.
 */
export function skipWhenWriteRefused(error: unknown): 0 {
  if (isWriteRefusedNow(error)) return 0;
  throw error;
}
