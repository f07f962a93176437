"use client";

/** Single-stream tok/s per run as horizontal bars, in the runs' colours. */
import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SingleStreamBar } from "@/lib/analysis/series";
import { formatNumber } from "@/lib/format";

export function SingleStreamChart({ bars }: { bars: SingleStreamBar[] }) {
  const measured = bars.filter((bar) => bar.output_tok_s !== null);
  if (measured.length === 0) {
    return (
      <div
        className="flex h-32 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-sm text-zinc-500 dark:border-zinc-700"
        data-testid="chart-single-stream"
      >
        None of these runs was measured at concurrency 1.
      </div>
    );
  }
  const height = 48 + bars.length * 40;
  return (
    <div data-testid="chart-single-stream" className="text-zinc-600 dark:text-zinc-400">
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
    </div>
  );
}
