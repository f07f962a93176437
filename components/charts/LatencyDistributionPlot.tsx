"use client";

/**
 * The Recharts part of the latency distribution (LatencyDistributionChart.tsx draws the choice of latency
 * around it and loads this only when it is scrolled to): one cumulative curve per load level.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { LatencyDistributions } from "@/lib/analysis/server-metrics";
import { formatNumber } from "@/lib/format";
import { TooltipBox } from "./TooltipBox";

/** `metricName`: how the x axis names the latency ("TTFT"). */
export function LatencyDistributionPlot({
  shown,
  metricName,
  height,
}: {
  shown: LatencyDistributions;
  metricName: string;
  height: number;
}) {
  return (
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
          label={{ value: `${metricName} (ms)`, position: "insideBottom", offset: -2, fontSize: 11 }}
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
          isAnimationActive={false}
          content={({ active, payload, label }) =>
            active && payload && payload.length > 0 ? (
              <TooltipBox>
                <div className="mb-1 font-semibold tabular-nums">{formatNumber(Number(label))} ms</div>
                {payload.map((item) => (
                  <div key={String(item.name)} className="tabular-nums">
                    {String(item.name)}: {formatNumber(Number(item.value))}% of requests at most
                  </div>
                ))}
              </TooltipBox>
            ) : null
          }
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
  );
}
