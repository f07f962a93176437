"use client";

/**
 * The one tooltip of the load charts: for the hovered level, every run measured there with every figure it
 * has and its change against the baseline. The figures are prepared on the server (Comparison.tooltip) and
 * handed to the page once, through this context, instead of once per chart.
 */
import { createContext, type ReactNode, useContext } from "react";
import type { TooltipEntry, TooltipFigure } from "@/lib/comparisons/model";
import { TooltipBox } from "./TooltipBox";

interface Rows {
  rows: TooltipEntry[][];
  levels: string[];
  /** The x position of each row, to find the hovered one from the axis value. */
  xs: number[];
}

const TooltipRows = createContext<Rows>({ rows: [], levels: [], xs: [] });

export function LoadTooltipProvider({ children, ...value }: Rows & { children: ReactNode }) {
  return <TooltipRows.Provider value={value}>{children}</TooltipRows.Provider>;
}

const VERDICT_TEXT: Record<TooltipFigure["verdict"], string> = {
  better: "text-green-700 dark:text-green-400",
  worse: "text-red-700 dark:text-red-400",
  noise: "text-zinc-600 dark:text-zinc-400",
  inconclusive: "text-zinc-600 dark:text-zinc-400",
  same: "text-zinc-600 dark:text-zinc-400",
  none: "text-zinc-600 dark:text-zinc-400",
};

interface TooltipProps {
  active?: boolean;
  label?: unknown;
  payload?: readonly { payload?: { i?: number } }[];
}

export function LoadTooltip(props: TooltipProps) {
  const { rows, levels, xs } = useContext(TooltipRows);
  const fromPayload = props.payload?.find((item) => typeof item.payload?.i === "number")?.payload?.i;
  const index = fromPayload ?? xs.indexOf(Number(props.label));
  if (!props.active || index < 0) return null;
  const entries = rows[index] ?? [];
  return (
    <TooltipBox testId="load-tooltip">
      <div className="mb-1 font-semibold">{levels[index]}</div>
      {entries.length === 0 ? <p className="text-zinc-600 dark:text-zinc-400">No run was measured here.</p> : null}
      {entries.map((entry) => (
        <div key={entry.key} className="mb-1.5 last:mb-0">
          <div className="flex items-center gap-1.5 font-medium">
            <span className="inline-block h-2 w-2 rounded-full" style={{ background: entry.color }} aria-hidden />
            <span className="truncate">{entry.label}</span>
            {entry.isBaseline ? <span className="font-normal text-zinc-600 dark:text-zinc-400">(baseline)</span> : null}
            {entry.overSlo ? <span className="font-normal text-red-700 dark:text-red-400">over SLO</span> : null}
          </div>
          <table className="ml-3.5 tabular-nums">
            <tbody>
              {entry.figures.map((figure) => (
                <tr key={figure.name}>
                  <td className="pr-2 text-zinc-600 dark:text-zinc-400">{figure.name}</td>
                  <td className="pr-2 text-right">{figure.text}</td>
                  <td className={`text-right ${VERDICT_TEXT[figure.verdict]}`}>{figure.change ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </TooltipBox>
  );
}
