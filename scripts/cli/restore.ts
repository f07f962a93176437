/**
 * `servebench restore FILE --url URL`: an export (GET /api/export) restored into a servebench, with progress. The
 * file is the body of POST /api/restore, read a piece at a time as it is sent (never held whole: an export can be
 * gigabytes), with `Prefer: respond-async`; the job the server answers with is then followed until it is done or
 * failed (docs/api.md, "Restore jobs"). `--job ID` follows a job already on the server instead.
 *
 * After any interruption (Ctrl-C, a killed command, a network cut, a stopped server) the same command finishes
 * the restore: the server reports what it stored before as already present and stores nothing twice. A job the
 * server has whole goes on without the command; its id is printed as soon as it is known, with the command that
 * follows it again.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  count,
  formatBytes,
  formatDuration,
  type JobView,
  jobLine,
  ProgressPrinter,
  RateWindow,
  reportCounts,
  runsHandled,
  sendingLine,
  summaryLines,
} from "./restore-progress";
import {
  requestServer,
  ServerRequestError,
  TimeoutOptionError,
  timeoutMsFrom,
  UPLOAD_ANSWER_MAX_BYTES,
  UPLOAD_TIMEOUT_MS,
} from "./server-request";
import { terminalSafe, terminalSafeJson } from "./server-text";

export const RESTORE_USAGE = `servebench restore FILE --url URL [options]
servebench restore --job ID --url URL [options]

  FILE                  an export (what GET /api/export wrote), sent as it is read; progress on stderr, then a
                        summary: runs stored, already present and refused, comparisons, series, unreadable lines
  --url URL             the servebench to restore into (default: $SERVEBENCH_URL; one of them is needed)
  --token TOKEN         write token, sent as Authorization: Bearer TOKEN (default: $SERVEBENCH_TOKEN); needed
                        when the server sets SERVEBENCH_WRITE_TOKEN
  --job ID              follow a restore job already on the server to its end instead of sending a file: the
                        job a stopped restore named (the server goes on with a file it has whole)
  --json                print the restore's report as JSON on stdout (the summary goes to stderr)
  --timeout SECONDS     how long the server may take none of the file, or leave a request about the job
                        unanswered, before the command gives up (default: 120)

  Interrupted (Ctrl-C, killed, a network cut, a server stopped), the same command run again finishes the
  restore: lines stored before are reported already present, and nothing is stored twice. Exits 0 when every
  line is restored or already there; 1 when the server refused the file or some of its lines, could not be
  reached or the job failed; 2 on bad usage; 130 after Ctrl-C.`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  job: { type: "string" },
  json: { type: "boolean" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const EXIT_INTERRUPTED = 130;
/** How often the job is asked after (its `Retry-After` says 2 s; once a second keeps the line live, and is cheap). */
const POLL_MS = 1_000;
/** The file is read and sent in pieces of this size. */
const CHUNK_BYTES = 256 * 1024;
/** No limit on the upload as a whole (a 2 GB export over a slow link takes its time): its stalls are limited. */
const NO_OVERALL_LIMIT_MS = 2 ** 31 - 1;
/** The refused and unreadable lines the summary names; the report (--json) has them all, up to 1,000. */
const MAX_LISTED_PROBLEMS = 20;
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The restore came to nothing or stopped; the message is printed after "servebench restore: ". */
class RestoreFailed extends Error {}

function printError(line: string): void {
  process.stderr.write(`${terminalSafe(line)}\n`);
}

