/**
 * The link-preview image of a comparison, drawn: a 1200×630 card with the title, the verdict line, the
 * headline deltas of each series against the baseline and the throughput-vs-load chart, every box where
 * og-layout.ts put it (and the chart as og-chart.ts laid it out). Elements only; og-png.ts turns them into the
 * PNG.
 */
import type { ReactElement } from "react";
import type { Comparison } from "./model";
import { LABEL_FONT_SIZE, type OgRect, TICK_FONT_SIZE } from "./og-chart";
import { measureText } from "./og-fonts";
import { INK, layoutPreview, MUTED, type OgChartPlacement, type OgPreviewLayout, type OgTextBlock } from "./og-layout";

const RULE = "#e4e4e7";

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

/** A text block as its lines, each its own row that never wraps again: the layout measured where they break. */
function TextBlock({ text }: { text: OgTextBlock }) {
  return (
    <div
      style={{
        display: "flex",
        flexDirection: "column",
        position: "absolute",
        left: text.x,
        top: text.y,
        width: text.width,
        height: text.height,
        alignItems: text.align === "right" ? "flex-end" : "flex-start",
        fontSize: text.fontSize,
        lineHeight: `${text.lineHeight}px`,
        color: text.color,
      }}
    >
      {text.lines.map((line, index) => (
        <div key={`${text.key}-${index}`} style={{ display: "flex", height: text.lineHeight, whiteSpace: "pre" }}>
          {line.text}
        </div>
      ))}
    </div>
  );
}

function Chart({ placement }: { placement: OgChartPlacement }) {
  const { box, layout } = placement;
  if (!layout) {
    return (
      <div
        style={{
          display: "flex",
          position: "absolute",
          left: box.x,
          top: box.y,
          width: box.width,
          height: box.height,
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
  const { plot } = layout;
  const label = (key: string, rect: OgRect, text: string, color: string, justify: string, fontSize: number) => (
    <div
      key={key}
      style={{
        display: "flex",
        position: "absolute",
        left: rect.x,
        top: rect.y,
        width: rect.width,
        height: rect.height,
        alignItems: "center",
        justifyContent: justify,
        whiteSpace: "pre",
        fontSize,
        color,
      }}
    >
      {text}
    </div>
  );
  return (
    <div
      style={{
        display: "flex",
        position: "absolute",
        left: box.x,
        top: box.y,
        width: box.width,
        height: box.height,
      }}
    >
      {/* biome-ignore lint/a11y/noSvgWithoutTitle: drawn into a PNG, which has no accessibility tree; the page's alt text describes it */}
      <svg
        width={box.width}
        height={box.height}
        viewBox={`0 0 ${box.width} ${box.height}`}
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
      {layout.yTicks.map((tick) => label(`yl${tick.label}`, tick.box, tick.label, MUTED, "flex-end", TICK_FONT_SIZE))}
      {layout.xTicks.map((tick) => label(`xl${tick.label}`, tick.box, tick.label, MUTED, "center", TICK_FONT_SIZE))}
      {layout.labels.map((item, index) => label(`l${index}`, item, item.text, item.color, "center", LABEL_FONT_SIZE))}
    </div>
  );
}

/** The preview of a comparison under a title (the saved one's, or the comparison's own), as laid out. */
export function comparisonImage(title: string, comparison: Comparison): ReactElement {
  return previewElement(layoutPreview(title, comparison, measureText));
}

/** The elements of a laid-out preview: every box where the layout put it. */
export function previewElement(layout: OgPreviewLayout): ReactElement {
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        position: "relative",
        background: "#ffffff",
        color: INK,
      }}
    >
      {layout.panels.map((panel) => (
        <div
          key={panel.key}
          style={{
            display: "flex",
            position: "absolute",
            left: panel.x,
            top: panel.y,
            width: panel.width,
            height: panel.height,
            background: panel.color,
            borderRadius: 8,
          }}
        />
      ))}
      {layout.swatches.map((swatch) => (
        <div
          key={swatch.key}
          style={{
            display: "flex",
            position: "absolute",
            left: swatch.x,
            top: swatch.y,
            width: swatch.width,
            height: swatch.height,
            borderRadius: swatch.width / 2,
            background: swatch.color,
          }}
        />
      ))}
      <Chart placement={layout.chart} />
      {layout.texts.map((text) => (
        <TextBlock key={text.key} text={text} />
      ))}
    </div>
  );
}
