/**
 * A comparison, computed once from the runs and the view the URL asks for: series (repeats grouped into
 * their mean), headline deltas, what changed, like-for-like checks, delta tables and chart data. The
 * compare page, saved comparisons, the link preview image and the CSV export all read this one model.
 */
import { formatChangeLine } from "@/lib/format";
import type { StoredRun } from "@/lib/runs/queries";
import type { ResultPoint } from "@/lib/runs/schema";
import { type ConfigChange, diffConfigs } from "./config-diff";
import {
  anyRunHas,
  buildDeltaTable,
  compareHeadlines,
  DEFAULT_NOISE,
  type DeltaTable,
  type HeadlineComparison,
} from "./deltas";
import { checkLikeForLike, type FairnessReport } from "./fairness";
import { levelOf } from "./levels";
import { DELTA_TABLE_METRICS, type MetricKey } from "./metrics";
import { type ParetoPoint, paretoCurve } from "./pareto";
import { groupRepeats, type Range } from "./repeats";
import {
  axisPosition,
  type ChartSeries,
  concurrencyTicks,
  type LoadAxis,
  loadAxisOf,
  type SingleStreamBar,
  seriesColor,
  singleStreamBars,
} from "./series";

export const MAX_COMPARED_RUNS = 12;
export const COMPARE_STATS = ["mean", "median", "p99"] as const;
export type CompareStat = (typeof COMPARE_STATS)[number];

