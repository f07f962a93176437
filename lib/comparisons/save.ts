/**
 * Saving a comparison (POST /api/comparisons) and opening a saved one (/c/<slug>, the preview image): the
 * steps between the request, the runs and the Comparison table.
 */
import { buildComparison, type CompareView, DEFAULT_NOISE_PCT } from "@/lib/analysis/comparison";
import { AppError, type ErrorIssue } from "@/lib/errors";
import { type LoadedComparison, loadComparison } from "@/lib/runs/comparison-loader";
import { getRunsByIds } from "@/lib/runs/queries";
import { createComparison, getComparisonOrThrow, type SavedComparison } from "./queries";
import { comparisonIssues, SaveComparisonSchema } from "./schema";
import { defaultComparisonTitle, savedCompareView, withViewOverrides } from "./view";

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
        message: "expected a JSON object with runs, and optionally baseline, title, notes, noise, hide, stat",
      },
    ]);
  }
  const parsed = SaveComparisonSchema.safeParse(body);
  if (!parsed.success) throw invalid(comparisonIssues(parsed.error));
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
    noisePct: input.noise ?? DEFAULT_NOISE_PCT,
    hidden: input.hide ?? [],
    stat: input.stat ?? "mean",
  };
  // The runs come back in the order asked for, which is what buildComparison expects.
  const title = input.title ?? defaultComparisonTitle(buildComparison(runs, view).summary.title);
  const notes = input.notes === undefined || input.notes === null || input.notes.trim() === "" ? null : input.notes;
  return createComparison({
    title,
    notes,
    runs: view.runIds,
    baseline: view.baselineId,
    noise: view.noisePct,
    hide: view.hidden,
    stat: view.stat,
  });
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
