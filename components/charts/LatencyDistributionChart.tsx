"use client";

/**
 * Each load level's distribution of one latency, drawn from the run's per-request results as a cumulative
 * curve: at a latency on the x axis, the share of the level's requests that took no longer. Buttons switch
 * between TTFT, TPOT and e2e latency; a level's tail is where its curve flattens towards 100%.
 */
import dynamic from "next/dynamic";
import { useState } from "react";
import type { DistributionMetric, LatencyDistributions } from "@/lib/analysis/server-metrics";
import { ChartPlaceholder, InView } from "./InView";

// Recharts arrives only when the chart is scrolled to (InView), as the other charts.
const Plot = dynamic(() => import("./LatencyDistributionPlot").then((module) => module.LatencyDistributionPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

const NAMES: Record<DistributionMetric, string> = { ttft: "TTFT", tpot: "TPOT", e2el: "E2E latency" };

export function LatencyDistributionChart({
  distributions,
  height = 320,
}: {
  distributions: LatencyDistributions[];
  height?: number;
}) {
  const available = distributions.filter((item) => item.levels.length > 0);
  const [metric, setMetric] = useState<DistributionMetric>(available[0]?.metric ?? "ttft");
  const shown = available.find((item) => item.metric === metric) ?? available[0];
  if (!shown) return null;
  const sampled = shown.levels.filter((level) => level.requests < level.total);
  return (
    <div data-testid="latency-distribution" data-metric={shown.metric}>
      <fieldset className="mb-2 flex flex-wrap gap-1 text-xs">
        <legend className="sr-only">Latency</legend>
        {available.map((item) => (
          <button
            key={item.metric}
            type="button"
            aria-pressed={item.metric === shown.metric}
            onClick={() => setMetric(item.metric)}
            className={`rounded border px-2 py-0.5 ${
              item.metric === shown.metric
                ? "border-zinc-900 bg-zinc-900 text-white dark:border-zinc-100 dark:bg-zinc-100 dark:text-zinc-900"
                : "border-zinc-300 text-zinc-700 hover:bg-zinc-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
            data-testid={`distribution-${item.metric}`}
          >
            {NAMES[item.metric]}
          </button>
        ))}
      </fieldset>
      <div className="text-zinc-600 dark:text-zinc-400" data-chart>
        <InView height={height}>
          <Plot shown={shown} metricName={NAMES[shown.metric]} height={height} />
        </InView>
      </div>
      {sampled.length > 0 ? (
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
          Drawn from a sample:{" "}
          {sampled.map((level) => `${level.label} ${level.requests} of ${level.total} requests`).join(", ")}.
        </p>
      ) : null}
    </div>
  );
}
