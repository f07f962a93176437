/**
 * Ingest: how fast the app stores runs, each figure beside its database's own ceiling. For each database (SQLite;
 * PostgreSQL in a private cluster with fsync and synchronous commit on):
 *
 * 1. **The ceiling**: a plain script inserting the N runs into a fresh database made by the real migrations, one
 *    transaction per run, with every index and trigger live: the very rows createRun writes (scripts/bench/seed.ts
 *    rowsOf, checked against createRun by run.ts). Runs per second in those transactions.
 * 2. **A restore**: the same N runs as an export file (the lines GET /api/export writes), streamed to
 *    `POST /api/restore` (`Prefer: respond-async`) of `next start` on a fresh empty database; the job polled until
 *    done. Runs stored per second from the first byte sent to the job's end, /api/health's longest wait meanwhile.
 * 3. **Uploads**: one app instance on a database already holding the N runs, 32 connections for 10 s each POSTing
 *    a new run document (scale.ts's upload load): uploads stored per second, p50, p99, statuses.
 *
 * The ratios are the app's rates divided by the ceiling's. See docs/benchmarks.md, "Ingest".
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { migrateDatabase, migratePostgresql } from "@/lib/db/migrate";
import type { RunDocument } from "@/lib/document/normalize";
import { type Cluster, findPostgresBin, startCluster } from "../../tests/support/postgresql";
import { type HealthFigures, listeningPid, whileSamplingHealth } from "./hostile";
import { totalRuns, UPLOAD_CONNECTIONS, UPLOAD_SECONDS, type UploadFigures, uploadFigures } from "./scale";
import { type RunRows, rowsOf, type SeedRun, sqliteRunInserter, streamRuns, writeDatabase } from "./seed";
import { postgresqlRunInserter, writePostgresql } from "./seed-postgresql";
import { type DatabaseKind, type Server, startServer, stopServer, type Workspace } from "./workspace";
import { send } from "./writes";

/** How many runs each step stores by default (`--ingest-runs N`). */
export const INGEST_RUNS = 100_000;

export const INGEST_TARGET = {
  /** The restore's rate ÷ the database's ceiling. */
  restoreRatio: 0.33,
  /** SQLite: uploads stored per second from one instance at 32 connections, and their p99. */
  sqliteUploadsPerSecond: 200,
  sqliteUploadP99Ms: 1_000,
};

/** The app's own SQLite page cache (lib/db/client.ts SQLITE_CACHE_KIB), so the ceiling's connection is the app's. */
const SQLITE_CACHE_KIB = 32 * 1024;
/** The restore's default limit on a raw body (SERVEBENCH_MAX_RESTORE_MB); a larger export raises it. */
const DEFAULT_RESTORE_LIMIT_MB = 2_000;
/** Uploads before the measured 10 s, not counted: the new server's first requests load its code and connections. */
const UPLOAD_WARMUP_SECONDS = 3;
/** How often the restore job is asked after (its end is read from the job's own `finished_at`). */
const POLL_MS = 200;
/** The rows of this many runs read back from the export file are compared with the generated ones. */
const ROUND_TRIP_CHECKED = 200;

export interface CeilingFigures {
  runs: number;
  /** Time inside the N transactions (BEGIN to COMMIT): the rows are built before each, outside the clock. */
  seconds: number;
  rate: number;
  /** The whole step: reading the runs back from the export, building rows, the transactions. */
  wallSeconds: number;
  /** Counted in the database afterwards: runs, result points, tags and the run total the trigger keeps. */
  stored: { runs: number; points: number; tags: number; runTotal: number };
  failures: string[];
}

interface JobCounts {
  runs: Record<string, number>;
  comparisons: Record<string, number>;
  series: Record<string, number>;
  unreadable: number;
}

interface JobView {
  id: string;
  status: string;
  phase: string;
  url: string;
  finished_at: string | null;
  received: { bytes: number; lines: number; parts: number };
  counts: JobCounts;
  report?: JobCounts & { lines_omitted?: number };
  error?: { code: string; message: string };
}

