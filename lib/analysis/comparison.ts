/**
 * A comparison, computed once from the runs and the view the URL asks for: series (repeats gathered into
 * their mean and spread), headline deltas, what changed, the verdict line, like-for-like checks, the SLO
 * point and cost, delta tables and chart data on one shared load axis. The compare page, saved comparisons,
 * the link preview image and the CSV export all read this one model.
 */

import type { ResultPoint } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { formatNumber, formatPercentChange, relativeChange } from "@/lib/format";
import { axisName, type LoadDomain, loadDomain } from "./axis";
import { assignRunColors } from "./colors";
import { type ConfigChange, diffConfigs } from "./config-diff";
import {
  buildDeltaTable,
  compareHeadlines,
  DEFAULT_NOISE,
  type DeltaFigure,
  type DeltaTable,
  type HeadlineComparison,
  judgeChange,
  storedFigure,
  type Verdict,
} from "./deltas";
import {
  type EfficiencyPoint,
  efficiencyPoints,
  frontierAt,
  interactivity,
  paretoFrontier,
  perGpu,
  roundPointIn,
  sharedRange,
} from "./efficiency";
import { checkLikeForLike, type FairnessReport } from "./fairness";
import { relativeHalfRange, type Spread } from "./intervals";
import { levelOf, unionLevels } from "./levels";
import {
  COMPARE_STATS,
  type CompareStat,
  type LineChartData,
  type LineSeriesInput,
  lineChart,
  type ResolvedStat,
  resolveStat,
} from "./lines";
import { DELTA_TABLE_METRICS, type MetricKey } from "./metrics";
import { groupRepeats, repeatsBaseName } from "./repeats";
import { type SingleStreamBar, singleStreamBars } from "./series";
import {
  costPerMillionTokens,
  DEFAULT_SLO_STAT,
  type GpuPrices,
  hasPrices,
  hasTargets,
  priceFor,
  type SloPoint,
  type SloTargets,
  sloPoint,
  sloText,
} from "./slo";
import { type VerdictFigures, verdictLine, verdictSides } from "./verdict";

export { COMPARE_STATS, type CompareStat } from "./lines";

export const MAX_COMPARED_RUNS = 12;

/**
 * At most this many load levels are drawn (per run and chart, and in the charts' shared tooltip and tables). A
 * sweep of 1,000 levels on a chart a few hundred pixels wide shows nothing that 32 of them spread along the axis do
 * not (on a log2 axis most of the 1,000 crowd its last octave), and every level drawn costs the page its figures
 * for every run (the tooltip alone ~8 kB a level for 12 runs): 12 runs of 1,000 levels made a 47 MB page.
 */
export const DRAWN_LEVELS_MAX = 32;
/**
 * At most this many rows in each delta table on the page: a row is a cell for every run in each of up to 15 tables,
 * ~200 bytes a cell in the page's HTML and its data together (12 runs: up to 2,880 cells). The CSV export has every
 * level.
 */
export const TABLE_LEVELS_MAX = 16;

/**
 * Which of `levels` (in load order, each at its x) a page shows when there are more than `max`: those in `keep`
 * first (in their order, as many as fit), the lowest and the highest load, then, one at a time, the level farthest
 * (in x) from every level already chosen, so the rest spread evenly over the axis. Null when all of them fit.
 */
export function pickLevels(
  levels: readonly { key: string; x: number }[],
  keep: readonly string[],
  max: number,
): Set<string> | null {
  if (levels.length <= max) return null;
  const present = new Set(levels.map((level) => level.key));
  const chosen = new Set<string>();
  const first = levels[0];
  const last = levels[levels.length - 1];
  for (const key of [first?.key, last?.key, ...keep]) {
    if (chosen.size >= max) break;
    if (key !== undefined && present.has(key)) chosen.add(key);
  }
  // Each level's distance to the nearest chosen one, updated as levels are chosen: max × levels steps in all.
  const distance = levels.map(() => Number.POSITIVE_INFINITY);
  const update = (x: number) => {
    levels.forEach((level, index) => {
      distance[index] = Math.min(distance[index]!, Math.abs(level.x - x));
    });
  };
  for (const level of levels) if (chosen.has(level.key)) update(level.x);
  while (chosen.size < max) {
    let farthest = -1;
    levels.forEach((level, index) => {
      if (chosen.has(level.key)) return;
      if (farthest === -1 || distance[index]! > distance[farthest]!) farthest = index;
    });
    if (farthest === -1) break;
    const level = levels[farthest]!;
    chosen.add(level.key);
    update(level.x);
  }
  return chosen;
}

