/**
 * Restoring an export as a job (POST /api/restore, GET /api/restore/jobs/<id>).
 *
 * Receiving: the body is cut into parts of whole lines as it arrives (lib/backup/export-parts.ts) and each part
 * is stored in the database at once, so however large the export, the server holds about one part of it.
 *
 * Storing, in three phases, each saving its progress before the next step: "series" reads every part for the
 * export's series lines and creates them (a series before its runs, which join it under its old id); "lines"
 * stores one part at a time (its lines parsed and validated in the upload worker, its runs stored in small
 * transactions with a turn of the event loop between them) and adds its lines to the report; "finish" gives the
 * series their alerts, notes and annotations back and judges the series the runs joined. Then the parts are
 * deleted and the report kept.
 *
 * Whichever process holds the job's lease works on it; the lease is renewed after every step. A job whose holder
 * died (a process on this machine that is gone, or a lease not renewed for LEASE_MS) is taken over and resumed
 * at the part after the last one saved; every step is idempotent, so nothing is lost or stored twice (the runs
 * of the part under way when it stopped are reported "already_present"). A job still receiving when its
 * process died cannot be resumed (the rest of the body is gone): it is marked failed, and posting the file
 * again finishes the restore.
 */
import os from "node:os";
import {
  comparisonEntry,
  entryOfLine,
  type RestoreReport,
  RestoreReportBuilder,
  type RestoreReportLine,
  type RestoreReportState,
  runEntry,
  seriesEntry,
} from "@/lib/backup/restore-report";
import {
  applyRestoredSeriesState,
  createRestoredSeries,
  type RestoredSeries,
  type SeriesToRestore,
  seriesJoinedBy,
} from "@/lib/backup/series";
import { type ComparisonToRestore, restoreComparisons } from "@/lib/comparisons/queries";
import { db } from "@/lib/db/client";
import { prepared, sqliteRead, sqliteValue, sqliteWrite } from "@/lib/db/sqlite-writes";
import { AppError } from "@/lib/errors";
import { publicError } from "@/lib/http/errors";
import { mayHoldSeries, oversizeLine, type RefusalsCounted, type RestoreLine } from "@/lib/ingest/restore-lines";
import { outcomeError, runUploadTask } from "@/lib/ingest/upload-pool";
import { randomId } from "@/lib/random-id";
import { type RunToRestore, restoreRuns } from "@/lib/runs/restore";
import { type ExportPart, ExportPartSplitter } from "./export-parts";

/** How long a job stays with the process working on it without a sign of life from it. */
export const LEASE_MS = 30_000;
/** How often a step that runs long (judging the series at the end) renews its lease: well within LEASE_MS. */
const LEASE_RENEW_MS = 2_000;
/** A job that failed this many times in a row on a passing problem (a busy or full database) is given up. */
const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 5_000;
/**
 * What this process keeps of its work on jobs, once per process: Next.js loads this module more than once in one
 * process (the instrumentation hook and the route handlers are bundled apart), and two copies, each with a holder
 * of its own, would each see the other's holder as a process gone and take its jobs over, back and forth.
 */
interface WorkerState {
  /** This process, as a lease names it: the machine, the process id, and a nonce for a reused process id. */
  holder: string;
  running: Promise<void> | null;
  wanted: boolean;
  lastSweepError: string;
  sweeping: NodeJS.Timeout | null;
}
const shared = globalThis as unknown as { servebenchRestoreJobs?: WorkerState };
shared.servebenchRestoreJobs ??= {
  holder: `${os.hostname()}|${process.pid}|${randomId(8)}`,
  running: null,
  wanted: false,
  lastSweepError: "",
  sweeping: null,
};
const worker: WorkerState = shared.servebenchRestoreJobs;
const HOLDER = worker.holder;

export type RestoreJobStatus = "receiving" | "queued" | "running" | "done" | "failed";
export type RestoreJobPhase = "series" | "lines" | "finish";

