import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { queryParams } from "@/lib/http/query";
import { parseBody, parseQuery } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { getSeriesViewOrThrow, updateSeriesSettingsOrThrow } from "@/lib/series/queries";
import { SeriesPatchSchema, SeriesViewQuerySchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = apiRoute<Context>(async (request, { params }) => {
  const { id } = await params;
  const query = parseQuery(SeriesViewQuerySchema, queryParams(request));
  return NextResponse.json(await getSeriesViewOrThrow(id, { level: query.level }));
});

export const PATCH = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const patch = parseBody(SeriesPatchSchema, await readJsonBody(request, 20_000), "Invalid series change");
  return NextResponse.json({ settings: await updateSeriesSettingsOrThrow(id, patch.settings) });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, DELETE } = methodsNotAllowed(["GET", "PATCH"]);
