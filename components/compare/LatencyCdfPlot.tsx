"use client";

/**
 * The Recharts part of the compare page's latency distributions (LatencyCdfChart.tsx draws the pickers, legend and
 * table around it and loads this only when it is scrolled to): one cumulative curve per series, in its run colour.
 */
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Y_TITLE_MARGIN_PX, YAxisTitle } from "@/components/charts/PlotLabels";
import { TooltipBox } from "@/components/charts/TooltipBox";
import type { SeriesCdf } from "@/lib/analysis/request-cdf";
import { formatNumber } from "@/lib/format";

const Y_AXIS_WIDTH_PX = 48;

/** `metricName`: how the x axis names the latency ("TTFT"); `series`: the drawn ones, hidden ones left out. */
export function LatencyCdfPlot({
  series,
  metricName,
  height,
}: {
  series: SeriesCdf[];
  metricName: string;
  height: number;
}) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart margin={{ top: Y_TITLE_MARGIN_PX, right: 24, bottom: 8, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
        <XAxis
          dataKey="latency_ms"
          type="number"
          domain={["auto", "auto"]}
          tickFormatter={(value: number) => formatNumber(value)}
          stroke="currentColor"
          height={32}
          label={{ value: `${metricName} (ms)`, position: "insideBottom", offset: -2, fontSize: 11 }}
        />
        <YAxis
          dataKey="share_pct"
          type="number"
          domain={[0, 100]}
          ticks={[0, 25, 50, 75, 100]}
          tickFormatter={(share: number) => `${share}%`}
          stroke="currentColor"
          width={Y_AXIS_WIDTH_PX}
        />
        <Tooltip
          isAnimationActive={false}
          content={({ active, payload }) =>
            active && payload && payload.length > 0 ? (
              <TooltipBox>
                {payload.map((item) => {
                  const point = item.payload as { latency_ms: number; share_pct: number };
                  return (
                    <div key={String(item.name)} className="tabular-nums">
                      {String(item.name)}: {formatNumber(point.share_pct)}% of requests ≤{" "}
                      {formatNumber(point.latency_ms)} ms
                    </div>
                  );
                })}
              </TooltipBox>
            ) : null
          }
        />
        {series.map((item) =>
          item.cdf ? (
            <Line
              key={item.key}
              data={item.cdf.points}
              dataKey="share_pct"
              name={item.label}
              stroke={item.color}
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
              // The empirical distribution is a staircase: between two kept values it is at least the left one's share.
              type="stepAfter"
            />
          ) : null,
        )}
        <YAxisTitle text="share of requests ≤ latency" axisWidth={Y_AXIS_WIDTH_PX} />
      </LineChart>
    </ResponsiveContainer>
  );
}
