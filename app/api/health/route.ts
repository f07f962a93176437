import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/http/route";
import { countRuns } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async () => {
  await countRuns();
  return NextResponse.json({ ok: true });
});
