"use client";

/**
 * The server's own view against load, as small multiples that share the client curves' x axis: TTFT,
 * KV-cache usage and waiting requests side by side (then running requests, preemptions, prefix-cache hits
 * and speculative acceptance when the runs have them). Hovering one panel shows every panel at that level
 * (one synchronized tooltip per panel), and the TTFT panel's tooltip lists every server figure of the
 * level. It draws what lib/analysis/server-metrics prepared: a null is a gap, never a zero.
 */
import dynamic from "next/dynamic";
import type { ServerMetricsChartData, ServerPanel } from "@/lib/analysis/server-metrics";
import { ChartPlaceholder, InView } from "./InView";

// Recharts arrives only when a panel is scrolled to (InView), as the other charts.
const Plot = dynamic(() => import("./ServerMetricsPlot").then((module) => module.ServerMetricsPanelPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

function PanelChart({
  panel,
  data,
  syncId,
  height,
  testId,
}: {
  panel: ServerPanel;
  data: ServerMetricsChartData;
  syncId: string;
  height: number;
  testId: string;
}) {
  return (
    <figure
      className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid={`${testId}-${panel.id}`}
      data-panel={panel.id}
      data-chart
    >
      <figcaption className="mb-1 text-sm font-medium">
        {panel.title}
        <span className="ml-1 text-xs font-normal text-zinc-500 dark:text-zinc-400">
          ({panel.unit === "%" ? "%" : panel.unit})
        </span>
      </figcaption>
      {panel.lines.length === 0 ? (
        <div
          className="flex items-center justify-center rounded border border-dashed border-zinc-300 px-4 text-center text-xs text-zinc-500 dark:border-zinc-700 dark:text-zinc-400"
          style={{ height }}
        >
          Not reported: the server did not expose this figure, or the file it came from could not give it.
        </div>
      ) : (
        <div className="text-zinc-600 dark:text-zinc-400">
          <InView height={height}>
            <Plot panel={panel} data={data} syncId={syncId} height={height} />
          </InView>
        </div>
      )}
    </figure>
  );
}

export function ServerMetricsChart({
  data,
  testId = "server-metrics",
  height = 200,
}: {
  data: ServerMetricsChartData;
  testId?: string;
  height?: number;
}) {
  const syncId = `${testId}-sync`;
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3" data-testid={testId}>
      {data.panels.map((panel) => (
        <PanelChart key={panel.id} panel={panel} data={data} syncId={syncId} height={height} testId={testId} />
      ))}
    </div>
  );
}
