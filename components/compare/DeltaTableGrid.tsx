"use client";

/**
 * One delta table as it reads, its cells formatted on the server (DeltaTables.tsx). A client component so that
 * what travels to the browser for hydration is each cell's few strings, not the tree of elements a server
 * component's output is sent as: for 8 runs the tables were ~40% of the comparison page's data.
 */
import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import type { Verdict } from "@/lib/analysis/deltas";
import { VERDICT_CLASS, VERDICT_TITLE } from "./verdicts";

/** A run's column: the same array for every table of a page, so it is sent once. */
export interface DeltaColumn {
  key: string;
  label: string;
  color: string;
  baseline: boolean;
}

export interface DeltaCellText {
  /** The value as shown, or null when the run was not measured at the level. */
  value: string | null;
  /** `±52.8` and what it stands for, when the value has repeats. */
  spread: { text: string; title: string } | null;
  /** A percentile's 95% interval from its requests (`95% CI 398–431`), or `≈ max (n=50)`. */
  interval: { text: string; title: string } | null;
  overSlo: boolean;
  /** The change against the baseline as shown (`≈ +1.2%`, `+28.9% inconclusive`); null in the baseline's column. */
  change: { text: string; verdict: Verdict } | null;
}

export interface DeltaTableText {
  metric: string;
  label: string;
  /** The unit as the caption says it: `tok/s`, `$ per million`. */
  unit: string;
  better: "higher" | "lower";
  rows: { key: string; level: string; cells: DeltaCellText[] }[];
}

export function DeltaTableGrid({ table, columns }: { table: DeltaTableText; columns: DeltaColumn[] }) {
  return (
    <ScrollBox testId={`delta-table-${table.metric}`} label={`${table.label} by load level`}>
      <table className={tableClass}>
        <caption className="sticky left-0 mb-2 max-w-[calc(100vw-2rem)] text-left text-sm font-semibold sm:max-w-none">
          {table.label} ({table.unit}){" "}
          <span className="font-normal text-zinc-600 dark:text-zinc-400">· {table.better} is better</span>
        </caption>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Load
            </th>
            {columns.map((column) => (
              <th key={column.key} scope="col" className={`${thClass} text-right align-bottom`}>
                {/* A run's name wraps at its words inside a column of at least 8rem, never letter by letter. */}
                <span className="inline-flex w-32 items-start justify-end gap-1.5 sm:w-40">
                  <span className="swatch mt-0.5" style={{ background: column.color }} aria-hidden />
                  <span className="normal-case">
                    {column.label}
                    {column.baseline ? <span className="font-normal"> (baseline)</span> : null}
                  </span>
                </span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.key}>
              <th scope="row" className={`${tdClass} whitespace-nowrap text-left font-medium`}>
                {row.level}
              </th>
              {row.cells.map((cell, index) => (
                <td key={index} className={`${tdClass} num`}>
                  {cell.value === null ? (
                    <span className="text-xs muted" title="This run was not measured at this load level">
                      missing
                    </span>
                  ) : (
                    <>
                      <span>{cell.value}</span>
                      {cell.spread ? (
                        <span className="delta-spread" data-testid="cell-spread" title={cell.spread.title}>
                          {cell.spread.text}
                        </span>
                      ) : null}
                      {cell.interval ? (
                        <span className="delta-spread" data-testid="cell-interval" title={cell.interval.title}>
                          {cell.interval.text}
                        </span>
                      ) : null}
                      {cell.overSlo ? (
                        <span className="over-slo-badge" data-testid="over-slo" title="This level breaks the SLO">
                          over SLO
                        </span>
                      ) : null}
                      {cell.change ? (
                        <span
                          className={`delta-change ${VERDICT_CLASS[cell.change.verdict]}`}
                          data-verdict={cell.change.verdict}
                          title={VERDICT_TITLE[cell.change.verdict]}
                        >
                          {cell.change.text}
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
