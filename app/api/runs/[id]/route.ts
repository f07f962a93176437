import { NextResponse } from "next/server";
import { issuesFromZod, validationError } from "@/lib/document/normalize";
import { AppError } from "@/lib/errors";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { RunPatchSchema } from "@/lib/ingest/ingest";
import { deleteRunOrThrow, getRunOrThrow, updateRunOrThrow } from "@/lib/runs/queries";
import { rejudgeSeriesOf } from "@/lib/series/queries";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

// A PATCH carries a few short fields; anything bigger is a mistake.
const PATCH_LIMIT_BYTES = 100_000;

export const GET = apiRoute<Context>(async (request, { params }) => {
  const { id } = await params;
  const run = await getRunOrThrow(id);
  const headers: Record<string, string> = {};
  if (new URL(request.url).searchParams.get("download") === "1") {
    headers["Content-Disposition"] = `attachment; filename="servebench-run-${id}.json"`;
  }
  return NextResponse.json(run, { headers });
});

export const PATCH = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const body = await readJsonBody(request, PATCH_LIMIT_BYTES);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationError([{ path: "", message: "expected a JSON object with name, tags or notes" }]);
  }
  const parsed = RunPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new AppError("validation_failed", `Invalid change. ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  const { name, tags, notes } = parsed.data;
  const run = await updateRunOrThrow(id, {
    name,
    tags: tags === undefined ? undefined : [...new Set(tags.map((tag) => tag.toLowerCase()))],
    notes: notes === undefined ? undefined : notes === null || notes.trim() === "" ? null : notes,
  });
  return NextResponse.json(run);
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