export interface RestoreFigures {
  runs: number;
  fileBytes: number;
  /** The POST's answer (202 when the job was made) and when it came (the whole body received and stored). */
  postStatus: number | "timeout" | "error";
  receivedSeconds: number;
  jobId: string | null;
  jobStatus: string | null;
  /** From the first byte sent to the job's `finished_at` (the same machine's clock). */
  seconds: number;
  storedRuns: number;
  rate: number;
  ratio: number;
  counts: JobCounts | null;
  receivedLines: number | null;
  /** GET /api/runs total after the job. */
  runsAfter: number | null;
  health: HealthFigures;
  peakRssBytes: number | null;
  jobError?: { code: string; message: string };
  /** Every count other than "each of the N runs stored once": the measurement failed. */
  failures: string[];
}

export interface IngestUploadFigures extends UploadFigures {
  ratio: number;
  /** The database the load wrote into held the N runs, written in this many seconds (a bulk load). */
  seedSeconds: number;
  failures: string[];
}

export interface IngestDatabaseFigures {
  kind: DatabaseKind;
  ceiling: CeilingFigures;
  restore: RestoreFigures;
  uploads: IngestUploadFigures;
  /** Wall time of each step, server starts and database writes included. */
  stepSeconds: { ceiling: number; restore: number; uploads: number };
}

export interface IngestStageFigures {
  runs: number;
  exportBytes: number;
  exportSeconds: number;
  databases: IngestDatabaseFigures[];
  postgresqlNote: string | null;
}

export interface IngestOptions {
  workspace: Workspace;
  repo: string;
  runs: number;
  kinds: DatabaseKind[];
  log: (line: string) => void;
  /** A restore job not done within this is recorded as stopped. */
  timeoutMs?: number;
}

// ---------------------------------------------------------------------------------------------------------
// The runs, as an export file

/** A run as GET /api/export writes it: the document with its id and upload time. */
function exportLine(run: SeedRun): string {
  return JSON.stringify({ id: run.id, created_at: run.createdAt.toISOString(), ...run.doc });
}

function runOfLine(line: string): SeedRun {
  const { id, created_at: createdAt, ...doc } = JSON.parse(line) as RunDocument & { id: string; created_at: string };
  return { id, createdAt: new Date(createdAt), doc: doc as RunDocument };
}

/**
 * streamRuns(count) written as an export, a line per run. The other steps read the runs back from it (generating
 * them costs ~1 ms a run, more than storing them): the rows of the first runs read back must be the generated ones'.
 */
async function writeExport(file: string, count: number): Promise<number> {
  const out = fs.openSync(file, "w");
  let bytes = 0;
  try {
    let chunk: string[] = [];
    let index = 0;
    for (const run of streamRuns(count)) {
      const line = exportLine(run);
      if (index < ROUND_TRIP_CHECKED) {
        const again = JSON.stringify(rowsOf(runOfLine(line)));
        if (again !== JSON.stringify(rowsOf(run)))
          throw new Error(`run ${run.id} read back from the export file has other rows than the generated run`);
      }
      chunk.push(line);
      index += 1;
      if (chunk.length === 500) {
        bytes += fs.writeSync(out, `${chunk.join("\n")}\n`);
        chunk = [];
        await nextTurn(); // Ctrl-C is heard between chunks
      }
    }
    if (chunk.length > 0) bytes += fs.writeSync(out, `${chunk.join("\n")}\n`);
  } finally {
    fs.closeSync(out);
  }
  return bytes;
}