/** At most `max` of `items`, evenly spaced by position, the first and the last always among them. */
function evenlySpaced<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 1) return items.slice(0, max);
  return Array.from({ length: max }, (_, index) => items[Math.round((index * (items.length - 1)) / (max - 1))]!);
}

/**
 * The levels a reader of a long sweep needs to see whatever else is left out: single stream (C=1), each run's peak
 * throughput, and each run's first level past its SLO.
 */
function levelsToKeep(series: readonly ComparisonSeries[], domain: LoadDomain): string[] {
  const order = new Map(domain.levels.map((level, index) => [level.key, index]));
  const keys: string[] = ["c:1"];
  for (const item of series) {
    const peak = item.headline.peak;
    if (peak.concurrency !== null) keys.push(`c:${peak.concurrency}`);
    else if (peak.request_rate !== null) keys.push(`r:${peak.request_rate}`);
  }
  for (const item of series) {
    const violating = [...(item.slo?.violating ?? [])].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    if (violating[0]) keys.push(violating[0]);
  }
  return keys;
}

/** Everything the URL of a comparison holds. */
export interface CompareView {
  runIds: string[];
  /** A run id; its configuration's series is the baseline. Null means the first run. */
  baselineId: string | null;
  /** Noise threshold in percent: changes smaller than this are "within noise". Null: the default (see noiseOf). */
  noisePct: number | null;
  /** Series hidden from the charts, by the id of their first run. */
  hidden: string[];
  /** The latency statistic the TTFT and TPOT charts, tooltips and interactivity use. */
  stat: CompareStat;
  /** Line charts on a log y axis. */
  logY: boolean;
  /** Latency targets for the SLO view. */
  slo: SloTargets;
  /** $/GPU-hour, one price or one per GPU model. */
  prices: GpuPrices;
  /** The interactivity (tok/s/user) to compare throughput per GPU at; null picks one per pair. */
  atUser: number | null;
}

export const DEFAULT_NOISE_PCT = DEFAULT_NOISE * 100;

type Params = Record<string, string | string[] | undefined>;

