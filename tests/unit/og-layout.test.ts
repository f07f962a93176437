/**
 * The link-preview image's layout, with the renderer's own font metrics (the bundled Noto fonts): every line
 * within its box, every box within the canvas and its margins, nothing overlapping, "…" wherever a text was cut.
 */
import { describe, expect, it } from "vitest";
import { buildComparison } from "@/lib/comparisons/build";
import type { Comparison } from "@/lib/comparisons/model";
import { measureText } from "@/lib/comparisons/og-fonts";
import { CANVAS, layoutPreview, MARGIN, type OgPreviewLayout } from "@/lib/comparisons/og-layout";
import { ELLIPSIS, fitLine, wrapText } from "@/lib/comparisons/og-text";
import { parseCompareView } from "@/lib/comparisons/view";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";
import { LONG_NAMES, LONG_TITLE, longestPreviewDocuments } from "../support/long-preview";
import { SEED_RUNS, seedDocument } from "./seeds";

let counter = 0;
function stored(document: Record<string, unknown>): StoredRun {
  counter += 1;
  const run = normalizeRunDocument(document);
  return { ...run, id: `run${String(counter).padStart(9, "0")}`, created_at: "2026-02-14T09:30:00.000Z" };
}

function compare(documents: Record<string, unknown>[]): Comparison {
  const runs = documents.map(stored);
  return buildComparison(runs, parseCompareView({ runs: runs.map((run) => run.id).join(",") }));
}

type Rect = { x: number; y: number; width: number; height: number };
const inside = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;
const apart = (a: Rect, b: Rect) =>
  a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
const CONTENT: Rect = {
  x: MARGIN.left,
  y: MARGIN.top,
  width: CANVAS.width - MARGIN.left - MARGIN.right,
  height: CANVAS.height - MARGIN.top - MARGIN.bottom,
};

/** Every rule of a layout that fits. */
function expectFits(layout: OgPreviewLayout): void {
  for (const text of layout.texts) {
    expect(text.height, text.key).toBe(text.lines.length * text.lineHeight);
    expect(inside(text, CONTENT), `${text.key} inside the margins`).toBe(true);
    for (const line of text.lines) {
      expect(line.width, `${text.key}: "${line.text}"`).toBeLessThanOrEqual(text.width);
      expect(measureText(line.text, text.fontSize), `${text.key}: "${line.text}"`).toBeLessThanOrEqual(text.width);
    }
    if (text.cut) expect(text.lines.at(-1)?.text.endsWith(ELLIPSIS), text.key).toBe(true);
  }
  // No two texts share a pixel; the chart's box is the chart's alone.
  const texts = layout.texts;
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++)
      expect(apart(texts[i]!, texts[j]!), `${texts[i]!.key} and ${texts[j]!.key}`).toBe(true);
    expect(apart(texts[i]!, layout.chart.box), `${texts[i]!.key} and the chart`).toBe(true);
  }
  for (const swatch of layout.swatches) expect(inside(swatch, CONTENT)).toBe(true);
  for (const panel of layout.panels) expect(inside(panel, CONTENT)).toBe(true);
  const { box, layout: chart } = layout.chart;
  expect(inside(box, CONTENT)).toBe(true);
  if (chart) {
    const own = { x: 0, y: 0, width: box.width, height: box.height };
    for (const label of chart.labels) expect(inside(label, own), label.text).toBe(true);
    for (const tick of [...chart.xTicks, ...chart.yTicks]) {
      expect(inside(tick.box, own), tick.label).toBe(true);
      expect(measureText(tick.label, 16)).toBeLessThanOrEqual(tick.box.width);
    }
  }
}

