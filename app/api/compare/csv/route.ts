import { parseCompareView } from "@/lib/analysis/comparison";
import { comparisonCsv } from "@/lib/analysis/export";
import { exportFileName } from "@/lib/comparisons/file-name";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route";
import { loadComparison } from "@/lib/runs/comparison-loader";

export const dynamic = "force-dynamic";

/** The delta tables of a comparison as CSV: the same query parameters as /compare. */
export const GET = apiRoute(async (request) => {
  const view = parseCompareView(Object.fromEntries(new URL(request.url).searchParams.entries()));
  if (view.runIds.length === 0)
    throw new AppError("bad_request", "Name the runs to compare: ?runs=<id>,<id>.", [
      { path: "runs", message: "is required" },
    ]);
  const { comparison } = await loadComparison(view);
  if (!comparison) throw new AppError("not_found", "None of these runs exist.");
  return new Response(comparisonCsv(comparison), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(comparison.summary.title, new Date(), "csv", "deltas")}"`,
    },
  });
});
