import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { deleteAnnotationOrThrow } from "@/lib/series/annotations";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; annotationId: string }> };

export const DELETE = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id, annotationId } = await params;
  await deleteAnnotationOrThrow(id, annotationId);
  return new Response(null, { status: 204 });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { GET, POST, PUT, PATCH } = methodsNotAllowed(["DELETE"]);
