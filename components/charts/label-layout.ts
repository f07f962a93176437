/**
 * Where a chart's text labels go so that none covers another or leaves the plot: each label offers the boxes it
 * may take, best first (above its point, then below, beside…); the labels are taken in order and each gets the
 * first of its boxes that lies inside the plot and clear of every box already placed and of the obstacles (the
 * points themselves). A label with no such box is left out: the chart's tooltip and data table still carry it.
 * Pure geometry, so it is tested without a browser; the charts measure the text and draw what it returns.
 */

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface LabelRequest {
  id: string;
  /** The boxes the label may take, in order of preference. */
  candidates: Box[];
}

export interface PlacedLabel {
  id: string;
  box: Box;
  /** Which of the label's candidates it took. */
  candidate: number;
}

/** The gap kept between two labels, and between a label and an obstacle, in pixels. */
export const LABEL_GAP_PX = 2;

export function boxesOverlap(a: Box, b: Box, gap = 0): boolean {
  return (
    a.left < b.left + b.width + gap &&
    b.left < a.left + a.width + gap &&
    a.top < b.top + b.height + gap &&
    b.top < a.top + a.height + gap
  );
}

export function boxInside(inner: Box, outer: Box): boolean {
  return (
    inner.left >= outer.left &&
    inner.top >= outer.top &&
    inner.left + inner.width <= outer.left + outer.width &&
    inner.top + inner.height <= outer.top + outer.height
  );
}

export function layoutLabels(
  labels: readonly LabelRequest[],
  bounds: Box,
  obstacles: readonly Box[] = [],
): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  for (const label of labels) {
    const candidate = label.candidates.findIndex(
      (box) =>
        boxInside(box, bounds) &&
        !placed.some((other) => boxesOverlap(box, other.box, LABEL_GAP_PX)) &&
        !obstacles.some((obstacle) => boxesOverlap(box, obstacle, LABEL_GAP_PX)),
    );
    if (candidate >= 0) placed.push({ id: label.id, box: label.candidates[candidate]!, candidate });
  }
  return placed;
}

/**
 * The boxes a point's label may take, best first: centred above the point, centred below, to its right, to
 * its left, then the four corners. `radius` is the point's; the label keeps LABEL_GAP_PX from it.
 */
export function pointLabelCandidates(x: number, y: number, width: number, height: number, radius: number): Box[] {
  const away = radius + LABEL_GAP_PX;
  const centredLeft = x - width / 2;
  const middleTop = y - height / 2;
  return [
    { left: centredLeft, top: y - away - height, width, height },
    { left: centredLeft, top: y + away, width, height },
    { left: x + away, top: middleTop, width, height },
    { left: x - away - width, top: middleTop, width, height },
    { left: x + away, top: y - away - height, width, height },
    { left: x - away - width, top: y - away - height, width, height },
    { left: x + away, top: y + away, width, height },
    { left: x - away - width, top: y + away, width, height },
  ];
}

/**
 * The boxes a vertical marker line's label may take: beside the line (right, then left) on the first row under
 * the plot's top, then on each row below, down to `rows` rows.
 */
export function markerLabelCandidates(x: number, plotTop: number, width: number, height: number, rows: number): Box[] {
  const candidates: Box[] = [];
  for (let row = 0; row < rows; row += 1) {
    const top = plotTop + LABEL_GAP_PX + row * (height + LABEL_GAP_PX);
    candidates.push({ left: x + 3, top, width, height }, { left: x - 3 - width, top, width, height });
  }
  return candidates;
}

let measuringContext: CanvasRenderingContext2D | null | undefined;

/**
 * The width of `text` in pixels as the browser draws it in `font` (a CSS font shorthand), measured on a canvas
 * (the advance SVG text takes too); where there is no canvas, an estimate of 0.6 em a character.
 */
export function textWidth(text: string, font: string, fontSizePx: number): number {
  if (measuringContext === undefined) {
    measuringContext = typeof document === "undefined" ? null : document.createElement("canvas").getContext("2d");
  }
  if (!measuringContext) return text.length * fontSizePx * 0.6;
  measuringContext.font = font;
  return measuringContext.measureText(text).width;
}