interface JobState {
  report: RestoreReportState;
  /** The series the stored runs joined (of two runs or more): judged when the job finishes. */
  joined: string[];
  /** Failures in a row on a passing problem. */
  attempts: number;
}

interface SeriesState {
  entries: SeriesToRestore[];
  created: RestoredSeries[];
}

export interface RestoreJobView {
  id: string;
  status: RestoreJobStatus;
  phase: RestoreJobPhase;
  /** This job's address. */
  url: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  received: { bytes: number; lines: number; parts: number };
  progress: { parts_done: number; parts_total: number; lines_done: number };
  /** Counts so far (the whole report once the job is done). */
  counts: Pick<RestoreReport, "runs" | "comparisons" | "series" | "unreadable">;
  /** The answer of the restore, once it is done. */
  report?: RestoreReport;
  /** Why it stopped, when it failed. */
  error?: { code: string; message: string };
}

type JobRow = NonNullable<Awaited<ReturnType<ReturnType<typeof db>["restoreJob"]["findUnique"]>>>;

/** This process no longer holds the job (another took it over): stop working on it, quietly. */
class LeaseLost extends Error {}

function emptyState(): JobState {
  return { report: new RestoreReportBuilder().toState(), joined: [], attempts: 0 };
}

function leaseUntil(now = Date.now()): Date {
  return new Date(now + LEASE_MS);
}

export function restoreJobUrl(id: string): string {
  return `/api/restore/jobs/${id}`;
}

// ---------------------------------------------------------------------------------------------------------
// Receiving

/**
 * Store the export as it arrives, part by part, as a new job (answered with its id once the body has ended and
 * the job is queued). A body past `limitBytes`, a body that breaks off, or one that holds no line leaves nothing.
 */
export async function receiveExport(
  body: ReadableStream<Uint8Array> | null,
  limitBytes: number,
  tooLarge: () => AppError,
): Promise<string> {
  const id = randomId(16);
  const now = new Date();
  await db().restoreJob.create({
    data: {
      id,
      status: "receiving",
      phase: "series",
      stateJson: JSON.stringify(emptyState()),
      leaseHolder: HOLDER,
      leaseUntil: leaseUntil(),
      createdAt: now,
      updatedAt: now,
    },
  });
  const splitter = new ExportPartSplitter();
  let parts = 0;
  let lines = 0;
  let bytes = 0;
  const store = async (ready: ExportPart[]) => {
    for (const part of ready) {
      lines += part.lineCount;
      await storePart(id, parts, part, { bytes, lines });
      parts += 1;
    }
  };
  try {
    if (body) {
      const reader = body.getReader();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          throw new AppError(
            "bad_request",
            `The body broke off after ${bytes.toLocaleString("en-US")} bytes; send the file again.`,
          );
        }
        if (chunk.done) break;
        bytes += chunk.value.byteLength;
        if (bytes > limitBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        await store(splitter.push(chunk.value));
      }
    }
    await store(splitter.end());
    if (!splitter.sawContent) {
      throw new AppError("validation_failed", "The export holds no lines; send the file GET /api/export wrote.", [
        { path: "body", message: "holds no lines" },
      ]);
    }
    const state = emptyState();
    const builder = new RestoreReportBuilder(state.report);
    for (const long of splitter.oversizeLines) builder.add(entryOfLine(oversizeLine(long.line, long.bytes), undefined));
    lines = splitter.linesSeen;
    await db().restoreJob.update({
      where: { id },
      data: {
        status: "queued",
        bytesReceived: bytes,
        linesReceived: lines,
        stateJson: JSON.stringify({ ...state, report: builder.toState() }),
        leaseHolder: null,
        leaseUntil: null,
        updatedAt: new Date(),
      },
    });
  } catch (error) {
    await db()
      .restoreJob.deleteMany({ where: { id } })
      .catch(() => undefined);
    throw error;
  }
  return id;
}

// ---------------------------------------------------------------------------------------------------------
// Working on jobs

/**
 * Work on every job that is waiting or whose holder is gone, one at a time, until none is left. Concurrent calls
 * share one pass; a call during a pass makes it look again before it ends.
 */
