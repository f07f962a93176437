"use client";

/** The Recharts drawing of a SeriesChart, loaded only when the chart comes into view (components/charts/InView). */
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { type Box, markerLabelCandidates } from "@/components/charts/label-layout";
import { type PlotLabel, PlotLabels } from "@/components/charts/PlotLabels";
import { TooltipBox } from "@/components/charts/TooltipBox";
import { formatNumber } from "@/lib/format";
import { ownValue } from "@/lib/own-value";
import type { SeriesChart as SeriesChartData, SeriesChartMark, SeriesChartRow } from "@/lib/series/chart";

const STATUS_COLOR: Record<string, string> = {
  worse: "#dc2626",
  better: "#16a34a",
  ok: "#2563eb",
  insufficient: "#a1a1aa",
  unjudged: "#2563eb",
};
const MARK_COLOR: Record<string, string> = {
  regression: "#dc2626",
  suspicious: "#d97706",
  improvement: "#16a34a",
  expected: "#7c3aed",
};

const TWO_DAYS_MS = 2 * 24 * 3600 * 1000;

/**
 * A date tick: the day, or when the runs span less than two days (an afternoon's sweeps) the day and UTC time,
 * so the ticks do not all read the same date.
 */
function formatDate(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  return spanMs < TWO_DAYS_MS ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

function PointTooltip({ row, unit }: { row: SeriesChartRow; unit: string }) {
  return (
    <TooltipBox>
      <div className="font-medium">{row.label}</div>
      <div className="tabular-nums">
        {formatNumber(row.value)} {unit}
        {row.band ? ` (${row.runs} runs: ${formatNumber(row.band[0])}–${formatNumber(row.band[1])})` : ""}
      </div>
      <div className="text-zinc-600 dark:text-zinc-400">
        {row.engine_version ? `engine ${row.engine_version}` : ""}
        {row.git_commit ? ` · ${row.git_commit.slice(0, 12)}` : ""} · {row.status}
      </div>
      {row.what_changed.length > 0 ? (
        <ul className="mt-1 list-disc pl-4">
          {row.what_changed.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
    </TooltipBox>
  );
}

/** Rows of labels a change line may use, from the plot's top down, before its label is left out. */
const MARK_LABEL_ROWS = 4;

/**
 * The change lines' labels ("regression -22.1%"), each beside its line on the first row where it covers no
 * other and stays inside the plot; in the text colour, since the line's colour is too faint for text on one
 * of the themes. A label with no room is left out: the change is listed under the chart.
 */
function MarkLabels({ marks, rows }: { marks: SeriesChartMark[]; rows: SeriesChartRow[] }) {
  const xScale = useXAxisScale();
  const yScale = useYAxisScale();
  if (!xScale || !yScale) return null;
  // The points stay readable: a label does not cover one.
  const obstacles: Box[] = rows.flatMap((row) => {
    const x = xScale(row.x);
    const y = yScale(row.value);
    return x === undefined || y === undefined ? [] : [{ left: x - 5, top: y - 5, width: 10, height: 10 }];
  });
  const labels: PlotLabel[] = marks.flatMap((mark, index) => {
    const x = xScale(mark.x);
    if (x === undefined) return [];
    return [
      {
        id: `${mark.kind}-${mark.x}-${index}`,
        text: mark.label,
        candidates: (width: number, height: number, plot: Box) =>
          markerLabelCandidates(x, plot.top, width, height, MARK_LABEL_ROWS),
      },
    ];
  });
  return <PlotLabels labels={labels} obstacles={obstacles} testId="series-mark-labels" />;
}

export function SeriesChartPlot({
  chart,
  unit,
  height = 280,
}: {
  chart: SeriesChartData;
  unit: string;
  height?: number;
}) {
  const isDate = chart.axis === "date";
  const xs = chart.rows.map((row) => row.x);
  const xMin = isDate ? Math.min(...xs) : 0;
  const xMax = isDate ? Math.max(...xs) : chart.versions.length - 1;
  const spanMs = xs.length > 0 ? xMax - xMin : 0;
  return (
    <ResponsiveContainer width="100%" height={height}>
      {/* The right margin holds half of the last date's tick label. */}
      <ComposedChart data={chart.rows} margin={{ top: 16, right: 40, bottom: 4, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
        <XAxis
          dataKey="x"
          type="number"
          domain={isDate ? ["dataMin", "dataMax"] : [-0.5, chart.versions.length - 0.5]}
          ticks={isDate ? undefined : chart.versions.map((_, index) => index)}
          tickFormatter={(value: number) => (isDate ? formatDate(value, spanMs) : (chart.versions[value] ?? ""))}
          stroke="currentColor"
          tick={{ fontSize: 12 }}
        />
        <YAxis
          stroke="currentColor"
          tickFormatter={(value: number) => formatNumber(value)}
          width={64}
          domain={["auto", "auto"]}
        />
        <Tooltip
          isAnimationActive={false}
          content={({ active, payload }) => {
            const row = payload?.[0]?.payload as SeriesChartRow | undefined;
            return active && row ? <PointTooltip row={row} unit={unit} /> : null;
          }}
        />
        <Area dataKey="band" stroke="none" fill="#2563eb" fillOpacity={0.15} isAnimationActive={false} connectNulls />
        {chart.marks.map((mark, index) => (
          <ReferenceLine
            key={`${mark.kind}-${mark.x}-${index}`}
            x={mark.x}
            stroke={MARK_COLOR[mark.kind]}
            strokeDasharray="4 3"
          />
        ))}
        <Line
          dataKey="value"
          stroke="#2563eb"
          strokeWidth={1.5}
          isAnimationActive={false}
          dot={(props: { cx?: number; cy?: number; payload?: SeriesChartRow; index?: number }) => {
            const { cx, cy, payload, index } = props;
            if (cx === undefined || cy === undefined || !payload) return <g key={index} />;
            return (
              <a key={payload.run_id} href={`/runs/${payload.run_id}`} aria-label={`${payload.label}: open the run`}>
                <circle
                  cx={cx}
                  cy={cy}
                  r={payload.status === "worse" || payload.status === "better" ? 5 : 3.5}
                  fill={ownValue(STATUS_COLOR, payload.status) ?? "#2563eb"}
                  stroke="white"
                  strokeWidth={1}
                  data-status={payload.status}
                />
              </a>
            );
          }}
          activeDot={{ r: 6, style: { cursor: "pointer" } }}
        />
        <MarkLabels marks={chart.marks} rows={chart.rows} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
