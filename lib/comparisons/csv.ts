/** A comparison as CSV: one row per metric, load level and series, with the change against the baseline. */

import { type ServerMetricsRun, serverMetricRows } from "@/lib/analysis/server-metrics";
import { capacityCsvRows } from "./capacity-export";
import type { Comparison } from "./model";

const HEADER = [
  "metric",
  "unit",
  "load",
  "concurrency",
  "request_rate",
  "series",
  "runs",
  "value",
  "baseline_value",
  "change_pct",
  "verdict",
];

/** RFC 4180 quoting; a leading =, +, - or @ is prefixed so spreadsheets never run a cell as a formula. */
function cell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function loadLabel(level: { concurrency: number | null; request_rate: number | "inf" | null }): string {
  if (level.concurrency !== null) return `C=${level.concurrency}`;
  return level.request_rate === "inf" ? "rate inf" : `rate ${level.request_rate}`;
}

/**
 * With the compared runs, the server's figures follow the client's (`server_*` metrics, shares as 0–1), with
 * the change against the baseline series and no verdict: a server figure is neither better nor worse.
 */
export function comparisonCsv(comparison: Comparison, runs: readonly ServerMetricsRun[] = []): string {
  const lines = [HEADER.join(",")];
  const baseline = comparison.series[comparison.baselineIndex];
  for (const table of comparison.deltaTables) {
    const info = { unit: table.unit };
    for (const row of table.rows) {
      const baseValue = row.cells[comparison.baselineIndex]?.value ?? null;
      row.cells.forEach((deltaCell, index) => {
        const series = comparison.series[index]!;
        lines.push(
          [
            table.metric,
            info.unit,
            loadLabel(row.level),
            row.level.concurrency,
            row.level.request_rate,
            series.label,
            series.runs.map((run) => run.id).join(" "),
            deltaCell.value,
            series === baseline ? null : baseValue,
            deltaCell.change === null ? null : Math.round(deltaCell.change * 10_000) / 100,
            series === baseline ? "baseline" : deltaCell.value === null ? "missing" : deltaCell.verdict,
          ]
            .map(cell)
            .join(","),
        );
      });
    }
  }
  // Capacity at each SLO tier, the planner's answer and the per-interactivity table (docs/comparing.md#capacity).
  for (const row of capacityCsvRows(comparison)) lines.push(row.map(cell).join(","));
  if (runs.length > 0) {
    const rows = serverMetricRows(
      runs,
      comparison.series.map((item) => ({
        key: item.key,
        label: item.label,
        color: item.color,
        runIds: item.runs.map((run) => run.id),
      })),
    );
    const levelKey = (row: (typeof rows)[number]) => `${row.metric}|${row.concurrency}|${row.request_rate}`;
    const baseValues = new Map(
      rows.filter((row) => row.series === baseline?.label).map((row) => [levelKey(row), row.value]),
    );
    for (const row of rows) {
      const isBaseline = row.series === baseline?.label;
      const base = isBaseline ? null : (baseValues.get(levelKey(row)) ?? null);
      const change = base !== null && base !== 0 ? Math.round(((row.value - base) / base) * 10_000) / 100 : null;
      lines.push(
        [
          row.metric,
          row.unit,
          loadLabel(row),
          row.concurrency,
          row.request_rate,
          row.series,
          row.runs,
          row.value,
          base,
          change,
          isBaseline ? "baseline" : "",
        ]
          .map(cell)
          .join(","),
      );
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
