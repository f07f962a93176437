"use client";

/**
 * Each load level's distribution of one latency, drawn from the run's per-request results as a cumulative
 * curve: at a latency on the x axis, the share of the level's requests that took no longer. Buttons switch
 * between TTFT, TPOT and e2e latency; a level's tail is where its curve flattens towards 100%.
 */
import { useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DistributionMetric, LatencyDistributions } from "@/lib/analysis/server-metrics";
import { formatNumber } from "@/lib/format";

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
        <ResponsiveContainer width="100%" height={height}>
          <LineChart margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
            <XAxis
              dataKey="value"
              type="number"
              domain={["auto", "auto"]}
              tickFormatter={(value: number) => formatNumber(value)}
              stroke="currentColor"
              height={32}
              label={{ value: `${NAMES[shown.metric]} (ms)`, position: "insideBottom", offset: -2, fontSize: 11 }}
            />
            <YAxis
              dataKey="p"
              type="number"
              domain={[0, 100]}
              ticks={[0, 25, 50, 75, 90, 99, 100]}
              tickFormatter={(p: number) => `${p}%`}
              stroke="currentColor"
              width={48}
            />
            <Tooltip
              labelFormatter={(value) => `${formatNumber(Number(value))} ms`}
              formatter={(p, name) => [`${formatNumber(Number(p))}% of requests at most`, String(name)]}
              contentStyle={{ borderRadius: 6, fontSize: 12 }}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
            {shown.levels.map((level) => (
              <Line
                key={level.key}
                data={level.quantiles}
                dataKey="p"
                name={level.label}
                stroke={level.color}
                strokeWidth={2}
                dot={false}
                isAnimationActive={false}
                type="linear"
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
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