export function runRestoreJobs(): Promise<void> {
  worker.wanted = true;
  worker.running ??= (async () => {
    try {
      for (;;) {
        worker.wanted = false;
        const id = await claimNextJob();
        if (id) await workOn(id);
        else if (!worker.wanted) return;
      }
    } catch (error) {
      // The database is away: the next sweep tries again. Said once, not every sweep.
      const text = error instanceof Error ? error.message : String(error);
      if (text !== worker.lastSweepError) console.error(`[servebench] restore jobs: ${text.split("\n")[0]}`);
      worker.lastSweepError = text;
      setTimeout(() => void runRestoreJobs(), RETRY_DELAY_MS).unref();
    } finally {
      worker.running = null;
    }
  })();
  return worker.running;
}

/** At the server's start: resume what a stopped process left, and look again every LEASE_MS for others'. */
export function startRestoreJobSweeps(): void {
  if (worker.sweeping) return;
  setTimeout(() => void runRestoreJobs(), 0).unref();
  worker.sweeping = setInterval(() => void runRestoreJobs(), LEASE_MS);
  worker.sweeping.unref();
}

/** Whether the process that holds a lease is known to be gone: it ran on this machine and is not running. */
function holderGone(holder: string): boolean {
  if (holder === HOLDER) return false;
  const [host, pidText] = holder.split("|");
  if (host !== os.hostname()) return false;
  const pid = Number(pidText);
  // This very process id with another nonce: the process before a restart that reused the id.
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === "ESRCH";
  }
}

function lapsed(job: { leaseHolder: string | null; leaseUntil: Date | null }, now: Date): boolean {
  if (job.leaseHolder === null || job.leaseUntil === null) return true;
  return job.leaseUntil < now || holderGone(job.leaseHolder);
}

async function claimNextJob(): Promise<string | null> {
  const candidates = await db().restoreJob.findMany({
    where: { status: { in: ["receiving", "queued", "running"] } },
    orderBy: { createdAt: "asc" },
    select: { id: true, status: true, leaseHolder: true, leaseUntil: true },
    take: 50,
  });
  const now = new Date();
  for (const job of candidates) {
    if (job.status !== "queued" && !lapsed(job, now)) continue;
    if (job.status === "receiving") {
      // Its process stopped while the body was arriving: the rest of the file is gone.
      const stopped = await db().restoreJob.updateMany({
        where: { id: job.id, status: "receiving", leaseHolder: job.leaseHolder },
        data: {
          status: "failed",
          error: JSON.stringify({
            code: "bad_request",
            message: "The server stopped while the export was arriving; post the file again (nothing is stored twice).",
          }),
          finishedAt: now,
          updatedAt: now,
          leaseHolder: null,
          leaseUntil: null,
        },
      });
      if (stopped.count === 1) await deleteParts(job.id);
      continue;
    }
    const claimed = await db().restoreJob.updateMany({
      where: { id: job.id, status: job.status, leaseHolder: job.leaseHolder },
      data: { status: "running", leaseHolder: HOLDER, leaseUntil: leaseUntil(), updatedAt: now },
    });
    if (claimed.count === 1) return job.id;
  }
  return null;
}

/** Save a step's progress and renew the lease, unless another process has taken the job over. */
async function saveProgress(
  id: string,
  data: Parameters<ReturnType<typeof db>["restoreJob"]["updateMany"]>[0]["data"],
) {
  const saved = await db().restoreJob.updateMany({
    where: { id, leaseHolder: HOLDER, status: "running" },
    data: { ...data, leaseUntil: leaseUntil(), updatedAt: new Date() },
  });
  if (saved.count === 0) throw new LeaseLost();
  await letOthersGo();
}

/**
 * A turn of the event loop for whatever else waits (another request, /api/health). On SQLite every query is
 * answered on this thread and its promise settles at once, so a loop of queries never lets anything else in
 * unless it says so.
 */
