import { NextResponse } from "next/server";
import { parseCompareView } from "@/lib/analysis/comparison";
import { exportFileName } from "@/lib/comparisons/file-name";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route";
import { loadComparison } from "@/lib/runs/comparison-loader";

export const dynamic = "force-dynamic";

/** The compared runs as one JSON array of servebench/v1 documents; uploading it stores them again. */
export const GET = apiRoute(async (request) => {
  const view = parseCompareView(Object.fromEntries(new URL(request.url).searchParams.entries()));
  if (view.runIds.length === 0)
    throw new AppError("bad_request", "Name the runs to export: ?runs=<id>,<id>.", [
      { path: "runs", message: "is required" },
    ]);
  const { runs, comparison } = await loadComparison(view);
  if (runs.length === 0) throw new AppError("not_found", "None of these runs exist.");
  const title = comparison?.summary.title ?? "runs";
  return NextResponse.json(runs, {
    headers: { "Content-Disposition": `attachment; filename="${exportFileName(title, new Date(), "json", "runs")}"` },
  });
});
