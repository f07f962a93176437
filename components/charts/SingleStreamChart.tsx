"use client";

/** Single-stream tok/s per run as horizontal bars, in the runs' colours. */
import dynamic from "next/dynamic";
import type { SingleStreamBar } from "@/lib/analysis/series";
import { ChartPlaceholder, InView } from "./InView";

const Plot = dynamic(() => import("./SingleStreamPlot").then((module) => module.SingleStreamPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

export function SingleStreamChart({ bars }: { bars: SingleStreamBar[] }) {
  const measured = bars.filter((bar) => bar.output_tok_s !== null);
  if (measured.length === 0) {
    return (
      <div
        className="flex h-32 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
        data-testid="chart-single-stream"
      >
        None of these runs was measured at concurrency 1.
      </div>
    );
  }
  const height = 48 + bars.length * 40;
  return (
    <div data-testid="chart-single-stream" className="text-zinc-600 dark:text-zinc-400">
      <InView height={height}>
        <Plot bars={bars} height={height} />
      </InView>
    </div>
  );
}
