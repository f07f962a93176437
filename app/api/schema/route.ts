import { NextResponse } from "next/server";
import { runDocumentJsonSchema } from "@/lib/runs/schema";

export const dynamic = "force-static";

export function GET() {
  return NextResponse.json(runDocumentJsonSchema(), { headers: { "Content-Type": "application/schema+json" } });
}
