"use client";

/**
 * Throughput per GPU against interactivity (tok/s per user = 1000 / TPOT): every measured level as a dot
 * labelled with its load, and each series' Pareto frontier as a line through the levels no other level of
 * the series beats on both. Up and to the right is better on both counts.
 */
import dynamic from "next/dynamic";
import type { EfficiencyChartData } from "@/lib/comparisons/model";
import { ChartPlaceholder, InView } from "./InView";
import { ToggleLegend } from "./ToggleLegend";

const Plot = dynamic(() => import("./EfficiencyPlot").then((module) => module.EfficiencyPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

export function EfficiencyChart({ data, height = 360 }: { data: EfficiencyChartData; height?: number }) {
  const drawn = data.series.filter((item) => (data.points[item.key]?.length ?? 0) > 0);
  if (drawn.length === 0) {
    return (
      <div data-testid="chart-efficiency">
        <div className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
          Throughput per GPU against tok/s per user needs a GPU count and, at the same load level, TPOT and output
          throughput; none of these runs has all three.
        </div>
        <Notes notes={data.notes} />
      </div>
    );
  }
  return (
    <div data-testid="chart-efficiency" className="text-zinc-600 dark:text-zinc-400" data-chart>
      <InView height={height}>
        <Plot data={data} drawn={drawn} height={height} />
      </InView>
      <ToggleLegend series={data.series} />
      <Notes notes={data.notes} />
    </div>
  );
}

function Notes({ notes }: { notes: string[] }) {
  if (notes.length === 0) return null;
  return (
    <ul className="mt-1 space-y-0.5 text-xs text-amber-800 dark:text-amber-300" data-testid="efficiency-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}
