/** Every load level × run for one metric: the value and its change against the baseline, coloured by verdict. */

import { ScrollBox, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import type { DeltaTable, Verdict } from "@/lib/analysis/deltas";
import type { Spread } from "@/lib/analysis/intervals";
import type { ChartSeries } from "@/lib/analysis/series";
import { formatLoadLevel, formatNumber, formatPercentChange } from "@/lib/format";

export const VERDICT_CLASS: Record<Verdict, string> = {
  better: "text-green-700 dark:text-green-400",
  worse: "text-red-700 dark:text-red-400",
  noise: "muted",
  inconclusive: "muted",
  same: "muted",
  none: "muted",
};

const VERDICT_TITLE: Partial<Record<Verdict, string>> = {
  noise: "Within noise",
  inconclusive: "The repeats' intervals overlap: the change cannot be told from repeat-to-repeat variation",
};

/** "mean of 3 repeats: 93.7–199, 95% interval 80.1–210": what the ± stands for. */
export function spreadTitle(spread: Spread): string {
  const range = `${formatNumber(spread.min)}–${formatNumber(spread.max)}`;
  const ci = spread.ci95 ? `, 95% interval ${formatNumber(spread.ci95[0])}–${formatNumber(spread.ci95[1])}` : "";
  return `mean of ${spread.n} repeats: range ${range}${ci}; ± is half the ${spread.ci95 ? "95% interval" : "range"}`;
}

export function DeltaTableView({
  table,
  series,
  baselineIndex,
}: {
  table: DeltaTable;
  series: ChartSeries[];
  baselineIndex: number;
}) {
  const info = table;
  const money = table.unit === "$";
  const show = (value: number) => (money ? `$${formatNumber(value)}` : formatNumber(value));
  return (
    <ScrollBox testId={`delta-table-${table.metric}`} label={`${info.label} by load level`}>
      <table className={tableClass}>
        <caption className="sticky left-0 mb-2 max-w-[calc(100vw-2rem)] text-left text-sm font-semibold sm:max-w-none">
          {info.label} ({money ? "$ per million" : info.unit}){" "}
          <span className="font-normal text-zinc-600 dark:text-zinc-400">· {info.better} is better</span>
        </caption>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Load
            </th>
            {series.map((item, index) => (
              <th key={item.key} scope="col" className={`${thClass} text-right align-bottom`}>
                {/* A run's name wraps at its words inside a column of at least 8rem, never letter by letter. */}
                <span className="inline-flex w-32 items-start justify-end gap-1.5 sm:w-40">
                  <span className="swatch mt-0.5" style={{ background: item.color }} aria-hidden />
                  <span className="normal-case">
                    {item.label}
                    {index === baselineIndex ? <span className="font-normal"> (baseline)</span> : null}
                  </span>
                </span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.level.key}>
              <th scope="row" className={`${tdClass} whitespace-nowrap text-left font-medium`}>
                {formatLoadLevel(row.level)}
              </th>
              {row.cells.map((cell, index) => (
                <td key={index} className={`${tdClass} num`}>
                  {cell.value === null ? (
                    <span className="text-xs muted" title="This run was not measured at this load level">
                      missing
                    </span>
                  ) : (
                    <>
                      <span>{show(cell.value)}</span>
                      {cell.spread ? (
                        <span className="ml-1 text-xs muted" data-testid="cell-spread" title={spreadTitle(cell.spread)}>
                          ±{formatNumber((cell.spread.interval[1] - cell.spread.interval[0]) / 2)}
                        </span>
                      ) : null}
                      {cell.overSlo ? (
                        <span
                          className="ml-1 rounded bg-red-100 px-1 text-[10px] font-medium text-red-800 dark:bg-red-950 dark:text-red-300"
                          data-testid="over-slo"
                          title="This level breaks the SLO"
                        >
                          over SLO
                        </span>
                      ) : null}
                      {index !== baselineIndex ? (
                        <span
                          className={`ml-2 text-xs ${VERDICT_CLASS[cell.verdict]}`}
                          data-verdict={cell.verdict}
                          title={VERDICT_TITLE[cell.verdict]}
                        >
                          {cell.verdict === "noise" ? "≈ " : ""}
                          {formatPercentChange(cell.change)}
                          {cell.verdict === "inconclusive" ? " inconclusive" : ""}
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
    </ScrollBox>
  );
}
