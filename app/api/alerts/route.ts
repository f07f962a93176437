import { NextResponse } from "next/server";
import { queryParams } from "@/lib/http/query";
import { parseQuery } from "@/lib/http/request";
import { apiRoute } from "@/lib/http/route";
import { listAlerts } from "@/lib/series/queries";
import { AlertListQuerySchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const query = parseQuery(AlertListQuerySchema, queryParams(request));
  return NextResponse.json(await listAlerts(query));
});
