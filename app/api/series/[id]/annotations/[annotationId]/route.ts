import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute } from "@/lib/http/route";
import { deleteAnnotationOrThrow } from "@/lib/series/queries";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; annotationId: string }> };

export const DELETE = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id, annotationId } = await params;
  await deleteAnnotationOrThrow(id, annotationId);
  return new Response(null, { status: 204 });
});
