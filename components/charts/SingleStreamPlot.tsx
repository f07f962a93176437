"use client";

/** The Recharts drawing of a SingleStreamChart, loaded only when the chart comes into view (see InView). */
import { type RefObject, useEffect, useRef, useState } from "react";
import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SingleStreamBar } from "@/lib/analysis/series";
import { formatNumber } from "@/lib/format";
import { TooltipBox } from "./TooltipBox";

/** The run names' column: up to 220 px, never more than 40% of a narrow (phone) chart. */
function useLabelWidth(box: RefObject<HTMLDivElement | null>): number {
  const [width, setWidth] = useState(220);
  useEffect(() => {
    const element = box.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.round(Math.min(220, Math.max(96, entry.contentRect.width * 0.4))));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [box]);
  return width;
}

export function SingleStreamPlot({ bars, height }: { bars: SingleStreamBar[]; height: number }) {
  const box = useRef<HTMLDivElement>(null);
  const labelWidth = useLabelWidth(box);
  return (
    <div ref={box}>
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={bars} layout="vertical" margin={{ top: 4, right: 72, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} horizontal={false} />
          <XAxis type="number" stroke="currentColor" tickFormatter={(value: number) => formatNumber(value)} />
          <YAxis type="category" dataKey="label" width={labelWidth} stroke="currentColor" tick={{ fontSize: 12 }} />
          <Tooltip
            cursor={{ fillOpacity: 0.08 }}
            isAnimationActive={false}
            content={({ active, payload }) => {
              const bar = payload?.[0]?.payload as SingleStreamBar | undefined;
              if (!active || !bar) return null;
              return (
                <TooltipBox>
                  <div className="font-medium">{bar.label}</div>
                  <div className="tabular-nums">
                    {bar.output_tok_s === null
                      ? "not measured at concurrency 1"
                      : `${formatNumber(bar.output_tok_s)} tok/s${bar.derived ? " (1000 / mean TPOT)" : ""}`}
                  </div>
                </TooltipBox>
              );
            }}
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
