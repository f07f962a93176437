import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { parseBody } from "@/lib/http/request";
import { apiRoute } from "@/lib/http/route";
import { getAlertOrThrow, updateAlertOrThrow } from "@/lib/series/queries";
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
