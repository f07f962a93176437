/**
 * The charts' text as Chromium draws it, on a phone (390 px, dark) and a laptop (1440 px, light), on the real data
 * of scripts/lighthouse/real-data.ts: the per-GPU chart's point labels and the series chart's change labels never
 * cover one another and stay inside the plot; the per-GPU chart's y title crosses no tick label; a tooltip opened
 * on the rightmost point lies inside the screen.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealData, seedRealData } from "../../scripts/lighthouse/real-data";
import { deleteAllRuns, launchBrowser } from "./browser";
import { comparedPath, drawEverything } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();

let browser: Browser;
let data: RealData;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  data = await seedRealData(baseUrl);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface DrawnLabels {
  asked: number;
  labels: { text: string; box: Rect }[];
  plot: Rect;
}

/** The drawn labels of a PlotLabels group (their boxes on screen) and the plot they belong in (its grid). */
function drawnLabels(page: Page, chartTestId: string, labelsTestId: string): Promise<DrawnLabels> {
  return page.evaluate(
    ([chartId, labelsId]) => {
      const rect = (element: Element) => {
        const box = element.getBoundingClientRect();
        return { left: box.left, top: box.top, right: box.right, bottom: box.bottom };
      };
      const chart = document.querySelector(`[data-testid="${chartId}"]`)!;
      const group = chart.querySelector(`[data-testid="${labelsId}"]`)!;
      return {
        asked: Number(group.getAttribute("data-labels-asked")),
        labels: [...group.querySelectorAll("text")].map((text) => ({ text: text.textContent ?? "", box: rect(text) })),
        plot: rect(chart.querySelector(".recharts-cartesian-grid")!),
      };
    },
    [chartTestId, labelsTestId] as const,
  );
}

const overlap = (a: Rect, b: Rect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
// The grid's box includes half of its lines' stroke: a pixel of slack.
const inside = (inner: Rect, outer: Rect) =>
  inner.left >= outer.left - 1 &&
  inner.top >= outer.top - 1 &&
  inner.right <= outer.right + 1 &&
  inner.bottom <= outer.bottom + 1;

function expectApartAndInside({ labels, plot }: DrawnLabels): void {
  for (const [index, label] of labels.entries()) {
    expect(inside(label.box, plot), `"${label.text}" leaves the plot`).toBe(true);
    for (const other of labels.slice(index + 1)) {
      expect(overlap(label.box, other.box), `"${label.text}" covers "${other.text}"`).toBe(false);
    }
  }
}

for (const [theme, width] of [
  ["dark", 390],
  ["light", 1440],
] as const) {
  describe(`${theme} theme at ${width} px`, () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 }, colorScheme: theme });
      page = await context.newPage();
    });

    afterAll(async () => {
      await context?.close();
    });

    it("per-GPU chart: the load labels of every run cover no other label and stay inside the plot", async () => {
      await page.goto(`${baseUrl}${comparedPath(data)}`);
      await drawEverything(page);
      const drawn = await drawnLabels(page, "chart-efficiency", "efficiency-point-labels");
      // Five runs with a point each: the campaign's three at C=1, the sweep's two at C=2.
      expect(drawn.asked).toBe(5);
      expect(drawn.labels.length).toBeGreaterThanOrEqual(4);
      expect(drawn.labels.every((label) => /^(C=\d+|[\d.]+ req\/s|rate ∞)$/.test(label.text))).toBe(true);
      expectApartAndInside(drawn);
    });

    it("per-GPU chart: the y title is level, above the axis, and crosses no tick label", async () => {
      const boxes = await page.evaluate(() => {
        const chart = document.querySelector('[data-testid="chart-efficiency"]')!;
        const rect = (element: Element) => {
          const box = element.getBoundingClientRect();
          return { left: box.left, top: box.top, right: box.right, bottom: box.bottom };
        };
        return {
          title: {
            text: chart.querySelector('[data-testid="y-axis-title"]')?.textContent,
            box: rect(chart.querySelector('[data-testid="y-axis-title"]')!),
          },
          ticks: [...chart.querySelectorAll(".recharts-cartesian-axis-tick-value")].map(rect),
          svg: rect(chart.querySelector("svg.recharts-surface")!),
        };
      });
      expect(boxes.title.text).toBe("output tok/s per GPU");
      expect(boxes.ticks.length).toBeGreaterThan(4);
      for (const tick of boxes.ticks) expect(overlap(boxes.title.box, tick)).toBe(false);
      expect(inside(boxes.title.box, boxes.svg)).toBe(true);
      // Level: as wide as its words, not as tall.
      expect(boxes.title.box.right - boxes.title.box.left).toBeGreaterThan(
        boxes.title.box.bottom - boxes.title.box.top,
      );
    });

    it("a tooltip opened on the rightmost point of the throughput chart lies inside the screen", async () => {
      const chart = page.getByTestId("chart-throughput");
      await chart.scrollIntoViewIfNeeded();
      const plot = await chart.locator(".recharts-cartesian-grid").boundingBox();
      expect(plot).not.toBeNull();
      await page.mouse.move(plot!.x + plot!.width - 1, plot!.y + plot!.height / 2);
      const tooltip = page.getByTestId("load-tooltip").first();
      await tooltip.waitFor();
      // The tooltip is placed after it is measured: wait for the place it settles in.
      await expect
        .poll(async () => {
          const box = await tooltip.boundingBox();
          return box ? { left: box.x >= 0, right: box.x + box.width <= width } : null;
        })
        .toEqual({ left: true, right: true });
      const box = (await tooltip.boundingBox())!;
      expect(box.width).toBeGreaterThan(100);
    });

    it("series chart: the change lines' labels cover no other label and stay inside the plot", async () => {
      await page.goto(`${baseUrl}/series/${data.regressionSeriesId}`);
      await expect.poll(() => page.getByTestId("series-changes").locator("tbody tr").count()).toBe(3);
      await drawEverything(page);
      const drawn = await drawnLabels(page, "series-chart", "series-mark-labels");
      // The regression on the seventh night and the expected change (driver 580) two nights later.
      expect(drawn.asked).toBe(2);
      expect(drawn.labels.map((label) => label.text).sort()).toEqual(["expected: driver 580", "regression -22.1%"]);
      expectApartAndInside(drawn);
    });
  });
}
