import { NextResponse } from "next/server";
import { listComparisons } from "@/lib/comparisons/queries";
import { saveComparison } from "@/lib/comparisons/save";
import { parseComparisonListQuery } from "@/lib/comparisons/schema";
import { AppError } from "@/lib/errors";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { zodIssues } from "@/lib/zod-issues";

export const dynamic = "force-dynamic";

// Runs, a view, a title and up to 20,000 characters of notes: far below this.
const BODY_LIMIT_BYTES = 200_000;

export const GET = apiRoute(async (request) => {
  const parsed = parseComparisonListQuery(queryParams(request));
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("bad_request", `Invalid query parameter ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  return NextResponse.json(await listComparisons(parsed.data));
});

export const POST = apiRoute(async (request) => {
  requireWriteAccess(request);
  const saved = await saveComparison(await readJsonBody(request, BODY_LIMIT_BYTES));
  return NextResponse.json({ slug: saved.slug, url: saved.url }, { status: 201, headers: { Location: saved.url } });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "POST"]);
