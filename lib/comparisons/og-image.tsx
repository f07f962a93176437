/**
 * The link-preview image of a comparison, drawn: a 1200×630 card with the title, the verdict line, the
 * headline deltas of each series against the baseline and the throughput-vs-load chart (laid out by
 * og-chart.ts). Elements only; og-png.ts turns them into the PNG.
 */
import type { ReactElement } from "react";
import type { HeadlineDelta } from "@/lib/analysis/deltas";
import { formatChangeLine, formatLoadLevel, formatNumber } from "@/lib/format";
import type { Comparison, ComparisonSeries } from "./model";
import { LABEL_HEIGHT, layoutOgChart, type OgChartBox } from "./og-chart";
import { graphemeLength, truncateText } from "./view";

const MAX_SERIES_SHOWN = 4;

const INK = "#18181b";
const MUTED = "#71717a";
const RULE = "#e4e4e7";
const VERDICT_COLOR: Record<HeadlineDelta["verdict"], string> = {
  better: "#15803d",
  worse: "#b91c1c",
  noise: "#52525b",
  inconclusive: "#52525b",
  same: "#52525b",
  none: "#52525b",
};

const CHART: OgChartBox = { width: 600, height: 370, padding: { top: 14, right: 28, bottom: 40, left: 70 } };

function Brand() {
  return <div style={{ display: "flex", fontSize: 24, color: "#2563eb", letterSpacing: -0.5 }}>servebench</div>;
}

/** The card for a comparison that cannot be drawn (unknown link, deleted runs). */
export function notFoundImage(message: string): ReactElement {
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        background: "#ffffff",
        padding: "48px 56px",
        color: INK,
      }}
    >
      <Brand />
      <div style={{ display: "flex", flexDirection: "column" }}>
        <div style={{ display: "flex", fontSize: 60, letterSpacing: -1.5 }}>Comparison not found</div>
        <div style={{ display: "flex", fontSize: 28, color: MUTED, marginTop: 16 }}>{message}</div>
      </div>
      <div style={{ display: "flex", height: 8, background: RULE, borderRadius: 4 }} />
    </div>
  );
}

function DeltaLine({
  caption,
  delta,
  unit,
  compact,
}: {
  caption: string;
  delta: HeadlineDelta;
  unit: string;
  compact: boolean;
}) {
  const text =
    delta.value === null
      ? "not measured"
      : delta.base === null || delta.change === null
        ? `${formatNumber(delta.value)} ${unit}`
        : formatChangeLine(delta.base, delta.value, unit);
  const color = delta.value === null ? MUTED : VERDICT_COLOR[delta.verdict];
  // Roomy: the caption above the figures; compact (three series or more): side by side, smaller.
  return compact ? (
    <div style={{ display: "flex", alignItems: "baseline", marginTop: 3 }}>
      <div style={{ display: "flex", width: 116, fontSize: 14, color: MUTED }}>{caption}</div>
      <div style={{ display: "flex", fontSize: 20, color }}>{text}</div>
    </div>
  ) : (
    <div style={{ display: "flex", flexDirection: "column", marginTop: 8 }}>
      <div style={{ display: "flex", fontSize: 15, color: MUTED }}>{caption}</div>
      <div style={{ display: "flex", fontSize: 28, color, letterSpacing: -0.3 }}>{text}</div>
    </div>
  );
}

function SeriesName({ item, fontSize, suffix = "" }: { item: ComparisonSeries; fontSize: number; suffix?: string }) {
  return (
    <div style={{ display: "flex", alignItems: "center" }}>
      <div
        style={{
          display: "flex",
          width: 14,
          height: 14,
          borderRadius: 7,
          background: item.color,
          marginRight: 10,
          flexShrink: 0,
        }}
      />
      <div style={{ display: "flex", fontSize, color: INK }}>{`${truncateText(item.label, 38)}${suffix}`}</div>
    </div>
  );
}

