import { NextResponse } from "next/server";
import { methodsNotAllowed } from "@/lib/http/route";
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-static";

const VERSION = process.env.NEXT_PUBLIC_SERVEBENCH_VERSION ?? "dev";

export function GET() {
  return NextResponse.json(openApiDocument(VERSION));
}

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
