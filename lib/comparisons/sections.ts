/**
 * The sections of a comparison, each prepared on its own from the runs' series: the series themselves (repeats
 * gathered, colours, statistics, efficiency), their judgement against the baseline (headline deltas, SLO point,
 * equal interactivity, the verdict line), the delta tables, the charts' shared tooltip, the charts, and the
 * verdicts in the order the page tells them. lib/comparisons/build.ts puts them together.
 */
import { type AccuracyComparison, accuracyClause, compareAccuracy } from "@/lib/analysis/accuracy";
import { axisName, type LoadDomain, loadDomain } from "@/lib/analysis/axis";
import { assignRunColors } from "@/lib/analysis/colors";
import { diffConfigs } from "@/lib/analysis/config-diff";
import {
  buildDeltaTable,
  compareHeadlines,
  type DeltaFigure,
  type DeltaTable,
  type HeadlineComparison,
  judgeChange,
  storedFigure,
} from "@/lib/analysis/deltas";
import {
  efficiencyPoints,
  frontierAt,
  interactivity,
  paretoFrontier,
  perGpu,
  roundPointIn,
  sharedRange,
} from "@/lib/analysis/efficiency";
import { checkLikeForLike } from "@/lib/analysis/fairness";
import { relativeHalfRange, type Spread } from "@/lib/analysis/intervals";
import { seriesUncertaintyAt } from "@/lib/analysis/level-uncertainty";
import { type LoadLevel, levelOf } from "@/lib/analysis/levels";
import { type CompareStat, type LineSeriesInput, lineChart, resolveStat } from "@/lib/analysis/lines";
import { DELTA_TABLE_METRICS, type MetricKey } from "@/lib/analysis/metrics";
import { type RunGroup, repeatsBaseName } from "@/lib/analysis/repeats";
import { singleStreamBars } from "@/lib/analysis/series";
import {
  costPerMillionTokens,
  hasPrices,
  hasTargets,
  priceFor,
  type SloPoint,
  sloPoint,
  sloText,
} from "@/lib/analysis/slo";
import { sloAttainment, wilsonInterval } from "@/lib/analysis/uncertainty";
import {
  peakClause,
  type SloClauseInput,
  sloClause,
  type VerdictSentence,
  verdictSentence,
  verdictSides,
} from "@/lib/analysis/verdict";
import type { ResultPoint } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { formatLoadLevel, formatNumber, formatPercentChange, formatUsd, relativeChange } from "@/lib/format";
import { checkRun, type ValidityReport } from "@/lib/validity/checks";
import { evenlySpaced } from "./levels-shown";
import type { Comparison, ComparisonSeries, EqualInteractivity, SeriesSlo, TooltipEntry, TooltipFigure } from "./model";
import { DRAWN_LEVELS_MAX, statName } from "./model";
import { type CompareView, DEFAULT_NOISE_PCT } from "./view";

/**
 * The noise threshold: the one the URL sets; else, with repeats present, the widest half-range of output
 * throughput over a level's repeats relative to its mean (rounded up to 0.5%, at least the default);
 * else ±3%.
 */
export function noiseOf(
  view: CompareView,
  series: readonly { spreads: Record<string, Partial<Record<MetricKey, Spread>>> }[],
): Comparison["noise"] {
  if (view.noisePct !== null) return { pct: view.noisePct, source: "view" };
  const halves = series.flatMap((item) =>
    Object.values(item.spreads).flatMap((spreads) => (spreads.output_throughput ? [spreads.output_throughput] : [])),
  );
  if (halves.length === 0) return { pct: DEFAULT_NOISE_PCT, source: "default" };
  const widest = Math.max(...halves.map(relativeHalfRange)) * 100;
  const rounded = Math.ceil(widest * 2 - 1e-9) / 2;
  return { pct: Math.min(100, Math.max(DEFAULT_NOISE_PCT, rounded)), source: "repeats" };
}

function seriesLabel(name: string, repeats: number): string {
  return repeats > 1 ? `${name} · mean of ${repeats} repeats` : name;
}

const LATENCY_FIGURES: { metric: "ttft" | "tpot" | "itl" | "e2el"; name: string }[] = [
  { metric: "ttft", name: "TTFT" },
  { metric: "tpot", name: "TPOT" },
  { metric: "itl", name: "ITL" },
  { metric: "e2el", name: "E2E" },
];

