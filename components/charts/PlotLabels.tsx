"use client";

/**
 * Text labels drawn inside a Recharts chart (a child of the chart, so it knows the plot area) where
 * label-layout.ts puts them: never over one another, never over a point, never outside the plot. Labels that
 * find no room are not drawn.
 */
import { usePlotArea } from "recharts";
import { type Box, layoutLabels, textWidth } from "./label-layout";

export interface PlotLabel {
  id: string;
  text: string;
  /** The boxes this label may take once its size (and the plot's box) is known, best first. */
  candidates: (width: number, height: number, plot: Box) => Box[];
}

/** The height of a label's box: the font's ascent and descent fit inside 1.25 em. */
export const labelHeight = (fontSizePx: number) => Math.ceil(fontSizePx * 1.25);

function pageFont(fontSizePx: number): string {
  const family = typeof document === "undefined" ? "sans-serif" : getComputedStyle(document.body).fontFamily;
  return `${fontSizePx}px ${family}`;
}

export function PlotLabels({
  labels,
  obstacles = [],
  fontSizePx = 11,
  testId,
}: {
  labels: PlotLabel[];
  obstacles?: Box[];
  fontSizePx?: number;
  testId: string;
}) {
  const plot = usePlotArea();
  if (!plot) return null;
  const font = pageFont(fontSizePx);
  const height = labelHeight(fontSizePx);
  const byId = new Map(labels.map((label) => [label.id, label]));
  const bounds: Box = { left: plot.x, top: plot.y, width: plot.width, height: plot.height };
  const placed = layoutLabels(
    labels.map((label) => ({
      id: label.id,
      candidates: label.candidates(Math.ceil(textWidth(label.text, font, fontSizePx)), height, bounds),
    })),
    bounds,
    obstacles,
  );
  return (
    <g data-testid={testId} data-labels-asked={labels.length} data-labels-drawn={placed.length}>
      {placed.map(({ id, box }) => (
        // The baseline one em under the box's top: the ascent sits inside the box, the descent below it.
        <text key={id} x={box.left} y={box.top + fontSizePx} fontSize={fontSizePx} fill="currentColor">
          {byId.get(id)?.text}
        </text>
      ))}
    </g>
  );
}

/**
 * The y axis's title written level above the axis, where no tick label can be: turned on its side beside the
 * ticks it ran through them once the numbers grew wide. The chart's top margin makes the room.
 */
export function YAxisTitle({
  text,
  axisWidth,
  fontSizePx = 12,
}: {
  text: string;
  axisWidth: number;
  fontSizePx?: number;
}) {
  const plot = usePlotArea();
  if (!plot) return null;
  return (
    <text
      x={Math.max(0, plot.x - axisWidth)}
      y={plot.y - Y_TITLE_GAP_PX}
      fontSize={fontSizePx}
      fill="currentColor"
      data-testid="y-axis-title"
    >
      {text}
    </text>
  );
}

/** Between the title's baseline and the plot's top: half a tick label's height and the descent, with a gap. */
const Y_TITLE_GAP_PX = 14;
/** The top margin a chart with a YAxisTitle needs. */
export const Y_TITLE_MARGIN_PX = 30;
