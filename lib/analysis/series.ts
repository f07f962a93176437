/**
 * Chart series and the single-stream bars. The load charts are prepared in lines.ts on the shared axis of
 * axis.ts; the chart components only draw what these return.
 */

import { headline } from "@/lib/document/derived";
import type { ResultPoint } from "@/lib/document/schema";
import { assignRunColors } from "./colors";

/** Colours come from the runs' ids (colors.ts); a run without an id takes its position's. */
function colorsOf(runs: readonly ChartRun[]): string[] {
  return assignRunColors(runs.map((run, index) => run.id ?? `#${index}`));
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
  id?: string;
  name: string;
  results: readonly ResultPoint[];
}

export function seriesOf(runs: readonly ChartRun[]): ChartSeries[] {
  const colors = colorsOf(runs);
  return runs.map((run, index) => ({ key: `s${index}`, label: run.name, color: colors[index]! }));
}

export interface SingleStreamBar {
  key: string;
  label: string;
  color: string;
  output_tok_s: number | null;
  derived: boolean;
}

export function singleStreamBars(runs: readonly ChartRun[]): SingleStreamBar[] {
  const colors = colorsOf(runs);
  return runs.map((run, index) => {
    const single = headline(run.results).single_stream;
    return {
      key: `s${index}`,
      label: run.name,
      color: colors[index]!,
      output_tok_s: single?.output_tok_s ?? null,
      derived: single?.derived ?? false,
    };
  });
}
