import { NextResponse } from "next/server";
import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { readAccuracyUpload } from "@/lib/ingest/accuracy-upload";
import { attachAccuracyOrThrow } from "@/lib/runs/accuracy";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Attach an evaluator's results file (lm-eval, lighteval) to a stored run: its scores join the run's. */
export const POST = apiRoute<Context>(async (request, { params }) => {
  requireWriteAccess(request);
  const { id } = await params;
  const imports = await readAccuracyUpload(request);
  return NextResponse.json(await attachAccuracyOrThrow(id, imports));
});

// The methods this address does not take: 405 with a body that says which it does.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
