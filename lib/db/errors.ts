/** What a database error means, the same on SQLite and PostgreSQL (Prisma maps both drivers' codes to its own). */
import { env } from "@/lib/env";
import { isDatabaseBusy } from "@/lib/http/database-errors";

/** A unique constraint refused the write (Prisma's P2002): someone stored the same key first. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
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
