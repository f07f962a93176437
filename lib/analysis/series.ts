/**
 * Series colours and the single-stream bars. The load charts are prepared in lines.ts on the shared axis of
 * axis.ts; the chart components only draw what these return.
 */

import { headline } from "@/lib/runs/derived";
import type { ResultPoint } from "@/lib/runs/schema";

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

interface ChartRun {
  name: string;
  results: readonly ResultPoint[];
}

export function seriesOf(runs: readonly ChartRun[]): ChartSeries[] {
  return runs.map((run, index) => ({ key: `s${index}`, label: run.name, color: seriesColor(index) }));
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
