"use client";

/** The Recharts drawing of a LoadChart, loaded only when the chart comes into view (see InView). */
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

export const LOAD_SYNC_ID = "servebench-load";

interface DotProps {
  cx?: number;
  cy?: number;
  index?: number;
  payload?: Record<string, unknown>;
}

export function LoadChartPlot({ data, logY, height }: { data: LineChartData; logY: boolean; height: number }) {
  const y = logY && data.yLog ? data.yLog : data.y;
  const labels = new Map(data.ticks.map((x, index) => [x, data.tickLabels[index] ?? formatNumber(x)]));
  return (
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
              <ErrorBar dataKey={`${series.key}_err`} width={6} strokeWidth={1.5} stroke={series.color} direction="y" />
            ) : null}
          </Line>
        ))}
      </ComposedChart>
    </ResponsiveContainer>
  );
}
