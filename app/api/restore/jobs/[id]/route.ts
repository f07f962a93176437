import { NextResponse } from "next/server";
import { readRestoreJob, runRestoreJobs } from "@/lib/backup/restore-jobs";
import { notFoundError } from "@/lib/errors";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { isId } from "@/lib/ids";

export const dynamic = "force-dynamic";

/** A restore job: its status and progress, and its report once it is done (docs/api.md, "Restore jobs"). */
export const GET = apiRoute(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = await context.params;
  // Asking after a job is a sign someone waits for it: a job left by a stopped process is taken up now.
  void runRestoreJobs();
  const job = isId(id) ? await readRestoreJob(id) : null;
  if (!job) throw notFoundError(`Restore job "${id}"`);
  return NextResponse.json(
    job,
    job.status === "done" || job.status === "failed" ? {} : { headers: { "Retry-After": "2" } },
  );
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