export type Draft = Omit<ComparisonSeries, "headline" | "verdict" | "slo" | "atInteractivity" | "accuracy">;

/** A series' accuracy scores: those of its first run that states any (repeats of one configuration share them). */
function accuracyOfDraft(draft: Draft) {
  return (membersOf.get(draft) ?? [draft.run]).find((run) => run.accuracy && run.accuracy.length > 0)?.accuracy;
}

function latencyNotes(series: readonly Draft[], metric: "tpot" | "ttft", stat: CompareStat): string[] {
  return series.flatMap((item) => {
    const resolved = item.stats[metric];
    return resolved?.fallback ? [`${resolved.stat} shown for ${item.label}: it states no ${stat}`] : [];
  });
}

function sloFor(item: Draft, domain: LoadDomain, view: CompareView): Omit<SeriesSlo, "compared"> | null {
  if (!hasTargets(view.slo)) return null;
  // A rate sweep beside concurrency runs is not on the comparison's axis: its capacity is judged along its own.
  const onAxis = item.results.some((result) => domain.levels.some((level) => level.key === levelOf(result).key));
  const point = sloPoint(item.results, onAxis ? domain : loadDomain([item]), view.slo);
  const perGpuValue = perGpu(point.output_tok_s, item.gpuCount);
  return {
    ...point,
    tok_s_per_gpu: perGpuValue,
    cost_per_m_tokens: costPerMillionTokens(item.price, perGpuValue),
    attainment: attainmentAt(item, point, view),
  };
}

/**
 * At the capacity level, the share of the requests (every repeat's, pooled) that met the targets each on their
 * own, with its Wilson interval: null when the level's points do not all carry their requests.
 */
function attainmentAt(item: Draft, point: SloPoint, view: CompareView): SeriesSlo["attainment"] {
  if (!point.load) return null;
  const key = levelOf({
    concurrency: point.load.concurrency ?? undefined,
    request_rate: point.load.infinite ? "inf" : (point.load.request_rate ?? undefined),
  }).key;
  const points = (membersOf.get(item) ?? []).flatMap((run) =>
    run.results.filter((result) => levelOf(result).key === key),
  );
  if (points.length === 0 || points.some((result) => result.requests === undefined)) return null;
  let met = 0;
  let total = 0;
  for (const result of points) {
    const attained = sloAttainment(result.requests, { ttft_ms: view.slo.ttft_ms, tpot_ms: view.slo.tpot_ms });
    if (!attained) return null;
    met += attained.met;
    total += attained.total;
  }
  return { met, total, share: total === 0 ? 0 : met / total, interval: wilsonInterval(met, total) };
}

function equalInteractivity(
  item: Draft,
  base: Draft,
  atUser: number | null,
  noise: number,
): EqualInteractivity | { reason: string } {
  if (item.gpuCount === null || base.gpuCount === null)
    return { reason: "GPU count unknown: throughput per GPU cannot be compared" };
  const range = sharedRange(item.efficiency.frontier, base.efficiency.frontier);
  if (!range) return { reason: "no interactivity both runs were measured at" };
  const at = atUser ?? roundPointIn(range);
  const value = frontierAt(item.efficiency.frontier, at);
  const baseValue = frontierAt(base.efficiency.frontier, at);
  if (value === null || baseValue === null)
    return { reason: `${formatNumber(at)} tok/s/user lies outside what one of the runs measured` };
  const change = relativeChange(baseValue, value);
  return { at, value, base: baseValue, change, verdict: judgeChange(change, "higher", noise, undefined, undefined) };
}

/** A series' points by load level (the first at a level, as a search of its points finds). */
function pointsByLevel(results: readonly ResultPoint[]): Map<string, ResultPoint> {
  const byKey = new Map<string, ResultPoint>();
  for (const point of results) {
    const key = levelOf(point).key;
    if (!byKey.has(key)) byKey.set(key, point);
  }
  return byKey;
}

