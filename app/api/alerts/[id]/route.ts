import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { parseBody } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { getAlertOrThrow, updateAlertOrThrow } from "@/lib/series/alerts";
import { AlertPatchSchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = apiRoute<Context>(async (_request, { params }) => {
  const { id } = await params;
  return NextResponse.json(await getAlertOrThrow(id));
});

export const PATCH = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const patch = parseBody(AlertPatchSchema, await readJsonBody(request, 20_000), "Invalid alert change");
  return NextResponse.json(await updateAlertOrThrow(id, patch));
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, DELETE } = methodsNotAllowed(["GET", "PATCH"]);
