"use client";

/**
 * Latency against throughput: per-user tok/s (1000 / TPOT) across, total output tok/s up, one curve per
 * series with each point labelled by its load level. Up and to the right is better on both counts.
 */
import { CartesianGrid, LabelList, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ParetoPoint } from "@/lib/analysis/pareto";
import type { ChartSeries } from "@/lib/analysis/series";
import { formatNumber } from "@/lib/format";
import { ToggleLegend } from "./ToggleLegend";

export function ParetoChart({
  series,
  curves,
  height = 360,
}: {
  series: ChartSeries[];
  curves: Record<string, ParetoPoint[]>;
  height?: number;
}) {
  const drawn = series.filter((item) => (curves[item.key]?.length ?? 0) > 0);
  if (drawn.length === 0) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-500 dark:border-zinc-700"
        data-testid="chart-pareto"
      >
        The trade-off needs TPOT and output throughput at the same load level; none of these runs has both.
      </div>
    );
  }
  return (
    <div data-testid="chart-pareto" className="text-zinc-600 dark:text-zinc-400" data-chart>
      <ResponsiveContainer width="100%" height={height}>
        <ScatterChart margin={{ top: 16, right: 32, bottom: 24, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis
            type="number"
            dataKey="per_user_tok_s"
            name="per-user tok/s"
            stroke="currentColor"
            tickFormatter={(value: number) => formatNumber(value)}
            label={{
              value: "per-user tok/s (1000 / TPOT)",
              position: "insideBottom",
              offset: -16,
              fill: "currentColor",
              fontSize: 12,
            }}
            domain={["auto", "auto"]}
          />
          <YAxis
            type="number"
            dataKey="output_tok_s"
            name="output tok/s"
            stroke="currentColor"
            width={64}
            tickFormatter={(value: number) => formatNumber(value)}
            label={{
              value: "total output tok/s",
              angle: -90,
              position: "insideLeft",
              fill: "currentColor",
              fontSize: 12,
            }}
          />
          <Tooltip
            cursor={{ strokeDasharray: "3 3" }}
            formatter={(value, name) => [formatNumber(Number(value)), String(name)]}
            labelFormatter={() => ""}
            contentStyle={{ borderRadius: 6, fontSize: 12 }}
          />
          {drawn.map((item) => (
            <Scatter
              key={item.key}
              name={item.label}
              data={curves[item.key]}
              fill={item.color}
              stroke={item.color}
              line={{ strokeWidth: 2 }}
              lineJointType="linear"
              isAnimationActive={false}
              hide={item.hidden}
            >
              <LabelList dataKey="label" position="top" fontSize={11} fill="currentColor" />
            </Scatter>
          ))}
        </ScatterChart>
      </ResponsiveContainer>
      <ToggleLegend series={series} />
    </div>
  );
}
