/**
 * Chart data preparation, kept pure so it can be tested: the chart components only draw what this returns.
 * Series are aligned by load level; a level a run was not measured at is null (a gap), never zero.
 */

import { headline } from "@/lib/runs/derived";
import type { ResultPoint } from "@/lib/runs/schema";
import type { MetricKey } from "./metrics";

/** Twelve colours that stay distinct on white and on near-black backgrounds. Position i keeps colour i. */
export const SERIES_COLORS = [
  "#2563eb", // blue
  "#ea580c", // orange
  "#16a34a", // green
  "#db2777", // pink
  "#9333ea", // purple
  "#0891b2", // cyan
  "#ca8a04", // amber
  "#dc2626", // red
  "#4f46e5", // indigo
  "#65a30d", // lime
  "#0d9488", // teal
  "#a16207", // brown
] as const;

export function seriesColor(index: number): string {
  return SERIES_COLORS[index % SERIES_COLORS.length] ?? "#2563eb";
}

export interface ChartSeries {
  /** The data key in each row: `s0`, `s1`…, one per compared run in order. */
  key: string;
  label: string;
  color: string;
  /** The id the URL uses for the series (its first run's id), when the chart lets people hide series. */
  id?: string;
  /** Hidden from the chart (still listed in its legend, to show it again). */
  hidden?: boolean;
}

export interface ConcurrencyRow {
  /** The load level of the row: a concurrency, or (on a request-rate axis) null. */
  concurrency: number | null;
  /** The chart's x position: log2(concurrency), so 1, 2, 4 … 128 are evenly spaced; or the request rate. */
  x: number;
  [seriesKey: string]: number | null;
}

/** What the x axis counts: concurrent requests (log2 scale) or requests per second (linear). */
export type LoadAxis = "concurrency" | "request_rate";

/** "concurrency" or "request rate", for chart titles. */
export function axisName(axis: LoadAxis): string {
  return axis === "concurrency" ? "concurrency" : "request rate";
}

export interface ConcurrencyChartData {
  series: ChartSeries[];
  rows: ConcurrencyRow[];
  /** x positions of the axis ticks (log2 of 1, 2, 4 …) covering the data; empty on a request-rate axis. */
  ticks: number[];
  axis: LoadAxis;
}

interface ChartRun {
  name: string;
  results: readonly ResultPoint[];
}

export function seriesOf(runs: readonly ChartRun[]): ChartSeries[] {
  return runs.map((run, index) => ({ key: `s${index}`, label: run.name, color: seriesColor(index) }));
}

/**
 * The axis a chart of `metric` is drawn on: concurrency when any run has the metric at a concurrency
 * level, else request rate when any has it at a finite rate (a rate sweep from GuideLLM, SGLang or
 * inference-perf), else concurrency (and the chart says nothing was measured).
 */
export function loadAxisOf(runs: readonly { results: readonly ResultPoint[] }[], metric: MetricKey): LoadAxis {
  const has = (test: (point: ResultPoint) => boolean) =>
    runs.some((run) => run.results.some((point) => point[metric] !== undefined && test(point)));
  if (has((point) => point.concurrency !== undefined)) return "concurrency";
  if (has((point) => typeof point.request_rate === "number")) return "request_rate";
  return "concurrency";
}

/** The x position of a point on the axis, or null when the point has no place on it. */
export function axisPosition(point: ResultPoint, axis: LoadAxis): number | null {
  if (axis === "concurrency") return point.concurrency !== undefined ? Math.log2(point.concurrency) : null;
  return point.concurrency === undefined && typeof point.request_rate === "number" ? point.request_rate : null;
}

/** log2 ticks from the lowest to the highest concurrency: 0, 1, 2 … for 1, 2, 4 … */
export function concurrencyTicks(xs: readonly number[]): number[] {
  if (xs.length === 0) return [];
  const ticks: number[] = [];
  for (let x = Math.floor(Math.min(...xs)); x <= Math.ceil(Math.max(...xs)); x += 1) ticks.push(x);
  return ticks;
}

/**
 * One row per load level measured by any run, on the axis loadAxisOf picks. A level a run was not measured
 * at is null, a gap; an unbounded request rate has no place on a rate axis.
 */
export function concurrencySeries(runs: readonly ChartRun[], metric: MetricKey): ConcurrencyChartData {
  const series = seriesOf(runs);
  const axis = loadAxisOf(runs, metric);
  const positions = new Set<number>();
  for (const run of runs) {
    for (const point of run.results) {
      const x = axisPosition(point, axis);
      if (x !== null && point[metric] !== undefined) positions.add(x);
    }
  }
  const sorted = [...positions].sort((a, b) => a - b);
  const rows = sorted.map((x) => {
    const row: ConcurrencyRow = { concurrency: axis === "concurrency" ? Math.round(2 ** x) : null, x };
    runs.forEach((run, index) => {
      const value = run.results.find((point) => axisPosition(point, axis) === x)?.[metric];
      row[`s${index}`] = value ?? null;
    });
    return row;
  });
  return { series, rows, ticks: axis === "concurrency" ? concurrencyTicks(sorted) : [], axis };
}

export interface SingleStreamBar {
  key: string;
  label: string;
  color: string;
  output_tok_s: number | null;
  derived: boolean;
}

export function singleStreamBars(runs: readonly ChartRun[]): SingleStreamBar[] {
  return runs.map((run, index) => {
    const single = headline(run.results).single_stream;
    return {
      key: `s${index}`,
      label: run.name,
      color: seriesColor(index),
      output_tok_s: single?.output_tok_s ?? null,
      derived: single?.derived ?? false,
    };
  });
}