function usageError(message: string): number {
  printError(`servebench restore: ${message}`);
  process.stderr.write(`\n${RESTORE_USAGE}\n`);
  return 2;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A word as a shell reads it back: quoted when it holds anything but plain characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that follows job `id` again. */
export function followCommand(id: string, base: string): string {
  return `servebench restore --job ${shellWord(id)} --url ${shellWord(base)}`;
}

interface Server {
  base: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

interface ExportFile {
  path: string;
  name: string;
  handle: fs.promises.FileHandle;
  /** Its size when it is a regular file; null for a pipe (`<(zcat backup.jsonl.gz)`), sent until it ends. */
  size: number | null;
}

/** The file opened for reading, or why it cannot be (a usage error: exit 2). */
async function openExport(file: string): Promise<ExportFile | string> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return `no such file: ${file}`;
    if (code === "EACCES" || code === "EPERM") return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    return `${file} is a folder: name the export file (what GET /api/export wrote)`;
  }
  return { path: file, name: path.basename(file), handle, size: stat.isFile() ? stat.size : null };
}

/**
 * The file as a request body, read a piece at a time as the connection takes it (nothing is read ahead of what
 * is sent). `onRead` hears of every piece; a read that fails is kept in `failure` and ends the body.
 */
function bodyOf(
  file: ExportFile,
  onRead: (bytes: number, ended: boolean) => void,
  failure: { error?: RestoreFailed },
): ReadableStream<Uint8Array> {
  let sent = 0;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    onRead(sent, true);
    controller.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const want = file.size === null ? CHUNK_BYTES : Math.min(CHUNK_BYTES, file.size - sent);
        if (want <= 0) return end(controller);
        const buffer = Buffer.alloc(want);
        let bytesRead: number;
        try {
          ({ bytesRead } = await file.handle.read(buffer, 0, want, file.size === null ? null : sent));
        } catch (error) {
          failure.error = new RestoreFailed(
            `cannot read ${file.path} at byte ${sent}: ${error instanceof Error ? error.message : String(error)}`,
          );
          controller.error(failure.error);
          return;
        }
        if (bytesRead === 0) {
          if (file.size === null) return end(controller);
          failure.error = new RestoreFailed(
            `${file.path} ended at byte ${sent} of ${file.size}: did it change while it was sent?`,
          );
          controller.error(failure.error);
          return;
        }
        sent += bytesRead;
        onRead(sent, false);
        controller.enqueue(buffer.subarray(0, bytesRead));
      },
    },
    { highWaterMark: 0 },
  );
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; issues?: unknown };
}