function tooltipFigures(
  item: ComparisonSeries,
  base: ComparisonSeries | undefined,
  levelKey: string,
  view: CompareView,
  pointsOf: (series: ComparisonSeries) => Map<string, ResultPoint>,
): TooltipFigure[] {
  const point = pointsOf(item).get(levelKey);
  if (!point) return [];
  const basePoint = base ? pointsOf(base).get(levelKey) : undefined;
  const figures: TooltipFigure[] = [];
  const push = (
    name: string,
    value: number | null | undefined,
    baseValue: number | null | undefined,
    unit: string,
    better: "higher" | "lower",
    spread?: Spread,
  ) => {
    if (value == null) return;
    const range = spread ? ` (${formatNumber(spread.min)}–${formatNumber(spread.max)})` : "";
    const change = item.isBaseline || baseValue == null ? null : relativeChange(baseValue, value);
    figures.push({
      name,
      text: `${formatNumber(value)} ${unit}${range}`,
      change: change === null ? null : formatPercentChange(change),
      verdict: change === null ? "none" : judgeChange(change, better, 0, undefined, undefined),
    });
  };
  const spreads = item.spreads[levelKey] ?? {};
  push("Output", point.output_throughput, basePoint?.output_throughput, "tok/s", "higher", spreads.output_throughput);
  push(
    "Per GPU",
    perGpu(point.output_throughput, item.gpuCount),
    base ? perGpu(basePoint?.output_throughput, base.gpuCount) : null,
    "tok/s/GPU",
    "higher",
  );
  const tpotKey = item.stats.tpot?.key;
  push(
    "Per user",
    interactivity(tpotKey ? (point[tpotKey] as number | undefined) : undefined),
    interactivity(
      base?.stats.tpot?.key && basePoint ? (basePoint[base.stats.tpot.key] as number | undefined) : undefined,
    ),
    "tok/s/user",
    "higher",
  );
  for (const { metric, name } of LATENCY_FIGURES) {
    const resolved = item.stats[metric];
    const baseResolved = base?.stats[metric];
    if (!resolved) continue;
    push(
      `${name} ${resolved.stat}`,
      point[resolved.key] as number | undefined,
      baseResolved?.stat === resolved.stat && basePoint ? (basePoint[baseResolved.key] as number | undefined) : null,
      "ms",
      "lower",
      spreads[resolved.key],
    );
  }
  push("Requests", point.request_throughput, basePoint?.request_throughput, "req/s", "higher");
  push("Goodput (tool SLO)", point.request_goodput, basePoint?.request_goodput, "req/s", "higher");
  if (hasPrices(view.prices)) {
    const cost = costPerMillionTokens(item.price, perGpu(point.output_throughput, item.gpuCount));
    const baseCost = base
      ? costPerMillionTokens(base.price, perGpu(basePoint?.output_throughput, base.gpuCount))
      : null;
    if (cost !== null)
      figures.push({
        name: "Cost",
        text: `${formatUsd(cost)} / M tokens`,
        change: item.isBaseline || baseCost === null ? null : formatPercentChange(relativeChange(baseCost, cost)),
        verdict:
          item.isBaseline || baseCost === null
            ? "none"
            : judgeChange(relativeChange(baseCost, cost), "lower", 0, undefined, undefined),
      });
  }
  return figures;
}

export function summarize(
  series: readonly ComparisonSeries[],
  baselineIndex: number,
  verdicts: readonly VerdictSentence[],
) {
  const baseline = series[baselineIndex];
  if (!baseline) return { title: "Comparison", description: "" };
  const others = series.filter((_, index) => index !== baselineIndex);
  if (others.length === 0) return { title: baseline.label, description: "" };
  const title =
    others.length === 1 ? `${others[0]!.label} vs ${baseline.label}` : `${others.length} runs vs ${baseline.label}`;
  return {
    title,
    description: verdicts
      .slice(0, 3)
      .map((verdict) => verdict.text)
      .join(". "),
  };
}

/** The baseline: the series holding the view's baseline run (the first run when it names none of them). */
export function baselineOf(
  runs: readonly StoredRun[],
  groups: readonly RunGroup<StoredRun>[],
  view: CompareView,
): { baselineIndex: number; baselineRun: StoredRun | undefined } {
  const baselineRunId =
    view.baselineId && runs.some((run) => run.id === view.baselineId) ? view.baselineId : runs[0]?.id;
  const baselineIndex = Math.max(
    0,
    groups.findIndex((group) => group.runs.some((run) => run.id === baselineRunId)),
  );
  return { baselineIndex, baselineRun: groups[baselineIndex]?.runs[0] };
}

/**
 * Each draft's runs, whole: what its per-request figures are read from. Kept beside the drafts rather than in
 * them, so the comparison handed to the page carries no requests.
 */
