import { capacityJson } from "@/lib/comparisons/capacity-export";
import { exportFileName } from "@/lib/comparisons/file-name";
import { loadComparison } from "@/lib/comparisons/loader";
import { parseCompareView } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { queryParams } from "@/lib/http/query";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** A comparison's capacity section as JSON (docs/comparing.md#capacity): the same query parameters as /compare. */
export const GET = apiRoute(async (request) => {
  const view = parseCompareView(queryParams(request));
  if (view.runIds.length === 0)
    throw new AppError("bad_request", "Name the runs to compare: ?runs=<id>,<id>.", [
      { path: "runs", message: "is required" },
    ]);
  const { comparison } = await loadComparison(view);
  if (!comparison) throw new AppError("not_found", "None of these runs exist.");
  return Response.json(capacityJson(comparison), {
    headers: {
      "Content-Disposition": `attachment; filename="${exportFileName(comparison.summary.title, new Date(), "json", "capacity")}"`,
    },
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
