import { NextResponse } from "next/server";
import { maxBodyBytes } from "@/lib/env";
import { requireWriteAccess } from "@/lib/http/auth";
import { publicBaseUrl } from "@/lib/http/base-url";
import { readBodyWithLimit } from "@/lib/http/body";
import { queryParams } from "@/lib/http/query";
import { parseQuery } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { uploadMediaType } from "@/lib/ingest/ingest";
import { storeUpload } from "@/lib/ingest/store-upload";
import { outcomeError, runUploadTask } from "@/lib/ingest/upload-pool";
import { listRuns } from "@/lib/runs/history";
import { ListQuerySchema } from "@/lib/runs/list-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  return NextResponse.json(await listRuns(parseQuery(ListQuerySchema, queryParams(request))));
});

export const POST = apiRoute(async (request) => {
  requireWriteAccess(request);
  const contentType = request.headers.get("content-type") ?? "";
  uploadMediaType(request);
  // This thread only reads the body; unzipping, parsing, planning and validating run in the upload worker.
  const bytes = await readBodyWithLimit(request, maxBodyBytes());
  const dryRun = new URL(request.url).searchParams.get("dry_run") === "1";
  const outcome = await runUploadTask({ kind: dryRun ? "preview" : "store", url: request.url, contentType, bytes });
  if (!outcome.ok) throw outcomeError(outcome);
  // The upload page's preview: what would be stored, and what is missing or in conflict. Nothing is written.
  if (outcome.kind === "preview")
    return new Response(outcome.json, { headers: { "content-type": "application/json" } });
  if (outcome.kind !== "store") throw new Error(`upload worker answered ${outcome.kind} to a store`);
  const { body, status, headers } = await storeUpload(outcome.runs, publicBaseUrl(request));
  return NextResponse.json(body, { status, headers });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "POST"]);
