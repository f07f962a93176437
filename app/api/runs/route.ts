import { NextResponse } from "next/server";
import { maxBodyBytes } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { requireWriteAccess } from "@/lib/http/auth";
import { publicBaseUrl } from "@/lib/http/base-url";
import { readBodyWithLimit } from "@/lib/http/body";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { uploadMediaType } from "@/lib/ingest/ingest";
import { outcomeError, runUploadTask } from "@/lib/ingest/upload-pool";
import { parseListQuery } from "@/lib/runs/list-query";
import { listRuns, storeRuns } from "@/lib/runs/queries";
import { judgeUploadedRuns } from "@/lib/series/queries";
import { zodIssues } from "@/lib/zod-issues";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const parsed = parseListQuery(queryParams(request));
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("bad_request", `Invalid query parameter ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  return NextResponse.json(await listRuns(parsed.data));
});

export const POST = apiRoute(async (request) => {
  requireWriteAccess(request);
  const contentType = request.headers.get("content-type") ?? "";
  uploadMediaType(request);
  const limitBytes = maxBodyBytes();
  // This thread only reads the body; unzipping, parsing, planning and validating run in the upload worker.
  const bytes = await readBodyWithLimit(request, limitBytes);
  const dryRun = new URL(request.url).searchParams.get("dry_run") === "1";
  const outcome = await runUploadTask({ kind: dryRun ? "preview" : "store", url: request.url, contentType, bytes });
  if (!outcome.ok) throw outcomeError(outcome);
  if (outcome.kind === "preview") {
    // The upload page's preview: what would be stored, and what is missing or in conflict. Nothing is written.
    return new Response(outcome.json, { headers: { "content-type": "application/json" } });
  }
  if (outcome.kind !== "store") throw new Error(`upload worker answered ${outcome.kind} to a store`);
  const stored = await storeRuns(outcome.runs);
  // Each new run is judged against its series; never fails the upload (a failure leaves the run unjudged).
  const judgeStarted = performance.now();
  const added = stored.filter((run) => !run.duplicate).map((run) => run.id);
  const verdicts = await judgeUploadedRuns(added, publicBaseUrl(request));
  const judgeMs = performance.now() - judgeStarted;
  const runs = stored.map((run) => ({
    id: run.id,
    url: `/runs/${run.id}`,
    name: run.name,
    duplicate: run.duplicate,
    ...(verdicts.has(run.id) ? { series: verdicts.get(run.id) } : {}),
  }));
  const first = runs[0]!;
  // Content stored before is not stored again: 200 with the existing run, 201 when anything was added.
  const allDuplicates = runs.every((run) => run.duplicate);
  const body =
    runs.length === 1
      ? {
          id: first.id,
          url: first.url,
          ...(first.duplicate ? { duplicate: true } : {}),
          ...(first.series ? { series: first.series } : {}),
        }
      : { id: first.id, url: first.url, ...(allDuplicates ? { duplicate: true } : {}), runs };
  return NextResponse.json(body, {
    status: allDuplicates ? 200 : 201,
    headers: { Location: first.url, "Server-Timing": `judge;dur=${judgeMs.toFixed(1)};desc="series judgement"` },
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "POST"]);
