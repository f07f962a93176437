/** Every load level × run for one metric: the value and its change against the baseline, coloured by verdict. */

import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import type { DeltaTable, Verdict } from "@/lib/analysis/deltas";
import { metricInfo } from "@/lib/analysis/metrics";
import type { ChartSeries } from "@/lib/analysis/series";
import { formatLoadLevel, formatNumber, formatPercentChange } from "@/lib/format";

export const VERDICT_CLASS: Record<Verdict, string> = {
  better: "text-green-700 dark:text-green-400",
  worse: "text-red-700 dark:text-red-400",
  noise: "text-zinc-500 dark:text-zinc-400",
  same: "text-zinc-500 dark:text-zinc-400",
  none: "text-zinc-500 dark:text-zinc-400",
};

export function DeltaTableView({
  table,
  series,
  baselineIndex,
}: {
  table: DeltaTable;
  series: ChartSeries[];
  baselineIndex: number;
}) {
  const info = metricInfo(table.metric);
  return (
    <div className="overflow-x-auto" data-testid={`delta-table-${table.metric}`}>
      <table className={tableClass}>
        <caption className="mb-2 text-left text-sm font-semibold">
          {info.label} ({info.unit}){" "}
          <span className="font-normal text-zinc-500 dark:text-zinc-400">· {info.better} is better</span>
        </caption>
        <thead>
          <tr>
            <th className={thClass}>Load</th>
            {series.map((item, index) => (
              <th key={item.key} className={`${thClass} text-right`}>
                <span className="inline-flex items-center gap-1.5">
                  <span
                    className="inline-block h-2.5 w-2.5 rounded-full"
                    style={{ background: item.color }}
                    aria-hidden
                  />
                  <span className="normal-case">{item.label}</span>
                  {index === baselineIndex ? <span className="normal-case font-normal">(baseline)</span> : null}
                </span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.level.key}>
              <td className={`${tdClass} whitespace-nowrap font-medium`}>{formatLoadLevel(row.level)}</td>
              {row.cells.map((cell, index) => (
                <td key={index} className={`${tdClass} num`}>
                  {cell.value === null ? (
                    <span className="text-xs text-zinc-400" title="This run was not measured at this load level">
                      missing
                    </span>
                  ) : (
                    <>
                      <span>{formatNumber(cell.value)}</span>
                      {index !== baselineIndex ? (
                        <span
                          className={`ml-2 text-xs ${VERDICT_CLASS[cell.verdict]}`}
                          data-verdict={cell.verdict}
                          title={cell.verdict === "noise" ? "Within noise" : undefined}
                        >
                          {cell.verdict === "noise" ? "≈ " : ""}
                          {formatPercentChange(cell.change)}
                        </span>
                      ) : null}
                    </>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
