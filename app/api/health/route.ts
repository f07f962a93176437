import { NextResponse } from "next/server";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { countRuns } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async () => {
  await countRuns();
  return NextResponse.json({ ok: true });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
