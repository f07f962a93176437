"use client";

/**
 * A metric against concurrency, one line per run, on a log2 x axis (1, 2, 4 … 128 evenly spaced).
 * It draws what lib/analysis/series.ts prepared and decides nothing: a null is a gap, never a zero.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber } from "@/lib/format";
import type { ConcurrencyChartData } from "@/lib/analysis/series";

function concurrencyOf(x: number): number {
  return Math.round(2 ** x);
}

export function ConcurrencyChart({
  data,
  unit,
  testId,
  height = 320,
}: {
  data: ConcurrencyChartData;
  unit: string;
  testId: string;
  height?: number;
}) {
  if (data.rows.length === 0) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-sm text-zinc-500 dark:border-zinc-700"
        data-testid={testId}
      >
        No run has this figure at any concurrency level.
      </div>
    );
  }
  const domain: [number, number] = [data.ticks[0] ?? 0, data.ticks[data.ticks.length - 1] ?? 0];
  return (
    <div data-testid={testId} className="text-zinc-600 dark:text-zinc-400">
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={data.rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis
            dataKey="x"
            type="number"
            domain={domain}
            ticks={data.ticks}
            tickFormatter={(x: number) => String(concurrencyOf(x))}
            stroke="currentColor"
            height={32}
          />
          <YAxis
            stroke="currentColor"
            tickFormatter={(value: number) => formatNumber(value)}
            width={64}
          />
          <Tooltip
            labelFormatter={(x) => `concurrency ${concurrencyOf(Number(x))}`}
            formatter={(value) => (typeof value === "number" ? `${formatNumber(value)} ${unit}` : "—")}
            contentStyle={{ background: "var(--tooltip-bg, #fff)", borderRadius: 6, fontSize: 12 }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {data.series.map((series) => (
            <Line
              key={series.key}
              dataKey={series.key}
              name={series.label}
              stroke={series.color}
              fill={series.color}
              strokeWidth={2}
              dot={{ r: 4 }}
              activeDot={{ r: 6 }}
              connectNulls={false}
              isAnimationActive={false}
              type="linear"
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