describe("wrapText and fitLine", () => {
  const width = 300;

  it("breaks at spaces, never wider than the box", () => {
    const text = "single stream 27 → 63.6 tok/s (+135.6%); peak at C=128: 2,216 → 2,370 tok/s (+6.9%)";
    const { lines, cut } = wrapText(text, width, 5, 22, measureText);
    expect(cut).toBe(false);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.map((line) => line.text).join(" ")).toBe(text);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(width);
  });

  it("breaks Chinese between characters and a word longer than a line inside it", () => {
    const chinese = wrapText("混合专家模型推理服务的吞吐量与延迟比较混合专家模型推理服务", 200, 5, 22, measureText);
    expect(chinese.lines.length).toBeGreaterThan(1);
    for (const line of chinese.lines) expect(line.width).toBeLessThanOrEqual(200);
    const word = wrapText("a".repeat(80), 200, 10, 22, measureText);
    expect(word.lines.map((line) => line.text).join("")).toBe("a".repeat(80));
    for (const line of word.lines) expect(line.width).toBeLessThanOrEqual(200);
  });

  it("cuts with … on the last line that fits", () => {
    const { lines, cut } = wrapText(LONG_TITLE, 500, 2, 28, measureText);
    expect(cut).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.text.endsWith(ELLIPSIS)).toBe(true);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(500);
  });

  it("shrinks a line to the largest size it fits at, and cuts it at the smallest", () => {
    expect(fitLine("2,216 → 2,370 tok/s (+6.9%)", 400, [28, 24, 20], measureText).fontSize).toBe(28);
    const squeezed = fitLine("99,890 → 100,234 tok/s (+0.3%)", 330, [28, 24, 20], measureText);
    expect(squeezed.fontSize).toBeLessThan(28);
    expect(squeezed.cut).toBe(false);
    const cut = fitLine(LONG_NAMES[0], 300, [19], measureText);
    expect(cut.cut).toBe(true);
    expect(cut.lines[0]!.text.endsWith(ELLIPSIS)).toBe(true);
    expect(cut.lines[0]!.width).toBeLessThanOrEqual(300);
  });

  it("measures wide scripts and emoji wider than Latin letters", () => {
    expect(measureText("混合", 20)).toBeGreaterThan(measureText("ab", 20));
    expect(measureText("🚀", 20)).toBeGreaterThan(measureText("i", 20));
  });
});

describe("layoutPreview", () => {
  it("fits the longest title, names and verdict the product makes, cutting them with …", () => {
    const comparison = compare(longestPreviewDocuments());
    const verdict = comparison.verdicts[0]!;
    expect(verdict.lead.startsWith("Not like for like (")).toBe(true);
    const layout = layoutPreview(LONG_TITLE, comparison, measureText);
    expectFits(layout);
    const byKey = new Map(layout.texts.map((text) => [text.key, text]));
    for (const key of ["title", "verdict", "baseline-name", "name-0"]) {
      expect(byKey.get(key)?.cut, key).toBe(true);
      expect(byKey.get(key)?.lines.at(-1)?.text.endsWith(ELLIPSIS), key).toBe(true);
    }
    expect(byKey.get("title")!.lines).toHaveLength(2);
    expect(byKey.get("verdict")!.lines).toHaveLength(2);
    expect(byKey.get("verdict")!.lines[0]!.text.startsWith("Not like for like (")).toBe(true);
    // A peak near 100,000 tok/s widens the y axis's labels (six digits); the chart keeps them inside.
    expect(layout.chart.layout!.yTicks.at(-1)!.label).toMatch(/^\d{3},000$/);
  });

  it("fits the seed comparison whole, nothing cut", () => {
    const layout = layoutPreview(
      "CUDA graphs: 2.4× single stream on Blackwell",
      compare(SEED_RUNS.map(seedDocument)),
      measureText,
    );
    expectFits(layout);
    expect(layout.texts.filter((text) => text.cut).map((text) => text.key)).toEqual([]);
    expect(layout.texts.find((text) => text.key === "title")!.fontSize).toBe(40);
    // Two runs against the baseline: the roomy form, both shown with their figures.
    expect(layout.texts.map((text) => text.key)).toContain("figure-1-1");
    expect(layout.chart.layout!.labels.length).toBeGreaterThan(0);
  });

  it("fits a comparison of many runs by showing fewer of them and saying how many more", () => {
    const [first, second] = longestPreviewDocuments();
    const documents = Array.from({ length: 7 }, (_, index) => ({
      ...(index % 2 === 0 ? first : second),
      name: `${LONG_NAMES[index % 2]!.slice(0, 150)} #${index}`,
      command: `${(index % 2 === 0 ? first : second)!.command} --seed ${index}`,
    }));
    const layout = layoutPreview(LONG_TITLE, compare(documents), measureText);
    expectFits(layout);
    const more = layout.texts.find((text) => text.key === "more");
    expect(more?.lines[0]?.text).toMatch(/^\+ \d more$/);
  });
});