const membersOf = new WeakMap<Draft, readonly StoredRun[]>();

/** The checks of a series: its first run's, or the first marked run's when a repeat is marked. */
function validityOf(runs: readonly StoredRun[]): ValidityReport {
  const reports = runs.map((run) => checkRun(run));
  return reports.find((report) => report.marked) ?? reports[0]!;
}

/**
 * The TPOT statistic the efficiency chart's points are at: each series' resolved one (a run that states no mean
 * TPOT is drawn at the statistic it states), named once when they agree, each when they do not.
 */
function efficiencyStat(series: readonly Draft[], view: CompareView): string {
  const drawn = series.filter((item) => item.efficiency.points.length > 0);
  const stats = [...new Set(drawn.map((item) => item.stats.tpot?.stat ?? view.stat))];
  return stats.length === 0 ? view.stat : stats.join(" / ");
}

/** One series a group of repeats: its name, colour, statistics, price, changes against the baseline, efficiency. */
export function draftSeries(
  groups: readonly RunGroup<StoredRun>[],
  view: CompareView,
  baselineIndex: number,
  baselineRun: StoredRun | undefined,
): Draft[] {
  const colors = assignRunColors(groups.map((group) => group.runs[0]!.id));
  return groups.map((group, index) => {
    const run = group.runs[0]!;
    const name = group.runs.length > 1 ? repeatsBaseName(run.name) : run.name;
    const gpuCount = run.hardware?.gpu_count ?? null;
    const stats = {
      tpot: resolveStat(group.results, "tpot", view.stat),
      ttft: resolveStat(group.results, "ttft", view.stat),
      itl: resolveStat(group.results, "itl", view.stat),
      e2el: resolveStat(group.results, "e2el", view.stat),
    };
    const points = stats.tpot ? efficiencyPoints(group.results, gpuCount, stats.tpot.key) : [];
    const draft: Draft = {
      key: `s${index}`,
      id: run.id,
      label: seriesLabel(name, group.repeats),
      name,
      color: colors[index]!,
      runs: group.runs.map((member) => ({ id: member.id, name: member.name })),
      isBaseline: index === baselineIndex,
      hidden: group.runs.some((member) => view.hidden.includes(member.id)),
      run,
      results: group.results,
      spreads: group.spreads,
      uncertaintyAt: seriesUncertaintyAt(group.runs),
      validity: validityOf(group.runs),
      repeats: group.repeats,
      gpuCount,
      price: hasPrices(view.prices) ? priceFor(view.prices, run.hardware?.gpu) : null,
      changes: index === baselineIndex || !baselineRun ? [] : diffConfigs(baselineRun, run),
      stats,
      efficiency: { points, frontier: paretoFrontier(points) },
    };
    membersOf.set(draft, group.runs);
    return draft;
  });
}

/** A series' SLO point against the baseline's: per GPU when both state a GPU count, else all GPUs. */
function comparedSlo(
  own: Omit<SeriesSlo, "compared">,
  item: Draft,
  baseDraft: Draft | undefined,
  baseSlo: Omit<SeriesSlo, "compared"> | null,
  noiseFraction: number,
): SeriesSlo {
  const perGpuBoth = item.gpuCount !== null && (baseDraft?.gpuCount ?? null) !== null;
  const value = perGpuBoth ? own.tok_s_per_gpu : own.output_tok_s;
  const base = baseSlo ? (perGpuBoth ? baseSlo.tok_s_per_gpu : baseSlo.output_tok_s) : null;
  const change = item.isBaseline ? null : relativeChange(base, value);
  return {
    ...own,
    compared: {
      value,
      base,
      unit: perGpuBoth ? "tok/s/GPU" : "tok/s",
      change,
      verdict: judgeChange(change, "higher", noiseFraction, undefined, undefined),
    },
  };
}

function sloLoadText(load: SeriesSlo["load"]): string | null {
  if (!load) return null;
  if (load.infinite) return "rate ∞";
  return formatLoadLevel({ concurrency: load.concurrency, request_rate: load.request_rate });
}

function sloSide(slo: SeriesSlo | null, value: number | null): SloClauseInput["base"] {
  return {
    value,
    load: slo ? sloLoadText(slo.load) : null,
    status: slo?.status ?? "unknown",
    reason: slo?.reason ?? null,
  };
}

