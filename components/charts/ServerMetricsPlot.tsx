"use client";

/**
 * The Recharts part of one server-metrics panel (ServerMetricsChart.tsx draws the panel around it and loads this
 * only when the panel is scrolled to): the panel's lines against load, and its tooltip.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import {
  panelYTicks,
  type ServerMetricsChartData,
  type ServerMetricsRow,
  type ServerPanel,
  serverSummaryLines,
} from "@/lib/analysis/server-metrics";
import { formatNumber } from "@/lib/format";
import { TooltipBox } from "./TooltipBox";

function unitText(value: number, unit: string): string {
  if (unit === "%") return `${formatNumber(value)}%`;
  return unit ? `${formatNumber(value)} ${unit}` : formatNumber(value);
}

interface TooltipProps {
  active?: boolean;
  label?: unknown;
  payload?: readonly { payload?: ServerMetricsRow }[];
}

function PanelTooltip({
  active,
  payload,
  panel,
  data,
  full,
}: TooltipProps & { panel: ServerPanel; data: ServerMetricsChartData; full: boolean }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <TooltipBox testId={`server-tooltip-${panel.id}`}>
      <div className="mb-1 font-semibold">{row.level}</div>
      {data.series.map((series) => {
        const own = panel.lines
          .filter((line) => line.field.startsWith(`${series.key}__`))
          .map((line) => {
            const value = row[line.field];
            return typeof value === "number" ? `${line.kind}: ${unitText(value, panel.unit)}` : null;
          })
          .filter((text): text is string => text !== null);
        // The TTFT panel's tooltip says everything the server reported at the level.
        const others = full ? serverSummaryLines(row, series.key) : [];
        if (own.length === 0 && others.length === 0) return null;
        return (
          <div key={series.key} className="mt-1" data-series={series.key}>
            {data.series.length > 1 ? (
              <div className="font-medium" style={{ color: series.color }}>
                {series.label}
              </div>
            ) : null}
            {own.length > 0 ? <div className="tabular-nums">{own.join(" · ")}</div> : null}
            {others.map((text) => (
              <div key={text} className="tabular-nums text-zinc-600 dark:text-zinc-300">
                {text}
              </div>
            ))}
          </div>
        );
      })}
    </TooltipBox>
  );
}

export function ServerMetricsPanelPlot({
  panel,
  data,
  syncId,
  height,
}: {
  panel: ServerPanel;
  data: ServerMetricsChartData;
  syncId: string;
  height: number;
}) {
  const tickLabels = new Map(data.ticks.map((x, index) => [x, data.tickLabels[index] ?? formatNumber(x)]));
  const levelAt = new Map(data.rows.map((row) => [row.x, row.level]));
  const colorOf = (field: string) =>
    data.series.find((series) => field.startsWith(`${series.key}__`))?.color ?? "#2563eb";
  const xLabel = (x: number) => levelAt.get(x) ?? formatNumber(x);
  const yAxis = panelYTicks(panel, data.rows);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={data.rows} syncId={syncId} margin={{ top: 8, right: 16, bottom: 4, left: 4 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
        <XAxis
          dataKey="x"
          type="number"
          domain={data.domain}
          ticks={data.ticks}
          tickFormatter={(x: number) => tickLabels.get(x) ?? formatNumber(x)}
          stroke="currentColor"
          height={28}
          allowDecimals
          interval={0}
        />
        <YAxis
          stroke="currentColor"
          width={52}
          tickFormatter={(value: number) => formatNumber(value)}
          domain={yAxis.domain}
          ticks={yAxis.ticks}
          interval={0}
        />
        <Tooltip
          labelFormatter={(x) => xLabel(Number(x))}
          wrapperStyle={{ zIndex: panel.id === "ttft" ? 40 : 30 }}
          isAnimationActive={false}
          content={<PanelTooltip panel={panel} data={data} full={panel.id === "ttft"} />}
        />
        {panel.lines.length > 1 ? <Legend wrapperStyle={{ fontSize: 11 }} itemSorter={null} /> : null}
        {panel.lines.map((line) => (
          <Line
            key={line.field}
            dataKey={line.field}
            name={line.label}
            stroke={colorOf(line.field)}
            strokeDasharray={line.dashed ? "5 4" : undefined}
            strokeOpacity={line.dashed ? 0.7 : 1}
            strokeWidth={2}
            dot={{ r: 3 }}
            activeDot={{ r: 5 }}
            connectNulls={false}
            isAnimationActive={false}
            type="linear"
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
