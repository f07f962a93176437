import { NextResponse } from "next/server";
import { runDocumentJsonSchema } from "@/lib/document/schema";
import { methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-static";

export function GET() {
  return NextResponse.json(runDocumentJsonSchema(), { headers: { "Content-Type": "application/schema+json" } });
}

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