/** Fields besides the experiment's own that differ between the pair: model, GPU, GPU count, workload. */
function notLikeForLike(item: Draft, baseDraft: Draft): string[] {
  const report = checkLikeForLike([
    { label: baseDraft.label, config: baseDraft.run, results: [] },
    { label: item.label, config: item.run, results: [] },
  ]);
  return report.differences.map((difference) =>
    difference.label.startsWith("GPU") ? difference.label : difference.label.toLowerCase(),
  );
}

/** The verdict of a series against the baseline series. */
function verdictOf(
  item: Draft,
  baseDraft: Draft,
  headline: HeadlineComparison,
  slo: SeriesSlo | null,
  baseSlo: SeriesSlo | null,
  atInteractivity: EqualInteractivity | { reason: string } | null,
  view: CompareView,
  noiseFraction: number,
  accuracy: AccuracyComparison | null,
): VerdictSentence {
  const tpotStat = item.stats.tpot?.stat ?? view.stat;
  const baseTpotStat = baseDraft.stats.tpot?.stat ?? view.stat;
  return verdictSentence({
    sides: verdictSides(baseDraft.run, item.run, item.changes, {
      label: item.label,
      baseLabel: baseDraft.label,
      id: item.id,
      baseId: baseDraft.id,
    }),
    notLikeForLike: notLikeForLike(item, baseDraft),
    marked: [...(baseDraft.validity.marked ? ["the baseline"] : []), ...(item.validity.marked ? ["this run"] : [])],
    singleStream: {
      base: headline.singleStream.base,
      value: headline.singleStream.value,
      verdict: headline.singleStream.verdict,
    },
    peak: peakClause(baseDraft, item, noiseFraction),
    slo:
      slo && hasTargets(view.slo)
        ? sloClause(
            {
              targets: sloText(view.slo),
              base: sloSide(baseSlo, slo.compared.base),
              value: sloSide(slo, slo.compared.value),
              unit: slo.compared.unit,
              verdict: slo.compared.verdict,
            },
            noiseFraction,
          )
        : null,
    interactivity:
      atInteractivity && "at" in atInteractivity
        ? {
            at: atInteractivity.at,
            stat: tpotStat === baseTpotStat ? tpotStat : `${tpotStat} (baseline ${baseTpotStat})`,
            figure: { base: atInteractivity.base, value: atInteractivity.value, verdict: atInteractivity.verdict },
          }
        : null,
    accuracy: accuracy ? accuracyClause(accuracy) : null,
    noise: noiseFraction,
  });
}

/**
 * Two verdicts whose sides read alike (both against the baseline, differing from each other only in what the
 * side names leave out) get their series' names, so no two lines of a comparison read the same.
 */
function distinguished(series: ComparisonSeries[]): ComparisonSeries[] {
  const leads = new Map<string, number>();
  for (const item of series) if (item.verdict) leads.set(item.verdict.lead, (leads.get(item.verdict.lead) ?? 0) + 1);
  return series.map((item) => {
    if (!item.verdict || (leads.get(item.verdict.lead) ?? 0) < 2) return item;
    const [mine, theirs] = item.verdict.sides;
    const renamed = `${mine} (${item.label})`;
    const versus = item.verdict.versus.replace(`${mine} vs ${theirs}`, `${renamed} vs ${theirs}`);
    const lead = item.verdict.lead.replace(item.verdict.versus, versus);
    const text = `${lead}${item.verdict.text.slice(item.verdict.lead.length)}`;
    return { ...item, verdict: { ...item.verdict, sides: [renamed, theirs], versus, lead, text } };
  });
}

