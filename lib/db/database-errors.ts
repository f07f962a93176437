/**
 * Database failures as answers, the same on SQLite and PostgreSQL. Prisma reports both databases' failures
 * through its driver adapters with one vocabulary (error codes P…, and the adapter's `kind`), which is what this
 * reads; the raw database codes are looked at only where the adapter passes them through unnamed.
 *
 * - A unique violation the code did not settle itself (it retries the ones it expects): 409 `conflict`.
 * - Busy or locked (SQLite's lock wait ran out; PostgreSQL's lock timeout, deadlock, serialization failure, too
 *   many connections): 503 `database_busy`, worth retrying in a moment.
 * - Cannot reach the database (refused, closed, timed out, shutting down, wrong credentials, no such database):
 *   503 `database_unavailable`.
 *
 * Anything else stays a 500 whose details go only to the log.
 */
import { AppError } from "@/lib/errors";

interface PrismaLike {
  code?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; extendedCode?: unknown } } };
  cause?: unknown;
  message?: unknown;
}

const BUSY_KINDS = new Set(["TransactionWriteConflict", "TooManyConnections", "SocketTimeout"]);
const UNAVAILABLE_KINDS = new Set([
  "DatabaseNotReachable",
  "DatabaseDoesNotExist",
  "DatabaseAccessDenied",
  "AuthenticationFailed",
  "ConnectionClosed",
  "TlsConnectionError",
]);
/**
 * P1008 timed out (SQLite busy), P2034 write conflict or deadlock, P2037 too many connections, P2024 pool timeout,
 * P2028 a transaction that could not start, or finish, in its time (every connection taken by other writers).
 */
const BUSY_PRISMA_CODES = new Set(["P1008", "P2034", "P2037", "P2024", "P2028"]);
/** Can't reach / authenticate / find the database, or the server closed the connection. */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1000", "P1001", "P1002", "P1003", "P1010", "P1011", "P1017"]);
/** PostgreSQL: lock_not_available, query_canceled (statement/lock timeout), deadlock, serialization failure. */
const BUSY_POSTGRES_CODES = new Set(["55P03", "57014", "40P01", "40001", "53300"]);
/** PostgreSQL: admin/crash shutdown, cannot connect now; class 08 is every connection exception. */
const UNAVAILABLE_POSTGRES = /^(08...|57P01|57P02|57P03)$/;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CANTOPEN = 14;
const SOCKET_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EPIPE|EHOSTUNREACH|EAI_AGAIN)$/;

export const DATABASE_BUSY_MESSAGE = "The database is busy; try again in a moment.";
export const DATABASE_UNAVAILABLE_MESSAGE = "The database cannot be reached right now; try again later.";
export const CONFLICT_MESSAGE = "Something else wrote the same thing at the same moment; try again.";

function classify(error: unknown, depth = 0): "conflict" | "busy" | "unavailable" | null {
  if (typeof error !== "object" || error === null || depth > 4) return null;
  const e = error as PrismaLike;
  const cause = e.meta?.driverAdapterError?.cause;
  const kind = typeof cause?.kind === "string" ? cause.kind : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  if (
    code === "P2002" ||
    kind === "UniqueConstraintViolation" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  )
    return "conflict";
  if ((code && BUSY_PRISMA_CODES.has(code)) || (kind && BUSY_KINDS.has(kind))) return "busy";
  if ((code && UNAVAILABLE_PRISMA_CODES.has(code)) || (kind && UNAVAILABLE_KINDS.has(kind))) return "unavailable";
  const rawCode = typeof cause?.code === "string" ? cause.code : code;
  if (rawCode && BUSY_POSTGRES_CODES.has(rawCode)) return "busy";
  if (rawCode && UNAVAILABLE_POSTGRES.test(rawCode)) return "unavailable";
  if (typeof cause?.extendedCode === "number") {
    const primary = cause.extendedCode & 0xff;
    if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) return "busy";
    if (primary === SQLITE_CANTOPEN) return "unavailable";
  }
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || code?.startsWith("SQLITE_BUSY_")) return "busy";
  if (code === "SQLITE_CANTOPEN") return "unavailable";
  if (code && SOCKET_CODES.test(code)) return "unavailable";
  // pg's pool when no connection can be had in time; better-sqlite3 when the file's folder is gone.
  if (
    typeof e.message === "string" &&
    /timeout exceeded when trying to connect|Connection terminated|Cannot open database because|unable to open database file/i.test(
      e.message,
    )
  ) {
    return "unavailable";
  }
  return classify(e.cause, depth + 1);
}

/**
 * True when a unique constraint refused the write, however it was written: Prisma's P2002 from its models, its
 * driver adapter's UniqueConstraintViolation (PostgreSQL's 23505) from raw SQL, or better-sqlite3's own codes for
 * the writes that go to the SQLite connection directly (lib/db/sqlite-writes.ts).
 */
export function isUniqueConstraintViolation(error: unknown): boolean {
  return classify(error) === "conflict";
}

/** True when the database was busy or locked: the same write may well succeed a moment later. */
export function isDatabaseBusy(error: unknown): boolean {
  return classify(error) === "busy";
}

/** The answer for a database failure, or null when the error is not one. */
export function databaseErrorOf(error: unknown): AppError | null {
  switch (classify(error)) {
    case "conflict":
      return new AppError("conflict", CONFLICT_MESSAGE);
    case "busy":
      return new AppError("database_busy", DATABASE_BUSY_MESSAGE);
    case "unavailable":
      return new AppError("database_unavailable", DATABASE_UNAVAILABLE_MESSAGE);
    default:
      return null;
  }
}
