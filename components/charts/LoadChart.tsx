"use client";

/**
 * A figure against load on the comparison's shared x axis (log2 concurrency, or request rate), one line per
 * series: solid between measured neighbours, dashed across a level the series lacks, the band of its repeats
 * behind, a ringed dot where a level breaks the SLO. It draws what lib/analysis prepared and decides nothing.
 * Every load chart of the page shares one tooltip (the same rows, synchronised): all figures of every run
 * at the hovered level.
 */
import {
  Area,
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { LineChartData } from "@/lib/analysis/lines";
import { formatNumber } from "@/lib/format";
import { LoadTooltip } from "./LoadTooltip";
import { ToggleLegend } from "./ToggleLegend";

export const LOAD_SYNC_ID = "servebench-load";

interface DotProps {
  cx?: number;
  cy?: number;
  index?: number;
  payload?: Record<string, unknown>;
}

export function LoadChart({
  data,
  testId,
  logY,
  height = 320,
  toggleable = true,
}: {
  data: LineChartData;
  testId: string;
  logY: boolean;
  height?: number;
  /** Legend entries hide and show series, kept in the URL's `hide` (the compare pages). */
  toggleable?: boolean;
}) {
  if (!data.hasData) {
    return (
      <div
        className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400"
        data-testid={testId}
      >
        No run states this figure under any statistic at any load level.
      </div>
    );
  }
  const y = logY && data.yLog ? data.yLog : data.y;
  const labels = new Map(data.ticks.map((x, index) => [x, data.tickLabels[index] ?? formatNumber(x)]));
  return (
    <div
      data-testid={testId}
      className="text-zinc-600 dark:text-zinc-400"
      data-chart
      data-x-domain={data.domain.join(",")}
      data-x-ticks={data.tickLabels.join(",")}
    >
      <ResponsiveContainer width="100%" height={height}>
        <ComposedChart data={data.rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }} syncId={LOAD_SYNC_ID}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis
            dataKey="x"
            type="number"
            domain={data.domain}
            ticks={data.ticks}
            tickFormatter={(x: number) => labels.get(x) ?? formatNumber(x)}
            stroke="currentColor"
            height={32}
            allowDecimals
            interval={0}
          />
          <YAxis
            stroke="currentColor"
            scale={logY && data.yLog ? "log" : "linear"}
            domain={y.domain}
            ticks={y.ticks}
            allowDataOverflow
            tickFormatter={(value: number) => formatNumber(value)}
            width={64}
          />
          <Tooltip content={<LoadTooltip />} isAnimationActive={false} />
          {data.series.map((series) =>
            series.band ? (
              <Area
                key={`${series.key}-band`}
                dataKey={`${series.key}_band`}
                stroke="none"
                fill={series.color}
                fillOpacity={0.18}
                connectNulls
                isAnimationActive={false}
                hide={series.hidden}
                legendType="none"
                activeDot={false}
              />
            ) : null,
          )}
          {data.series.flatMap((series) =>
            series.bridges.map((bridge) => (
              <Line
                key={bridge}
                dataKey={bridge}
                stroke={series.color}
                strokeWidth={2}
                strokeDasharray="6 5"
                strokeOpacity={0.8}
                dot={false}
                activeDot={false}
                connectNulls
                isAnimationActive={false}
                type="linear"
                hide={series.hidden}
                legendType="none"
                className="load-bridge"
              />
            )),
          )}
          {data.series.map((series) => (
            <Line
              key={series.key}
              dataKey={series.key}
              name={series.label}
              stroke={series.color}
              fill={series.color}
              strokeWidth={2}
              dot={(props: DotProps) => {
                const over = props.payload?.[`${series.key}_over`] === true;
                if (props.cx === undefined || props.cy === undefined) return <g key={props.index} />;
                return over ? (
                  <g key={props.index} data-over-slo="true">
                    <circle cx={props.cx} cy={props.cy} r={7} fill="none" stroke="#dc2626" strokeWidth={2} />
                    <circle cx={props.cx} cy={props.cy} r={3.5} fill={series.color} />
                  </g>
                ) : (
                  <circle key={props.index} cx={props.cx} cy={props.cy} r={4} fill={series.color} />
                );
              }}
              activeDot={{ r: 6 }}
              connectNulls={false}
              isAnimationActive={false}
              type="linear"
              hide={series.hidden}
            >
              {series.band ? (
                <ErrorBar
                  dataKey={`${series.key}_err`}
                  width={6}
                  strokeWidth={1.5}
                  stroke={series.color}
                  direction="y"
                />
              ) : null}
            </Line>
          ))}
        </ComposedChart>
      </ResponsiveContainer>
      {toggleable ? (
        <ToggleLegend series={data.series} />
      ) : data.series.length > 1 ? (
        <ul className="mt-1 flex flex-wrap justify-center gap-x-4 text-xs">
          {data.series.map((item) => (
            <li key={item.key} style={{ color: item.color }}>
              {item.label}
            </li>
          ))}
        </ul>
      ) : null}
      {data.notes.length > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-amber-800 dark:text-amber-300" data-testid="chart-notes">
          {data.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
