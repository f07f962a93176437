import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { readJsonBody } from "@/lib/http/body";
import { parseBody } from "@/lib/http/request";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { addAnnotationOrThrow } from "@/lib/series/annotations";
import { AnnotationCreateSchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const POST = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const input = parseBody(AnnotationCreateSchema, await readJsonBody(request, 20_000), "Invalid annotation");
  return NextResponse.json(await addAnnotationOrThrow(id, input), { status: 201 });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
