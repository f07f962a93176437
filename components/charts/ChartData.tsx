/**
 * A chart's text alternative: the figures it draws, as a table behind a disclosure under the chart. Server
 * rendered (only its scrolling box is client code), so it is there for a screen reader, a search in the page, or
 * a copy and paste, before and whether or not the chart itself is drawn.
 */
import type { ReactNode } from "react";
import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import type { LineChartData } from "@/lib/analysis/lines";
import type { SingleStreamBar } from "@/lib/analysis/series";
import type { EfficiencyChartData } from "@/lib/comparisons/model";
import { formatNumber } from "@/lib/format";

function Disclosure({ title, children }: { title: string; children: ReactNode }) {
  return (
    <details className="mt-2 text-sm" data-testid="chart-data">
      <summary className="cursor-pointer text-xs text-zinc-700 dark:text-zinc-300">{title}</summary>
      <div className="mt-1">
        <ScrollBox label={title}>{children}</ScrollBox>
      </div>
    </details>
  );
}

function value(figure: unknown, unit: string): string {
  return typeof figure === "number" ? `${formatNumber(figure)}${unit ? ` ${unit}` : ""}` : "not measured";
}

/** The load chart's figures: one row per load level, one column per run. */
export function LineChartTable({ data }: { data: LineChartData }) {
  if (!data.hasData) return null;
  const series = data.series.filter((item) => !item.hidden);
  return (
    <Disclosure title={`The chart's figures as a table (${data.unit})`}>
      <table className={tableClass}>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Load
            </th>
            {series.map((item) => (
              <th key={item.key} scope="col" className={`${thClass} normal-case`}>
                {item.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.rows.map((row) => (
            <tr key={row.i}>
              <th scope="row" className={`${tdClass} text-left font-medium whitespace-nowrap`}>
                {row.level}
              </th>
              {series.map((item) => (
                <td key={item.key} className={`${tdClass} num`}>
                  {value(row[item.key], "")}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Disclosure>
  );
}

export function SingleStreamTable({ bars }: { bars: SingleStreamBar[] }) {
  if (!bars.some((bar) => bar.output_tok_s !== null)) return null;
  return (
    <Disclosure title="The chart's figures as a table (tok/s)">
      <table className={tableClass}>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Run
            </th>
            <th scope="col" className={`${thClass} text-right`}>
              Single stream
            </th>
          </tr>
        </thead>
        <tbody>
          {bars.map((bar) => (
            <tr key={bar.key}>
              <th scope="row" className={`${tdClass} text-left font-medium`}>
                {bar.label}
              </th>
              <td className={`${tdClass} num`}>
                {value(bar.output_tok_s, "tok/s")}
                {bar.derived ? " (1000 / mean TPOT)" : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Disclosure>
  );
}

export function EfficiencyTable({ data }: { data: EfficiencyChartData }) {
  const rows = data.series
    .filter((item) => !item.hidden)
    .flatMap((item) => (data.points[item.key] ?? []).map((point) => ({ item, point })));
  if (rows.length === 0) return null;
  return (
    <Disclosure title="The chart's figures as a table">
      <table className={tableClass}>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Run
            </th>
            <th scope="col" className={thClass}>
              Load
            </th>
            <th scope="col" className={`${thClass} text-right`}>
              tok/s per user
            </th>
            <th scope="col" className={`${thClass} text-right`}>
              output tok/s per GPU
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ item, point }) => (
            <tr key={`${item.key}-${point.label}`}>
              <th scope="row" className={`${tdClass} text-left font-medium`}>
                {item.label}
              </th>
              <td className={`${tdClass} whitespace-nowrap`}>{point.label}</td>
              <td className={`${tdClass} num`}>{formatNumber(point.tok_s_per_user)}</td>
              <td className={`${tdClass} num`}>{formatNumber(point.tok_s_per_gpu)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Disclosure>
  );
}