/** Each series judged against the baseline: headline deltas, SLO point, equal interactivity, verdict. */
export function judgedSeries(
  drafts: readonly Draft[],
  baselineIndex: number,
  domain: LoadDomain,
  view: CompareView,
  noiseFraction: number,
): ComparisonSeries[] {
  const headlines = compareHeadlines(drafts, baselineIndex, noiseFraction);
  const slos = drafts.map((item) => sloFor(item, domain, view));
  const baseDraft = drafts[baselineIndex];
  const baseOwnSlo = slos[baselineIndex] ?? null;
  const compared = drafts.map((item, index) => {
    const own = slos[index] ?? null;
    return own ? comparedSlo(own, item, baseDraft, baseOwnSlo, noiseFraction) : null;
  });
  const baseSlo = compared[baselineIndex] ?? null;
  const judged = drafts.map((item, index) => {
    const slo = compared[index] ?? null;
    const atInteractivity =
      item.isBaseline || !baseDraft ? null : equalInteractivity(item, baseDraft, view.atUser, noiseFraction);
    const headline = headlines[index]!;
    const baseAccuracy = baseDraft ? accuracyOfDraft(baseDraft) : undefined;
    const ownAccuracy = accuracyOfDraft(item);
    const accuracy =
      item.isBaseline || !baseDraft || (!baseAccuracy && !ownAccuracy)
        ? null
        : compareAccuracy(baseAccuracy, ownAccuracy);
    const verdict =
      !item.isBaseline && baseDraft
        ? verdictOf(item, baseDraft, headline, slo, baseSlo, atInteractivity, view, noiseFraction, accuracy)
        : null;
    return { ...item, headline, slo, atInteractivity, verdict, accuracy };
  });
  return distinguished(judged);
}

/** The levels each series measured past its SLO, by series key. */
export function sloViolations(series: readonly ComparisonSeries[]): Record<string, Set<string>> {
  return Object.fromEntries(series.map((item) => [item.key, new Set(item.slo?.violating ?? [])] as const));
}

function scaledSpread(spread: Spread | undefined, divide: number): Spread | undefined {
  return spread
    ? {
        ...spread,
        mean: spread.mean / divide,
        min: spread.min / divide,
        max: spread.max / divide,
        std: spread.std === null ? null : spread.std / divide,
        ci95: spread.ci95 ? [spread.ci95[0] / divide, spread.ci95[1] / divide] : null,
        interval: [spread.interval[0] / divide, spread.interval[1] / divide],
      }
    : undefined;
}

/** The figures the delta tables list: the stored figures the runs have, per GPU and cost where they can be computed. */
function deltaFigures(series: readonly ComparisonSeries[], view: CompareView): DeltaFigure<ComparisonSeries>[] {
  const stored = DELTA_TABLE_METRICS.filter((metric) =>
    series.some((item) => item.results.some((point) => point[metric] !== undefined)),
  );
  const figures: DeltaFigure<ComparisonSeries>[] = [];
  for (const metric of stored) {
    figures.push(storedFigure<ComparisonSeries>(metric));
    if (metric === "output_throughput" && series.some((item) => item.gpuCount !== null)) {
      figures.push({
        metric: "output_tok_s_per_gpu",
        label: "Output throughput per GPU",
        unit: "tok/s/GPU",
        better: "higher",
        valueOf: (run, point) => perGpu(point.output_throughput, run.gpuCount),
        spreadOf: (run, key) =>
          run.gpuCount ? scaledSpread(run.spreads[key]?.output_throughput, run.gpuCount) : undefined,
      });
      if (hasPrices(view.prices)) {
        figures.push({
          metric: "cost_per_m_output_tokens",
          label: "Cost per million output tokens",
          unit: "$",
          better: "lower",
          valueOf: (run, point) => costPerMillionTokens(run.price, perGpu(point.output_throughput, run.gpuCount)),
        });
      }
    }
  }
  return figures;
}

/** One delta table per figure, of `rowLevels` (every level when undefined). */
export function deltaTablesOf(
  series: readonly ComparisonSeries[],
  baselineIndex: number,
  view: CompareView,
  noiseFraction: number,
  violations: Record<string, Set<string>>,
  rowLevels: LoadLevel[] | undefined,
): DeltaTable[] {
  const overSlo = (run: ComparisonSeries, _index: number, levelKey: string) =>
    violations[run.key]?.has(levelKey) ?? false;
  return deltaFigures(series, view).map((figure) =>
    buildDeltaTable(series, baselineIndex, figure, noiseFraction, overSlo, rowLevels),
  );
}

/** Per drawn level, every series' figures there: the charts' shared tooltip. */
export function tooltipOf(
  series: readonly ComparisonSeries[],
  baselineIndex: number,
  drawnDomain: LoadDomain,
  view: CompareView,
  violations: Record<string, Set<string>>,
): TooltipEntry[][] {
  const base = series[baselineIndex];
  // Looked up per level and series: searched per lookup they were quadratic in the levels, most of the 1 s a
  // comparison of 12 runs × 1,000 levels took.
  const byLevel = new Map(series.map((item) => [item, pointsByLevel(item.results)] as const));
  const pointsOf = (item: ComparisonSeries) => byLevel.get(item) ?? pointsByLevel(item.results);
  return drawnDomain.levels.map((level) =>
    series
      .filter((item) => pointsOf(item).has(level.key))
      .map((item) => ({
        key: item.key,
        label: item.label,
        color: item.color,
        isBaseline: item.isBaseline,
        overSlo: violations[item.key]?.has(level.key) ?? false,
        figures: tooltipFigures(item, base, level.key, view, pointsOf),
      })),
  );
}

