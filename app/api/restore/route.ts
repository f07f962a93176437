import { NextResponse } from "next/server";
import { restoreComparisons } from "@/lib/comparisons/queries";
import { maxBodyBytes } from "@/lib/env";
import { AppError, excerpt } from "@/lib/errors";
import { requireWriteAccess } from "@/lib/http/auth";
import { mediaTypeOf, readBodyWithLimit } from "@/lib/http/body";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { restoreRuns } from "@/lib/runs/queries";
import { buildRestoreReport } from "@/lib/runs/restore-report";
import { outcomeError, runUploadTask } from "@/lib/runs/upload-pool";
import { applyRestoredSeriesState, createRestoredSeries, type SeriesToRestore } from "@/lib/series/export";

export const dynamic = "force-dynamic";

const RESTORE_MEDIA_TYPES = new Set([
  "application/x-ndjson",
  "application/jsonl",
  "application/json-lines",
  "application/x-jsonlines",
  "application/json",
  "application/octet-stream",
  "text/plain",
]);

/** The export file: the raw body, or the `file` field of a multipart form. */
async function exportFile(request: Request): Promise<{ name: string; bytes: Uint8Array<ArrayBuffer> }> {
  const mediaType = mediaTypeOf(request);
  if (mediaType === "multipart/form-data") {
    const bytes = await readBodyWithLimit(request, maxBodyBytes());
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
    return { name: "file", bytes: new Uint8Array(await file.arrayBuffer()) };
  }
  if (!RESTORE_MEDIA_TYPES.has(mediaType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type ${mediaType ? `"${excerpt(mediaType, 100)}"` : "(none)"} is not supported; send the export as application/x-ndjson (or multipart/form-data with a \`file\` field).`,
    );
  }
  return { name: "request body", bytes: await readBodyWithLimit(request, maxBodyBytes()) };
}

/**
 * Restore an export (GET /api/export) line by line: every valid line is stored (runs under their ids, saved
 * comparisons under their slugs, series under theirs with their settings, annotations and alert statuses; the
 * restored runs' series are judged), every other line is reported with its reason, and the answer is 200 with
 * one entry per line. See docs/api.md.
 */
export const POST = apiRoute(async (request) => {
  requireWriteAccess(request);
  const file = await exportFile(request);
  const outcome = await runUploadTask({ kind: "restore", name: file.name, bytes: file.bytes });
  if (!outcome.ok) throw outcomeError(outcome);
  if (outcome.kind !== "restore") throw new Error(`upload worker answered ${outcome.kind} to a restore`);
  // A series before its runs (they join it under its old id), its annotations and alert statuses after them.
  const seriesLines: SeriesToRestore[] = outcome.lines.flatMap((line) =>
    line.kind === "series" && "series" in line ? [{ line: line.line, series: line.series }] : [],
  );
  const series = await createRestoredSeries(seriesLines);
  const runs = await restoreRuns(
    outcome.lines.flatMap((line) =>
      line.kind === "run" && "documentJson" in line
        ? [
            {
              line: line.line,
              id: line.id,
              createdAt: line.createdAt ? new Date(line.createdAt) : undefined,
              documentJson: line.documentJson,
            },
          ]
        : [],
    ),
  );
  const comparisons = await restoreComparisons(
    outcome.lines.flatMap((line) =>
      line.kind === "comparison" && "comparison" in line ? [{ line: line.line, comparison: line.comparison }] : [],
    ),
  );
  await applyRestoredSeriesState(
    seriesLines,
    series,
    runs.flatMap((run) => (run.status === "stored" ? [run.id] : [])),
  );
  return NextResponse.json(buildRestoreReport(outcome.lines, runs, comparisons, series));
});

// The methods this address does not take: 405 with a body that says which it does.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