function letOthersGo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Parts deleted per statement: each is ~1 MB of the database's pages to free, on SQLite on the server's thread. */
const PARTS_PER_DELETE = 4;

/**
 * Delete a job's parts a few at a time with the event loop let go in between: the 2,000 parts of a 2 GB export
 * deleted in one statement held /api/health for 5 s.
 */
async function deleteParts(jobId: string): Promise<void> {
  for (;;) {
    const parts = await db().restoreJobPart.findMany({
      where: { jobId },
      select: { index: true },
      orderBy: { index: "asc" },
      take: PARTS_PER_DELETE,
    });
    if (parts.length === 0) return;
    await db().restoreJobPart.deleteMany({ where: { jobId, index: { in: parts.map((part) => part.index) } } });
    await letOthersGo();
  }
}

async function workOn(id: string): Promise<void> {
  for (;;) {
    const job = await db().restoreJob.findUnique({ where: { id } });
    if (job?.status !== "running" || job.leaseHolder !== HOLDER) return;
    try {
      if (job.phase === "series") await createSeries(job);
      else if (job.phase === "lines") await storeNextPart(job);
      else {
        await finish(job);
        return;
      }
    } catch (error) {
      if (error instanceof LeaseLost) return;
      await stepFailed(job, error);
      return;
    }
  }
}

/**
 * Store a part as it arrives, with the job's count of what arrived. On SQLite straight on the connection: through
 * Prisma's engine a 1 MB part cost 40–90 ms of the server's thread (its bytes are converted on the way), which
 * made receiving an export slower than storing its runs.
 */
async function storePart(
  jobId: string,
  index: number,
  part: ExportPart,
  received: { bytes: number; lines: number },
): Promise<void> {
  const now = new Date();
  const written = await sqliteWrite((connection) => {
    prepared(
      connection,
      `INSERT INTO "RestoreJobPart" ("jobId", "index", "firstLine", "lineCount", "bytes") VALUES (?, ?, ?, ?, ?)`,
    ).run(
      jobId,
      index,
      part.firstLine,
      part.lineCount,
      Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.byteLength),
    );
    prepared(
      connection,
      `UPDATE "RestoreJob" SET "partsReceived" = ?, "bytesReceived" = ?, "linesReceived" = ?, "leaseUntil" = ?, "updatedAt" = ? WHERE "id" = ?`,
    ).run(index + 1, received.bytes, received.lines, sqliteValue(leaseUntil(now.getTime())), sqliteValue(now), jobId);
  });
  if (written) return;
  await db().$transaction([
    db().restoreJobPart.create({
      data: { jobId, index, firstLine: part.firstLine, lineCount: part.lineCount, bytes: part.bytes },
    }),
    db().restoreJob.update({
      where: { id: jobId },
      data: {
        partsReceived: index + 1,
        bytesReceived: received.bytes,
        linesReceived: received.lines,
        leaseUntil: leaseUntil(now.getTime()),
        updatedAt: now,
      },
    }),
  ]);
}

async function readPart(
  jobId: string,
  index: number,
): Promise<{ firstLine: number; lineCount: number; bytes: Uint8Array<ArrayBuffer> }> {
  // The connection answers integers as BigInt (Prisma's adapter opens it so).
  const rows = await sqliteRead<{ firstLine: bigint; lineCount: bigint; bytes: Uint8Array }>(
    `SELECT "firstLine", "lineCount", "bytes" FROM "RestoreJobPart" WHERE "jobId" = ? AND "index" = ?`,
    [jobId, index],
  );
  const part = rows
    ? rows[0] && { firstLine: Number(rows[0].firstLine), lineCount: Number(rows[0].lineCount), bytes: rows[0].bytes }
    : await db().restoreJobPart.findUnique({ where: { jobId_index: { jobId, index } } });
  if (!part) throw new Error(`restore job ${jobId} has no part ${index}`);
  return { firstLine: part.firstLine, lineCount: part.lineCount, bytes: new Uint8Array(part.bytes) };
}

