/**
 * A comparison, computed once from the runs and the view the URL asks for: series (repeats gathered into
 * their mean and spread), headline deltas, what changed, the verdict line, like-for-like checks, the SLO
 * point and cost, delta tables and chart data on one shared load axis. The compare page, saved comparisons,
 * the link preview image and the CSV export all read this one model (lib/comparisons/model.ts); each section is
 * prepared in lib/comparisons/sections.ts.
 */
import { loadDomain } from "@/lib/analysis/axis";
import { checkLikeForLike } from "@/lib/analysis/fairness";
import { unionLevels } from "@/lib/analysis/levels";
import { groupRepeats } from "@/lib/analysis/repeats";
import type { StoredRun } from "@/lib/document/stored-run";
import { yieldToEventLoop } from "@/lib/runs/event-loop";
import { capacityOf } from "./capacity";
import { levelsToKeep, pickLevels } from "./levels-shown";
import { type BuildOptions, type Comparison, DRAWN_LEVELS_MAX, TABLE_LEVELS_MAX } from "./model";
import {
  baselineOf,
  chartsOf,
  deltaTablesOf,
  draftSeries,
  judgedSeries,
  noiseOf,
  sloViolations,
  summarize,
  tooltipOf,
  verdictsInOrder,
} from "./sections";
import type { CompareView } from "./view";

/**
 * The comparison's steps, each a few to tens of milliseconds for 12 runs of 1,000 levels: a generator that pauses
 * between them, so the loader can give other requests a turn (eight comparisons built at once held /api/health
 * over a second when each was one piece).
 */
function* comparisonSteps(
  runs: readonly StoredRun[],
  view: CompareView,
  options: BuildOptions,
): Generator<void, Comparison, void> {
  const groups = groupRepeats(runs);
  const { baselineIndex, baselineRun } = baselineOf(runs, groups, view);
  const drafts = draftSeries(groups, view, baselineIndex, baselineRun);
  yield;
  const noise = noiseOf(view, drafts);
  const noiseFraction = noise.pct / 100;
  const domain = loadDomain(drafts);
  const series = judgedSeries(drafts, baselineIndex, domain, view, noiseFraction);
  const violations = sloViolations(series);
  yield;

  // A long sweep: the charts draw at most DRAWN_LEVELS_MAX levels, the page's tables list TABLE_LEVELS_MAX.
  const keep = levelsToKeep(series, domain);
  const drawnKeys = pickLevels(domain.levels, keep, DRAWN_LEVELS_MAX);
  const drawnDomain = drawnKeys
    ? { ...domain, levels: domain.levels.filter((level) => drawnKeys.has(level.key)) }
    : domain;
  const allLevels = unionLevels(series);
  // Levels off the axis (a rate sweep beside concurrency runs) have no x: they follow the axis in load order.
  const xOf = new Map(domain.levels.map((level) => [level.key, level.x]));
  const tableKeys = pickLevels(
    allLevels.map((level, index) => ({ key: level.key, x: xOf.get(level.key) ?? domain.domain[1] + 1 + index })),
    keep,
    TABLE_LEVELS_MAX,
  );
  const rowLevels =
    tableKeys && !options.everyLevel ? allLevels.filter((level) => tableKeys.has(level.key)) : undefined;

  const verdicts = verdictsInOrder(series);
  const fairness = checkLikeForLike(
    series.map((item) => ({ label: item.label, config: item.run, results: item.results })),
  );
  yield;
  const deltaTables = deltaTablesOf(series, baselineIndex, view, noiseFraction, violations, rowLevels);
  yield;
  const tooltip = tooltipOf(series, baselineIndex, drawnDomain, view, violations);
  const charts = chartsOf(series, domain, drawnDomain, view, violations);
  yield;
  const capacity = capacityOf(series, baselineIndex, domain, view);
  return {
    view,
    series,
    baselineIndex,
    domain,
    drawnDomain,
    tableLevelKeys: tableKeys ? allLevels.filter((level) => tableKeys.has(level.key)).map((level) => level.key) : null,
    levelCount: allLevels.length,
    fairness,
    noise,
    deltaTables,
    tooltip,
    charts,
    verdicts,
    capacity,
    summary: summarize(series, baselineIndex, verdicts),
  };
}

/** Build the comparison of `runs` (already in the order the view lists them) as the view asks, in one piece. */
export function buildComparison(runs: readonly StoredRun[], view: CompareView, options: BuildOptions = {}): Comparison {
  const steps = comparisonSteps(runs, view, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same, with a turn of the event loop for other requests between its steps. */
export async function buildComparisonYielding(
  runs: readonly StoredRun[],
  view: CompareView,
  options: BuildOptions = {},
): Promise<Comparison> {
  const steps = comparisonSteps(runs, view, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await yieldToEventLoop();
  }
}
