import { NextResponse } from "next/server";
import { AppError } from "@/lib/errors";
import { maxBodyBytes } from "@/lib/env";
import { apiRoute } from "@/lib/http/route";
import { documentsToStore, prepareUpload } from "@/lib/runs/ingest";
import { parseListQuery } from "@/lib/runs/list-query";
import { issuesFromZod } from "@/lib/runs/normalize";
import { previewOf } from "@/lib/runs/preview";
import { createRuns, listRuns } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const parsed = parseListQuery(Object.fromEntries(new URL(request.url).searchParams.entries()));
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new AppError("bad_request", `Invalid query parameter ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  return NextResponse.json(await listRuns(parsed.data));
});

export const POST = apiRoute(async (request) => {
  const prepared = await prepareUpload(request, maxBodyBytes());
  if (new URL(request.url).searchParams.get("dry_run") === "1") {
    // The upload page's preview: what would be stored, and what is missing or in conflict. Nothing is written.
    return NextResponse.json(previewOf(prepared));
  }
  const created = await createRuns(documentsToStore(prepared));
  const runs = created.map((run) => ({ id: run.id, url: `/runs/${run.id}`, name: run.name }));
  const first = runs[0]!;
  const body = runs.length === 1 ? { id: first.id, url: first.url } : { id: first.id, url: first.url, runs };
  return NextResponse.json(body, { status: 201, headers: { Location: first.url } });
});
