import { NextResponse } from "next/server";
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-static";

const VERSION = process.env.NEXT_PUBLIC_SERVEBENCH_VERSION ?? "dev";

export function GET() {
  return NextResponse.json(openApiDocument(VERSION));
}