/** A part's lines, read and validated in the upload worker (off the server's thread). */
/** A part's lines as the worker read them: those to store and the first refusals, the other refusals counted. */
interface PartLines {
  lines: RestoreLine[];
  counted: RefusalsCounted;
}
const NONE_COUNTED: RefusalsCounted = { run: 0, comparison: 0, series: 0, unknown: 0 };

async function linesOfPart(
  part: { firstLine: number; lineCount: number; bytes: Uint8Array<ArrayBuffer> },
  seriesOnly: boolean,
): Promise<PartLines> {
  let outcome: Awaited<ReturnType<typeof runUploadTask>>;
  try {
    outcome = await runUploadTask({ kind: "restore-part", firstLine: part.firstLine, seriesOnly, bytes: part.bytes });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    outcome = { ok: false, error: { code: error.code, message: error.message } };
  }
  if (outcome.ok && outcome.kind === "restore-part") return { lines: outcome.lines, counted: outcome.counted };
  if (outcome.ok) throw new Error(`upload worker answered ${outcome.kind} to a restore part`);
  if (!("error" in outcome)) throw outcomeError(outcome);
  // The worker could not read the part (its memory or time ran out): its lines are refused as one, said once.
  if (seriesOnly) return { lines: [], counted: NONE_COUNTED };
  const last = part.firstLine + Math.max(part.lineCount, 1) - 1;
  const lines: RestoreLine[] = [
    {
      line: part.firstLine,
      kind: "unknown",
      error: {
        code: outcome.error.code,
        message: `Lines ${part.firstLine}–${last} could not be read: ${outcome.error.message}`,
      },
    },
  ];
  return { lines, counted: NONE_COUNTED };
}

function seriesOf(lines: readonly RestoreLine[]): SeriesToRestore[] {
  return lines.flatMap((line) =>
    line.kind === "series" && "series" in line ? [{ line: line.line, series: line.series }] : [],
  );
}

async function createSeries(job: JobRow): Promise<void> {
  const entries: SeriesToRestore[] = [];
  for (let index = 0; index < job.partsReceived; index += 1) {
    const part = await readPart(job.id, index);
    // Most parts hold runs only: found at a glance (a search of 1 MB, well under a millisecond), not read.
    if (mayHoldSeries(part.bytes)) entries.push(...seriesOf((await linesOfPart(part, true)).lines));
    // On SQLite a query answers without a turn of the event loop: 2,000 parts read in a row held /api/health 6 s.
    await letOthersGo();
    if (index % 20 === 19) await saveProgress(job.id, {});
  }
  const created = await createRestoredSeries(entries);
  const series: SeriesState = { entries, created };
  await saveProgress(job.id, {
    seriesJson: JSON.stringify(series),
    phase: job.partsReceived > 0 ? "lines" : "finish",
    nextPart: 0,
  });
}

/** A part read and validated ahead, while the one before it is stored. */
interface ReadAhead {
  jobId: string;
  index: number;
  read: Promise<{ part: Awaited<ReturnType<typeof readPart>> } & PartLines>;
}
const readAheadHolder = globalThis as unknown as { servebenchRestoreReadAhead?: ReadAhead | null };

function readAndValidate(jobId: string, index: number): ReadAhead["read"] {
  return readPart(jobId, index).then(async (part) => ({ part, ...(await linesOfPart(part, false)) }));
}

/**
 * A part's lines: read ahead while the part before was stored (the upload worker validates one part while this
 * thread stores the other: each took about half of a part's time), or read now. The next part is set going.
 */
async function partLines(job: JobRow): ReturnType<typeof readAndValidate> {
  const ahead = readAheadHolder.servebenchRestoreReadAhead;
  readAheadHolder.servebenchRestoreReadAhead = null;
  let read: ReadAhead["read"] | null = ahead?.jobId === job.id && ahead.index === job.nextPart ? ahead.read : null;
  if (!read) read = readAndValidate(job.id, job.nextPart);
  const next = job.nextPart + 1;
  if (next < job.partsReceived) {
    const nextRead = readAndValidate(job.id, next);
    // Awaited when its turn comes, or dropped (a job taken over, failed): never an unhandled rejection.
    nextRead.catch(() => undefined);
    readAheadHolder.servebenchRestoreReadAhead = { jobId: job.id, index: next, read: nextRead };
  }
  return read;
}

