"use client";

/**
 * A figure against load on the comparison's shared x axis (log2 concurrency, or request rate), one line per
 * series: solid between measured neighbours, dashed across a level the series lacks, the band of its repeats
 * behind, a ringed dot where a level breaks the SLO. It draws what lib/analysis prepared and decides nothing.
 * Every load chart of the page shares one tooltip (the same rows, synchronised): all figures of every run
 * at the hovered level.
 */
import dynamic from "next/dynamic";
import type { LineChartData } from "@/lib/analysis/lines";
import { ChartPlaceholder, InView } from "./InView";
import { LegendSwatch, ToggleLegend } from "./ToggleLegend";

const Plot = dynamic(() => import("./LoadChartPlot").then((module) => module.LoadChartPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

export function LoadChart({
  data,
  testId,
  logY,
  height = 320,
  toggleable = true,
}: {
  data: LineChartData;
  testId: string;
  logY: boolean;
  height?: number;
  /** Legend entries hide and show series, kept in the URL's `hide` (the compare pages). */
  toggleable?: boolean;
}) {
  if (!data.hasData) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
        data-testid={testId}
      >
        No run states this figure under any statistic at any load level.
      </div>
    );
  }
  return (
    <div
      data-testid={testId}
      className="text-zinc-600 dark:text-zinc-400"
      data-chart
      data-x-domain={data.domain.join(",")}
      data-x-ticks={data.tickLabels.join(",")}
    >
      <InView height={height}>
        <Plot data={data} logY={logY} height={height} />
      </InView>
      {toggleable ? (
        <ToggleLegend series={data.series} />
      ) : data.series.length > 1 ? (
        <ul className="mt-1 flex flex-wrap justify-start gap-x-4 sm:justify-center text-xs">
          {data.series.map((item) => (
            <li key={item.key} className="inline-flex items-center gap-1.5 text-zinc-900 dark:text-zinc-100">
              <LegendSwatch color={item.color} />
              {item.label}
            </li>
          ))}
        </ul>
      ) : null}
      {data.notes.length > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-amber-800 dark:text-amber-300" data-testid="chart-notes">
          {data.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