/** The start of a long text, for a message: a server's answer may be megabytes. */
function excerpt(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** An error answer (or what the server sent instead) as "(413 payload_too_large): The export is larger…". */
function errorOf(status: number, body: unknown, text: string): string {
  const error = (body as ErrorBody | null)?.error;
  const code = typeof error?.code === "string" ? error.code : "error";
  const message = typeof error?.message === "string" ? error.message : excerpt(text);
  const issues = Array.isArray(error?.issues) ? (error.issues as { path?: unknown; message?: unknown }[]) : [];
  const more = issues
    .filter((issue) => typeof issue?.message === "string" && !message.includes(issue.message))
    .map((issue) => `\n  ${typeof issue.path === "string" && issue.path ? issue.path : "(document)"}: ${issue.message}`)
    .join("");
  return `(${status} ${code}): ${message}${more}`;
}

function isJob(body: unknown): body is JobView & { id: string; status: string } {
  const job = body as JobView | null;
  return typeof job?.id === "string" && typeof job.status === "string";
}

function isReport(body: unknown): boolean {
  const report = body as { runs?: unknown; lines?: unknown } | null;
  return typeof report?.runs === "object" && report.runs !== null && Array.isArray(report.lines);
}

/**
 * POST the file: the job the server answers with (202), or the report when it answered with the restore done
 * (200, a server that waited for it).
 */
async function send(
  file: ExportFile,
  server: Server,
  progress: ProgressPrinter,
): Promise<{ job: JobView & { id: string; status: string } } | { report: unknown }> {
  const stop = new AbortController();
  let lastActivity = Date.now();
  let sent = 0;
  let ended = false;
  const rate = new RateWindow(10_000);
  const show = (force = false) =>
    progress.show(
      "sending",
      ended
        ? `sent ${file.name}: ${formatBytes(sent)}; waiting for the server to store it`
        : sendingLine(file.name, sent, file.size, rate.perSecond()),
      force,
    );
  const failure: { error?: RestoreFailed } = {};
  const body = bodyOf(
    file,
    (bytes, done) => {
      sent = bytes;
      lastActivity = Date.now();
      rate.add(lastActivity, bytes);
      ended = done;
      show(done);
    },
    failure,
  );
  show(true);
  // Stalls, not the whole upload, have a limit: a server that takes none of the file, or does not answer once it
  // has it all, for --timeout.
  const watchdog = setInterval(() => {
    const idle = Date.now() - lastActivity;
    if (idle > server.timeoutMs) {
      stop.abort(
        new ServerRequestError(
          ended
            ? `no answer from ${server.base} within ${seconds(server.timeoutMs)} of the file's end; if the server is only slow, give it longer with --timeout SECONDS`
            : `${server.base} took none of the file for ${seconds(server.timeoutMs)}; if the server is only slow, give it longer with --timeout SECONDS`,
        ),
      );
    } else show();
  }, 1_000);
  const headers: Record<string, string> = {
    ...server.headers,
    "content-type": "application/x-ndjson",
    prefer: "respond-async",
  };
  // Declared, so that a file over the server's limit is refused from the headers, before any of it is sent.
  if (file.size !== null) headers["content-length"] = String(file.size);
  let answer: Awaited<ReturnType<typeof requestServer>>;
  try {
    answer = await requestServer(
      `${server.base}/api/restore`,
      { method: "POST", headers, body, duplex: "half" } as RequestInit,
      {
        base: server.base,
        timeoutMs: NO_OVERALL_LIMIT_MS,
        timeoutOption: "--timeout",
        maxAnswerBytes: UPLOAD_ANSWER_MAX_BYTES,
        signal: stop.signal,
      },
    );
  } catch (error) {
    if (failure.error) throw failure.error;
    if (error instanceof ServerRequestError) {
      throw new RestoreFailed(
        `${error.message}\nNothing is lost: run the same command again to restore the file (nothing is stored twice).`,
      );
    }
    throw error;
  } finally {
    clearInterval(watchdog);
  }
  let answerBody: unknown;
  try {
    answerBody = JSON.parse(answer.text) as unknown;
  } catch {
    throw new RestoreFailed(`${server.base} answered ${answer.status} with something that is not servebench's JSON`);
  }
  if (!answer.ok) throw new RestoreFailed(`refused ${errorOf(answer.status, answerBody, answer.text)}`);
  if (isJob(answerBody)) return { job: answerBody };
  if (isReport(answerBody)) return { report: answerBody };
  throw new RestoreFailed(`${server.base} answered ${answer.status} with something that is not servebench's JSON`);
}

/**
 * The job as the server has it now, or why it could not be read this time: a network error, a server error (5xx,
 * a proxy's page while the server restarts) is passing; a refusal (404: no such job) is not.
 */
async function readJob(server: Server, id: string): Promise<{ job: JobView } | { passing: string }> {
  let answer: Awaited<ReturnType<typeof requestServer>>;
  try {
    answer = await requestServer(
      `${server.base}/api/restore/jobs/${encodeURIComponent(id)}`,
      { headers: server.headers },
      {
        base: server.base,
        timeoutMs: server.timeoutMs,
        timeoutOption: "--timeout",
        maxAnswerBytes: UPLOAD_ANSWER_MAX_BYTES,
      },
    );
  } catch (error) {
    if (error instanceof ServerRequestError) return { passing: error.message };
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text) as unknown;
  } catch {
    return { passing: `${server.base} answered ${answer.status} with something that is not servebench's JSON` };
  }
  if (answer.status >= 500) return { passing: `${server.base} answered ${errorOf(answer.status, body, answer.text)}` };
  if (!answer.ok) throw new RestoreFailed(`restore job ${id} ${errorOf(answer.status, body, answer.text)}`);
  if (!isJob(body)) {
    return { passing: `${server.base} answered ${answer.status} with something that is not a restore job` };
  }
  return { job: body };
}

