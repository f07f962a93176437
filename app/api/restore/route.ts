import { NextResponse } from "next/server";
import { restoreExport } from "@/lib/backup/restore";
import { restoreJobUrl } from "@/lib/backup/restore-jobs";
import { requireWriteAccess } from "@/lib/http/auth";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * Restore an export (GET /api/export) as a job: the body is stored in parts as it arrives, then every valid line
 * is stored (runs under their ids, saved comparisons under their slugs, series under theirs with their settings,
 * annotations and alert statuses; the restored runs' series are judged) and every other line reported with its
 * reason. Answered 200 with the report when the job ends within the wait, else 202 with the job to poll at
 * /api/restore/jobs/<id>. See docs/api.md.
 */
export const POST = apiRoute(async (request) => {
  requireWriteAccess(request);
  const job = await restoreExport(request);
  if (job.status !== "done" || !job.report) {
    return NextResponse.json(job, {
      status: 202,
      headers: { Location: job.url, "Retry-After": "2", "Preference-Applied": "respond-async" },
    });
  }
  return NextResponse.json(job.report, { headers: { "Content-Location": restoreJobUrl(job.id) } });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
