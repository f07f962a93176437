/**
 * Runs' rows written on a thread of their own, on a second connection to the app's SQLite file.
 *
 * Why: better-sqlite3 is synchronous, so a write holds the server's one thread for as long as SQLite takes, and
 * storing a run (its row, 13 indexes, points, tags and three text-search indexes) is ~1.8 ms of SQLite's own work
 * at 100,000 runs: half of what an upload cost the server's thread (docs/benchmarks.md, "Ingest"). On this thread
 * SQLite works beside the server's thread: pages and the API go on answering, and uploads are parsed and judged
 * while the previous ones are written.
 *
 * The thread is one more writer of the file, as a second app instance is (WAL: readers never wait for it; writers
 * take turns on the lock). Within this process the two connections do not wait on each other's lock:
 * lib/db/sqlite-writes.ts writes on the app's connection only when no request is on this thread (writerIdle).
 * The thread's connection is set up as the app's is (the pragmas below, read off the app's connection when the
 * thread starts); setConnectionPragma changes one on both. Errors come back with their SQLite code, so busy, full,
 * read-only and a unique key broken are told apart as on the app's connection.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import { databaseTarget, env } from "@/lib/env";
import { SQLITE_CACHE_KIB, sqliteConnection } from "./client";
import type { RowsStatement, WriterError, WriterReply, WriterRequest, WriterSettings } from "./sqlite-writer-thread";

export type { RowsStatement } from "./sqlite-writer-thread";

/**
 * The app connection's settings the writer's connection takes, read off it when the writer starts. The page cache
 * is set as the app's is (client.ts), not read: the app sets it with its first query, which may not have run yet.
 */
const MIRRORED_PRAGMAS = ["foreign_keys", "synchronous", "query_only", "max_page_count"] as const;

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Writer {
  worker: Worker;
  file: string;
  pending: Map<number, Pending>;
  nextId: number;
  /** Resolved when no request is pending. */
  idleWaiters: (() => void)[];
}

// Once per process: Next.js may load this module more than once.
const holder = globalThis as unknown as {
  servebenchSqliteWriter?: Writer | null;
  servebenchSqliteWriterActivity?: { started: number; writes: number };
};
function activity(): { started: number; writes: number } {
  holder.servebenchSqliteWriterActivity ??= { started: 0, writes: 0 };
  return holder.servebenchSqliteWriterActivity;
}

/** How many writer threads this process has started, and how many write transactions they committed. */
export function sqliteWriterActivity(): { started: number; writes: number } {
  return { ...activity() };
}

/** A database error from the writer thread, with the code the error readers look at. */
function errorFrom(error: WriterError): Error {
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  if (error.code !== undefined) Object.assign(rebuilt, { code: error.code });
  return rebuilt;
}

function spawn(settings: WriterSettings): Worker {
  const options = { workerData: settings };
  // Under Next the entry is bundled (Turbopack bundles `new Worker(new URL(…, import.meta.url))`); run from source
  // (tests, scripts), the TypeScript entry is loaded through tsx, as lib/ingest/upload-pool.ts does.
  if (process.env.NEXT_RUNTIME) return new Worker(new URL("./sqlite-writer-thread.ts", import.meta.url), options);
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), "sqlite-writer-thread.ts");
  return new Worker(`require("tsx/cjs/api").register(); require(${JSON.stringify(entry)});`, {
    ...options,
    eval: true,
  });
}

function settle(writer: Writer): void {
  if (writer.pending.size > 0) return;
  // Idle: the thread does not keep the process alive (a script ends when its own work does).
  writer.worker.unref();
  const waiters = writer.idleWaiters.splice(0);
  for (const wake of waiters) wake();
}

function failAll(writer: Writer, error: Error): void {
  if (holder.servebenchSqliteWriter === writer) holder.servebenchSqliteWriter = null;
  for (const pending of writer.pending.values()) pending.reject(error);
  writer.pending.clear();
  settle(writer);
}

