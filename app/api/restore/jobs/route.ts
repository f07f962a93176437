import { NextResponse } from "next/server";
import { listRestoreJobs, runRestoreJobs } from "@/lib/backup/restore-jobs";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** The latest 20 restore jobs, newest first, without their reports. */
export const GET = apiRoute(async () => {
  void runRestoreJobs();
  return NextResponse.json({ jobs: await listRestoreJobs(20) });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
