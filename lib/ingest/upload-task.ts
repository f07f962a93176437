/**
 * The part of an upload that costs CPU and memory in proportion to what was sent: unzipping, decoding,
 * parsing, planning and validating. It runs in a worker thread (lib/ingest/upload-pool.ts), so however long a
 * hostile or huge body takes, the server's event loop keeps answering every other request. Input and output
 * are plain data, copied between threads: the request's bytes (transferred, not copied) and either the preview
 * as JSON text, the runs to store, or the error to answer with.
 */
import { AppError, type ErrorCode, type ErrorIssue } from "@/lib/errors";
import type { RunToStore } from "@/lib/runs/store";
import { documentsToStore, prepareUploadRequest, uploadRequestFromBytes } from "./ingest";
import { previewOf } from "./preview";
import { type RefusalsCounted, type RestoreLine, readRestoreLines, withRefusalsBounded } from "./restore-lines";

export type UploadTask =
  | {
      /** preview: what POST /api/runs?dry_run=1 answers; store: the runs POST /api/runs stores. */
      kind: "preview" | "store";
      url: string;
      contentType: string;
      bytes: Uint8Array<ArrayBuffer>;
    }
  | {
      /** restore-part: the lines of a part of an export, each validated on its own (POST /api/restore). */
      kind: "restore-part";
      firstLine: number;
      seriesOnly: boolean;
      bytes: Uint8Array<ArrayBuffer>;
    };

export interface TaskError {
  code: ErrorCode;
  message: string;
  issues?: ErrorIssue[];
}

export type UploadOutcome =
  | { ok: true; kind: "preview"; json: string }
  | { ok: true; kind: "store"; runs: RunToStore[] }
  | { ok: true; kind: "restore-part"; lines: RestoreLine[]; counted: RefusalsCounted }
  | { ok: false; error: TaskError }
  /** Anything but an AppError: a bug. Its text goes to the server log only. */
  | { ok: false; crash: string };

export async function performUploadTask(task: UploadTask): Promise<UploadOutcome> {
  try {
    if (task.kind === "restore-part") {
      const read = readRestoreLines(task.bytes, { firstLine: task.firstLine, seriesOnly: task.seriesOnly });
      return { ok: true, kind: "restore-part", ...withRefusalsBounded(read) };
    }
    // The body's bytes as they came: the files are views into them, nothing is copied.
    const prepared = prepareUploadRequest(uploadRequestFromBytes(new URL(task.url), task.contentType, task.bytes), {
      preview: task.kind === "preview",
    });
    if (task.kind === "preview") return { ok: true, kind: "preview", json: JSON.stringify(previewOf(prepared)) };
    return { ok: true, kind: "store", runs: documentsToStore(prepared) };
  } catch (error) {
    if (error instanceof AppError) {
      return {
        ok: false,
        error: { code: error.code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) },
      };
    }
    return { ok: false, crash: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
