"use client";

/**
 * Throughput per GPU against interactivity (tok/s per user = 1000 / TPOT): every measured level as a dot
 * labelled with its load, and each series' Pareto frontier as a line through the levels no other level of
 * the series beats on both. Up and to the right is better on both counts.
 */
import { CartesianGrid, LabelList, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import type { EfficiencyChartData } from "@/lib/analysis/comparison";
import { formatNumber } from "@/lib/format";
import { ToggleLegend } from "./ToggleLegend";

export function EfficiencyChart({ data, height = 360 }: { data: EfficiencyChartData; height?: number }) {
  const drawn = data.series.filter((item) => (data.points[item.key]?.length ?? 0) > 0);
  if (drawn.length === 0) {
    return (
      <div data-testid="chart-efficiency">
        <div className="flex h-40 items-center justify-center rounded-lg border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400">
          Throughput per GPU against tok/s per user needs a GPU count and, at the same load level, TPOT and output
          throughput; none of these runs has all three.
        </div>
        <Notes notes={data.notes} />
      </div>
    );
  }
  return (
    <div data-testid="chart-efficiency" className="text-zinc-600 dark:text-zinc-400" data-chart>
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
              value: "tok/s per user (1000 / TPOT)",
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
            formatter={(value, name) => [formatNumber(Number(value)), String(name)]}
            labelFormatter={() => ""}
            contentStyle={{ borderRadius: 6, fontSize: 12 }}
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
      <ToggleLegend series={data.series} />
      <Notes notes={data.notes} />
    </div>
  );
}

function Notes({ notes }: { notes: string[] }) {
  if (notes.length === 0) return null;
  return (
    <ul className="mt-1 space-y-0.5 text-xs text-amber-800 dark:text-amber-300" data-testid="efficiency-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}
