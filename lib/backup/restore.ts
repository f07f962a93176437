/**
 * A restore request (POST /api/restore): the export it carries, read as a stream and stored as a restore job
 * (lib/backup/restore-jobs.ts), and the job waited for as long as its `Prefer` header allows.
 */
import { maxBodyBytes, maxRestoreBytes } from "@/lib/env";
import { AppError, type ErrorCode, excerpt } from "@/lib/errors";
import { formatBytes, mediaTypeOf, readBodyWithLimit } from "@/lib/http/body";
import { type RestoreJobView, readRestoreJob, receiveExport, runRestoreJobs, waitForRestoreJob } from "./restore-jobs";

const RESTORE_MEDIA_TYPES = new Set([
  "application/x-ndjson",
  "application/jsonl",
  "application/json-lines",
  "application/x-jsonlines",
  "application/json",
  "application/octet-stream",
  "text/plain",
]);

/** How long the request waits for its job by default before answering 202 with the job to poll. */
export const DEFAULT_WAIT_S = 30;
/** The longest wait a client may ask for (`Prefer: wait=N`): proxies cut longer requests. */
export const MAX_WAIT_S = 120;

function tooLarge(limitBytes: number, variable: string): () => AppError {
  return () =>
    new AppError(
      "payload_too_large",
      `The export is larger than the limit of ${formatBytes(limitBytes)} (set ${variable} to change it, or restore it in parts: any split at line ends restores the same).`,
    );
}

/** The export as a stream: the raw body (stored as it arrives), or the `file` field of a multipart form. */
async function exportStream(
  request: Request,
): Promise<{ body: ReadableStream<Uint8Array> | null; limitBytes: number; tooLarge: () => AppError }> {
  const mediaType = mediaTypeOf(request);
  if (mediaType === "multipart/form-data") {
    // A form is read whole to find its field, so it keeps the upload limit; a raw body may be far larger.
    const limitBytes = maxBodyBytes();
    const bytes = await readBodyWithLimit(request, limitBytes);
    let form: FormData;
    try {
      form = await new Response(bytes, {
        headers: { "content-type": request.headers.get("content-type") ?? "" },
      }).formData();
    } catch {
      throw new AppError("bad_request", "The multipart body could not be read; check its boundary and encoding.");
    }
    const file = form.get("file");
    if (file === null || typeof file === "string") {
      throw new AppError("bad_request", "The multipart body has no `file` field; attach the export as `file`.", [
        { path: "file", message: "is required" },
      ]);
    }
    return { body: file.stream(), limitBytes, tooLarge: tooLarge(limitBytes, "SERVEBENCH_MAX_BODY_MB") };
  }
  if (!RESTORE_MEDIA_TYPES.has(mediaType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type ${mediaType ? `"${excerpt(mediaType, 100)}"` : "(none)"} is not supported; send the export as application/x-ndjson (or multipart/form-data with a \`file\` field).`,
    );
  }
  const limitBytes = maxRestoreBytes();
  const refusal = tooLarge(limitBytes, "SERVEBENCH_MAX_RESTORE_MB");
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw refusal();
  return { body: request.body, limitBytes, tooLarge: refusal };
}

/** RFC 7240 `Prefer`: `respond-async` (answer 202 at once) and `wait=N` (seconds to wait for the result). */
function preference(request: Request): { respondAsync: boolean; waitMs: number } {
  let respondAsync = false;
  let waitS = DEFAULT_WAIT_S;
  for (const token of (request.headers.get("prefer") ?? "").split(/[,;]/)) {
    const [name, value] = token
      .trim()
      .toLowerCase()
      .split("=", 2)
      .map((part) => part?.trim());
    if (name === "respond-async") respondAsync = true;
    if (name === "wait" && value !== undefined && /^\d{1,6}$/.test(value)) waitS = Math.min(Number(value), MAX_WAIT_S);
  }
  return { respondAsync, waitMs: waitS * 1000 };
}

/**
 * Store the export a request carries as a restore job, set the jobs going, and wait for this one as its `Prefer`
 * header asks: the job as it is then (done with its report, or still under way). A job that failed within the
 * wait is thrown as its error.
 */
export async function restoreExport(request: Request): Promise<RestoreJobView> {
  const { body, limitBytes, tooLarge: refusal } = await exportStream(request);
  const id = await receiveExport(body, limitBytes, refusal);
  void runRestoreJobs();
  const { respondAsync, waitMs } = preference(request);
  const job = respondAsync ? await readRestoreJob(id) : await waitForRestoreJob(id, waitMs);
  if (!job) throw new Error(`restore job ${id} vanished`);
  if (job.status === "failed" && job.error) throw new AppError(job.error.code as ErrorCode, job.error.message);
  return job;
}
