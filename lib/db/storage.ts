/**
 * When the database cannot be written or read: a full disk, a read-only file or file system, a file that cannot
 * be opened (SQLite), or a PostgreSQL server out of disk or in read-only mode. Such errors answer 503 with what is
 * wrong (not a generic 500), and /api/health says which. A PostgreSQL server that cannot be reached at all is
 * answered by lib/db/database-errors.ts (503 database_unavailable).
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseTarget, describeDatabase } from "@/lib/env";
import { AppError } from "@/lib/errors";

export type StorageProblem = "disk_full" | "read_only" | "unavailable";

/** Less free space than this on the database's file system counts as full: SQLite cannot grow its log. */
export const DISK_FULL_BELOW_BYTES = 1_048_576;
/** How long a failed write is remembered for /api/health when no probe sees the problem itself. */
export const REMEMBER_FAILURE_MS = 60_000;

const SQLITE_CODES: Record<string, StorageProblem> = {
  SQLITE_FULL: "disk_full",
  SQLITE_READONLY: "read_only",
  SQLITE_CANTOPEN: "unavailable",
  SQLITE_IOERR: "unavailable",
  SQLITE_CORRUPT: "unavailable",
  SQLITE_NOTADB: "unavailable",
};

/** PostgreSQL's SQLSTATEs for the same two conditions: disk_full, and a read-only transaction (a standby, or
 * default_transaction_read_only). */
const POSTGRES_CODES: Record<string, StorageProblem> = {
  "53100": "disk_full",
  "25006": "read_only",
};

const FS_CODES: Record<string, StorageProblem> = {
  ENOSPC: "disk_full",
  EDQUOT: "disk_full",
  EROFS: "read_only",
  EACCES: "read_only",
  EPERM: "read_only",
};

/** The SQLite or file-system codes an error (a Prisma error, its driver cause, a better-sqlite3 error) carries. */
function codesOf(error: unknown, depth = 0): string[] {
  if (typeof error !== "object" || error === null || depth > 6) return [];
  const record = error as Record<string, unknown>;
  const codes: string[] = [];
  for (const key of ["code", "originalCode"]) {
    const value = record[key];
    if (typeof value === "string") codes.push(value);
  }
  for (const key of ["cause", "meta", "driverAdapterError"]) codes.push(...codesOf(record[key], depth + 1));
  return codes;
}

/** Which storage problem an error is, or null when it is not one. */
export function storageProblemOf(error: unknown): StorageProblem | null {
  for (const code of codesOf(error)) {
    // SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE, …: the extended codes start with the primary one.
    const primary = Object.keys(SQLITE_CODES).find((name) => code === name || code.startsWith(`${name}_`));
    if (primary) return SQLITE_CODES[primary]!;
    if (POSTGRES_CODES[code]) return POSTGRES_CODES[code]!;
    if (FS_CODES[code]) return FS_CODES[code]!;
  }
  return null;
}

const MESSAGES: Record<StorageProblem, (database: string, sqlite: boolean) => string> = {
  disk_full: (database) =>
    `The disk that holds the database (${database}) is full: nothing was stored. Free some space there and try again.`,
  read_only: (database, sqlite) =>
    sqlite
      ? `The database (${database}) is read-only: its file, folder or file system does not allow writing, so nothing can be stored. Make it writable and restart servebench.`
      : `The database (${database}) takes no writes: a standby, or a server in read-only mode. Point DATABASE_URL at the primary.`,
  unavailable: (database) =>
    `The database (${database}) cannot be opened or read: moved, deleted or damaged? The server's log has the details.`,
};

const CODES = { disk_full: "disk_full", read_only: "database_read_only", unavailable: "database_unavailable" } as const;

export function storageError(problem: StorageProblem): AppError {
  const target = databaseTarget();
  const where = target.provider === "sqlite" ? target.file : describeDatabase(target);
  return new AppError(CODES[problem], MESSAGES[problem](where, target.provider === "sqlite"));
}

let lastFailure: { problem: StorageProblem; at: number } | null = null;

/** Remember that a request failed on storage, so /api/health reports it for a while. */
export function noteStorageProblem(problem: StorageProblem): void {
  lastFailure = { problem, at: Date.now() };
}

/** Whether the database's folder or file cannot be written (a read-only file system, an immutable file). */
function notWritable(file: string): StorageProblem | null {
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    if (fs.existsSync(file)) fs.accessSync(file, fs.constants.W_OK);
    return null;
  } catch (error) {
    return storageProblemOf(error) ?? "read_only";
  }
}

/**
 * A storage problem made precise: a database SQLite cannot open on a read-only file system (it cannot create its
 * shared-memory file next to it) is read-only, not missing.
 */
export function refineStorageProblem(problem: StorageProblem): StorageProblem {
  const target = databaseTarget();
  if (target.provider !== "sqlite") return problem;
  return problem === "unavailable" && notWritable(target.file) === "read_only" ? "read_only" : problem;
}

/** Can the database's file be written, and its file system take more? Each probe reads nothing of the data. */
function probe(file: string): StorageProblem | null {
  const unwritable = notWritable(file);
  if (unwritable) return unwritable;
  try {
    const stats = fs.statfsSync(path.dirname(file));
    if (stats.bavail * stats.bsize < DISK_FULL_BELOW_BYTES) return "disk_full";
  } catch {
    // statfs is not there on every platform; the other probes still answer.
  }
  // Taking the write lock (and giving it back at once) fails on a database SQLite opened read-only.
  let database: Database.Database | undefined;
  try {
    database = new Database(file, { fileMustExist: true, timeout: 0 });
    database.exec("BEGIN IMMEDIATE");
    database.exec("ROLLBACK");
  } catch (error) {
    const code = codesOf(error)[0] ?? "";
    // Another writer holding the lock right now is not a problem.
    if (!code.startsWith("SQLITE_BUSY") && !code.startsWith("SQLITE_LOCKED"))
      return storageProblemOf(error) ?? "unavailable";
  } finally {
    database?.close();
  }
  return null;
}

/** What /api/health reports: the problem the probes see now, else one a request met in the last minute. */
export function currentStorageProblem(): StorageProblem | null {
  // A PostgreSQL server is asked by the query /api/health makes; its disk is not this machine's to probe.
  const target = databaseTarget();
  const seen = target.provider === "sqlite" ? probe(target.file) : null;
  if (seen) return seen;
  if (lastFailure && Date.now() - lastFailure.at < REMEMBER_FAILURE_MS) return lastFailure.problem;
  return null;
}
