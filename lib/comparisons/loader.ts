/** Load the runs a comparison view names and build the comparison. */
import { cache } from "react";
import type { StoredRun } from "@/lib/document/stored-run";
import { getRunsByIds } from "@/lib/runs/read";
import { buildComparisonYielding } from "./build";
import { MAX_COMPARED_RUNS } from "./limits";
import type { BuildOptions, Comparison } from "./model";
import type { CompareView } from "./view";

export interface LoadedComparison {
  comparison: Comparison | null;
  runs: StoredRun[];
  /** Ids of the view that no longer exist. */
  notFound: string[];
  /** The view named more runs than a comparison holds; the first ones are kept. */
  truncated: boolean;
}

async function loadComparisonUncached(view: CompareView, options: BuildOptions): Promise<LoadedComparison> {
  const capped = view.runIds.slice(0, MAX_COMPARED_RUNS);
  const { runs, missing } = await getRunsByIds(capped, { withoutRequestDetail: true });
  const kept = { ...view, runIds: runs.map((run) => run.id) };
  return {
    comparison: runs.length > 0 ? await buildComparisonYielding(runs, kept, options) : null,
    runs,
    notFound: missing,
    truncated: view.runIds.length > capped.length,
  };
}

const cachedByQuery = cache((key: string) => {
  const { view, options } = JSON.parse(key) as { view: CompareView; options: BuildOptions };
  return loadComparisonUncached(view, options);
});

/**
 * Load and build a comparison. Within one request (a page and its metadata both ask) the work is done once:
 * React's cache() compares its arguments by identity, so the view goes in as its JSON text. `everyLevel` for the
 * delta tables of every load level (the CSV export); a page lists at most TABLE_LEVELS_MAX.
 */
export function loadComparison(view: CompareView, options: BuildOptions = {}): Promise<LoadedComparison> {
  return cachedByQuery(JSON.stringify({ view, options: { everyLevel: options.everyLevel === true } }));
}
