/**
 * The throughput-vs-concurrency chart of the link-preview image, laid out as plain geometry: polylines per
 * series on a log2 x axis, axis ticks, and tok/s labels placed so they do not overlap. Pure, so it is tested
 * without rendering; og-image.tsx draws it as inline SVG plus positioned text.
 */
import type { LineChartData } from "@/lib/analysis/lines";
import { formatNumber } from "@/lib/format";

export interface OgChartBox {
  width: number;
  height: number;
  /** Space for the axes' labels around the plot area. */
  padding: { top: number; right: number; bottom: number; left: number };
}

export interface OgChartLabel {
  x: number;
  y: number;
  text: string;
  color: string;
  /** Which side of the point the label sits on. */
  side: "left" | "right";
}

export interface OgChartLayout {
  plot: { left: number; top: number; right: number; bottom: number };
  /** One entry per drawn piece of a series: a null in the data is a gap, never a zero. */
  lines: { key: string; color: string; points: string }[];
  dots: { key: string; color: string; x: number; y: number }[];
  labels: OgChartLabel[];
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; label: string }[];
}

export const LABEL_HEIGHT = 22;

/** A round step for about `count` intervals up to `max`: 1, 2, 2.5 or 5 times a power of ten. */
export function niceStep(max: number, count = 4): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw);
  return step ?? 10 * power;
}

/**
 * Spread labels that want to sit at `wanted` pixel heights so no two are closer than `gap`, staying within
 * [min, max]. Keeps their order; moves each as little as the constraint allows (pushed down, then up).
 */
export function spreadLabels(wanted: readonly number[], gap: number, min: number, max: number): number[] {
  const order = wanted.map((y, index) => ({ y, index })).sort((a, b) => a.y - b.y);
  const placed = order.map((item) => Math.min(Math.max(item.y, min), max));
  for (let i = 1; i < placed.length; i += 1) placed[i] = Math.max(placed[i]!, placed[i - 1]! + gap);
  if (placed.length > 0 && placed[placed.length - 1]! > max) {
    placed[placed.length - 1] = max;
    for (let i = placed.length - 2; i >= 0; i -= 1) placed[i] = Math.min(placed[i]!, placed[i + 1]! - gap);
  }
  const out = new Array<number>(wanted.length);
  order.forEach((item, rank) => {
    out[item.index] = placed[rank]!;
  });
  return out;
}

/** Lay out the chart of `data` (comparison.charts.throughput), leaving out hidden series. */
export function layoutOgChart(data: LineChartData, box: OgChartBox): OgChartLayout {
  const plot = {
    left: box.padding.left,
    top: box.padding.top,
    right: box.width - box.padding.right,
    bottom: box.height - box.padding.bottom,
  };
  const series = data.series.filter((item) => !item.hidden);
  const values = data.rows
    .flatMap((row) => series.map((item) => row[item.key]))
    .filter((value): value is number => typeof value === "number");
  const maxValue = values.length > 0 ? Math.max(...values) : 0;
  const step = niceStep(maxValue * 1.05);
  const yMax = Math.max(step, Math.ceil((maxValue * 1.05) / step) * step);
  // The comparison's own x domain and ticks: log2 concurrency, or a linear or log request-rate axis.
  const ticks = data.ticks.length > 0 ? data.ticks : [0];
  const xMin = data.domain[0];
  const xMax = data.domain[1];
  const xOf = (x: number) =>
    xMax === xMin ? (plot.left + plot.right) / 2 : plot.left + ((x - xMin) / (xMax - xMin)) * (plot.right - plot.left);
  const yOf = (value: number) => plot.bottom - (value / yMax) * (plot.bottom - plot.top);

  const lines: OgChartLayout["lines"] = [];
  const dots: OgChartLayout["dots"] = [];
  // Labels wanted per load level, placed together so they do not overlap.
  const wanted = new Map<number, { x: number; y: number; text: string; color: string }[]>();
  for (const item of series) {
    let piece: string[] = [];
    const flush = () => {
      if (piece.length > 1)
        lines.push({ key: `${item.key}-${lines.length}`, color: item.color, points: piece.join(" ") });
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
      piece.push(`${x.toFixed(1)},${y.toFixed(1)}`);
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
  const labels: OgChartLabel[] = [];
  const middle = (xMin + xMax) / 2;
  for (const level of levels) {
    if (!labelled.has(level)) continue;
    const items = wanted.get(level)!;
    const ys = spreadLabels(
      items.map((item) => item.y),
      LABEL_HEIGHT,
      plot.top + LABEL_HEIGHT / 2,
      plot.bottom - LABEL_HEIGHT / 2,
    );
    // Labels point into the plot: right of the points in the left half, left of them in the right half.
    const side = level < middle || xMax === xMin ? "right" : "left";
    items.forEach((item, index) => {
      labels.push({ x: item.x, y: ys[index]!, text: item.text, color: item.color, side });
    });
  }

  const everyOther = ticks.length > 9;
  const xTicks = ticks
    .map((x, index) => ({ x: xOf(x), label: data.tickLabels[index] ?? formatNumber(x), index }))
    .filter(({ index }) => !everyOther || index % 2 === 0 || index === ticks.length - 1)
    .map(({ x, label }) => ({ x, label }));
  const yTicks: OgChartLayout["yTicks"] = [];
  for (let value = 0; value <= yMax + step / 2; value += step)
    yTicks.push({ y: yOf(value), label: formatNumber(value) });

  return { plot, lines, dots, labels, xTicks, yTicks };
}
