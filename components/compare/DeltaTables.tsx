/** Every load level × run for one metric: the value and its change against the baseline, coloured by verdict. */

import type { DeltaTable } from "@/lib/analysis/deltas";
import type { Spread } from "@/lib/analysis/intervals";
import type { ChartSeries } from "@/lib/analysis/series";
import type { LatencyUncertainty } from "@/lib/analysis/uncertainty";
import { formatLoadLevel, formatNumber, formatPercentChange, formatUsd } from "@/lib/format";
import { type DeltaColumn, DeltaTableGrid, type DeltaTableText } from "./DeltaTableGrid";

export { VERDICT_CLASS } from "./verdicts";

/** "mean of 3 repeats: 93.7–199, 95% interval 80.1–210": what the ± stands for. */
export function spreadTitle(spread: Spread): string {
  const range = `${formatNumber(spread.min)}–${formatNumber(spread.max)}`;
  const ci = spread.ci95 ? `, 95% interval ${formatNumber(spread.ci95[0])}–${formatNumber(spread.ci95[1])}` : "";
  return `mean of ${spread.n} repeats: range ${range}${ci}; ± is half the ${spread.ci95 ? "95% interval" : "range"}`;
}

/** The runs' columns of a page's delta tables, made once and shared by all of them. */
export function deltaColumns(series: readonly ChartSeries[], baselineIndex: number): DeltaColumn[] {
  return series.map((item, index) => ({
    key: item.key,
    label: item.label,
    color: item.color,
    baseline: index === baselineIndex,
  }));
}

/** A percentile's uncertainty as a cell shows it: its interval from the requests, or "≈ max" for too few. */
export function intervalText(uncertainty: LatencyUncertainty | undefined): { text: string; title: string } | null {
  if (!uncertainty || uncertainty.value === null) return null;
  const n = uncertainty.n === null ? "" : ` (n=${formatNumber(uncertainty.n)})`;
  if (uncertainty.support === "approx-max")
    return {
      text: `≈ max${n}`,
      title:
        "Too few requests for this percentile: its 95% interval has no upper bound, so it cannot be told from the slowest request",
    };
  if (uncertainty.basis !== "requests") return null;
  const low = uncertainty.low === null ? "…" : formatNumber(uncertainty.low);
  const high = uncertainty.high === null ? "…" : formatNumber(uncertainty.high);
  return {
    text: `95% CI ${low}–${high}`,
    title: `Distribution-free 95% interval from the order statistics of ${formatNumber(uncertainty.n)} requests`,
  };
}

/** A delta table's cells as they read. */
export function deltaTableText(table: DeltaTable, baselineIndex: number): DeltaTableText {
  const money = table.unit === "$";
  const show = (value: number) => (money ? formatUsd(value) : formatNumber(value));
  return {
    metric: table.metric,
    label: table.label,
    unit: money ? "$ per million" : table.unit,
    better: table.better,
    rows: table.rows.map((row) => ({
      key: row.level.key,
      level: formatLoadLevel(row.level),
      cells: row.cells.map((cell, index) => ({
        value: cell.value === null ? null : show(cell.value),
        spread: cell.spread
          ? {
              text: `±${formatNumber((cell.spread.interval[1] - cell.spread.interval[0]) / 2)}`,
              title: spreadTitle(cell.spread),
            }
          : null,
        interval: intervalText(cell.uncertainty),
        overSlo: cell.overSlo === true,
        change:
          index === baselineIndex
            ? null
            : {
                text: `${cell.verdict === "noise" ? "≈ " : ""}${formatPercentChange(cell.change)}${
                  cell.verdict === "inconclusive" ? " inconclusive" : ""
                }`,
                verdict: cell.verdict,
              },
      })),
    })),
  };
}

export function DeltaTableView({
  table,
  columns,
  baselineIndex,
}: {
  table: DeltaTable;
  columns: DeltaColumn[];
  baselineIndex: number;
}) {
  return <DeltaTableGrid table={deltaTableText(table, baselineIndex)} columns={columns} />;
}