/** The charts: throughput and latency against load, throughput per GPU against interactivity, single stream. */
export function chartsOf(
  series: readonly ComparisonSeries[],
  domain: LoadDomain,
  drawnDomain: LoadDomain,
  view: CompareView,
  violations: Record<string, Set<string>>,
): Comparison["charts"] {
  const inputs: LineSeriesInput[] = series.map((item) => ({
    key: item.key,
    label: item.label,
    color: item.color,
    id: item.id,
    hidden: item.hidden,
    results: item.results,
    spreads: item.spreads,
  }));
  const byKey = new Map(series.map((item) => [item.key, item]));
  const statOf = (input: LineSeriesInput, metric: "tpot" | "ttft") => byKey.get(input.key)?.stats[metric] ?? null;
  const latencyChart = (metric: "tpot" | "ttft", name: string) =>
    lineChart(inputs, drawnDomain, {
      title: `${name} (ms) vs ${axisName(domain.axis)}`,
      unit: "ms",
      valueOf: (input, point) => {
        const resolved = statOf(input, metric);
        const value = resolved ? point[resolved.key] : undefined;
        return { value: typeof value === "number" ? value : null, spreadKey: resolved?.key ?? null };
      },
      violations,
      notes: latencyNotes(series, metric, view.stat),
    });
  const offAxisNotes = domain.offAxis.map(
    (item) =>
      `${item.levels.join(", ")} of ${item.series} not drawn: measured by ${domain.axis === "concurrency" ? "request rate" : "concurrency"}`,
  );
  const throughput = lineChart(inputs, drawnDomain, {
    title: `Output throughput (tok/s) vs ${axisName(domain.axis)}`,
    unit: "tok/s",
    valueOf: (_input, point) => ({ value: point.output_throughput ?? null, spreadKey: "output_throughput" }),
    violations,
    notes: offAxisNotes,
  });
  const efficiencyNotes = series.flatMap((item) => {
    if (item.gpuCount === null) return [`${item.label}: GPU count unknown, so no throughput per GPU`];
    if (item.efficiency.points.length === 0) return [`${item.label}: no level states both TPOT and output throughput`];
    return [];
  });
  const visible = series.filter((item) => !item.hidden);
  return {
    throughput,
    tpot: latencyChart("tpot", `${statName(view.stat)} TPOT`),
    ttft: latencyChart("ttft", `${statName(view.stat)} TTFT`),
    efficiency: {
      series: series.map(({ key, label, color, id, hidden }) => ({ key, label, color, id, hidden })),
      // Drawn like the load charts: at most DRAWN_LEVELS_MAX points of a run, its frontier likewise.
      points: Object.fromEntries(
        series.map((item) => [item.key, evenlySpaced(item.efficiency.points, DRAWN_LEVELS_MAX)]),
      ),
      frontiers: Object.fromEntries(
        series.map((item) => [item.key, evenlySpaced(item.efficiency.frontier, DRAWN_LEVELS_MAX)]),
      ),
      notes: efficiencyNotes,
      tpotStat: efficiencyStat(series, view),
    },
    singleStream: singleStreamBars(visible.map((item) => ({ name: item.label, results: item.results }))).map(
      (bar, index) => ({ ...bar, key: visible[index]!.key, color: visible[index]!.color }),
    ),
  };
}

/**
 * The verdicts, the cleanest experiment first: a like-for-like pair before one that is not, then the pair that
 * changed the fewest settings.
 */
export function verdictsInOrder(series: readonly ComparisonSeries[]): VerdictSentence[] {
  return series
    .filter((item) => item.verdict !== null)
    .map((item, order) => ({ verdict: item.verdict!, changes: item.changes.length, order }))
    .sort(
      (a, b) =>
        Number(a.verdict.caveat !== null) - Number(b.verdict.caveat !== null) ||
        a.changes - b.changes ||
        a.order - b.order,
    )
    .map((item) => item.verdict);
}
