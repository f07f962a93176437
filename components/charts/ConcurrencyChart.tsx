"use client";

/**
 * A metric against concurrency, one line per series, on a log2 x axis (1, 2, 4 … 128 evenly spaced), with
 * the min–max band of repeats. It draws what lib/analysis prepared and decides nothing: a null is a gap,
 * never a zero. Clicking a legend entry hides or shows the series, and the URL remembers it.
 */
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartSeries } from "@/lib/analysis/series";
import { formatNumber } from "@/lib/format";
import { ToggleLegend } from "./ToggleLegend";

export interface ConcurrencyChartData {
  series: ChartSeries[];
  rows: Record<string, unknown>[];
  ticks: number[];
  /** Concurrency (log2 positions) or request rate (req/s). */
  axis: "concurrency" | "request_rate";
}

function concurrencyOf(x: number): number {
  return Math.round(2 ** x);
}

export function ConcurrencyChart({
  data,
  unit,
  testId,
  height = 320,
  toggleable = false,
}: {
  data: ConcurrencyChartData;
  unit: string;
  testId: string;
  height?: number;
  /** Legend entries hide and show series, kept in the URL's `hide`. */
  toggleable?: boolean;
}) {
  if (data.rows.length === 0) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-sm text-zinc-500 dark:border-zinc-700"
        data-testid={testId}
      >
        No run has this figure at any load level.
      </div>
    );
  }
  const byRate = data.axis === "request_rate";
  const domain: [number, number] = [data.ticks[0] ?? 0, data.ticks[data.ticks.length - 1] ?? 0];
  const xLabel = (x: number) => (byRate ? `${formatNumber(x)} req/s` : `concurrency ${concurrencyOf(x)}`);
  return (
    <div data-testid={testId} className="text-zinc-600 dark:text-zinc-400" data-chart>
      <ResponsiveContainer width="100%" height={height}>
        <ComposedChart data={data.rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          {byRate ? (
            <XAxis
              dataKey="x"
              type="number"
              domain={[0, "auto"]}
              tickFormatter={(x: number) => formatNumber(x)}
              stroke="currentColor"
              height={32}
            />
          ) : (
            <XAxis
              dataKey="x"
              type="number"
              domain={domain}
              ticks={data.ticks}
              tickFormatter={(x: number) => String(concurrencyOf(x))}
              stroke="currentColor"
              height={32}
            />
          )}
          <YAxis stroke="currentColor" tickFormatter={(value: number) => formatNumber(value)} width={64} />
          <Tooltip
            labelFormatter={(x) => xLabel(Number(x))}
            formatter={(value, name) =>
              Array.isArray(value)
                ? [
                    `${formatNumber(Number(value[0]))}–${formatNumber(Number(value[1]))} ${unit}`,
                    `${String(name)} range`,
                  ]
                : [typeof value === "number" ? `${formatNumber(value)} ${unit}` : "—", String(name)]
            }
            contentStyle={{ borderRadius: 6, fontSize: 12 }}
          />
          {toggleable ? null : <Legend wrapperStyle={{ fontSize: 12 }} />}
          {data.series.map((series) =>
            data.rows.some((row) => Array.isArray(row[`${series.key}_range`])) ? (
              <Area
                key={`${series.key}-range`}
                dataKey={`${series.key}_range`}
                name={series.label}
                stroke="none"
                fill={series.color}
                fillOpacity={0.15}
                connectNulls={false}
                isAnimationActive={false}
                hide={series.hidden}
                legendType="none"
                activeDot={false}
              />
            ) : null,
          )}
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
              hide={series.hidden}
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
      {toggleable ? <ToggleLegend series={data.series} /> : null}
    </div>
  );
}
