/**
 * One worker thread that does the heavy part of uploads and restores (lib/ingest/upload-task.ts), one task at a
 * time in arrival order. The server's own thread only streams request bodies in and answers, so /api/health
 * and every page keep answering while a 100 MB body is parsed. The worker's heap is capped and each task has a
 * deadline: a task that would take the worker past either is stopped, the worker replaced, and the upload
 * answered 413, instead of the whole server freezing or running out of memory.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError } from "@/lib/errors";
import type { UploadOutcome, UploadTask } from "./upload-task";

/** The worker's JavaScript heap, in MB: what parsing one upload may use (limits in lib/formats keep it below). */
export const WORKER_HEAP_MB = 384;
/** How long one upload may take to read, plan and validate. A 100 MB vLLM file takes about 2 s. */
export const TASK_TIMEOUT_MS = 60_000;
/**
 * A worker whose heap a task left above this many MB is replaced once the task is answered: V8 keeps the heap a big
 * upload grew to (up to WORKER_HEAP_MB) long after, in the server's memory beside everything else; a new worker
 * starts at a few MB. Ordinary uploads stay far below it, so the worker is reused for them.
 */
export const WORKER_RECYCLE_HEAP_MB = 96;

interface Pending {
  id: number;
  task: UploadTask;
  resolve: (outcome: UploadOutcome) => void;
  reject: (error: unknown) => void;
}

let worker: Worker | null = null;
let running: Pending | null = null;
let deadline: NodeJS.Timeout | null = null;
let stopReason: AppError | null = null;
const queue: Pending[] = [];
let nextId = 1;

function spawnWorker(): Worker {
  const options = {
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 48 },
  };
  // Under Next the worker file is bundled (Turbopack bundles `new Worker(new URL(…, import.meta.url))`). Run
  // from source (tests, scripts), the TypeScript entry is loaded through tsx, as the scripts are.
  if (process.env.NEXT_RUNTIME) return new Worker(new URL("./upload-worker.ts", import.meta.url), options);
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), "upload-worker.ts");
  return new Worker(`require("tsx/cjs/api").register(); require(${JSON.stringify(entry)});`, {
    ...options,
    eval: true,
  });
}

function finish(settle: () => void): void {
  if (deadline) clearTimeout(deadline);
  deadline = null;
  running = null;
  stopReason = null;
  settle();
  startNext();
}

function workerFailed(failed: Worker, error: unknown): void {
  if (worker !== failed) return;
  worker = null;
  const pending = running;
  if (!pending) return;
  const code = (error as { code?: unknown } | null)?.code;
  const reason =
    stopReason ??
    (code === "ERR_WORKER_OUT_OF_MEMORY"
      ? new AppError(
          "payload_too_large",
          `Reading this upload needed more than ${WORKER_HEAP_MB} MB of memory; upload fewer or smaller files.`,
        )
      : null);
  finish(() => (reason ? pending.reject(reason) : pending.reject(error)));
}

let workersStarted = 0;

/** How many upload workers this process has started: the first, and one after each that failed or was replaced. */
export function uploadWorkersStarted(): number {
  return workersStarted;
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const started = spawnWorker();
  workersStarted += 1;
  started.unref();
  started.on("message", (message: { id: number; outcome: UploadOutcome; heapBytes?: number }) => {
    const pending = running;
    if (!pending || pending.id !== message.id) return;
    if ((message.heapBytes ?? 0) > WORKER_RECYCLE_HEAP_MB * 1024 * 1024 && worker === started) {
      // Forgotten first, so its exit is no failure of the next task; the next task starts a fresh worker.
      worker = null;
      void started.terminate();
    }
    finish(() => pending.resolve(message.outcome));
  });
  started.on("error", (error) => workerFailed(started, error));
  started.on("exit", (exitCode) => workerFailed(started, new Error(`the upload worker stopped (exit ${exitCode})`)));
  worker = started;
  return started;
}

function startNext(): void {
  if (running) return;
  const pending = queue.shift();
  if (!pending) return;
  running = pending;
  const current = ensureWorker();
  deadline = setTimeout(() => {
    stopReason = new AppError(
      "payload_too_large",
      `Reading this upload took more than ${TASK_TIMEOUT_MS / 1000} s; upload fewer or smaller files.`,
    );
    void current.terminate();
  }, TASK_TIMEOUT_MS);
  const transfer = pending.task.bytes.byteOffset === 0 && pending.task.bytes.buffer instanceof ArrayBuffer;
  current.postMessage(
    { id: pending.id, task: pending.task },
    transfer ? [pending.task.bytes.buffer as ArrayBuffer] : [],
  );
}

/** Run a task in the worker. Resolves with its outcome; rejects with a 413 AppError when it was stopped. */
export function runUploadTask(task: UploadTask): Promise<UploadOutcome> {
  return new Promise((resolve, reject) => {
    queue.push({ id: nextId++, task, resolve, reject });
    startNext();
  });
}

/** The outcome's error as the AppError to throw; a crash becomes a plain Error (a 500, details in the log). */
export function outcomeError(outcome: Extract<UploadOutcome, { ok: false }>): Error {
  if ("error" in outcome) return new AppError(outcome.error.code, outcome.error.message, outcome.error.issues);
  return new Error(`upload worker: ${outcome.crash}`);
}
