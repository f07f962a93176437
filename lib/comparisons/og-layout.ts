/**
 * The link-preview image laid out as boxes on its 1200×630 canvas: every text as the lines it is drawn in
 * (measured, wrapped and cut with "…" to its box), the verdict's panel, the runs' swatches and the chart's box.
 * Pure: og-image.tsx draws exactly these boxes, and tests check them without drawing (every line within its box,
 * every box within the canvas, nothing below the bottom margin).
 *
 * From the top: the brand and the noise note, the title (two lines at most, its size chosen by its length), the
 * verdict (two lines in a grey panel), then the deltas on the left and the throughput chart on the right, which
 * takes the height that is left. The deltas fall back to a compact form, then to fewer series ("+ N more"),
 * until they fit that height.
 */
import type { HeadlineDelta } from "@/lib/analysis/deltas";
import { formatChangeLine, formatLoadLevel, formatNumber } from "@/lib/format";
import type { Comparison, ComparisonSeries } from "./model";
import { LABEL_HEIGHT, layoutOgChart, type OgChartBox, type OgChartLayout, type OgRect } from "./og-chart";
import { type FittedLine, fitLine, type MeasureText, wrapText } from "./og-text";

export const CANVAS = { width: 1200, height: 630 } as const;
export const MARGIN = { top: 32, right: 44, bottom: 24, left: 48 } as const;
const CONTENT_WIDTH = CANVAS.width - MARGIN.left - MARGIN.right;
const CONTENT_BOTTOM = CANVAS.height - MARGIN.bottom;
const LEFT_WIDTH = 480;
const CHART_WIDTH = 600;
const CHART_X = CANVAS.width - MARGIN.right - CHART_WIDTH;
const MAX_SERIES_SHOWN = 4;

export const INK = "#18181b";
export const MUTED = "#71717a";
export const PANEL = "#f4f4f5";
export const VERDICT_COLOR: Record<HeadlineDelta["verdict"], string> = {
  better: "#15803d",
  worse: "#b91c1c",
  noise: "#52525b",
  inconclusive: "#52525b",
  same: "#52525b",
  none: "#52525b",
};

/** A text drawn as its lines, top to bottom, each `lineHeight` tall, inside its box. */
export interface OgTextBlock extends OgRect {
  key: string;
  fontSize: number;
  lineHeight: number;
  color: string;
  align: "left" | "right";
  lines: FittedLine[];
  /** Part of the text did not fit: the last line ends with "…". */
  cut: boolean;
}

export interface OgSwatch extends OgRect {
  key: string;
  color: string;
}

export interface OgChartPlacement {
  /** The chart's caption above it, the chart itself and the axis caption below, on the canvas. */
  caption: OgTextBlock;
  box: OgRect;
  axisCaption: OgTextBlock;
  /** The chart's own layout, in the box's pixels; null when nothing was measured at a load level. */
  layout: OgChartLayout | null;
}

export interface OgPreviewLayout {
  texts: OgTextBlock[];
  /** Filled rectangles behind text (the verdict's panel). */
  panels: (OgRect & { key: string; color: string })[];
  swatches: OgSwatch[];
  chart: OgChartPlacement;
}

const lineHeightOf = (fontSize: number) => Math.ceil(fontSize * 1.3);

function block(
  key: string,
  x: number,
  y: number,
  width: number,
  fitted: { lines: FittedLine[]; cut: boolean },
  fontSize: number,
  color: string,
  align: "left" | "right" = "left",
): OgTextBlock {
  const lineHeight = lineHeightOf(fontSize);
  return {
    key,
    x,
    y,
    width,
    height: fitted.lines.length * lineHeight,
    fontSize,
    lineHeight,
    color,
    align,
    lines: fitted.lines,
    cut: fitted.cut,
  };
}

function deltaText(delta: HeadlineDelta, unit: string): string {
  if (delta.value === null) return "not measured";
  if (delta.base === null || delta.change === null) return `${formatNumber(delta.value)} ${unit}`;
  return formatChangeLine(delta.base, delta.value, unit);
}

interface DeltasMode {
  compact: boolean;
  shown: number;
  changes: boolean;
}

