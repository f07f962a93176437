"use client";

/** The Recharts drawing of an EfficiencyChart, loaded only when the chart comes into view (see InView). */
import { CartesianGrid, LabelList, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import type { EfficiencyPoint } from "@/lib/analysis/efficiency";
import type { EfficiencyChartData } from "@/lib/comparisons/model";
import { formatNumber } from "@/lib/format";
import { TooltipBox } from "./TooltipBox";

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
      <ScatterChart margin={{ top: 16, right: 32, bottom: 24, left: 8 }}>
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
          width={64}
          tickFormatter={(value: number) => formatNumber(value)}
          label={{
            value: "output tok/s per GPU",
            angle: -90,
            position: "insideLeft",
            fill: "currentColor",
            fontSize: 12,
          }}
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
          >
            <LabelList dataKey="label" position="top" fontSize={11} fill="currentColor" />
          </Scatter>
        ))}
      </ScatterChart>
    </ResponsiveContainer>
  );
}
