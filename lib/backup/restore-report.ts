/**
 * The answer of POST /api/restore: counts of every line, then an entry per line of the export, in order, up to
 * MAX_REPORTED_LINES of them: a million-line file must not be answered with a million entries (1,000,000 lines of
 * `1` made a 135 MB answer). Past the cap the entries that say something are kept first (every series and saved
 * comparison line, every refused or unreadable line), then runs stored or already present, and `lines_omitted`
 * counts the rest.
 */

import type { RestoredSeries } from "@/lib/backup/series";
import type { RestoredComparison } from "@/lib/comparisons/queries";
import {
  MAX_REPORTED_LINES,
  type RefusalsCounted,
  type RestoreError,
  type RestoreLine,
} from "@/lib/ingest/restore-lines";
import type { RestoredRun } from "@/lib/runs/restore";

export type LineStatus = "stored" | "already_present" | "refused";

export interface RestoreReportLine {
  line: number;
  kind: "run" | "comparison" | "series" | "unknown";
  /** The run's id, the comparison's slug or the series' id, when the line names one. */
  id?: string;
  status: LineStatus;
  error?: RestoreError;
  /** What of a stored line could not be kept (a series' annotation whose run is missing, say). */
  notes?: string[];
}

export interface RestoreReport {
  runs: Record<LineStatus, number>;
  comparisons: Record<LineStatus, number>;
  series: Record<LineStatus, number>;
  /** Lines that are neither a run, a saved comparison nor a series (unreadable, or of another format). */
  unreadable: number;
  lines: RestoreReportLine[];
  /** Entries left out of `lines` past MAX_REPORTED_LINES (absent when none were). */
  lines_omitted?: number;
}

export { MAX_REPORTED_LINES };

/** An entry worth listing before the plain "this run is here" ones. */
function saysSomething(entry: RestoreReportLine): boolean {
  return entry.kind !== "run" || entry.status === "refused";
}

/** The counts and capped entries of a report under way, as a restore job saves them after every part. */
export interface RestoreReportState {
  runs: Record<LineStatus, number>;
  comparisons: Record<LineStatus, number>;
  series: Record<LineStatus, number>;
  unreadable: number;
  entries: number;
  notable: RestoreReportLine[];
  plain: RestoreReportLine[];
}

function byLine(a: RestoreReportLine, b: RestoreReportLine): number {
  return a.line - b.line;
}

/** The first `count` entries in line order. */
function earliest(entries: RestoreReportLine[], count: number): RestoreReportLine[] {
  return entries.sort(byLine).slice(0, count);
}

/**
 * A report built entry by entry, in any order, holding at most about 2 × MAX_REPORTED_LINES entries whatever
 * the export's length: the first MAX_REPORTED_LINES that say something and the first plain ones, by line.
 */
export class RestoreReportBuilder {
  private readonly state: RestoreReportState;

  constructor(state?: RestoreReportState) {
    this.state = state ?? {
      runs: { stored: 0, already_present: 0, refused: 0 },
      comparisons: { stored: 0, already_present: 0, refused: 0 },
      series: { stored: 0, already_present: 0, refused: 0 },
      unreadable: 0,
      entries: 0,
      notable: [],
      plain: [],
    };
  }

  add(entry: RestoreReportLine): void {
    const state = this.state;
    state.entries += 1;
    if (entry.kind === "unknown") state.unreadable += 1;
    else
      state[entry.kind === "run" ? "runs" : entry.kind === "comparison" ? "comparisons" : "series"][entry.status] += 1;
    const kept = saysSomething(entry) ? state.notable : state.plain;
    kept.push(entry);
    // Trimmed now and then, not on every entry: sorting a thousand entries per line would cost more than it saves.
    if (kept.length > 2 * MAX_REPORTED_LINES) {
      const trimmed = earliest(kept, MAX_REPORTED_LINES);
      kept.length = 0;
      kept.push(...trimmed);
    }
  }

  /** Refusals the worker counted without listing them (lib/ingest/restore-lines.ts withRefusalsBounded). */
  addCounted(counted: RefusalsCounted): void {
    const state = this.state;
    state.unreadable += counted.unknown;
    state.runs.refused += counted.run;
    state.comparisons.refused += counted.comparison;
    state.series.refused += counted.series;
    state.entries += counted.unknown + counted.run + counted.comparison + counted.series;
  }

  /** What to save to carry on later (plain JSON). */
  toState(): RestoreReportState {
    const state = this.state;
    return {
      ...state,
      notable: earliest(state.notable, MAX_REPORTED_LINES),
      plain: earliest(state.plain, MAX_REPORTED_LINES),
    };
  }

  /** Counts so far, without the entries. */
  counts(): Pick<RestoreReport, "runs" | "comparisons" | "series" | "unreadable"> {
    const { runs, comparisons, series, unreadable } = this.state;
    return { runs, comparisons, series, unreadable };
  }

  report(): RestoreReport {
    const notable = earliest(this.state.notable, MAX_REPORTED_LINES);
    const plain = earliest(this.state.plain, MAX_REPORTED_LINES - notable.length);
    const lines = [...notable, ...plain].sort(byLine);
    return {
      ...this.counts(),
      lines,
      ...(lines.length < this.state.entries ? { lines_omitted: this.state.entries - lines.length } : {}),
    };
  }
}

/** A line's entry: what storing it came to, or why it was refused before that. */
export function entryOfLine(line: RestoreLine, outcome: RestoreReportLine | undefined): RestoreReportLine {
  if (outcome) return outcome;
  if ("error" in line) {
    return {
      line: line.line,
      kind: line.kind,
      ...(line.id ? { id: line.id } : {}),
      status: "refused",
      error: line.error,
    };
  }
  return {
    line: line.line,
    kind: line.kind,
    status: "refused",
    error: { code: "internal_error", message: "not stored" },
  };
}

export function runEntry(run: RestoredRun): RestoreReportLine {
  return { line: run.line, kind: "run", id: run.id, status: run.status, ...(run.error ? { error: run.error } : {}) };
}

export function comparisonEntry(saved: RestoredComparison): RestoreReportLine {
  return {
    line: saved.line,
    kind: "comparison",
    id: saved.slug,
    status: saved.status,
    ...(saved.error ? { error: saved.error } : {}),
  };
}

export function seriesEntry(restored: RestoredSeries): RestoreReportLine {
  return {
    line: restored.line,
    kind: "series",
    id: restored.id,
    status: restored.status,
    ...(restored.error ? { error: restored.error } : {}),
    ...(restored.notes ? { notes: restored.notes } : {}),
  };
}

/** The whole report of lines read and stored at once (a restore job builds the same one part by part). */
export function buildRestoreReport(
  lines: readonly RestoreLine[],
  runs: readonly RestoredRun[],
  comparisons: readonly RestoredComparison[],
  series: readonly RestoredSeries[] = [],
): RestoreReport {
  const outcomes = new Map<number, RestoreReportLine>();
  for (const run of runs) outcomes.set(run.line, runEntry(run));
  for (const saved of comparisons) outcomes.set(saved.line, comparisonEntry(saved));
  for (const restored of series) outcomes.set(restored.line, seriesEntry(restored));
  const builder = new RestoreReportBuilder();
  for (const line of lines) builder.add(entryOfLine(line, outcomes.get(line.line)));
  return builder.report();
}