/** The runs of an export file, one line at a time (never the whole file in memory). */
function* exportRuns(file: string): Generator<SeedRun> {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(4 << 20);
    let rest = Buffer.alloc(0);
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const data = rest.length > 0 ? Buffer.concat([rest, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(0x0a, start); end >= 0; end = data.indexOf(0x0a, start)) {
        const line = data.toString("utf8", start, end);
        start = end + 1;
        if (line.trim() !== "") yield runOfLine(line);
      }
      rest = Buffer.from(data.subarray(start));
    }
    const last = rest.toString("utf8");
    if (last.trim() !== "") yield runOfLine(last);
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------------
// 1. The ceiling

/** Set on Ctrl-C: long loops stop at their next turn. */
let interrupted = false;

function checkStored(
  stored: CeilingFigures["stored"],
  runs: number,
  points: number,
  tags: number,
  failures: string[],
): void {
  if (stored.runs !== runs) failures.push(`the ceiling stored ${stored.runs} runs of ${runs}`);
  if (stored.runTotal !== runs) failures.push(`the run total (trigger) reads ${stored.runTotal}, not ${runs}`);
  if (stored.points !== points) failures.push(`the ceiling stored ${stored.points} result points of ${points}`);
  if (stored.tags !== tags) failures.push(`the ceiling stored ${stored.tags} tags of ${tags}`);
}

/**
 * SQLite: the app's connection settings (WAL, synchronous FULL and foreign keys on, as better-sqlite3 and so
 * Prisma's adapter open it; the app's page cache), a transaction per run, every trigger live: the run total and
 * the three FTS5 indexes (trigrams of searchText, the word pairs and triples the app writes into searchPairs and
 * searchTriples) are kept by the migrations' triggers, as for the app's inserts.
 */
async function sqliteCeiling(
  file: string,
  exportFile: string,
  migrations: string,
  runs: number,
  log: (line: string) => void,
): Promise<CeilingFigures> {
  const wallStarted = performance.now();
  migrateDatabase(file, migrations);
  const database = new Database(file);
  try {
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = FULL");
    database.pragma("foreign_keys = ON");
    database.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
    const insert = sqliteRunInserter(database);
    const transaction = database.transaction((rows: RunRows) => insert(rows));
    let inTransactionsMs = 0;
    let count = 0;
    let points = 0;
    let tags = 0;
    for (const run of exportRuns(exportFile)) {
      const rows = rowsOf(run);
      const started = performance.now();
      transaction(rows);
      inTransactionsMs += performance.now() - started;
      count += 1;
      points += rows.points.length;
      tags += rows.tags.length;
      if (count % 200 === 0) {
        await nextTurn();
        if (interrupted) throw new Error("interrupted");
      }
      if (count % 20_000 === 0)
        log(`sqlite ceiling: ${count} runs, ${(count / (inTransactionsMs / 1000)).toFixed(0)} runs/s`);
    }
    const one = (sql: string) => Number((database.prepare(sql).pluck().get() as number | bigint | undefined) ?? -1);
    const stored = {
      runs: one(`SELECT count(*) FROM "Run"`),
      points: one(`SELECT count(*) FROM "ResultPoint"`),
      tags: one(`SELECT count(*) FROM "RunTag"`),
      runTotal: one(`SELECT "runs" FROM "RunTotal" WHERE "id" = 1`),
    };
    const failures: string[] = [];
    if (count !== runs) failures.push(`the export file held ${count} runs, not ${runs}`);
    checkStored(stored, count, points, tags, failures);
    const seconds = inTransactionsMs / 1000;
    return {
      runs: count,
      seconds,
      rate: count / seconds,
      wallSeconds: (performance.now() - wallStarted) / 1000,
      stored,
      failures,
    };
  } finally {
    database.close();
  }
}

/** PostgreSQL: one connection, BEGIN, the run's rows (seed-postgresql.ts's statements), COMMIT; every index live. */
async function postgresqlCeiling(
  url: string,
  exportFile: string,
  runs: number,
  log: (line: string) => void,
): Promise<CeilingFigures> {
  const wallStarted = performance.now();
  await migratePostgresql(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const insert = await postgresqlRunInserter(client);
    let inTransactionsMs = 0;
    let count = 0;
    let points = 0;
    let tags = 0;
    for (const run of exportRuns(exportFile)) {
      if (interrupted) throw new Error("interrupted");
      const rows = rowsOf(run);
      const started = performance.now();
      await client.query("BEGIN");
      try {
        await insert([rows]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
      inTransactionsMs += performance.now() - started;
      count += 1;
      points += rows.points.length;
      tags += rows.tags.length;
      if (count % 20_000 === 0)
        log(`postgresql ceiling: ${count} runs, ${(count / (inTransactionsMs / 1000)).toFixed(0)} runs/s`);
    }
    const one = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]?.n ?? -1);
    const stored = {
      runs: await one(`SELECT count(*) AS n FROM "Run"`),
      points: await one(`SELECT count(*) AS n FROM "ResultPoint"`),
      tags: await one(`SELECT count(*) AS n FROM "RunTag"`),
      runTotal: await one(`SELECT "runs" AS n FROM "RunTotal" WHERE "id" = 1`),
    };
    const failures: string[] = [];
    if (count !== runs) failures.push(`the export file held ${count} runs, not ${runs}`);
    checkStored(stored, count, points, tags, failures);
    const seconds = inTransactionsMs / 1000;
    return {
      runs: count,
      seconds,
      rate: count / seconds,
      wallSeconds: (performance.now() - wallStarted) / 1000,
      stored,
      failures,
    };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------
// 2. The restore

function getJson<T>(url: string, timeoutMs: number): Promise<{ status: number; body: T | null; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: T | null = null;
        try {
          body = JSON.parse(text) as T;
        } catch {
          // not JSON: the caller reports the status and text
        }
        resolve({ status: response.statusCode ?? 0, body, text });
      });
      response.on("error", reject);
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)));
    request.on("error", reject);
  });
}