function Deltas({ comparison }: { comparison: Comparison }) {
  const baseline = comparison.series[comparison.baselineIndex]!;
  const others = comparison.series.filter((_, index) => index !== comparison.baselineIndex);
  const shown = others.slice(0, MAX_SERIES_SHOWN);
  const compact = others.length > 2;
  return (
    <div style={{ display: "flex", flexDirection: "column", width: 490 }}>
      <div style={{ display: "flex", fontSize: 16, color: MUTED, marginBottom: 6 }}>BASELINE</div>
      <SeriesName item={baseline} fontSize={compact ? 19 : 22} />
      {others.length === 0 ? (
        <div style={{ display: "flex", fontSize: 22, color: MUTED, marginTop: 24 }}>Add another run to see deltas.</div>
      ) : null}
      {shown.map((item) => (
        <div key={item.key} style={{ display: "flex", flexDirection: "column", marginTop: compact ? 14 : 22 }}>
          <SeriesName item={item} fontSize={compact ? 19 : 22} />
          <div style={{ display: "flex", flexDirection: "column", paddingLeft: 24 }}>
            <DeltaLine caption="single stream" delta={item.headline.singleStream} unit="tok/s" compact={compact} />
            <DeltaLine
              caption={item.headline.peak.value !== null ? `peak @ ${formatLoadLevel(item.headline.peak)}` : "peak"}
              delta={item.headline.peak}
              unit="tok/s"
              compact={compact}
            />
            {others.length === 1 && item.changes.length > 0 ? (
              <div style={{ display: "flex", fontSize: 17, color: MUTED, marginTop: 10 }}>
                {truncateText(
                  `changed: ${item.changes
                    .slice(0, 3)
                    .map((change) => change.text)
                    .join(", ")}`,
                  52,
                )}
              </div>
            ) : null}
          </div>
        </div>
      ))}
      {others.length > shown.length ? (
        <div
          style={{ display: "flex", fontSize: 18, color: MUTED, marginTop: 12 }}
        >{`+ ${others.length - shown.length} more`}</div>
      ) : null}
    </div>
  );
}

function Chart({ comparison }: { comparison: Comparison }) {
  const data = comparison.charts.throughput;
  if (!data.hasData) {
    return (
      <div
        style={{
          display: "flex",
          width: CHART.width,
          height: CHART.height,
          alignItems: "center",
          justifyContent: "center",
          border: `2px dashed ${RULE}`,
          borderRadius: 12,
          fontSize: 22,
          color: MUTED,
        }}
      >
        No throughput measured at a load level
      </div>
    );
  }
  const layout = layoutOgChart(data, CHART);
  const { plot } = layout;
  const labelWidth = 96;
  return (
    <div style={{ display: "flex", flexDirection: "column" }}>
      <div style={{ display: "flex", fontSize: 18, color: MUTED, marginBottom: 8, paddingLeft: plot.left }}>
        {data.axis === "request_rate" ? "Output tok/s vs request rate" : "Output tok/s vs concurrency"}
      </div>
      <div style={{ display: "flex", position: "relative", width: CHART.width, height: CHART.height }}>
        {/* biome-ignore lint/a11y/noSvgWithoutTitle: drawn into a PNG, which has no accessibility tree; the page's alt text describes it */}
        <svg
          width={CHART.width}
          height={CHART.height}
          viewBox={`0 0 ${CHART.width} ${CHART.height}`}
          style={{ position: "absolute", left: 0, top: 0 }}
        >
          {layout.yTicks.map((tick) => (
            <line
              key={`y${tick.label}`}
              x1={plot.left}
              x2={plot.right}
              y1={tick.y}
              y2={tick.y}
              stroke={RULE}
              strokeWidth={1.5}
            />
          ))}
          {layout.xTicks.map((tick) => (
            <line
              key={`x${tick.label}`}
              x1={tick.x}
              x2={tick.x}
              y1={plot.top}
              y2={plot.bottom}
              stroke={RULE}
              strokeWidth={1}
              strokeDasharray="4 6"
            />
          ))}
          <line x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} stroke="#a1a1aa" strokeWidth={2} />
          {layout.lines.map((line) => (
            <polyline
              key={line.key}
              points={line.points}
              fill="none"
              stroke={line.color}
              strokeWidth={4}
              strokeLinejoin="round"
              strokeLinecap="round"
            />
          ))}
          {layout.dots.map((dot) => (
            <circle key={dot.key} cx={dot.x} cy={dot.y} r={6.5} fill={dot.color} stroke="#ffffff" strokeWidth={2} />
          ))}
        </svg>
        {layout.yTicks.map((tick) => (
          <div
            key={`yl${tick.label}`}
            style={{
              display: "flex",
              position: "absolute",
              left: 0,
              top: tick.y - 11,
              width: plot.left - 10,
              height: 22,
              justifyContent: "flex-end",
              fontSize: 16,
              color: MUTED,
            }}
          >
            {tick.label}
          </div>
        ))}
        {layout.xTicks.map((tick) => (
          <div
            key={`xl${tick.label}`}
            style={{
              display: "flex",
              position: "absolute",
              left: tick.x - 30,
              top: plot.bottom + 8,
              width: 60,
              justifyContent: "center",
              fontSize: 16,
              color: MUTED,
            }}
          >
            {tick.label}
          </div>
        ))}
        {layout.labels.map((label, index) => (
          <div
            key={`l${index}`}
            style={{
              display: "flex",
              position: "absolute",
              top: label.y - LABEL_HEIGHT / 2,
              left: label.side === "right" ? label.x + 11 : label.x - 11 - labelWidth,
              width: labelWidth,
              height: LABEL_HEIGHT,
              alignItems: "center",
              justifyContent: label.side === "right" ? "flex-start" : "flex-end",
              fontSize: 18,
              color: label.color,
            }}
          >
            <div style={{ display: "flex", background: "rgba(255,255,255,0.92)", borderRadius: 4, padding: "0 4px" }}>
              {label.text}
            </div>
          </div>
        ))}
      </div>
      <div style={{ display: "flex", justifyContent: "center", fontSize: 15, color: MUTED, paddingLeft: plot.left }}>
        {data.axis === "request_rate"
          ? `requests per second${data.scale === "log10" ? " (log scale)" : ""}`
          : "concurrency (log scale)"}
      </div>
    </div>
  );
}