async function storeNextPart(job: JobRow): Promise<void> {
  const { part, lines, counted } = await partLines(job);
  const series = JSON.parse(job.seriesJson) as SeriesState;
  // A series line that did not name its format plainly (escaped characters) is found only now: created now, its
  // runs of earlier parts join it when it is.
  const known = new Set(series.entries.map((entry) => entry.line));
  const late = seriesOf(lines).filter((entry) => !known.has(entry.line));
  if (late.length > 0) {
    series.entries.push(...late);
    series.created.push(...(await createRestoredSeries(late)));
  }
  const runs = await restoreRuns(
    lines.flatMap((line): RunToRestore[] =>
      line.kind === "run" && "documentJson" in line
        ? [
            {
              line: line.line,
              id: line.id,
              createdAt: line.createdAt ? new Date(line.createdAt) : undefined,
              documentJson: line.documentJson,
              hash: line.hash,
              identity: line.identity,
            },
          ]
        : [],
    ),
  );
  const comparisons = await restoreComparisons(
    lines.flatMap((line): ComparisonToRestore[] =>
      line.kind === "comparison" && "comparison" in line ? [{ line: line.line, comparison: line.comparison }] : [],
    ),
  );
  const state = JSON.parse(job.stateJson) as JobState;
  const builder = new RestoreReportBuilder(state.report);
  const outcomes = new Map<number, RestoreReportLine>();
  for (const run of runs) outcomes.set(run.line, runEntry(run));
  for (const saved of comparisons) outcomes.set(saved.line, comparisonEntry(saved));
  for (const line of lines) {
    // A series' entry is added when the job finishes, with what became of its alerts and annotations.
    if (line.kind === "series" && "series" in line) continue;
    builder.add(entryOfLine(line, outcomes.get(line.line)));
  }
  builder.addCounted(counted);
  const joined = new Set(state.joined);
  for (const seriesId of await seriesJoinedBy(runs.flatMap((run) => (run.status === "stored" ? [run.id] : [])))) {
    joined.add(seriesId);
  }
  const nextPart = job.nextPart + 1;
  await saveProgress(job.id, {
    stateJson: JSON.stringify({ report: builder.toState(), joined: [...joined], attempts: 0 } satisfies JobState),
    ...(late.length > 0 ? { seriesJson: JSON.stringify(series) } : {}),
    nextPart,
    linesDone: part.firstLine + part.lineCount - 1,
    phase: nextPart >= job.partsReceived ? "finish" : "lines",
  });
  // Stored and saved: the part is not read again (a resumed job starts at nextPart), so it goes now, one at a time.
  await db().restoreJobPart.deleteMany({ where: { jobId: job.id, index: job.nextPart } });
}

async function finish(job: JobRow): Promise<void> {
  const series = JSON.parse(job.seriesJson) as SeriesState;
  const state = JSON.parse(job.stateJson) as JobState;
  // Judging thousands of series takes minutes: the lease is renewed every few seconds on the way, so no other
  // process takes the job over (a write after each series cost as much as judging a small one), and other
  // requests get a turn after each series.
  let renewedAt = Date.now();
  const afterEachSeries = async () => {
    if (Date.now() - renewedAt < LEASE_RENEW_MS) return letOthersGo();
    renewedAt = Date.now();
    await saveProgress(job.id, {});
  };
  await applyRestoredSeriesState(series.entries, series.created, state.joined, afterEachSeries);
  const builder = new RestoreReportBuilder(state.report);
  for (const restored of series.created) builder.add(seriesEntry(restored));
  const now = new Date();
  const done = await db().restoreJob.updateMany({
    where: { id: job.id, leaseHolder: HOLDER, status: "running" },
    data: {
      status: "done",
      stateJson: JSON.stringify({ report: builder.toState(), joined: [], attempts: 0 } satisfies JobState),
      seriesJson: "[]",
      linesDone: job.linesReceived,
      finishedAt: now,
      updatedAt: now,
      leaseHolder: null,
      leaseUntil: null,
    },
  });
  if (done.count === 1) await deleteParts(job.id);
}