/** Follow the job until it is done or failed, showing its progress: the job as it ended. */
async function follow(server: Server, id: string, first: JobView | null, progress: ProgressPrinter): Promise<JobView> {
  const lines = new RateWindow();
  const runs = new RateWindow();
  /** Whether the job has ended; else its progress is shown. */
  const ended = (job: JobView): boolean => {
    const at = Date.now();
    lines.add(at, count(job.progress?.lines_done));
    runs.add(at, runsHandled(job));
    if (job.status === "done" || job.status === "failed") return true;
    progress.show(
      job.status === "running" ? `running ${String(job.phase)}` : String(job.status),
      jobLine(job, lines, runs),
    );
    return false;
  };
  if (first && ended(first)) return first;
  let lastAnswerAt = Date.now();
  for (let asked = 0; ; asked += 1) {
    if (first || asked > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const read = await readJob(server, id);
    if ("passing" in read) {
      if (Date.now() - lastAnswerAt > server.timeoutMs) {
        throw new RestoreFailed(
          `${read.passing}\nNo answer about job ${id} for ${seconds(server.timeoutMs)}; the server goes on with it if it is running. Follow it to its end with:\n  ${followCommand(id, server.base)}`,
        );
      }
      progress.show("unreachable", `${read.passing}; asking again`);
      continue;
    }
    lastAnswerAt = Date.now();
    if (ended(read.job)) return read.job;
  }
}

/** The refused and unreadable lines of a report, as the summary names them. */
function problemLines(report: unknown): string[] {
  const entries = (report as { lines?: unknown } | null)?.lines;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown) => {
    const line = entry as {
      line?: unknown;
      kind?: unknown;
      id?: unknown;
      status?: unknown;
      error?: { code?: unknown; message?: unknown };
    } | null;
    if (line?.status !== "refused") return [];
    const what = line.kind === "unknown" ? "unreadable" : `${String(line.kind)}${line.id ? ` ${String(line.id)}` : ""}`;
    return [
      `  line ${String(line.line)} (${what}): ${String(line.error?.code ?? "refused")}: ${String(line.error?.message ?? "")}`,
    ];
  });
}

/** Milliseconds between two of the server's timestamps, or null when they are not timestamps in order. */
function serverSpan(from: unknown, to: unknown): number | null {
  if (typeof from !== "string" || typeof to !== "string") return null;
  const span = Date.parse(to) - Date.parse(from);
  return Number.isFinite(span) && span >= 0 ? span : null;
}

