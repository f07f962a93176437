"use client";

import { useToggleSeries } from "@/components/compare/use-query-update";
/**
 * A chart legend whose entries hide and show their series; the choice goes into the URL's `hide`, so a
 * shared link shows the same chart. The data attributes let a chart export draw the legend too.
 */
import type { ChartSeries } from "@/lib/analysis/series";

export function ToggleLegend({ series }: { series: ChartSeries[] }) {
  const toggle = useToggleSeries();
  return (
    <ul className="mt-1 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs" data-testid="chart-legend">
      {series.map((item) => (
        <li key={item.key}>
          <button
            type="button"
            data-legend-label={item.label}
            data-legend-color={item.color}
            data-legend-hidden={item.hidden ? "true" : "false"}
            className={`inline-flex items-center gap-1.5 hover:underline ${item.hidden ? "opacity-40 line-through" : ""}`}
            onClick={() => item.id && toggle(item.id)}
            aria-pressed={!item.hidden}
            title={item.hidden ? "Show this series" : "Hide this series"}
          >
            <span className="inline-block h-2.5 w-2.5 rounded-full" style={{ background: item.color }} aria-hidden />
            <span style={{ color: item.color }}>{item.label}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