/** A passing problem (a busy, full or read-only database) is tried again later; anything else ends the job. */
async function stepFailed(job: JobRow, error: unknown): Promise<void> {
  const answer = publicError(error);
  const state = JSON.parse(job.stateJson) as JobState;
  const attempts = (state.attempts ?? 0) + 1;
  const passing = ["database_busy", "database_unavailable", "disk_full", "database_read_only"].includes(answer.code);
  if (answer.code === "internal_error") console.error(`[servebench] restore job ${job.id}:`, error);
  else console.warn(`[servebench] restore job ${job.id}: ${answer.code}: ${answer.message}`);
  const now = new Date();
  if (passing && attempts < MAX_ATTEMPTS) {
    await db().restoreJob.updateMany({
      where: { id: job.id, leaseHolder: HOLDER },
      data: {
        status: "queued",
        stateJson: JSON.stringify({ ...state, attempts }),
        leaseHolder: null,
        leaseUntil: null,
        updatedAt: now,
      },
    });
    setTimeout(() => void runRestoreJobs(), RETRY_DELAY_MS * attempts).unref();
    return;
  }
  const failed = await db().restoreJob.updateMany({
    where: { id: job.id, leaseHolder: HOLDER },
    data: {
      status: "failed",
      error: JSON.stringify({ code: answer.code, message: answer.message }),
      finishedAt: now,
      updatedAt: now,
      leaseHolder: null,
      leaseUntil: null,
    },
  });
  if (failed.count === 1) await deleteParts(job.id);
}

// ---------------------------------------------------------------------------------------------------------
// Reading jobs

function viewOf(job: JobRow): RestoreJobView {
  const state = JSON.parse(job.stateJson) as JobState;
  const builder = new RestoreReportBuilder(state.report);
  const status = job.status as RestoreJobStatus;
  const partsDone = job.phase === "series" ? 0 : job.phase === "lines" ? job.nextPart : job.partsReceived;
  return {
    id: job.id,
    status,
    phase: job.phase as RestoreJobPhase,
    url: restoreJobUrl(job.id),
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
    received: { bytes: job.bytesReceived, lines: job.linesReceived, parts: job.partsReceived },
    progress: { parts_done: partsDone, parts_total: job.partsReceived, lines_done: job.linesDone },
    counts: builder.counts(),
    ...(status === "done" ? { report: builder.report() } : {}),
    ...(status === "failed" && job.error ? { error: JSON.parse(job.error) as { code: string; message: string } } : {}),
  };
}

export async function readRestoreJob(id: string): Promise<RestoreJobView | null> {
  const job = await db().restoreJob.findUnique({ where: { id } });
  return job ? viewOf(job) : null;
}

/** The latest jobs, newest first, without their reports. */
export async function listRestoreJobs(limit = 20): Promise<RestoreJobView[]> {
  const jobs = await db().restoreJob.findMany({ orderBy: { createdAt: "desc" }, take: limit });
  return jobs.map((job) => {
    const { report: _report, ...view } = viewOf(job);
    return view;
  });
}

/**
 * Wait until the job is done or failed, or `waitMs` has passed (whichever process works on it): the job as it
 * is then. Polls the database, gently: another instance may be the one working on it.
 */
export async function waitForRestoreJob(id: string, waitMs: number): Promise<RestoreJobView | null> {
  const deadline = Date.now() + waitMs;
  let pauseMs = 20;
  for (;;) {
    const job = await readRestoreJob(id);
    if (!job || job.status === "done" || job.status === "failed") return job;
    const left = deadline - Date.now();
    if (left <= 0) return job;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, left)));
    pauseMs = Math.min(500, pauseMs * 2);
  }
}
