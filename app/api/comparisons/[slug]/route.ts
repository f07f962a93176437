import { NextResponse } from "next/server";
import { deleteComparisonOrThrow, getComparisonOrThrow } from "@/lib/comparisons/queries";
import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute } from "@/lib/http/route";

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
