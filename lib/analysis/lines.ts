/**
 * Line charts of a comparison, prepared for drawing: one row per level of the shared load domain (the same
 * rows on every chart, so their tooltips stay in step), each series' value or null, the band of its repeats,
 * and a dashed bridge across every level a series lacks, so a line is never broken into lone dots and a
 * missing level never reads as zero. Round y ticks, linear or log.
 */

import type { LatencyMetric, LatencyStat, ResultPoint } from "@/lib/document/schema";
import { formatNumber } from "@/lib/format";
import type { AxisTick, LoadDomain } from "./axis";
import { niceStep } from "./axis";
import type { Interval, Spread } from "./intervals";
import { levelOf } from "./levels";
import type { MetricKey } from "./metrics";

/** The statistics the page offers for latency figures. */
export const COMPARE_STATS = ["mean", "median", "p90", "p95", "p99"] as const satisfies readonly LatencyStat[];
export type CompareStat = (typeof COMPARE_STATS)[number];

export interface ResolvedStat {
  stat: CompareStat;
  key: MetricKey;
  /** The run does not state the asked-for statistic; another one is shown. */
  fallback: boolean;
}

/**
 * Which statistic of a latency a run can show: the one asked for when it states it at any level, else the
 * first it states of mean, median, p90, p95, p99. Null when it states the latency under no statistic.
 */
export function resolveStat(
  results: readonly ResultPoint[],
  metric: LatencyMetric,
  wanted: CompareStat,
): ResolvedStat | null {
  for (const stat of [wanted, ...COMPARE_STATS.filter((candidate) => candidate !== wanted)]) {
    const key = `${stat}_${metric}_ms` as MetricKey;
    if (results.some((point) => typeof point[key] === "number")) return { stat, key, fallback: stat !== wanted };
  }
  return null;
}

export interface LineSeriesInput {
  key: string;
  label: string;
  color: string;
  id?: string;
  hidden?: boolean;
  results: readonly ResultPoint[];
  spreads: Record<string, Partial<Record<MetricKey, Spread>>>;
}

export interface LineSeries {
  key: string;
  label: string;
  color: string;
  id?: string;
  hidden?: boolean;
  /** Row keys of this series' dashed bridges, one per run of missing levels: `s0_gap0`, `s0_gap1`… */
  bridges: string[];
  /** The series has a band (`s0_band`) at some level: it has repeats. */
  band: boolean;
}

export interface LineRow {
  /** The row's index: the shared tooltip's key, the same on every chart. */
  i: number;
  x: number;
  /** The level's label: "C=8", "4 req/s", "rate ∞". */
  level: string;
  [key: string]: number | string | Interval | boolean | null;
}

export interface YAxisScale {
  domain: [number, number];
  ticks: number[];
}

export interface LineChartData {
  title: string;
  unit: string;
  series: LineSeries[];
  rows: LineRow[];
  /** The shared x domain and its ticks (positions; the labels say what they are). */
  domain: [number, number];
  ticks: number[];
  tickLabels: string[];
  axis: LoadDomain["axis"];
  scale: LoadDomain["scale"];
  y: YAxisScale;
  yLog: YAxisScale | null;
  /** What the chart shows differently from what was asked ("median shown for X: it states no mean"). */
  notes: string[];
  /** At least one series has a value. */
  hasData: boolean;
}

/** Round y ticks from 0 to just above the largest value: 0, 500, 1,000 … */
export function linearYScale(max: number): YAxisScale {
  if (!(max > 0)) return { domain: [0, 1], ticks: [0, 1] };
  return roundYScale(max * 1.05);
}

/**
 * Round steps (1, 2, 2.5 or 5 times a power of ten) from 0 to the first at or above `span`; `wholeSteps` for
 * counts, whose steps are never below 1 nor fractional.
 */
