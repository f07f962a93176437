/**
 * The answer of POST /api/restore: counts of every line, then an entry per line of the export, in order, up to
 * MAX_REPORTED_LINES of them: a million-line file must not be answered with a million entries (1,000,000 lines of
 * `1` made a 135 MB answer). Past the cap the entries that say something are kept first (every series and saved
 * comparison line, every refused or unreadable line), then runs stored or already present, and `lines_omitted`
 * counts the rest.
 */
import type { RestoredComparison } from "@/lib/comparisons/queries";
import type { RestoredSeries } from "@/lib/series/export";
import type { RestoredRun } from "./queries";
import type { RestoreError, RestoreLine } from "./restore";

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

/** The most entries an answer lists. */
export const MAX_REPORTED_LINES = 1_000;

/** An entry worth listing before the plain "this run is here" ones. */
function saysSomething(entry: RestoreReportLine): boolean {
  return entry.kind !== "run" || entry.status === "refused";
}

/** At most MAX_REPORTED_LINES entries, in line order: those that say something first, then the others. */
function cappedEntries(entries: RestoreReportLine[]): RestoreReportLine[] {
  if (entries.length <= MAX_REPORTED_LINES) return entries;
  const notable = entries.filter(saysSomething).slice(0, MAX_REPORTED_LINES);
  const room = MAX_REPORTED_LINES - notable.length;
  const plain = room > 0 ? entries.filter((entry) => !saysSomething(entry)).slice(0, room) : [];
  return [...notable, ...plain].sort((a, b) => a.line - b.line);
}

export function buildRestoreReport(
  lines: readonly RestoreLine[],
  runs: readonly RestoredRun[],
  comparisons: readonly RestoredComparison[],
  series: readonly RestoredSeries[] = [],
): RestoreReport {
  const byLine = new Map<number, RestoreReportLine>();
  for (const run of runs) {
    byLine.set(run.line, {
      line: run.line,
      kind: "run",
      id: run.id,
      status: run.status,
      ...(run.error ? { error: run.error } : {}),
    });
  }
  for (const saved of comparisons) {
    byLine.set(saved.line, {
      line: saved.line,
      kind: "comparison",
      id: saved.slug,
      status: saved.status,
      ...(saved.error ? { error: saved.error } : {}),
    });
  }
  for (const restored of series) {
    byLine.set(restored.line, {
      line: restored.line,
      kind: "series",
      id: restored.id,
      status: restored.status,
      ...(restored.error ? { error: restored.error } : {}),
      ...(restored.notes ? { notes: restored.notes } : {}),
    });
  }
  const report: RestoreReport = {
    runs: { stored: 0, already_present: 0, refused: 0 },
    comparisons: { stored: 0, already_present: 0, refused: 0 },
    series: { stored: 0, already_present: 0, refused: 0 },
    unreadable: 0,
    lines: [],
  };
  for (const line of lines) {
    const entry: RestoreReportLine =
      byLine.get(line.line) ??
      ("error" in line
        ? {
            line: line.line,
            kind: line.kind,
            ...(line.id ? { id: line.id } : {}),
            status: "refused",
            error: line.error,
          }
        : {
            line: line.line,
            kind: line.kind,
            status: "refused",
            error: { code: "internal_error", message: "not stored" },
          });
    report.lines.push(entry);
    if (entry.kind === "unknown") report.unreadable += 1;
    else
      report[entry.kind === "run" ? "runs" : entry.kind === "comparison" ? "comparisons" : "series"][entry.status] += 1;
  }
  const listed = cappedEntries(report.lines);
  if (listed.length < report.lines.length) {
    report.lines_omitted = report.lines.length - listed.length;
    report.lines = listed;
  }
  return report;
}