/** The export file streamed as the body of POST /api/restore (Prefer: respond-async): its answer. */
function postExport(
  url: string,
  file: string,
  timeoutMs: number,
): Promise<{ status: number | "timeout" | "error"; body: string }> {
  const headers = {
    "content-type": "application/x-ndjson",
    "content-length": String(fs.statSync(file).size),
    prefer: "respond-async",
  };
  return send(
    `${url}/api/restore`,
    "POST",
    headers,
    (request) => {
      const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
      stream.on("error", () => request.destroy());
      stream.pipe(request, { end: false });
      return new Promise((resolve) => stream.on("end", resolve));
    },
    timeoutMs,
  );
}

async function measureRestore(
  server: Server,
  exportFile: string,
  runs: number,
  ceilingRate: number,
  timeoutMs: number,
): Promise<RestoreFigures> {
  const fileBytes = fs.statSync(exportFile).size;
  const pid = listeningPid(server.port) ?? server.child.pid ?? null;
  const measured = await whileSamplingHealth(server.url, pid, timeoutMs, async () => {
    const startedAt = Date.now();
    const started = performance.now();
    const posted = await postExport(server.url, exportFile, timeoutMs);
    const receivedSeconds = (performance.now() - started) / 1000;
    if (posted.status !== 202) return { posted, receivedSeconds, job: null, seconds: NaN };
    const location = (JSON.parse(posted.body) as { url: string }).url;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const polled = await getJson<JobView>(`${server.url}${location}`, timeoutMs);
      const job = polled.body;
      if (polled.status !== 200 || !job) {
        throw new Error(`GET ${location} answered ${polled.status}: ${polled.text.slice(0, 300)}`);
      }
      if (job.status === "done" || job.status === "failed" || Date.now() > deadline || interrupted) {
        const endedAt = job.finished_at ? Date.parse(job.finished_at) : Date.now();
        return { posted, receivedSeconds, job, seconds: (endedAt - startedAt) / 1000 };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  });
  const { posted, receivedSeconds, job, seconds } = measured.result;
  const failures: string[] = [];
  const counts = job ? (job.report ?? job.counts) : null;
  if (posted.status !== 202) failures.push(`POST /api/restore answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  else if (job?.status !== "done") {
    failures.push(
      `the restore job ended ${job?.status ?? "unread"}${job?.error ? ` (${job.error.code}: ${job.error.message})` : ""}`,
    );
  }
  if (counts) {
    const expect = (what: string, value: number | undefined, wanted: number) => {
      if ((value ?? 0) !== wanted) failures.push(`${what}: ${value ?? 0}, not ${wanted}`);
    };
    expect("runs stored", counts.runs.stored, runs);
    expect("runs already present", counts.runs.already_present, 0);
    expect("runs refused", counts.runs.refused, 0);
    for (const kind of ["comparisons", "series"] as const) {
      for (const [status, value] of Object.entries(counts[kind])) expect(`${kind} ${status}`, value, 0);
    }
    expect("unreadable lines", counts.unreadable, 0);
  }
  if (job && job.received.lines !== runs) failures.push(`the job received ${job.received.lines} lines, not ${runs}`);
  let runsAfter: number | null = null;
  try {
    runsAfter = await totalRuns(server);
    if (runsAfter !== runs) failures.push(`GET /api/runs counts ${runsAfter} runs after the restore, not ${runs}`);
  } catch (error) {
    failures.push(`GET /api/runs after the restore failed: ${String(error)}`);
  }
  const storedRuns = counts?.runs.stored ?? 0;
  const rate = job?.status === "done" ? storedRuns / seconds : NaN;
  return {
    runs,
    fileBytes,
    postStatus: posted.status,
    receivedSeconds,
    jobId: job?.id ?? null,
    jobStatus: job?.status ?? null,
    seconds,
    storedRuns,
    rate,
    ratio: rate / ceilingRate,
    counts: counts
      ? { runs: counts.runs, comparisons: counts.comparisons, series: counts.series, unreadable: counts.unreadable }
      : null,
    receivedLines: job?.received.lines ?? null,
    runsAfter,
    health: measured.health,
    peakRssBytes: measured.peakRssBytes,
    ...(job?.error ? { jobError: job.error } : {}),
    failures,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The stage

/** Servers this module started and has not stopped, and its cluster: on Ctrl-C they go down with the benchmark. */
const live = new Set<Server>();
let liveCluster: Cluster | null = null;

async function start(
  workspace: Workspace,
  repo: string,
  database: string,
  label: string,
  extraEnv: Record<string, string> = {},
): Promise<Server> {
  const server = await startServer(workspace, repo, database, label, extraEnv);
  live.add(server);
  return server;
}

async function stop(server: Server): Promise<void> {
  await stopServer(server);
  live.delete(server);
}

function onSignal(): void {
  interrupted = true;
  for (const server of live) server.child.kill("SIGKILL");
  liveCluster?.stop();
}

export async function measureIngestStage(options: IngestOptions): Promise<IngestStageFigures> {
  const { workspace, repo, runs, log } = options;
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const migrations = path.join(workspace.app, "prisma", "migrations");
  const data = path.join(workspace.root, "data");
  fs.mkdirSync(data, { recursive: true });
  const kinds = [...options.kinds];
  let postgresqlNote: string | null = null;
  if (kinds.includes("postgresql") && !findPostgresBin()) {
    postgresqlNote = "PostgreSQL is not installed here: its figures were NOT measured (apt-get install -y postgresql)";
    kinds.splice(kinds.indexOf("postgresql"), 1);
  }
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const exportFile = path.join(data, `ingest-export-${runs}.jsonl`);
  const databases: IngestDatabaseFigures[] = [];
  try {
    let started = performance.now();
    const exportBytes = await writeExport(exportFile, runs);
    const exportSeconds = (performance.now() - started) / 1000;
    log(
      `ingest: wrote the export of ${runs} runs (${(exportBytes / 1e6).toFixed(1)} MB) in ${exportSeconds.toFixed(1)} s`,
    );
    const restoreEnv: Record<string, string> =
      exportBytes > DEFAULT_RESTORE_LIMIT_MB * 1e6
        ? { SERVEBENCH_MAX_RESTORE_MB: String(Math.ceil(exportBytes / 1e6) + 1) }
        : {};
    if (kinds.includes("postgresql")) {
      // Durable as a real server is: fsync and synchronous commit on (unlike the test clusters), as scale.ts.
      liveCluster = await startCluster({
        settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "1GB" },
      });
    }
    const cluster = liveCluster;
    const dropPostgresql = async (name: string) => {
      const admin = new pg.Client({ connectionString: cluster!.urlFor("postgres") });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    };
    const removeSqlite = (file: string) => {
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    };

    for (const kind of kinds) {
      const label = kind === "sqlite" ? "SQLite" : "PostgreSQL";
      // 1. The ceiling
      started = performance.now();
      let ceiling: CeilingFigures;
      if (kind === "sqlite") {
        const file = path.join(data, "ingest-ceiling.db");
        ceiling = await sqliteCeiling(file, exportFile, migrations, runs, log);
        removeSqlite(file);
      } else {
        const url = await cluster!.createDatabase("ingest_ceiling");
        ceiling = await postgresqlCeiling(url, exportFile, runs, log);
        await dropPostgresql("ingest_ceiling");
      }
      const ceilingSeconds = (performance.now() - started) / 1000;
      log(
        `ingest ${label}: ceiling ${ceiling.rate.toFixed(0)} runs/s (${ceiling.seconds.toFixed(1)} s in ${ceiling.runs} transactions; step ${ceilingSeconds.toFixed(1)} s)${ceiling.failures.length > 0 ? `; FAILED: ${ceiling.failures.join("; ")}` : ""}`,
      );

      // 2. The restore, on a fresh empty database
      started = performance.now();
      let restoreDatabase: string;
      if (kind === "sqlite") {
        restoreDatabase = path.join(data, "ingest-restore.db");
        migrateDatabase(restoreDatabase, migrations);
      } else {
        restoreDatabase = await cluster!.createDatabase("ingest_restore");
        await migratePostgresql(restoreDatabase);
      }
      const restoreServer = await start(workspace, repo, restoreDatabase, `ingest-restore-${kind}`, restoreEnv);
      let restore: RestoreFigures;
      try {
        restore = await measureRestore(restoreServer, exportFile, runs, ceiling.rate, timeoutMs);
      } finally {
        await stop(restoreServer);
      }
      if (kind === "sqlite") removeSqlite(restoreDatabase);
      else await dropPostgresql("ingest_restore");
      const restoreSeconds = (performance.now() - started) / 1000;
      log(
        `ingest ${label}: restore ${restore.rate.toFixed(0)} runs/s (${restore.storedRuns} stored in ${restore.seconds.toFixed(1)} s, body received in ${restore.receivedSeconds.toFixed(1)} s), ratio ${restore.ratio.toFixed(2)}; /api/health longest wait ${restore.health.maxMs.toFixed(0)} ms${restore.failures.length > 0 ? `; MEASUREMENT FAILED: ${restore.failures.join("; ")}` : ""}`,
      );

      // 3. Uploads, one instance, on a database already holding the runs
      started = performance.now();
      let uploadDatabase: string;
      if (kind === "sqlite") {
        uploadDatabase = path.join(data, "ingest-uploads.db");
        writeDatabase(uploadDatabase, exportRuns(exportFile), migrations);
      } else {
        uploadDatabase = await cluster!.createDatabase("ingest_uploads");
        await writePostgresql(uploadDatabase, exportRuns(exportFile));
      }
      const seedSeconds = (performance.now() - started) / 1000;
      const uploadServer = await start(workspace, repo, uploadDatabase, `ingest-uploads-${kind}`);
      let load: UploadFigures;
      try {
        load = await uploadFigures([uploadServer], UPLOAD_CONNECTIONS, UPLOAD_SECONDS, UPLOAD_WARMUP_SECONDS);
      } finally {
        await stop(uploadServer);
      }
      if (kind === "sqlite") removeSqlite(uploadDatabase);
      else await dropPostgresql("ingest_uploads");
      const uploadFailures: string[] = [];
      if (load.storedBefore !== runs + load.warmupCreated)
        uploadFailures.push(
          `the database held ${load.storedBefore} runs, not ${runs} + the warm-up's ${load.warmupCreated}`,
        );
      if (load.storedAfter - load.storedBefore !== load.created) {
        uploadFailures.push(
          `runs stored ${load.storedBefore} → ${load.storedAfter} (+${load.storedAfter - load.storedBefore}) for ${load.created} answers 201`,
        );
      }
      const uploads: IngestUploadFigures = {
        ...load,
        ratio: load.requestsPerSecond / ceiling.rate,
        seedSeconds,
        failures: uploadFailures,
      };
      const uploadsSeconds = (performance.now() - started) / 1000;
      log(
        `ingest ${label}: uploads ${uploads.requestsPerSecond.toFixed(1)}/s, p50 ${uploads.latencyP50} ms, p99 ${uploads.latencyP99} ms, ${uploads.created} × 201, ${uploads.non2xx} other, ${uploads.errors} errors; server CPU ${uploads.serverCpuMsPerUpload.toFixed(2)} ms an upload (main thread ${uploads.mainThreadCpuMsPerUpload.toFixed(2)})${uploadFailures.length > 0 ? `; MEASUREMENT FAILED: ${uploadFailures.join("; ")}` : ""}`,
      );
      databases.push({
        kind,
        ceiling,
        restore,
        uploads,
        stepSeconds: { ceiling: ceilingSeconds, restore: restoreSeconds, uploads: uploadsSeconds },
      });
    }
    return { runs, exportBytes, exportSeconds, databases, postgresqlNote };
  } finally {
    for (const server of live) await stop(server);
    liveCluster?.stop();
    liveCluster = null;
    fs.rmSync(exportFile, { force: true });
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Printing

const perSecond = (value: number, unit: string) =>
  Number.isFinite(value)
    ? `${value.toLocaleString("en-US", { maximumFractionDigits: value < 100 ? 1 : 0 })} ${unit}`
    : "—";
const ratioText = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "—");
const msText = (value: number) =>
  Number.isFinite(value) ? `${value.toLocaleString("en-US", { maximumFractionDigits: 0 })} ms` : "—";

