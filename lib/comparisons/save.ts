/**
 * Saving a comparison (POST /api/comparisons) and opening a saved one (/c/<slug>, the preview image): the
 * steps between the request, the runs and the Comparison table.
 */

import { DEFAULT_CDF_METRIC } from "@/lib/analysis/request-cdf";
import { DEFAULT_SLO_STAT } from "@/lib/analysis/slo";
import { type LoadedComparison, loadComparison } from "@/lib/comparisons/loader";
import { AppError, type ErrorIssue } from "@/lib/errors";
import { getRunsByIds } from "@/lib/runs/read";
import { zodIssues } from "@/lib/zod-issues";
import { buildComparison } from "./build";
import { parseCapacityView, storedCapacityParams } from "./capacity-view";
import { createComparison, getComparisonOrThrow, type SavedComparison } from "./queries";
import { SaveComparisonSchema, storedComparisonView } from "./schema";
import { type CompareView, defaultComparisonTitle, parsePrices, savedCompareView, withViewOverrides } from "./view";

function invalid(issues: ErrorIssue[]): AppError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new AppError(
    "validation_failed",
    `Invalid comparison. ${first ? `${first.path || "body"}: ${first.message}` : ""}${more}`,
    issues,
  );
}

/** Validate a request body, check that its runs exist, and store it. A rejected body writes nothing. */
export async function saveComparison(body: unknown): Promise<SavedComparison> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid([
      {
        path: "",
        message:
          "expected a JSON object with runs, and optionally baseline, title, notes, noise, hide, stat, log_y, slo, price, at_user, capacity, cdf_level, cdf_metric",
      },
    ]);
  }
  const parsed = SaveComparisonSchema.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  const input = parsed.data;

  const { runs, missing } = await getRunsByIds(input.runs);
  if (missing.length > 0) {
    throw invalid(
      input.runs.flatMap((id, index) =>
        missing.includes(id) ? [{ path: `runs.${index}`, message: `no run has the id "${id}"` }] : [],
      ),
    );
  }
  const view: CompareView = {
    runIds: input.runs,
    baselineId: input.baseline ?? null,
    noisePct: input.noise ?? null,
    hidden: input.hide ?? [],
    stat: input.stat ?? "mean",
    logY: input.log_y ?? false,
    slo: {
      ttft_ms: input.slo?.ttft_ms ?? null,
      tpot_ms: input.slo?.tpot_ms ?? null,
      stat: input.slo?.stat ?? DEFAULT_SLO_STAT,
    },
    prices: parsePrices(input.price),
    atUser: input.at_user ?? null,
    cdfLevel: input.cdf_level ?? null,
    cdfMetric: input.cdf_metric ?? DEFAULT_CDF_METRIC,
    capacity: parseCapacityView(storedCapacityParams(input.capacity)),
  };
  // The runs come back in the order asked for, which is what buildComparison expects.
  const title = input.title ?? defaultComparisonTitle(buildComparison(runs, view).summary.title);
  return createComparison({ title, ...storedComparisonView(input) });
}

export interface OpenedComparison extends LoadedComparison {
  saved: SavedComparison;
  /** The saved view with the URL's overrides. */
  view: CompareView;
}

/** A saved comparison computed live from its runs, with the view the URL asks for. Throws not_found. */
export async function openSavedComparison(
  slug: string,
  params: Record<string, string | string[] | undefined> = {},
): Promise<OpenedComparison> {
  const saved = await getComparisonOrThrow(slug);
  const view = withViewOverrides(savedCompareView(saved), params);
  return { saved, view, ...(await loadComparison(view)) };
}
