"use client";

import { useToggleSeries } from "@/components/compare/use-query-update";
/**
 * A chart legend whose entries hide and show their series; the choice goes into the URL's `hide`, so a
 * shared link shows the same chart. The data attributes let a chart export draw the legend too.
 */
import type { ChartSeries } from "@/lib/analysis/series";

/** A run's colour as a short line with its dot; hollow while the series is hidden. */
export function LegendSwatch({ color, hollow = false }: { color: string; hollow?: boolean }) {
  return (
    <svg width="18" height="10" viewBox="0 0 18 10" aria-hidden className="shrink-0">
      <line x1="1" y1="5" x2="17" y2="5" stroke={color} strokeWidth="2" strokeDasharray={hollow ? "3 3" : undefined} />
      <circle cx="9" cy="5" r="3.5" fill={hollow ? "none" : color} stroke={color} strokeWidth="1.5" />
    </svg>
  );
}

export function ToggleLegend({ series }: { series: ChartSeries[] }) {
  const toggle = useToggleSeries();
  return (
    <ul
      className="mt-1 flex flex-wrap justify-start gap-x-4 sm:justify-center gap-y-1 text-xs"
      data-testid="chart-legend"
    >
      {series.map((item) => (
        <li key={item.key}>
          <button
            type="button"
            data-legend-label={item.label}
            data-legend-color={item.color}
            data-legend-hidden={item.hidden ? "true" : "false"}
            className={`inline-flex min-h-6 items-center gap-1.5 rounded px-1 text-left hover:underline ${
              item.hidden ? "text-zinc-600 line-through dark:text-zinc-400" : "text-zinc-900 dark:text-zinc-100"
            }`}
            onClick={() => item.id && toggle(item.id)}
            aria-pressed={!item.hidden}
            title={item.hidden ? "Show this series" : "Hide this series"}
          >
            <LegendSwatch color={item.color} hollow={item.hidden} />
            <span>{item.label}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