function list(value: string | string[] | undefined): string[] {
  const parts = (Array.isArray(value) ? value : value ? [value] : []).flatMap((item) => item.split(","));
  return [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A positive number of at most `max`, else null. */
function positive(value: string | undefined, max: number): number | null {
  if (value === undefined || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 && number <= max ? number : null;
}

const MAX_PRICE = 10_000;
const MAX_LATENCY_MS = 3_600_000;

/**
 * `price=2.5` (every GPU) or `price=H100:3.1,RTX PRO 6000 Blackwell:2.5` (per GPU model, matched
 * case-insensitively; a bare number among them prices the rest). Invalid entries are ignored.
 */
export function parsePrices(value: string | undefined): GpuPrices {
  const prices: GpuPrices = { all: null, byGpu: {} };
  if (!value) return prices;
  for (const entry of value.split(",")) {
    const colon = entry.lastIndexOf(":");
    if (colon === -1) {
      const price = positive(entry, MAX_PRICE);
      if (price !== null) prices.all = price;
      continue;
    }
    const gpu = entry.slice(0, colon).trim().toLowerCase();
    const price = positive(entry.slice(colon + 1), MAX_PRICE);
    if (gpu && gpu.length <= 200 && price !== null) prices.byGpu[gpu] = price;
  }
  return prices;
}

/**
 * Why a `price` value the API was sent is not one (the page's URL ignores a bad entry; a saved comparison
 * refuses it, naming the entry): null when every entry is a price or a `GPU:price` pair.
 */
export function priceProblem(value: string): string | null {
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const colon = entry.lastIndexOf(":");
    const gpu = colon === -1 ? null : entry.slice(0, colon).trim();
    const price = positive(colon === -1 ? entry : entry.slice(colon + 1), MAX_PRICE);
    if (price === null)
      return `"${entry.slice(0, 60)}" is not a price: a $/GPU-hour above 0 and at most ${MAX_PRICE}, alone or as GPU:price`;
    if (gpu !== null && (gpu === "" || gpu.length > 200))
      return `"${entry.slice(0, 60)}" needs a GPU name before its price`;
  }
  return null;
}

export function pricesQuery(prices: GpuPrices): string {
  const parts = Object.entries(prices.byGpu).map(([gpu, price]) => `${gpu}:${price}`);
  if (prices.all !== null) parts.unshift(String(prices.all));
  return parts.join(",");
}

/** Read a comparison's view from query parameters; anything invalid falls back to its default. */
export function parseCompareView(params: Params): CompareView {
  const noiseText = first(params.noise);
  const noise = noiseText === undefined || noiseText.trim() === "" ? Number.NaN : Number(noiseText);
  const stat = first(params.stat);
  const sloStat = first(params.slo_stat);
  return {
    runIds: list(params.runs),
    baselineId: first(params.baseline)?.trim() || null,
    noisePct: Number.isFinite(noise) && noise >= 0 && noise <= 100 ? noise : null,
    hidden: list(params.hide),
    stat: COMPARE_STATS.includes(stat as CompareStat) ? (stat as CompareStat) : "mean",
    logY: first(params.logy) === "1",
    slo: {
      ttft_ms: positive(first(params.slo_ttft), MAX_LATENCY_MS),
      tpot_ms: positive(first(params.slo_tpot), MAX_LATENCY_MS),
      stat: COMPARE_STATS.includes(sloStat as CompareStat) ? (sloStat as CompareStat) : DEFAULT_SLO_STAT,
    },
    prices: parsePrices(first(params.price)),
    atUser: positive(first(params.at_user), 1_000_000),
  };
}

/** The query string of a view, defaults left out and commas kept readable: `runs=a,b&baseline=b`. */
export function compareQuery(view: CompareView): string {
  const params = new URLSearchParams();
  params.set("runs", view.runIds.join(","));
  if (view.baselineId && view.runIds.includes(view.baselineId) && view.runIds[0] !== view.baselineId)
    params.set("baseline", view.baselineId);
  if (view.noisePct !== null) params.set("noise", String(view.noisePct));
  const hidden = view.hidden.filter((id) => view.runIds.includes(id));
  if (hidden.length > 0) params.set("hide", hidden.join(","));
  if (view.stat !== "mean") params.set("stat", view.stat);
  if (view.logY) params.set("logy", "1");
  if (view.slo.ttft_ms !== null) params.set("slo_ttft", String(view.slo.ttft_ms));
  if (view.slo.tpot_ms !== null) params.set("slo_tpot", String(view.slo.tpot_ms));
  if (hasTargets(view.slo) && view.slo.stat !== DEFAULT_SLO_STAT) params.set("slo_stat", view.slo.stat);
  if (hasPrices(view.prices)) params.set("price", pricesQuery(view.prices));
  if (view.atUser !== null) params.set("at_user", String(view.atUser));
  return params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
}

export function compareHref(view: CompareView): string {
  return `/compare?${compareQuery(view)}`;
}

export interface SeriesSlo extends SloPoint {
  /** Output tok/s per GPU at the SLO point; null when the GPU count is unknown. */
  tok_s_per_gpu: number | null;
  /** $ per million output tokens there. */
  cost_per_m_tokens: number | null;
  /** The figure compared against the baseline's: per GPU when both state a GPU count, else all GPUs. */
  compared: { value: number | null; base: number | null; unit: string; change: number | null; verdict: Verdict };
}

export interface EqualInteractivity {
  /** tok/s per user the two are compared at. */
  at: number;
  value: number;
  base: number;
  change: number | null;
  verdict: Verdict;
}

export interface ComparisonSeries {
  key: string;
  /** The id of the series' first run: how the URL names it (baseline, hide). */
  id: string;
  /** The series' name: its run's, or "… · mean of N repeats". */
  label: string;
  /** The run name without the repeats' wording. */
  name: string;
  color: string;
  runs: { id: string; name: string }[];
  isBaseline: boolean;
  hidden: boolean;
  /** The configuration of the series (its runs share it). */
  run: StoredRun;
  /** Means over the repeats, one point per load level. */
  results: ResultPoint[];
  spreads: Record<string, Partial<Record<MetricKey, Spread>>>;
  /** The most repeats a load level has (1: none). */
  repeats: number;
  gpuCount: number | null;
  /** $/GPU-hour that applies to the series' GPU, when prices are set. */
  price: number | null;
  headline: HeadlineComparison;
  /** Configuration changes against the baseline series; empty for the baseline. */
  changes: ConfigChange[];
  /** The one-line verdict against the baseline; null for the baseline. */
  verdict: string | null;
  /** The statistic shown for TPOT and TTFT (the asked-for one, or what the run states instead). */
  stats: Record<"tpot" | "ttft" | "itl" | "e2el", ResolvedStat | null>;
  slo: SeriesSlo | null;
  /** Throughput per GPU against interactivity: every level, and the frontier. */
  efficiency: { points: EfficiencyPoint[]; frontier: EfficiencyPoint[] };
  /** Against the baseline at equal interactivity; a reason when it cannot be said. */
  atInteractivity: EqualInteractivity | { reason: string } | null;
}

export interface TooltipFigure {
  name: string;
  text: string;
  change: string | null;
  verdict: Verdict;
}

export interface TooltipEntry {
  key: string;
  label: string;
  color: string;
  isBaseline: boolean;
  overSlo: boolean;
  figures: TooltipFigure[];
}

export interface EfficiencyChartData {
  series: { key: string; label: string; color: string; id: string; hidden: boolean }[];
  points: Record<string, EfficiencyPoint[]>;
  frontiers: Record<string, EfficiencyPoint[]>;
  /** Series left out because their GPU count or TPOT is unknown, with why. */
  notes: string[];
}

export interface Comparison {
  view: CompareView;
  series: ComparisonSeries[];
  baselineIndex: number;
  domain: LoadDomain;
  /**
   * The levels the page draws: `domain` with at most DRAWN_LEVELS_MAX of its levels (every one when it has no more).
   * The charts, their tooltip and the tables under them are of these.
   */
  drawnDomain: LoadDomain;
  /**
   * The levels the page's delta tables list when the runs have more than TABLE_LEVELS_MAX (null: every level).
   * `deltaTables` hold only these unless the comparison was built with `everyLevel` (the CSV export).
   */
  tableLevelKeys: string[] | null;
  /** How many load levels the runs have together (the rows of a complete delta table). */
  levelCount: number;
  fairness: FairnessReport;
  /** The noise threshold in use, in percent, and where it came from. */
  noise: { pct: number; source: "view" | "default" | "repeats" };
  deltaTables: DeltaTable[];
  /** Per row of the line charts (same order), every series' figures at that level: the shared tooltip. */
  tooltip: TooltipEntry[][];
  charts: {
    throughput: LineChartData;
    tpot: LineChartData;
    ttft: LineChartData;
    efficiency: EfficiencyChartData;
    singleStream: SingleStreamBar[];
  };
  /** The verdict lines of the non-baseline series, in order (the first is the page's headline). */
  verdicts: string[];
  /** One-line summary for link previews: "SGLang … vs SGLang …" and the headline deltas. */
  summary: { title: string; description: string };
}

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

type Draft = Omit<ComparisonSeries, "headline" | "verdict" | "slo" | "atInteractivity">;

function latencyNotes(series: readonly Draft[], metric: "tpot" | "ttft", stat: CompareStat): string[] {
  return series.flatMap((item) => {
    const resolved = item.stats[metric];
    return resolved?.fallback ? [`${resolved.stat} shown for ${item.label}: it states no ${stat}`] : [];
  });
}

function sloFor(item: Draft, domain: LoadDomain, view: CompareView): Omit<SeriesSlo, "compared"> | null {
  if (!hasTargets(view.slo)) return null;
  const point = sloPoint(item.results, domain, view.slo);
  const perGpuValue = perGpu(point.output_tok_s, item.gpuCount);
  return { ...point, tok_s_per_gpu: perGpuValue, cost_per_m_tokens: costPerMillionTokens(item.price, perGpuValue) };
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
        text: `$${formatNumber(cost)} / M tokens`,
        change: item.isBaseline || baseCost === null ? null : formatPercentChange(relativeChange(baseCost, cost)),
        verdict:
          item.isBaseline || baseCost === null
            ? "none"
            : judgeChange(relativeChange(baseCost, cost), "lower", 0, undefined, undefined),
      });
  }
  return figures;
}