/** The preview of a comparison under a title (the saved one's, or the comparison's own). */
export function comparisonImage(title: string, comparison: Comparison): ReactElement {
  const shortTitle = truncateText(title, 110);
  const titleLength = graphemeLength(shortTitle);
  const titleSize = titleLength <= 48 ? 40 : titleLength <= 72 ? 34 : 28;
  const verdict = comparison.verdicts[0];
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        background: "#ffffff",
        padding: "32px 44px 24px 48px",
        color: INK,
      }}
    >
      <div style={{ display: "flex", justifyContent: "space-between", alignItems: "center" }}>
        <Brand />
        <div
          style={{ display: "flex", fontSize: 18, color: MUTED }}
        >{`${comparison.series.length} series · changes within ±${formatNumber(comparison.noise.pct)}% are noise`}</div>
      </div>
      <div
        style={{
          display: "flex",
          fontSize: titleSize,
          lineHeight: 1.15,
          letterSpacing: -0.8,
          marginTop: 10,
          maxHeight: titleSize * 1.15 * 2,
          overflow: "hidden",
        }}
      >
        {shortTitle}
      </div>
      {verdict ? (
        <div
          style={{
            display: "flex",
            fontSize: 22,
            lineHeight: 1.25,
            marginTop: 8,
            maxHeight: 22 * 1.25 * 2,
            overflow: "hidden",
            color: INK,
            background: "#f4f4f5",
            borderRadius: 8,
            padding: "6px 12px",
          }}
        >
          {/* The caveat and the sides come first in the sentence, so a cut never drops them. */}
          {truncateText(verdict.clauses[0] ? `${verdict.lead}: ${verdict.clauses[0].text}` : verdict.text, 150)}
        </div>
      ) : null}
      <div style={{ display: "flex", flex: 1, justifyContent: "space-between", alignItems: "flex-end", marginTop: 8 }}>
        <div style={{ display: "flex", alignSelf: "flex-start", marginTop: 18 }}>
          <Deltas comparison={comparison} />
        </div>
        <Chart comparison={comparison} />
      </div>
    </div>
  );
}