/** The left column in one mode, from `top`; its bottom tells whether the mode fits. */
function layoutDeltas(
  comparison: Comparison,
  mode: DeltasMode,
  top: number,
  measure: MeasureText,
): { texts: OgTextBlock[]; swatches: OgSwatch[]; bottom: number } {
  const texts: OgTextBlock[] = [];
  const swatches: OgSwatch[] = [];
  const x = MARGIN.left;
  let y = top;
  const add = (text: OgTextBlock) => {
    texts.push(text);
    y = text.y + text.height;
  };
  const nameSize = mode.compact ? 19 : 22;
  const name = (item: ComparisonSeries, key: string) => {
    const lineHeight = lineHeightOf(nameSize);
    swatches.push({ key, color: item.color, x, y: y + (lineHeight - 14) / 2, width: 14, height: 14 });
    add(
      block(key, x + 24, y, LEFT_WIDTH - 24, fitLine(item.label, LEFT_WIDTH - 24, [nameSize], measure), nameSize, INK),
    );
  };
  const baseline = comparison.series[comparison.baselineIndex]!;
  const others = comparison.series.filter((_, index) => index !== comparison.baselineIndex);
  add(block("baseline-caption", x, y, LEFT_WIDTH, fitLine("BASELINE", LEFT_WIDTH, [16], measure), 16, MUTED));
  y += 4;
  name(baseline, "baseline-name");
  if (others.length === 0) {
    y += 20;
    const text = wrapText("Add another run to see deltas.", LEFT_WIDTH, 2, 22, measure);
    add(block("no-deltas", x, y, LEFT_WIDTH, text, 22, MUTED));
  }
  const indent = x + 24;
  const innerWidth = LEFT_WIDTH - 24;
  others.slice(0, mode.shown).forEach((item, index) => {
    y += mode.compact ? 12 : 18;
    name(item, `name-${index}`);
    const deltas: [string, HeadlineDelta][] = [
      ["single stream", item.headline.singleStream],
      [
        item.headline.peak.value !== null ? `peak @ ${formatLoadLevel(item.headline.peak)}` : "peak",
        item.headline.peak,
      ],
    ];
    deltas.forEach(([caption, delta], line) => {
      const color = delta.value === null ? MUTED : VERDICT_COLOR[delta.verdict];
      const figure = deltaText(delta, "tok/s");
      if (mode.compact) {
        // Caption and figure side by side, on one baseline.
        const captionWidth = 112;
        const fitted = fitLine(figure, innerWidth - captionWidth, [20, 18, 16], measure);
        const lineHeight = lineHeightOf(fitted.fontSize);
        const captionFit = fitLine(caption, captionWidth - 6, [14], measure);
        texts.push({
          ...block(`caption-${index}-${line}`, indent, y, captionWidth - 6, captionFit, 14, MUTED),
          y: y + (lineHeight - lineHeightOf(14)) / 2 + 2,
        });
        add(
          block(
            `figure-${index}-${line}`,
            indent + captionWidth,
            y,
            innerWidth - captionWidth,
            fitted,
            fitted.fontSize,
            color,
          ),
        );
      } else {
        y += 4;
        add(
          block(
            `caption-${index}-${line}`,
            indent,
            y,
            innerWidth,
            fitLine(caption, innerWidth, [15], measure),
            15,
            MUTED,
          ),
        );
        const fitted = fitLine(figure, innerWidth, [28, 24, 20], measure);
        add(block(`figure-${index}-${line}`, indent, y, innerWidth, fitted, fitted.fontSize, color));
      }
    });
    if (mode.changes && others.length === 1 && item.changes.length > 0) {
      y += 8;
      const changed = `changed: ${item.changes
        .slice(0, 3)
        .map((change) => change.text)
        .join(", ")}`;
      add(block("changed", indent, y, innerWidth, wrapText(changed, innerWidth, 2, 17, measure), 17, MUTED));
    }
  });
  if (others.length > mode.shown) {
    y += 10;
    const more = fitLine(`+ ${others.length - mode.shown} more`, LEFT_WIDTH, [18], measure);
    add(block("more", x, y, LEFT_WIDTH, more, 18, MUTED));
  }
  return { texts, swatches, bottom: y };
}

/** The modes to try, roomiest first. */
function deltasModes(otherCount: number): DeltasMode[] {
  const most = Math.min(otherCount, MAX_SERIES_SHOWN);
  const modes: DeltasMode[] = [];
  if (otherCount <= 2) modes.push({ compact: false, shown: otherCount, changes: true });
  modes.push({ compact: true, shown: most, changes: true }, { compact: true, shown: most, changes: false });
  for (let shown = most - 1; shown >= 0; shown--) modes.push({ compact: true, shown, changes: false });
  return modes;
}

