import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { deleteRunOrThrow, readRunPatch, updateRunOrThrow } from "@/lib/runs/edit";
import { getRunOrThrow } from "@/lib/runs/read";
import { readRunQuery, runAnswer } from "@/lib/runs/run-answer";
import { rejudgeSeriesOf } from "@/lib/series/judging";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = apiRoute<Context>(async (request, { params }) => {
  const { id } = await params;
  const query = readRunQuery(queryParams(request));
  const { body, fileName } = runAnswer(await getRunOrThrow(id), query);
  const headers: Record<string, string> = {};
  if (query.download) headers["Content-Disposition"] = `attachment; filename="${fileName}"`;
  return NextResponse.json(body, { headers });
});

export const PATCH = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const patch = await readRunPatch(request);
  return NextResponse.json(await updateRunOrThrow(id, patch));
});

export const DELETE = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const { seriesId } = await deleteRunOrThrow(id);
  await rejudgeSeriesOf(seriesId);
  return new Response(null, { status: 204 });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT } = methodsNotAllowed(["GET", "PATCH", "DELETE"]);
