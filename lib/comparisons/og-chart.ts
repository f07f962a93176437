/**
 * The throughput-vs-concurrency chart of the link-preview image, laid out as plain geometry: polylines per
 * series on a log2 x axis, axis ticks, and tok/s labels placed beside their points, off every line, dot and
 * other label, inside the chart. Pure, so it is tested without rendering (text widths come from the `measure`
 * given); og-image.tsx draws it as inline SVG plus positioned text.
 */
import type { LineChartData } from "@/lib/analysis/lines";
import { formatNumber } from "@/lib/format";
import type { MeasureText } from "./og-text";

export interface OgChartBox {
  width: number;
  height: number;
  /** Space for the axes' labels around the plot area. */
  padding: { top: number; right: number; bottom: number; left: number };
}

/** A rectangle in the chart's own pixels, its top-left corner at (x, y). */
export interface OgRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OgChartLabel extends OgRect {
  text: string;
  color: string;
}

export interface OgChartLayout {
  plot: { left: number; top: number; right: number; bottom: number };
  /** One entry per drawn piece of a series: a null in the data is a gap, never a zero. */
  lines: { key: string; color: string; points: string }[];
  /** The same pieces as coordinates, for placing labels off them. */
  segments: [number, number, number, number][];
  dots: { key: string; color: string; x: number; y: number }[];
  labels: OgChartLabel[];
  /** Each tick's position and its label's box, kept inside the chart. */
  xTicks: { x: number; label: string; box: OgRect }[];
  yTicks: { y: number; label: string; box: OgRect }[];
}

export const LABEL_HEIGHT = 22;
export const LABEL_FONT_SIZE = 18;
export const TICK_FONT_SIZE = 16;
/** Drawn radius of a dot, its white ring included. */
export const DOT_RADIUS = 8.5;
/** Half a line's drawn width, and a little air. */
const LINE_CLEARANCE = 4;
/** The padding each side of a label's text, inside its box. */
const LABEL_PADDING = 4;

/** A round step for about `count` intervals up to `max`: 1, 2, 2.5 or 5 times a power of ten. */
export function niceStep(max: number, count = 4): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw);
  return step ?? 10 * power;
}