function summarize(series: readonly ComparisonSeries[], baselineIndex: number, verdicts: readonly string[]) {
  const baseline = series[baselineIndex];
  if (!baseline) return { title: "Comparison", description: "" };
  const others = series.filter((_, index) => index !== baselineIndex);
  if (others.length === 0) return { title: baseline.label, description: "" };
  const title =
    others.length === 1 ? `${others[0]!.label} vs ${baseline.label}` : `${others.length} runs vs ${baseline.label}`;
  return { title, description: verdicts.slice(0, 3).join(". ") };
}

export interface BuildOptions {
  /**
   * Delta tables of every load level (the CSV export). Otherwise of the levels the page lists (tableLevelKeys):
   * the rest of 12 runs × 1,000 levels was ~100 ms of a page's 200 ms for rows it does not show.
   */
  everyLevel?: boolean;
}

/** Build the comparison of `runs` (already in the order the view lists them) as the view asks. */
export function buildComparison(runs: readonly StoredRun[], view: CompareView, options: BuildOptions = {}): Comparison {
  const groups = groupRepeats(runs);
  const baselineRunId =
    view.baselineId && runs.some((run) => run.id === view.baselineId) ? view.baselineId : runs[0]?.id;
  const baselineIndex = Math.max(
    0,
    groups.findIndex((group) => group.runs.some((run) => run.id === baselineRunId)),
  );
  const baselineRun = groups[baselineIndex]?.runs[0];

  const colors = assignRunColors(groups.map((group) => group.runs[0]!.id));
  const drafts: Draft[] = groups.map((group, index) => {
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
    return {
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
      repeats: group.repeats,
      gpuCount,
      price: hasPrices(view.prices) ? priceFor(view.prices, run.hardware?.gpu) : null,
      changes: index === baselineIndex || !baselineRun ? [] : diffConfigs(baselineRun, run),
      stats,
      efficiency: { points, frontier: paretoFrontier(points) },
    };
  });

  const noise = noiseOf(view, drafts);
  const noiseFraction = noise.pct / 100;
  const headlines = compareHeadlines(drafts, baselineIndex, noiseFraction);
  const domain = loadDomain(drafts);
  const slos = drafts.map((item) => sloFor(item, domain, view));
  const baseDraft = drafts[baselineIndex];
  const baseSlo = slos[baselineIndex] ?? null;

  const series: ComparisonSeries[] = drafts.map((item, index) => {
    const own = slos[index] ?? null;
    let slo: SeriesSlo | null = null;
    if (own) {
      const perGpuBoth = item.gpuCount !== null && (baseDraft?.gpuCount ?? null) !== null;
      const value = perGpuBoth ? own.tok_s_per_gpu : own.output_tok_s;
      const base = baseSlo ? (perGpuBoth ? baseSlo.tok_s_per_gpu : baseSlo.output_tok_s) : null;
      const change = item.isBaseline ? null : relativeChange(base, value);
      slo = {
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
    const atInteractivity =
      item.isBaseline || !baseDraft ? null : equalInteractivity(item, baseDraft, view.atUser, noiseFraction);
    const headline = headlines[index]!;
    let verdict: string | null = null;
    if (!item.isBaseline && baseDraft) {
      const figures: VerdictFigures = {
        singleStream: {
          base: headline.singleStream.base,
          value: headline.singleStream.value,
          inconclusive: headline.singleStream.verdict === "inconclusive",
        },
        peak: {
          base: headline.peak.base,
          value: headline.peak.value,
          inconclusive: headline.peak.verdict === "inconclusive",
        },
        slo:
          slo && slo.compared.value !== null && slo.compared.base !== null
            ? {
                text: `SLO ${sloText(view.slo)}`,
                base: slo.compared.base,
                value: slo.compared.value,
                unit: slo.compared.unit,
              }
            : undefined,
        interactivity:
          atInteractivity && "at" in atInteractivity
            ? { at: atInteractivity.at, base: atInteractivity.base, value: atInteractivity.value }
            : undefined,
      };
      verdict = verdictLine(verdictSides(item.changes, { label: item.label, baseLabel: baseDraft.label }), figures);
    }
    return { ...item, headline, slo, atInteractivity, verdict };
  });

  const base = series[baselineIndex];
  const keep = levelsToKeep(series, domain);
  const drawnKeys = pickLevels(domain.levels, keep, DRAWN_LEVELS_MAX);
  const drawnDomain = drawnKeys
    ? { ...domain, levels: domain.levels.filter((level) => drawnKeys.has(level.key)) }
    : domain;
  const violations = Object.fromEntries(series.map((item) => [item.key, new Set(item.slo?.violating ?? [])] as const));
  // Looked up per level and series (tooltip, delta tables): searched per lookup they were quadratic in the levels,
  // most of the 1 s a comparison of 12 runs × 1,000 levels took.
  const byLevel = new Map(series.map((item) => [item, pointsByLevel(item.results)] as const));
  const pointsOf = (item: ComparisonSeries) => byLevel.get(item) ?? pointsByLevel(item.results);
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

  // Delta tables: the stored figures the runs have, per GPU and cost where they can be computed.
  const noiseArg = noiseFraction;
  const overSlo = (run: ComparisonSeries, _index: number, levelKey: string) =>
    violations[run.key]?.has(levelKey) ?? false;
  const stored = DELTA_TABLE_METRICS.filter((metric) =>
    series.some((item) => item.results.some((point) => point[metric] !== undefined)),
  );
  const scaled = (spread: Spread | undefined, divide: number): Spread | undefined =>
    spread
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
        spreadOf: (run, key) => (run.gpuCount ? scaled(run.spreads[key]?.output_throughput, run.gpuCount) : undefined),
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
  const deltaTables = figures.map((figure) =>
    buildDeltaTable(series, baselineIndex, figure, noiseArg, overSlo, rowLevels),
  );

  const tooltip = drawnDomain.levels.map((level) =>
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

  const efficiencyNotes = series.flatMap((item) => {
    if (item.gpuCount === null) return [`${item.label}: GPU count unknown, so no throughput per GPU`];
    if (item.efficiency.points.length === 0) return [`${item.label}: no level states both TPOT and output throughput`];
    return [];
  });
  const visible = series.filter((item) => !item.hidden);
  // The cleanest experiment first: the pair that changed the fewest settings is the page's headline.
  const verdicts = series
    .filter((item) => item.verdict !== null)
    .map((item, order) => ({ text: item.verdict!, changes: item.changes.length, order }))
    .sort((a, b) => a.changes - b.changes || a.order - b.order)
    .map((item) => item.text);
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
  return {
    view,
    series,
    baselineIndex,
    domain,
    drawnDomain,
    tableLevelKeys: tableKeys ? allLevels.filter((level) => tableKeys.has(level.key)).map((level) => level.key) : null,
    levelCount: allLevels.length,
    fairness: checkLikeForLike(series.map((item) => ({ label: item.label, config: item.run, results: item.results }))),
    noise,
    deltaTables,
    tooltip,
    charts: {
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
      },
      singleStream: singleStreamBars(visible.map((item) => ({ name: item.label, results: item.results }))).map(
        (bar, index) => ({ ...bar, key: visible[index]!.key, color: visible[index]!.color }),
      ),
    },
    verdicts,
    summary: summarize(series, baselineIndex, verdicts),
  };
}

export function statName(stat: CompareStat): string {
  return stat === "mean" ? "Mean" : stat === "median" ? "Median" : stat.toUpperCase();
}
