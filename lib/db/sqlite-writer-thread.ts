/**
 * The SQLite writer thread's entry (started by lib/db/sqlite-writer.ts): its own connection to the app's database
 * file, and each request's statements run in one write transaction. It imports nothing of the app, so that it
 * loads the same way bundled (Next) and from source (tests, scripts).
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

export interface WriterSettings {
  file: string;
  /** SQLite's busy timeout: how long a write waits for the lock another connection holds. */
  timeoutMs: number;
  /** `name = value` pragmas that make this connection behave as the app's own (sqlite-writer.ts). */
  pragmas: string[];
}

export interface RowsStatement {
  sql: string;
  /** One parameter list per run of the statement. */
  rows: readonly (readonly unknown[])[];
}

export type WriterRequest =
  | { id: number; kind: "write"; statements: RowsStatement[] }
  | { id: number; kind: "pragma"; statement: string };

/** A database error as it crosses threads: what lib/db/database-errors.ts and storage.ts read of it. */
export interface WriterError {
  message: string;
  name: string;
  code?: string;
}

export type WriterReply = { id: number; ok: true } | { id: number; ok: false; error: WriterError };

const port = parentPort;
if (!port) throw new Error("lib/db/sqlite-writer-thread.ts runs as a worker thread only");
const settings = workerData as WriterSettings;

let connection: Database.Database | null = null;
const statements = new Map<string, Database.Statement>();

/** Opened at the first request, so that a file that cannot be opened is that request's error, with its code. */
function open(): Database.Database {
  if (connection) return connection;
  const opened = new Database(settings.file, { fileMustExist: true, timeout: settings.timeoutMs });
  for (const pragma of settings.pragmas) opened.pragma(pragma);
  connection = opened;
  return opened;
}

function prepared(database: Database.Database, sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = database.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

/** Bytes arrive as a plain Uint8Array (structured cloning drops Buffer's class); SQLite takes a Buffer as a blob. */
function parameter(value: unknown): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;
}

function errorOf(error: unknown): WriterError {
  if (!(error instanceof Error)) return { message: String(error), name: "Error" };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, name: error.name, ...(typeof code === "string" ? { code } : {}) };
}

function perform(request: WriterRequest): void {
  const database = open();
  if (request.kind === "pragma") {
    database.pragma(request.statement);
    return;
  }
  // BEGIN IMMEDIATE: the write lock first, so a writer of another connection is waited for, not failed half way.
  database
    .transaction(() => {
      for (const { sql, rows } of request.statements) {
        const statement = prepared(database, sql);
        for (const row of rows) statement.run(row.map(parameter));
      }
    })
    .immediate();
}

port.on("message", (request: WriterRequest) => {
  let reply: WriterReply;
  try {
    perform(request);
    reply = { id: request.id, ok: true };
  } catch (error) {
    reply = { id: request.id, ok: false, error: errorOf(error) };
  }
  port.postMessage(reply);
});