export function roundYScale(span: number, options: { wholeSteps?: boolean } = {}): YAxisScale {
  let step = niceStep(span);
  if (options.wholeSteps) step = step < 1 ? 1 : Math.floor(step);
  const top = Math.max(step, Math.ceil(span / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let index = 0; index * step <= top + step / 2; index += 1) ticks.push(Number((index * step).toPrecision(12)));
  return { domain: [0, ticks[ticks.length - 1]!], ticks };
}

/** Powers of ten (and 2 and 5 times them over short spans) around the positive values; null without any. */
export function logYScale(min: number, max: number): YAxisScale | null {
  if (!(min > 0) || !(max > 0)) return null;
  const low = 10 ** Math.floor(Math.log10(min));
  const high = 10 ** Math.ceil(Math.log10(max * 1.0001));
  const decades = Math.log10(high / low);
  const factors = decades > 3 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let power = Math.log10(low); power <= Math.log10(high); power += 1) {
    for (const factor of factors) {
      const value = Number((factor * 10 ** power).toPrecision(12));
      if (value >= low && value <= high) ticks.push(value);
    }
  }
  return { domain: [low, high], ticks };
}

export interface LineChartOptions {
  title: string;
  unit: string;
  /** The figure of each series at a point, and the key its spread is kept under; null when not stated. */
  valueOf: (series: LineSeriesInput, point: ResultPoint) => { value: number | null; spreadKey: MetricKey | null };
  /** Per series, levels (keys) that violate the SLO: their dots are marked. */
  violations?: Record<string, ReadonlySet<string>>;
  notes?: string[];
  /** Turn a spread of the stored figure into the band of the drawn one (e.g. per GPU: divide). */
  bandOf?: (series: LineSeriesInput, interval: Interval) => Interval | null;
}

/** Prepare one line chart over the shared domain. */
export function lineChart(
  inputs: readonly LineSeriesInput[],
  domain: LoadDomain,
  options: LineChartOptions,
): LineChartData {
  const rows: LineRow[] = domain.levels.map((level, i) => ({ i, x: level.x, level: level.label }));
  const indexOf = new Map(domain.levels.map((level, index) => [level.key, index]));
  const series: LineSeries[] = [];
  const values: number[] = [];
  for (const input of inputs) {
    const measured: number[] = [];
    let band = false;
    for (const point of input.results) {
      const key = levelOf(point).key;
      const index = indexOf.get(key);
      if (index === undefined) continue;
      const { value, spreadKey } = options.valueOf(input, point);
      if (value === null || !Number.isFinite(value)) continue;
      const row = rows[index]!;
      row[input.key] = value;
      measured.push(index);
      values.push(value);
      const spread = spreadKey ? input.spreads[key]?.[spreadKey] : undefined;
      if (spread) {
        const interval = options.bandOf ? options.bandOf(input, spread.interval) : spread.interval;
        if (interval) {
          row[`${input.key}_band`] = interval;
          // The same interval as an error bar around the mean: a band needs two neighbours to show.
          row[`${input.key}_err`] = [Math.max(0, value - interval[0]), Math.max(0, interval[1] - value)];
          values.push(interval[1]);
          band = true;
        }
      }
      if (options.violations?.[input.key]?.has(key)) row[`${input.key}_over`] = true;
    }
    measured.sort((a, b) => a - b);
    const bridges: string[] = [];
    for (let i = 1; i < measured.length; i += 1) {
      const from = measured[i - 1]!;
      const to = measured[i]!;
      if (to - from < 2) continue;
      const bridgeKey = `${input.key}_gap${bridges.length}`;
      rows[from]![bridgeKey] = rows[from]![input.key] as number;
      rows[to]![bridgeKey] = rows[to]![input.key] as number;
      bridges.push(bridgeKey);
    }
    const { results: _results, spreads: _spreads, ...rest } = input;
    series.push({ ...rest, bridges, band });
  }
  // Every row names every series, so a missing value is an explicit null (a gap), never undefined.
  for (const row of rows) for (const input of inputs) if (!(input.key in row)) row[input.key] = null;
  const positive = values.filter((value) => value > 0);
  return {
    title: options.title,
    unit: options.unit,
    series,
    rows,
    domain: domain.domain,
    ticks: domain.ticks.map((tick: AxisTick) => tick.x),
    tickLabels: domain.ticks.map((tick: AxisTick) => tick.label),
    axis: domain.axis,
    scale: domain.scale,
    y: linearYScale(values.length > 0 ? Math.max(...values) : 0),
    yLog: positive.length > 0 ? logYScale(Math.min(...positive), Math.max(...positive)) : null,
    notes: options.notes ?? [],
    hasData: values.length > 0,
  };
}

/** "C=8: 1,234 tok/s" style text for a tick-free summary. */
export function formatValue(value: number | null, unit: string): string {
  return value === null ? "—" : `${formatNumber(value)} ${unit}`;
}
