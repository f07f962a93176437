/**
 * The history table's rows as they read, made on the server. The table is a client component (its ticks), so
 * its rows travel to the browser as data; sending each run's summary whole (nested figures, both dates, fields
 * the table never shows) cost ~70 µs a row in the page's response, more than rendering the row. A row here is
 * flat and formatted: only what is shown.
 */
import { assignRunColors, runColor } from "@/lib/analysis/colors";
import { formatDate, formatHardware, formatLoadLevel, formatNumber } from "@/lib/format";
import type { RunSummary } from "./summaries";

export interface HistoryRow {
  id: string;
  name: string;
  /** The run's colour among the runs of its page, as in a comparison of them (lib/analysis/colors.ts). */
  color: string;
  engine: string;
  engine_version: string | null;
  model: string;
  hardware: string;
  /** Formatted output tok/s at concurrency 1, or null when not measured. */
  single_stream: string | null;
  single_stream_derived: boolean;
  /** Formatted peak output tok/s and the level it was reached at, or null. */
  peak: string | null;
  peak_level: string | null;
  /** The day measured (or uploaded when not known). */
  date: string;
  measured: boolean;
  tags: string[];
  demo: boolean;
  series_id: string | null;
}

/** A page of the history: the runs shown together are told apart by colour, as in a comparison of them. */
export function historyRowsOf(runs: readonly RunSummary[]): HistoryRow[] {
  const colors = assignRunColors(runs.map((run) => run.id));
  return runs.map((run, index) => historyRowOf(run, colors[index]));
}

export function historyRowOf(run: RunSummary, color = runColor(run.id)): HistoryRow {
  return {
    id: run.id,
    name: run.name,
    color,
    engine: run.engine,
    engine_version: run.engine_version,
    model: run.model,
    hardware: formatHardware(run.hardware),
    single_stream: run.single_stream ? formatNumber(run.single_stream.output_tok_s) : null,
    single_stream_derived: run.single_stream?.derived ?? false,
    peak: run.peak ? formatNumber(run.peak.output_tok_s) : null,
    peak_level: run.peak ? formatLoadLevel(run.peak) : null,
    date: formatDate(run.measured_at ?? run.created_at),
    measured: run.measured_at !== null,
    tags: run.tags,
    demo: run.tags.includes("demo"),
    series_id: run.series_id,
  };
}
