/** A comparison as CSV: one row per metric, load level and series, with the change against the baseline. */
import type { Comparison } from "./comparison";

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

export function comparisonCsv(comparison: Comparison): string {
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
  return `${lines.join("\r\n")}\r\n`;
}
