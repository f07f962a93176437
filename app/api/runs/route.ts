import { NextResponse } from "next/server";
import { AppError } from "@/lib/errors";
import { maxBodyBytes } from "@/lib/env";
import { apiRoute } from "@/lib/http/route";
import { headline } from "@/lib/runs/derived";
import { parseUploadRequest } from "@/lib/runs/ingest";
import { parseListQuery } from "@/lib/runs/list-query";
import { issuesFromZod } from "@/lib/runs/normalize";
import { createRun, listRuns } from "@/lib/runs/queries";

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
  const document = await parseUploadRequest(request, maxBodyBytes());
  if (new URL(request.url).searchParams.get("dry_run") === "1") {
    // The upload page's preview: the run as it would be stored, without storing it.
    return NextResponse.json({ document, ...headline(document.results) });
  }
  const { id } = await createRun(document);
  return NextResponse.json({ id, url: `/runs/${id}` }, { status: 201, headers: { Location: `/runs/${id}` } });
});
