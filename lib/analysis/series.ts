/**
 * Chart data preparation, kept pure so it can be tested: the chart components only draw what this returns.
 * Series are aligned by load level; a level a run was not measured at is null (a gap), never zero.
 */
import type { ResultPoint } from "@/lib/runs/schema";
import { headline } from "@/lib/runs/derived";
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
  concurrency: number;
  /** log2(concurrency): the chart's x position, so 1, 2, 4 … 128 are evenly spaced. */
  x: number;
  [seriesKey: string]: number | null;
}

export interface ConcurrencyChartData {
  series: ChartSeries[];
  rows: ConcurrencyRow[];
  /** x positions of the axis ticks (log2 of 1, 2, 4 …) covering the data. */
  ticks: number[];
}

interface ChartRun {
  name: string;
  results: readonly ResultPoint[];
}

export function seriesOf(runs: readonly ChartRun[]): ChartSeries[] {
  return runs.map((run, index) => ({ key: `s${index}`, label: run.name, color: seriesColor(index) }));
}

/** One row per concurrency level measured by any run; request-rate-only points have no place on this axis. */
export function concurrencySeries(runs: readonly ChartRun[], metric: MetricKey): ConcurrencyChartData {
  const series = seriesOf(runs);
  const levels = new Set<number>();
  for (const run of runs) {
    for (const point of run.results) {
      if (point.concurrency !== undefined && point[metric] !== undefined) levels.add(point.concurrency);
    }
  }
  const sorted = [...levels].sort((a, b) => a - b);
  const rows = sorted.map((concurrency) => {
    const row: ConcurrencyRow = { concurrency, x: Math.log2(concurrency) };
    runs.forEach((run, index) => {
      const value = run.results.find((point) => point.concurrency === concurrency)?.[metric];
      row[`s${index}`] = value ?? null;
    });
    return row;
  });
  const ticks: number[] = [];
  if (sorted.length > 0) {
    const low = Math.floor(Math.log2(sorted[0] ?? 1));
    const high = Math.ceil(Math.log2(sorted[sorted.length - 1] ?? 1));
    for (let x = low; x <= high; x += 1) ticks.push(x);
  }
  return { series, rows, ticks };
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
