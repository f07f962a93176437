import { comparisonCsv } from "@/lib/comparisons/csv";
import { exportFileName } from "@/lib/comparisons/file-name";
import { loadComparison } from "@/lib/comparisons/loader";
import { parseCompareView } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** The delta tables of a comparison as CSV: the same query parameters as /compare. */
export const GET = apiRoute(async (request) => {
  const view = parseCompareView(queryParams(request));
  if (view.runIds.length === 0)
    throw new AppError("bad_request", "Name the runs to compare: ?runs=<id>,<id>.", [
      { path: "runs", message: "is required" },
    ]);
  // Every load level: the page lists some of a long sweep's levels, the export all of them.
  const { comparison, runs } = await loadComparison(view, { everyLevel: true });
  if (!comparison) throw new AppError("not_found", "None of these runs exist.");
  return new Response(comparisonCsv(comparison, runs), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(comparison.summary.title, new Date(), "csv", "deltas")}"`,
    },
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