function overlaps(a: OgRect, b: OgRect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Whether the segment from (x1, y1) to (x2, y2) passes through the rectangle (Liang–Barsky clipping). */
export function segmentHitsRect(segment: readonly [number, number, number, number], rect: OgRect): boolean {
  const [x1, y1, x2, y2] = segment;
  const dx = x2 - x1;
  const dy = y2 - y1;
  let low = 0;
  let high = 1;
  const edges: [number, number][] = [
    [-dx, x1 - rect.x],
    [dx, rect.x + rect.width - x1],
    [-dy, y1 - rect.y],
    [dy, rect.y + rect.height - y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) low = Math.max(low, t);
    else high = Math.min(high, t);
    if (low > high) return false;
  }
  return true;
}

function grow(rect: OgRect, by: number): OgRect {
  return { x: rect.x - by, y: rect.y - by, width: rect.width + 2 * by, height: rect.height + 2 * by };
}

/**
 * A label's box beside its point, the first of the places around it (toward the inside of the chart first)
 * that stays inside `area` and clear of every line, dot and label already placed; null when none is.
 */
function placeLabel(
  point: { x: number; y: number },
  width: number,
  inward: "right" | "left",
  area: OgRect,
  obstacles: { segments: OgChartLayout["segments"]; dots: OgChartLayout["dots"]; placed: OgRect[] },
): OgRect | null {
  const gap = DOT_RADIUS + 3;
  const right = point.x + gap;
  const left = point.x - gap - width;
  const above = point.y - gap - LABEL_HEIGHT;
  const below = point.y + gap;
  const middle = point.y - LABEL_HEIGHT / 2;
  const [first, second] = inward === "right" ? [right, left] : [left, right];
  const centre = point.x - width / 2;
  // Nearest places first: beside the point, then ever further above or below it.
  const candidates: [number, number][] = [
    [first, middle],
    [first, above],
    [first, below],
    [second, middle],
    [second, above],
    [second, below],
  ];
  for (let step = 1; step <= 8; step++) {
    const shift = step * (LABEL_HEIGHT / 2);
    for (const x of [first, centre, second]) candidates.push([x, above - shift], [x, below + shift]);
  }
  for (const [x, y] of candidates) {
    const rect = { x, y, width, height: LABEL_HEIGHT };
    if (x < area.x || y < area.y || x + width > area.x + area.width || y + LABEL_HEIGHT > area.y + area.height)
      continue;
    const clear = grow(rect, LINE_CLEARANCE);
    if (obstacles.segments.some((segment) => segmentHitsRect(segment, clear))) continue;
    if (obstacles.dots.some((dot) => overlaps(clear, grow({ x: dot.x, y: dot.y, width: 0, height: 0 }, DOT_RADIUS))))
      continue;
    if (obstacles.placed.some((other) => overlaps(grow(rect, 2), other))) continue;
    return rect;
  }
  return null;
}

/**
 * Lay out the chart of `data` (comparison.charts.throughput) in `box`, leaving out hidden series. The plot's
 * left edge moves right when the y axis's labels need more than the box's left padding.
 */
export function layoutOgChart(data: LineChartData, box: OgChartBox, measure: MeasureText): OgChartLayout {
  const series = data.series.filter((item) => !item.hidden);
  const values = data.rows
    .flatMap((row) => series.map((item) => row[item.key]))
    .filter((value): value is number => typeof value === "number");
  const maxValue = values.length > 0 ? Math.max(...values) : 0;
  const step = niceStep(maxValue * 1.05);
  const yMax = Math.max(step, Math.ceil((maxValue * 1.05) / step) * step);
  const yValues: number[] = [];
  for (let value = 0; value <= yMax + step / 2; value += step) yValues.push(value);
  const yLabelWidth = Math.max(0, ...yValues.map((value) => measure(formatNumber(value), TICK_FONT_SIZE)));
  const plot = {
    left: Math.max(box.padding.left, Math.ceil(yLabelWidth) + 12),
    top: box.padding.top,
    right: box.width - box.padding.right,
    bottom: box.height - box.padding.bottom,
  };
  // The comparison's own x domain and ticks: log2 concurrency, or a linear or log request-rate axis.
  const ticks = data.ticks.length > 0 ? data.ticks : [0];
  const xMin = data.domain[0];
  const xMax = data.domain[1];
  const xOf = (x: number) =>
    xMax === xMin ? (plot.left + plot.right) / 2 : plot.left + ((x - xMin) / (xMax - xMin)) * (plot.right - plot.left);
  const yOf = (value: number) => plot.bottom - (value / yMax) * (plot.bottom - plot.top);

  const lines: OgChartLayout["lines"] = [];
  const segments: OgChartLayout["segments"] = [];
  const dots: OgChartLayout["dots"] = [];
  // The labels each level would have: placed once every line and dot is known.
  const wanted = new Map<number, { x: number; y: number; text: string; color: string }[]>();
  for (const item of series) {
    let piece: [number, number][] = [];
    const flush = () => {
      if (piece.length > 1) {
        lines.push({
          key: `${item.key}-${lines.length}`,
          color: item.color,
          points: piece.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "),
        });
        for (let index = 1; index < piece.length; index++)
          segments.push([piece[index - 1]![0], piece[index - 1]![1], piece[index]![0], piece[index]![1]]);
      }
      piece = [];
    };
    for (const row of data.rows) {
      const value = row[item.key];
      if (typeof value !== "number") {
        // A level this series lacks is bridged, as on the page (the preview has no dashes: a plain line).
        if (data.rows.some((other) => other.x > row.x && typeof other[item.key] === "number") && piece.length > 0)
          continue;
        flush();
        continue;
      }
      const x = xOf(row.x);
      const y = yOf(value);
      piece.push([x, y]);
      dots.push({ key: `${item.key}-${row.x}`, color: item.color, x, y });
      const level = wanted.get(row.x) ?? [];
      level.push({ x, y, text: formatNumber(value), color: item.color });
      wanted.set(row.x, level);
    }
    flush();
  }

  // With many levels, label only the first, the last and the peak of each series' level set: the rest crowd.
  const levels = [...wanted.keys()].sort((a, b) => a - b);
  const labelled = new Set(levels.length <= 6 ? levels : [levels[0]!, levels[levels.length - 1]!]);
  if (levels.length > 6) {
    for (const item of series) {
      let best: { x: number; value: number } | null = null;
      for (const row of data.rows) {
        const value = row[item.key];
        if (typeof value === "number" && (!best || value > best.value)) best = { x: row.x, value };
      }
      if (best) labelled.add(best.x);
    }
  }
  // Labels stay over the plot (above its axis, right of the y labels) and may use the padding above and right.
  const labelArea: OgRect = { x: plot.left + 2, y: 0, width: box.width - plot.left - 2, height: plot.bottom - 2 };
  const labels: OgChartLabel[] = [];
  const middle = (xMin + xMax) / 2;
  for (const level of levels) {
    if (!labelled.has(level)) continue;
    // Highest first: the top of a level's stack has the most room above it.
    const items = [...wanted.get(level)!].sort((a, b) => a.y - b.y);
    const inward = level < middle || xMax === xMin ? "right" : "left";
    for (const item of items) {
      const width = Math.ceil(measure(item.text, LABEL_FONT_SIZE)) + 2 * LABEL_PADDING;
      const rect = placeLabel(item, width, inward, labelArea, { segments, dots, placed: labels });
      if (rect) labels.push({ ...rect, text: item.text, color: item.color });
    }
  }

  const everyOther = ticks.length > 9;
  const xTicks = ticks
    .map((x, index) => ({ x: xOf(x), label: data.tickLabels[index] ?? formatNumber(x), index }))
    .filter(({ index }) => !everyOther || index % 2 === 0 || index === ticks.length - 1)
    .map(({ x, label }) => {
      const width = Math.ceil(measure(label, TICK_FONT_SIZE)) + 2;
      const left = Math.min(Math.max(x - width / 2, 0), box.width - width);
      return { x, label, box: { x: left, y: plot.bottom + 8, width, height: LABEL_HEIGHT } };
    });
  const yTicks = yValues.map((value) => {
    const y = yOf(value);
    const top = Math.min(Math.max(y - LABEL_HEIGHT / 2, 0), box.height - LABEL_HEIGHT);
    return {
      y,
      label: formatNumber(value),
      box: { x: 0, y: top, width: plot.left - 10, height: LABEL_HEIGHT },
    };
  });

  return { plot, lines, segments, dots, labels, xTicks, yTicks };
}