function pragmasOf(connection: BetterSqlite3.Database): string[] {
  return [
    ...MIRRORED_PRAGMAS.map((name) => `${name} = ${connection.pragma(name, { simple: true })}`),
    `cache_size = -${SQLITE_CACHE_KIB}`,
  ];
}

function startWriter(file: string, connection: BetterSqlite3.Database): Writer {
  const worker = spawn({ file, timeoutMs: env().SERVEBENCH_LOCK_TIMEOUT_MS, pragmas: pragmasOf(connection) });
  const writer: Writer = { worker, file, pending: new Map(), nextId: 1, idleWaiters: [] };
  activity().started += 1;
  worker.unref();
  worker.on("message", (reply: WriterReply) => {
    const pending = writer.pending.get(reply.id);
    if (!pending) return;
    writer.pending.delete(reply.id);
    if (reply.ok) pending.resolve();
    else pending.reject(errorFrom(reply.error));
    settle(writer);
  });
  worker.on("error", (error) => failAll(writer, error instanceof Error ? error : new Error(String(error))));
  worker.on("exit", (exitCode) => failAll(writer, new Error(`the SQLite writer thread stopped (exit ${exitCode})`)));
  return writer;
}

/** The writer of the app's SQLite file, started at its first use; null when the app is on PostgreSQL. */
async function writer(): Promise<Writer | null> {
  const connection = (await sqliteConnection()) as BetterSqlite3.Database | null;
  if (!connection) return null;
  const target = databaseTarget();
  if (target.provider !== "sqlite") return null;
  const current = holder.servebenchSqliteWriter;
  if (current && current.file === target.file) return current;
  if (current) await closeSqliteWriter();
  holder.servebenchSqliteWriter = startWriter(target.file, connection);
  return holder.servebenchSqliteWriter;
}

/** A request before it is given its id (Omit of each member: Omit of a union would merge them). */
type Unsent<T> = T extends unknown ? Omit<T, "id"> : never;

function send(running: Writer, request: Unsent<WriterRequest>): Promise<void> {
  const id = running.nextId++;
  return new Promise<void>((resolve, reject) => {
    running.pending.set(id, { resolve, reject });
    // Busy: the process waits for the answer, as it would for any other write.
    running.worker.ref();
    running.worker.postMessage({ ...request, id } as WriterRequest);
  });
}

/**
 * Run the statements, each once per row of parameters, in one write transaction on the writer thread: all of them
 * or none. False when the app is not on SQLite (nothing was done). Throws what SQLite throws, with its code.
 */
export async function writeRowsOnWriter(statements: RowsStatement[]): Promise<boolean> {
  const running = await writer();
  if (!running) return false;
  await send(running, { kind: "write", statements });
  activity().writes += 1;
  return true;
}

/** Whether a request is on the writer thread now. */
export function writerBusy(): boolean {
  return (holder.servebenchSqliteWriter?.pending.size ?? 0) > 0;
}

/** Resolves once no request is on the writer thread (at once when none is). */
export function writerIdle(): Promise<void> {
  const running = holder.servebenchSqliteWriter;
  if (!running || running.pending.size === 0) return Promise.resolve();
  return new Promise((resolve) => running.idleWaiters.push(resolve));
}

/**
 * Set a pragma (`query_only = 1`, `max_page_count = 5000`) on every connection the app has to its SQLite file: its
 * own and the writer's. Nothing on PostgreSQL.
 */
export async function setConnectionPragma(statement: string): Promise<void> {
  const connection = (await sqliteConnection()) as BetterSqlite3.Database | null;
  if (!connection) return;
  connection.pragma(statement);
  const running = holder.servebenchSqliteWriter;
  if (running) await send(running, { kind: "pragma", statement });
}

/** Stop the writer thread (its connection closes with it); the next write starts a new one. */
export async function closeSqliteWriter(): Promise<void> {
  const running = holder.servebenchSqliteWriter;
  if (!running) return;
  holder.servebenchSqliteWriter = null;
  await running.worker.terminate();
}
