"use client";

/** The Recharts drawing of an EfficiencyChart, loaded only when the chart comes into view (see InView). */
import {
  CartesianGrid,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import type { EfficiencyPoint } from "@/lib/analysis/efficiency";
import type { EfficiencyChartData } from "@/lib/comparisons/model";
import { formatNumber } from "@/lib/format";
import { type Box, pointLabelCandidates } from "./label-layout";
import { type PlotLabel, PlotLabels, Y_TITLE_MARGIN_PX, YAxisTitle } from "./PlotLabels";
import { TooltipBox } from "./TooltipBox";

/** Recharts' default scatter symbol (area 64) has a radius of about 4.5 px. */
const POINT_RADIUS_PX = 5;
const Y_AXIS_WIDTH_PX = 64;

/**
 * Every shown point's load label ("C=64"), placed where it covers no other label and no point: two runs
 * measured at nearly the same figures put their labels side by side, or leave one out.
 */
function PointLabels({ data, drawn }: { data: EfficiencyChartData; drawn: EfficiencyChartData["series"] }) {
  const xScale = useXAxisScale();
  const yScale = useYAxisScale();
  if (!xScale || !yScale) return null;
  const points = drawn
    .filter((item) => !item.hidden)
    .flatMap((item) =>
      (data.points[item.key] ?? []).flatMap((point, index) => {
        const x = xScale(point.tok_s_per_user);
        const y = yScale(point.tok_s_per_gpu);
        return x === undefined || y === undefined ? [] : [{ id: `${item.key}-${index}`, x, y, text: point.label }];
      }),
    );
  const obstacles: Box[] = points.map(({ x, y }) => ({
    left: x - POINT_RADIUS_PX,
    top: y - POINT_RADIUS_PX,
    width: 2 * POINT_RADIUS_PX,
    height: 2 * POINT_RADIUS_PX,
  }));
  const labels: PlotLabel[] = points.map(({ id, x, y, text }) => ({
    id,
    text,
    candidates: (width, height) => pointLabelCandidates(x, y, width, height, POINT_RADIUS_PX),
  }));
  return <PlotLabels labels={labels} obstacles={obstacles} testId="efficiency-point-labels" />;
}

export function EfficiencyPlot({
  data,
  drawn,
  height,
}: {
  data: EfficiencyChartData;
  drawn: EfficiencyChartData["series"];
  height: number;
}) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <ScatterChart margin={{ top: Y_TITLE_MARGIN_PX, right: 16, bottom: 24, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
        <XAxis
          type="number"
          dataKey="tok_s_per_user"
          name="tok/s per user"
          stroke="currentColor"
          tickFormatter={(value: number) => formatNumber(value)}
          label={{
            value: `tok/s per user (1000 / ${data.tpotStat} TPOT)`,
            position: "insideBottom",
            offset: -16,
            fill: "currentColor",
            fontSize: 12,
          }}
          domain={["auto", "auto"]}
        />
        <YAxis
          type="number"
          dataKey="tok_s_per_gpu"
          name="tok/s per GPU"
          stroke="currentColor"
          width={Y_AXIS_WIDTH_PX}
          tickFormatter={(value: number) => formatNumber(value)}
        />
        <Tooltip
          cursor={{ strokeDasharray: "3 3" }}
          isAnimationActive={false}
          content={({ active, payload }) => {
            const first = payload?.[0];
            const point = first?.payload as EfficiencyPoint | undefined;
            if (!active || !point) return null;
            return (
              <TooltipBox>
                <div className="font-medium">
                  {String(first?.name ?? "")} · {point.label}
                </div>
                <div className="tabular-nums">{formatNumber(point.tok_s_per_gpu)} output tok/s per GPU</div>
                <div className="tabular-nums">{formatNumber(point.tok_s_per_user)} tok/s per user</div>
              </TooltipBox>
            );
          }}
        />
        {drawn.map((item) => (
          <Scatter
            key={`${item.key}-frontier`}
            name={`${item.label} frontier`}
            data={data.frontiers[item.key]}
            fill={item.color}
            stroke={item.color}
            line={{ strokeWidth: 2 }}
            lineJointType="monotoneX"
            shape={() => <g />}
            isAnimationActive={false}
            hide={item.hidden}
            legendType="none"
          />
        ))}
        {drawn.map((item) => (
          <Scatter
            key={item.key}
            name={item.label}
            data={data.points[item.key]}
            fill={item.color}
            isAnimationActive={false}
            hide={item.hidden}
          />
        ))}
        <PointLabels data={data} drawn={drawn} />
        <YAxisTitle text="output tok/s per GPU" axisWidth={Y_AXIS_WIDTH_PX} />
      </ScatterChart>
    </ResponsiveContainer>
  );
}
