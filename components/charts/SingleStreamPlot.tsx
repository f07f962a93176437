"use client";

/** The Recharts drawing of a SingleStreamChart, loaded only when the chart comes into view (see InView). */
import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SingleStreamBar } from "@/lib/analysis/series";
import { formatNumber } from "@/lib/format";

export function SingleStreamPlot({ bars, height }: { bars: SingleStreamBar[]; height: number }) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={bars} layout="vertical" margin={{ top: 4, right: 72, bottom: 4, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} horizontal={false} />
        <XAxis type="number" stroke="currentColor" tickFormatter={(value: number) => formatNumber(value)} />
        <YAxis type="category" dataKey="label" width={220} stroke="currentColor" tick={{ fontSize: 12 }} />
        <Tooltip
          formatter={(value) => (typeof value === "number" ? `${formatNumber(value)} tok/s` : "not measured")}
          cursor={{ fillOpacity: 0.08 }}
        />
        <Bar dataKey="output_tok_s" name="single-stream tok/s" isAnimationActive={false} barSize={22}>
          {bars.map((bar) => (
            <Cell key={bar.key} fill={bar.color} />
          ))}
          <LabelList
            dataKey="output_tok_s"
            position="right"
            fill="currentColor"
            fontSize={12}
            formatter={(value) => (typeof value === "number" ? `${formatNumber(value)} tok/s` : "")}
          />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
