import { NextResponse } from "next/server";
import { queryParams } from "@/lib/http/query";
import { parseQuery } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { listAlerts } from "@/lib/series/alerts";
import { AlertListQuerySchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const query = parseQuery(AlertListQuerySchema, queryParams(request));
  return NextResponse.json(await listAlerts(query));
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