/** "met (12% over)" / "NOT MET (40% under)". */
function verdictOf(value: number, limit: number, lowerIsBetter: boolean): { met: boolean; text: string } {
  if (!Number.isFinite(value)) return { met: false, text: "NOT MET (no figure)" };
  const met = lowerIsBetter ? value < limit : value >= limit;
  const pct = `${((Math.abs(value - limit) / limit) * 100).toFixed(0)}%`;
  return met
    ? { met, text: `met (${pct} ${lowerIsBetter ? "under" : "over"})` }
    : { met, text: `NOT MET (${pct} ${lowerIsBetter ? "over" : "under"})` };
}

/** The stage's table and details. Returns the verdicts (a measurement failure is a target not met). */
export function printIngest(
  figures: IngestStageFigures,
  log: (line: string) => void,
  table: (rows: string[][]) => string,
): boolean[] {
  const verdicts: boolean[] = [];
  const rows: string[][] = [["Figure", "Measured", "Ceiling", "Ratio", "Target", "Met?"]];
  for (const database of figures.databases) {
    const label = database.kind === "sqlite" ? "SQLite" : "PostgreSQL";
    const { ceiling, restore, uploads } = database;
    const ceilingText = perSecond(ceiling.rate, "runs/s");
    rows.push([
      `${label}: ceiling, a transaction per run, every index and trigger live`,
      ceilingText,
      "",
      "",
      "",
      ceiling.failures.length > 0 ? "MEASUREMENT FAILED" : "",
    ]);
    const restoreVerdict =
      restore.failures.length > 0 || ceiling.failures.length > 0
        ? { met: false, text: "MEASUREMENT FAILED" }
        : verdictOf(restore.ratio, INGEST_TARGET.restoreRatio, false);
    verdicts.push(restoreVerdict.met);
    rows.push([
      `${label}: restore (POST /api/restore, ${figures.runs.toLocaleString("en-US")} runs)`,
      perSecond(restore.rate, "runs/s"),
      ceilingText,
      ratioText(restore.ratio),
      `≥ ${INGEST_TARGET.restoreRatio}`,
      restoreVerdict.text,
    ]);
    rows.push([
      "  /api/health during it: longest wait (median, samples)",
      `${restore.health.unanswered ? "≥ " : ""}${msText(restore.health.maxMs)} (${msText(restore.health.medianMs)}, ${restore.health.samples})`,
      "",
      "",
      "(none)",
      "",
    ]);
    const uploadsFailed = uploads.failures.length > 0 || ceiling.failures.length > 0;
    const uploadsLabel = `${label}: uploads, 1 instance, ${uploads.connections} conn., ${uploads.seconds} s (${figures.runs.toLocaleString("en-US")} runs stored)`;
    if (database.kind === "sqlite") {
      const rate = verdictOf(uploads.requestsPerSecond, INGEST_TARGET.sqliteUploadsPerSecond, false);
      const p99 = verdictOf(uploads.latencyP99, INGEST_TARGET.sqliteUploadP99Ms, true);
      const unanswered = uploads.non2xx + uploads.errors;
      verdicts.push(!uploadsFailed && rate.met && p99.met && unanswered === 0);
      rows.push([
        uploadsLabel,
        perSecond(uploads.requestsPerSecond, "uploads/s"),
        ceilingText,
        ratioText(uploads.ratio),
        `≥ ${INGEST_TARGET.sqliteUploadsPerSecond}/s`,
        uploadsFailed ? "MEASUREMENT FAILED" : unanswered > 0 ? `NOT MET (${unanswered} not answered 201)` : rate.text,
      ]);
      rows.push([
        "  latency p50 / p99",
        `${uploads.latencyP50.toLocaleString("en-US")} / ${uploads.latencyP99.toLocaleString("en-US")} ms`,
        "",
        "",
        `p99 < ${INGEST_TARGET.sqliteUploadP99Ms.toLocaleString("en-US")} ms`,
        uploadsFailed ? "" : p99.text,
      ]);
    } else {
      rows.push([
        uploadsLabel,
        perSecond(uploads.requestsPerSecond, "uploads/s"),
        ceilingText,
        ratioText(uploads.ratio),
        "(none)",
        uploadsFailed
          ? "MEASUREMENT FAILED"
          : uploads.non2xx + uploads.errors > 0
            ? `${uploads.non2xx + uploads.errors} not answered 201`
            : "",
      ]);
      rows.push([
        "  latency p50 / p99",
        `${uploads.latencyP50.toLocaleString("en-US")} / ${uploads.latencyP99.toLocaleString("en-US")} ms`,
        "",
        "",
        "(none)",
        "",
      ]);
    }
    rows.push([
      "  server CPU an upload (all threads / main thread)",
      `${uploads.serverCpuMsPerUpload.toFixed(2)} / ${uploads.mainThreadCpuMsPerUpload.toFixed(2)} ms`,
      "",
      "",
      "(none)",
      "",
    ]);
  }
  log("");
  log(
    `Ingest: restore and uploads beside the database's ceiling (${figures.runs.toLocaleString("en-US")} runs: export ${(figures.exportBytes / 1e6).toFixed(1)} MB; ceiling = the same runs inserted by a plain script, one transaction per run, every index and trigger live; ratio = measured ÷ ceiling)`,
  );
  if (figures.postgresqlNote) log(figures.postgresqlNote);
  log(table(rows));
  for (const database of figures.databases) {
    const label = database.kind === "sqlite" ? "SQLite" : "PostgreSQL";
    const { ceiling, restore, uploads, stepSeconds } = database;
    const counts = restore.counts;
    log(
      `  ${label} ceiling: ${ceiling.runs} runs in ${ceiling.seconds.toFixed(1)} s of transactions (${ceiling.wallSeconds.toFixed(1)} s with reading and building the rows); stored ${ceiling.stored.runs} runs, ${ceiling.stored.points} points, ${ceiling.stored.tags} tags, run total ${ceiling.stored.runTotal}` +
        (ceiling.failures.length > 0 ? `; MEASUREMENT FAILED: ${ceiling.failures.join("; ")}` : ""),
    );
    log(
      `  ${label} restore: POST answered ${restore.postStatus} after ${restore.receivedSeconds.toFixed(1)} s (the body received and stored), job ${restore.jobId ?? "—"} ${restore.jobStatus ?? ""} ${restore.seconds.toFixed(1)} s after the first byte; ` +
        (counts
          ? `runs stored ${counts.runs.stored ?? 0}, already present ${counts.runs.already_present ?? 0}, refused ${counts.runs.refused ?? 0}, unreadable ${counts.unreadable}; `
          : "") +
        `GET /api/runs total after: ${restore.runsAfter ?? "—"}; server peak memory ${restore.peakRssBytes === null ? "?" : `${(restore.peakRssBytes / 1e6).toFixed(0)} MB`}` +
        (restore.failures.length > 0
          ? `; MEASUREMENT FAILED: ${restore.failures.join("; ")}`
          : "; every run stored once"),
    );
    const others = Object.entries(uploads.otherStatuses)
      .map(([status, count]) => `${count} × ${status}`)
      .join(", ");
    log(
      `  ${label} uploads: ${uploads.requests} answered, ${uploads.created} × 201, ${uploads.non2xx} other${others ? ` (${others})` : ""}, ${uploads.errors} errors; runs stored ${uploads.storedBefore} → ${uploads.storedAfter}` +
        (uploads.failures.length > 0
          ? `; MEASUREMENT FAILED: ${uploads.failures.join("; ")}`
          : " (every 201 stored once)"),
    );
    log(
      `  ${label} steps: ceiling ${stepSeconds.ceiling.toFixed(1)} s, restore ${stepSeconds.restore.toFixed(1)} s, uploads ${stepSeconds.uploads.toFixed(1)} s (writing the ${figures.runs.toLocaleString("en-US")} runs first: ${uploads.seedSeconds.toFixed(1)} s)`,
    );
  }
  log(`  the export file: ${figures.exportSeconds.toFixed(1)} s to generate and write`);
  return verdicts;
}
