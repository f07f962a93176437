import { NextResponse } from "next/server";
import { deleteComparisonOrThrow, getComparisonOrThrow } from "@/lib/comparisons/queries";
import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ slug: string }> };

export const GET = apiRoute<Context>(async (_request, { params }) => {
  const { slug } = await params;
  return NextResponse.json(await getComparisonOrThrow(slug));
});

export const DELETE = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { slug } = await params;
  await deleteComparisonOrThrow(slug);
  return new Response(null, { status: 204 });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH } = methodsNotAllowed(["GET", "DELETE"]);
