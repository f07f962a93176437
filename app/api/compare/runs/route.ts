import { NextResponse } from "next/server";
import { exportFileName } from "@/lib/comparisons/file-name";
import { loadComparison } from "@/lib/comparisons/loader";
import { parseCompareView } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { getRunsByIds } from "@/lib/runs/read";

export const dynamic = "force-dynamic";

/** The compared runs as one JSON array of servebench/v1 documents; uploading it stores them again. */
export const GET = apiRoute(async (request) => {
  const view = parseCompareView(queryParams(request));
  if (view.runIds.length === 0)
    throw new AppError("bad_request", "Name the runs to export: ?runs=<id>,<id>.", [
      { path: "runs", message: "is required" },
    ]);
  const { runs: compared, comparison } = await loadComparison(view);
  if (compared.length === 0) throw new AppError("not_found", "None of these runs exist.");
  // The comparison leaves out per-request rows; the export is the whole documents, uploadable as they are.
  const { runs } = await getRunsByIds(compared.map((run) => run.id));
  const title = comparison?.summary.title ?? "runs";
  return NextResponse.json(runs, {
    headers: { "Content-Disposition": `attachment; filename="${exportFileName(title, new Date(), "json", "runs")}"` },
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
