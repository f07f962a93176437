/** The answer of POST /api/restore: counts, then one entry per line of the export, in order. */
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
  return report;
}