/** Everything the URL of a comparison holds. */
export interface CompareView {
  runIds: string[];
  /** A run id; its configuration's series is the baseline. Null means the first run. */
  baselineId: string | null;
  /** Noise threshold in percent: changes smaller than this are "within noise". */
  noisePct: number;
  /** Series hidden from the charts, by the id of their first run. */
  hidden: string[];
  /** The latency statistic the TTFT and TPOT charts draw. */
  stat: CompareStat;
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

/** Read a comparison's view from query parameters; anything invalid falls back to its default. */
export function parseCompareView(params: Params): CompareView {
  const noise = Number(first(params.noise));
  const stat = first(params.stat);
  return {
    runIds: list(params.runs),
    baselineId: first(params.baseline)?.trim() || null,
    noisePct: Number.isFinite(noise) && noise >= 0 && noise <= 100 ? noise : DEFAULT_NOISE_PCT,
    hidden: list(params.hide),
    stat: COMPARE_STATS.includes(stat as CompareStat) ? (stat as CompareStat) : "mean",
  };
}

/** The query string of a view, defaults left out and commas kept readable: `runs=a,b&baseline=b`. */
export function compareQuery(view: CompareView): string {
  const params = new URLSearchParams();
  params.set("runs", view.runIds.join(","));
  if (view.baselineId && view.runIds.includes(view.baselineId) && view.runIds[0] !== view.baselineId)
    params.set("baseline", view.baselineId);
  if (view.noisePct !== DEFAULT_NOISE_PCT) params.set("noise", String(view.noisePct));
  const hidden = view.hidden.filter((id) => view.runIds.includes(id));
  if (hidden.length > 0) params.set("hide", hidden.join(","));
  if (view.stat !== "mean") params.set("stat", view.stat);
  return params.toString().replace(/%2C/g, ",");
}

export function compareHref(view: CompareView): string {
  return `/compare?${compareQuery(view)}`;
}

export interface ComparisonSeries extends ChartSeries {
  /** The id of the series' first run: how the URL names it (baseline, hide). */
  id: string;
  runs: { id: string; name: string }[];
  isBaseline: boolean;
  hidden: boolean;
  /** The configuration of the series (its runs share it). */
  run: StoredRun;
  /** Means over the runs, one point per load level. */
  results: ResultPoint[];
  ranges: Record<string, Partial<Record<MetricKey, Range>>>;
  headline: HeadlineComparison;
  /** Configuration changes against the baseline series; empty for the baseline. */
  changes: ConfigChange[];
}

export interface BandChartRow {
  concurrency: number | null;
  x: number;
  [key: string]: number | null | Range;
}

export interface BandChartData {
  series: ChartSeries[];
  rows: BandChartRow[];
  ticks: number[];
  axis: LoadAxis;
}

export interface Comparison {
  view: CompareView;
  series: ComparisonSeries[];
  baselineIndex: number;
  fairness: FairnessReport;
  deltaTables: DeltaTable[];
  charts: {
    throughput: BandChartData;
    tpot: BandChartData;
    ttft: BandChartData;
    pareto: { series: ChartSeries[]; curves: Record<string, ParetoPoint[]> };
    singleStream: SingleStreamBar[];
  };
  /** One-line summary for link previews: "SGLang … vs SGLang …" and the headline deltas. */
  summary: { title: string; description: string };
}

function latencyKey(metric: "tpot" | "ttft", stat: CompareStat): MetricKey {
  return `${stat}_${metric}_ms` as MetricKey;
}

/**
 * A metric against load (concurrency, or request rate for rate sweeps: see loadAxisOf) with each series'
 * min–max band (`<key>_range`) where it has repeats.
 */
export function bandChart(series: readonly ComparisonSeries[], metric: MetricKey): BandChartData {
  const axis = loadAxisOf(series, metric);
  const positions = new Set<number>();
  for (const item of series) {
    for (const point of item.results) {
      const x = axisPosition(point, axis);
      if (x !== null && point[metric] !== undefined) positions.add(x);
    }
  }
  const sorted = [...positions].sort((a, b) => a - b);
  const rows = sorted.map((x) => {
    const row: BandChartRow = { concurrency: axis === "concurrency" ? Math.round(2 ** x) : null, x };
    for (const item of series) {
      const point = item.results.find((candidate) => axisPosition(candidate, axis) === x);
      row[item.key] = point?.[metric] ?? null;
      const range = point ? item.ranges[levelOf(point).key]?.[metric] : undefined;
      if (range) row[`${item.key}_range`] = range;
    }
    return row;
  });
  return {
    series: series.map(({ key, label, color, id, hidden }) => ({ key, label, color, id, hidden })),
    rows,
    ticks: axis === "concurrency" ? concurrencyTicks(sorted) : [],
    axis,
  };
}

function summarize(series: readonly ComparisonSeries[], baselineIndex: number): Comparison["summary"] {
  const baseline = series[baselineIndex];
  if (!baseline) return { title: "Comparison", description: "" };
  const others = series.filter((_, index) => index !== baselineIndex);
  if (others.length === 0) return { title: baseline.label, description: "" };
  const title =
    others.length === 1 ? `${others[0]!.label} vs ${baseline.label}` : `${others.length} runs vs ${baseline.label}`;
  const lines = others.slice(0, 3).map((item) => {
    const parts: string[] = [];
    const single = item.headline.singleStream;
    if (single.value !== null && single.base !== null)
      parts.push(`single stream ${formatChangeLine(single.base, single.value, "tok/s")}`);
    const peak = item.headline.peak;
    if (peak.value !== null && peak.base !== null)
      parts.push(`peak ${formatChangeLine(peak.base, peak.value, "tok/s")}`);
    const changed = item.changes.slice(0, 3).map((change) => change.text);
    const what = changed.length > 0 ? `; ${changed.join(", ")}${item.changes.length > 3 ? "…" : ""}` : "";
    return `${others.length > 1 ? `${item.label}: ` : ""}${parts.join(", ")}${what}`;
  });
  return { title, description: lines.join(". ") };
}

/** Build the comparison of `runs` (already in the order the view lists them) as the view asks. */
export function buildComparison(runs: readonly StoredRun[], view: CompareView): Comparison {
  const groups = groupRepeats(runs);
  const baselineRunId =
    view.baselineId && runs.some((run) => run.id === view.baselineId) ? view.baselineId : runs[0]?.id;
  const baselineIndex = Math.max(
    0,
    groups.findIndex((group) => group.runs.some((run) => run.id === baselineRunId)),
  );
  const noise = view.noisePct / 100;
  const headlines = compareHeadlines(groups, baselineIndex, noise);
  const baselineRun = groups[baselineIndex]?.runs[0];

  const series: ComparisonSeries[] = groups.map((group, index) => {
    const run = group.runs[0]!;
    const repeats = group.runs.length;
    return {
      key: `s${index}`,
      id: run.id,
      label: repeats > 1 ? `${run.name} (×${repeats})` : run.name,
      color: seriesColor(index),
      runs: group.runs.map((member) => ({ id: member.id, name: member.name })),
      isBaseline: index === baselineIndex,
      hidden: group.runs.some((member) => view.hidden.includes(member.id)),
      run,
      results: group.results,
      ranges: group.ranges,
      headline: headlines[index]!,
      changes: index === baselineIndex || !baselineRun ? [] : diffConfigs(baselineRun, run),
    };
  });

  const metrics = DELTA_TABLE_METRICS.filter((metric) => anyRunHas(series, metric));
  // Line charts get every series (a hidden one stays in the legend, to show it again); the others only the visible.
  const visible = series.filter((item) => !item.hidden);
  return {
    view,
    series,
    baselineIndex,
    fairness: checkLikeForLike(series.map((item) => ({ label: item.label, config: item.run, results: item.results }))),
    deltaTables: metrics.map((metric) => buildDeltaTable(series, baselineIndex, metric, noise)),
    charts: {
      throughput: bandChart(series, "output_throughput"),
      tpot: bandChart(series, latencyKey("tpot", view.stat)),
      ttft: bandChart(series, latencyKey("ttft", view.stat)),
      pareto: {
        series: series.map(({ key, label, color, id, hidden }) => ({ key, label, color, id, hidden })),
        curves: Object.fromEntries(
          series.map((item) => [
            item.key,
            paretoCurve(item.results, view.stat === "median" ? "median_tpot_ms" : "mean_tpot_ms"),
          ]),
        ),
      },
      singleStream: singleStreamBars(visible.map((item) => ({ name: item.label, results: item.results }))).map(
        (bar, index) => ({
          ...bar,
          key: visible[index]!.key,
          color: visible[index]!.color,
        }),
      ),
    },
    summary: summarize(series, baselineIndex),
  };
}
