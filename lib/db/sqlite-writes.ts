/**
 * Bulk writes straight to the app's SQLite connection, without Prisma's query engine in between.
 *
 * Why: storing one run through Prisma (a batch transaction of raw statements, a `findMany` for its content hash)
 * cost the server's thread 8–11 ms on top of what SQLite itself spends, which with its indexes and triggers is
 * ~2.5 ms a run (docs/benchmarks.md, "Ingest"): every statement is compiled by the query engine, prepared anew
 * and its answer converted. Here each statement is prepared once and a whole batch is one synchronous transaction.
 *
 * It is safe on the one connection Prisma shares with us because better-sqlite3 is synchronous: the transaction
 * runs start to end with nothing else interleaved. It only waits for a turn when a Prisma transaction is open on
 * the connection (Prisma's adapter awaits between its statements), so it never lands inside someone else's.
 * Errors are better-sqlite3's (`code` SQLITE_BUSY, SQLITE_FULL, SQLITE_CONSTRAINT_UNIQUE, …), which
 * lib/db/database-errors.ts, lib/db/storage.ts and isUniqueViolation read as they read Prisma's.
 */
import type BetterSqlite3 from "better-sqlite3";
import { sqliteConnection } from "./client";
import { writerBusy, writerIdle } from "./sqlite-writer";

type Connection = BetterSqlite3.Database;

const statements = new WeakMap<Connection, Map<string, BetterSqlite3.Statement>>();

/** A statement prepared once per connection and kept (a few dozen texts at most: they are the app's own). */
export function prepared(connection: Connection, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(connection);
  if (!cache) {
    cache = new Map();
    statements.set(connection, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** A value as SQLite takes it from Prisma: booleans as 0/1, dates as ISO 8601 text with an explicit UTC offset. */
export function sqliteValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  return value;
}

/**
 * Run `work` in one write transaction (BEGIN IMMEDIATE: it takes the write lock first, so two processes on one
 * file queue for it rather than fail half way) on the app's SQLite connection; null when the app is not on SQLite.
 */
export async function sqliteWrite<T>(work: (connection: Connection) => T): Promise<{ value: T } | null> {
  const connection = (await sqliteConnection()) as Connection | null;
  if (!connection) return null;
  // A Prisma transaction holds the connection across awaits: wait for it to end rather than write inside it. The
  // writer thread's connection is this process's too: take turns with it rather than wait for its lock here, where
  // waiting would stop the server's thread (SQLite's busy handler sleeps). Both checked in the turn that writes.
  while (connection.inTransaction || writerBusy()) {
    if (writerBusy()) await writerIdle();
    else await new Promise((resolve) => setImmediate(resolve));
  }
  return { value: connection.transaction(() => work(connection)).immediate() };
}

/**
 * Read on the app's SQLite connection with a kept statement; null when the app is not on SQLite. Integers come back
 * as BigInt: Prisma's adapter opens the connection with safe integers.
 */
export async function sqliteRead<T>(sql: string, parameters: readonly unknown[]): Promise<T[] | null> {
  const connection = (await sqliteConnection()) as Connection | null;
  if (!connection) return null;
  return prepared(connection, sql).all(...parameters) as T[];
}