function placeChart(comparison: Comparison, top: number, measure: MeasureText): OgChartPlacement {
  const data = comparison.charts.throughput;
  const captionText = data.axis === "request_rate" ? "Output tok/s vs request rate" : "Output tok/s vs concurrency";
  const caption = block(
    "chart-caption",
    CHART_X,
    top,
    CHART_WIDTH,
    fitLine(captionText, CHART_WIDTH, [18], measure),
    18,
    MUTED,
  );
  const axisText =
    data.axis === "request_rate"
      ? `requests per second${data.scale === "log10" ? " (log scale)" : ""}`
      : "concurrency (log scale)";
  const axisFit = fitLine(axisText, CHART_WIDTH, [15], measure);
  const axisHeight = lineHeightOf(15);
  const boxTop = caption.y + caption.height + 4;
  const box = { x: CHART_X, y: boxTop, width: CHART_WIDTH, height: CONTENT_BOTTOM - axisHeight - boxTop };
  const axisCaption = block("axis-caption", CHART_X, box.y + box.height, CHART_WIDTH, axisFit, 15, MUTED);
  const chartBox: OgChartBox = {
    width: box.width,
    height: box.height,
    padding: { top: 14, right: 28, bottom: LABEL_HEIGHT + 12, left: 56 },
  };
  return { caption, box, axisCaption, layout: data.hasData ? layoutOgChart(data, chartBox, measure) : null };
}

/** The whole image of a comparison under `title`. */
export function layoutPreview(title: string, comparison: Comparison, measure: MeasureText): OgPreviewLayout {
  const texts: OgTextBlock[] = [];
  const panels: OgPreviewLayout["panels"] = [];
  let y: number = MARGIN.top;

  const brand = block("brand", MARGIN.left, y, 140, fitLine("servebench", 140, [24], measure), 24, "#2563eb");
  const noteWidth = CONTENT_WIDTH - brand.width - 20;
  const note = fitLine(
    `${comparison.series.length} series · changes within ±${formatNumber(comparison.noise.pct)}% are noise`,
    noteWidth,
    [18],
    measure,
  );
  const noteBlock = block("note", CANVAS.width - MARGIN.right - noteWidth, y, noteWidth, note, 18, MUTED, "right");
  texts.push(brand, { ...noteBlock, y: y + (brand.height - noteBlock.height) / 2 });
  y += brand.height + 6;

  // The largest size at which the title fits two lines; past that, the smallest size, cut.
  let titleSize = 28;
  let titleFit = wrapText(title, CONTENT_WIDTH, 2, titleSize, measure);
  for (const size of [40, 34]) {
    const fitted = wrapText(title, CONTENT_WIDTH, 2, size, measure);
    if (!fitted.cut && (size === 34 || fitted.lines.length === 1)) {
      titleSize = size;
      titleFit = fitted;
      break;
    }
  }
  const titleBlock = block("title", MARGIN.left, y, CONTENT_WIDTH, titleFit, titleSize, INK);
  texts.push(titleBlock);
  y = titleBlock.y + titleBlock.height + 8;

  const verdict = comparison.verdicts[0];
  if (verdict) {
    // The caveat and the sides come first in the sentence, so a cut never drops them.
    const sentence = verdict.clauses[0] ? `${verdict.lead}: ${verdict.clauses[0].text}` : verdict.text;
    const padding = { x: 12, y: 6 };
    const fitted = wrapText(sentence, CONTENT_WIDTH - 2 * padding.x, 2, 22, measure);
    const text = block(
      "verdict",
      MARGIN.left + padding.x,
      y + padding.y,
      CONTENT_WIDTH - 2 * padding.x,
      fitted,
      22,
      INK,
    );
    panels.push({
      key: "verdict-panel",
      color: PANEL,
      x: MARGIN.left,
      y,
      width: CONTENT_WIDTH,
      height: text.height + 2 * padding.y,
    });
    texts.push(text);
    y += text.height + 2 * padding.y + 12;
  }

  const chart = placeChart(comparison, y, measure);
  const others = comparison.series.length - 1;
  const modes = deltasModes(others);
  let deltas = layoutDeltas(comparison, modes[modes.length - 1]!, y + 8, measure);
  for (const mode of modes) {
    const candidate = layoutDeltas(comparison, mode, y + 8, measure);
    if (candidate.bottom <= CONTENT_BOTTOM) {
      deltas = candidate;
      break;
    }
  }
  texts.push(...deltas.texts, chart.caption, chart.axisCaption);
  return { texts, panels, swatches: deltas.swatches, chart };
}