export async function runRestore(argv: string[]): Promise<number> {
  const startedAt = Date.now();
  let values: { url?: string; token?: string; job?: string; json?: boolean; timeout?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    process.stdout.write(`${RESTORE_USAGE}\n`);
    return 0;
  }
  const jobId = values.job;
  if (jobId !== undefined) {
    if (positionals.length > 0) return usageError("--job ID follows a job already on the server: give no FILE with it");
    if (!JOB_ID.test(jobId))
      return usageError(`--job takes a restore job's id (letters, digits, - and _), not "${jobId}"`);
  } else if (positionals.length !== 1) {
    return usageError(
      positionals.length === 0
        ? "name the export file to restore (what GET /api/export wrote), or --job ID to follow a restore job"
        : `name one export file (given: ${positionals.length})`,
    );
  }
  const url = values.url ?? process.env.SERVEBENCH_URL;
  if (!url) return usageError("name the servebench to restore into with --url URL (or $SERVEBENCH_URL)");
  let timeoutMs: number;
  try {
    timeoutMs = timeoutMsFrom("--timeout", values.timeout, UPLOAD_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof TimeoutOptionError) return usageError(error.message);
    throw error;
  }
  let file: ExportFile | null = null;
  if (jobId === undefined) {
    const opened = await openExport(positionals[0]!);
    if (typeof opened === "string") {
      printError(`servebench restore: ${opened}`);
      return 2;
    }
    file = opened;
  }

  const base = url.replace(/(?<!\/)\/+$/, "");
  const token = values.token ?? process.env.SERVEBENCH_TOKEN;
  const server: Server = { base, headers: token ? { authorization: `Bearer ${token}` } : {}, timeoutMs };
  const progress = new ProgressPrinter(process.stderr);
  let id = jobId ?? null;
  const onSigint = () => {
    progress.clear();
    printError(
      id !== null
        ? `servebench restore: interrupted; the server goes on with job ${id}. Follow it to its end with:\n  ${followCommand(id, base)}`
        : `servebench restore: interrupted while sending ${file?.path ?? "the file"}; run the same command again to restore it (what the server stored before is reported already present: nothing is stored twice)`,
    );
    process.exit(EXIT_INTERRUPTED);
  };
  process.on("SIGINT", onSigint);
  let report: unknown;
  let job: JobView | null = null;
  try {
    if (file) {
      const answer = await send(file, server, progress);
      if ("report" in answer) report = answer.report;
      else {
        id = answer.job.id;
        job = answer.job;
        progress.note(
          `servebench restore: the server has the file as job ${id}; if this command stops, the job goes on: follow it with ${followCommand(id, base)}`,
        );
      }
    }
    if (report === undefined && id !== null) {
      job = await follow(server, id, job, progress);
      progress.clear();
      if (job.status === "failed") {
        const code = typeof job.error?.code === "string" ? job.error.code : "error";
        const message = typeof job.error?.message === "string" ? job.error.message : "(no message)";
        throw new RestoreFailed(
          `restore job ${id} failed (${code}): ${message}\nWhat was stored stays: restore the file again (servebench restore FILE --url ${shellWord(base)}) to finish it; nothing is stored twice.`,
        );
      }
      report = job.report;
      if (!isReport(report)) {
        throw new RestoreFailed(`${base} says job ${id} is done, but its answer holds no report`);
      }
    }
  } catch (error) {
    progress.clear();
    if (error instanceof RestoreFailed) {
      printError(`servebench restore: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
    await file?.handle.close();
  }

  // The time the command took; a job followed with --job, the job's own time (as the server tells it).
  const elapsedMs =
    (jobId !== undefined ? serverSpan(job?.created_at, job?.finished_at) : null) ?? Date.now() - startedAt;
  const counts = reportCounts(report);
  const heading =
    jobId !== undefined
      ? `restore job ${jobId} on ${base}: done in ${formatDuration(elapsedMs)}`
      : `restored ${file?.path} into ${base} in ${formatDuration(elapsedMs)}${id ? ` (job ${id})` : ""}`;
  const summary = summaryLines(counts, heading, elapsedMs).map((line) => terminalSafe(line));
  if (values.json) {
    process.stdout.write(`${terminalSafeJson(report, 2)}\n`);
    process.stderr.write(`${summary.join("\n")}\n`);
  } else process.stdout.write(`${summary.join("\n")}\n`);

  const refused = counts.runs.refused + counts.comparisons.refused + counts.series.refused + counts.unreadable;
  if (refused === 0) return 0;
  const problems = problemLines(report);
  printError(
    `servebench restore: ${refused.toLocaleString("en-US")} line${refused === 1 ? " was" : "s were"} not restored${problems.length > 0 ? ":" : ""}`,
  );
  for (const line of problems.slice(0, MAX_LISTED_PROBLEMS)) printError(line);
  if (problems.length > MAX_LISTED_PROBLEMS) {
    printError(`  … and ${problems.length - MAX_LISTED_PROBLEMS} more in the report (--json)`);
  }
  return 1;
}
