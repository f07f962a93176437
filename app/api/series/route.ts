import { NextResponse } from "next/server";
import { queryParams } from "@/lib/http/query";
import { parseQuery } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { listSeries } from "@/lib/series/queries";
import { SeriesListQuerySchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const query = parseQuery(SeriesListQuerySchema, queryParams(request));
  return NextResponse.json(await listSeries({ all: query.all ?? false, page: query.page, per_page: query.per_page }));
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
