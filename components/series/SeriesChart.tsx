"use client";

/** One figure of a series over time: the line, the band of repeats, points by status, change marks. */
import dynamic from "next/dynamic";
import { ChartPlaceholder, InView } from "@/components/charts/InView";
import type { SeriesChart as SeriesChartData } from "@/lib/series/chart";

const Plot = dynamic(() => import("./SeriesChartPlot").then((module) => module.SeriesChartPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

export function SeriesChart({
  chart,
  unit,
  testId,
  height = 280,
}: {
  chart: SeriesChartData;
  unit: string;
  testId: string;
  height?: number;
}) {
  if (chart.rows.length === 0) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
        data-testid={testId}
      >
        No run of this series has this figure.
      </div>
    );
  }
  return (
    <div data-testid={testId} className="text-zinc-600 dark:text-zinc-400">
      <InView height={height}>
        <Plot chart={chart} unit={unit} height={height} />
      </InView>
    </div>
  );
}
