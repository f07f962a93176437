/**
 * Every page on real data, on a phone (390 px) and a laptop (1440 px), in the light and the dark theme: the
 * document is never wider than the viewport (nothing scrolls sideways), no element sticks out of it except inside
 * a table's own sideways-scrolling box (and each box that scrolls says so above it), and every piece of text a person can see has a contrast of at least 4.5:1
 * against the background it is drawn on, charts and their tooltip included. The series page is visited with its
 * detected changes and the alerts page with open alerts (a nightly series whose throughput drops).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealData, seedRealData } from "../../scripts/lighthouse/real-data";
import { deleteAllRuns, launchBrowser } from "./browser";
import { contrastFailures, drawEverything, elementsOutsideViewport, PAGES, silentScrollBoxes } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();

let browser: Browser;
let data: RealData;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  data = await seedRealData(baseUrl);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("the contrast check itself", () => {
  it("measures a known pair: #949494 on white is 3.03:1, and is reported", async () => {
    const context = await browser.newContext({ colorScheme: "light" });
    const page = await context.newPage();
    await page.setContent(
      `<body style="background:#fff;margin:0"><p style="color:#949494">too light</p><p style="color:#767676">just enough</p>` +
        `<div style="background:rgba(0,0,0,0.5)"><span style="color:#fff">on half-black over white</span></div></body>`,
    );
    const failures = await contrastFailures(page);
    // #767676 on white is 4.54:1 (passes). White on 50% black over white fails: the screen stores the alpha as
    // 128/255, which leaves #7f7f7f (luminance 0.212), and (1 + 0.05) / (0.212 + 0.05) is 4.0:1.
    expect(failures.map((failure) => [failure.text, failure.ratio])).toEqual([
      ["too light", 3.03],
      ["on half-black over white", 4],
    ]);
    await context.close();
  });
});

for (const theme of ["light", "dark"] as const) {
  for (const width of [390, 1440]) {
    describe(`${theme} theme at ${width} px`, () => {
      let context: BrowserContext;
      let page: Page;

      beforeAll(async () => {
        context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          colorScheme: theme,
        });
        page = await context.newPage();
      });

      afterAll(async () => {
        await context?.close();
      });

      for (const target of PAGES) {
        it(`${target.name}: fits the width, and every text has 4.5:1`, async () => {
          const path = target.path(data);
          expect(path, `the seeded data has no ${target.name} page`).not.toBeNull();
          const response = await page.goto(`${baseUrl}${path}`);
          expect(response?.status(), target.name).toBe(target.status ?? 200);
          if (target.shows) {
            const rows = page.locator(`[data-testid="${target.shows.testId}"] :is(li, tbody > tr)`);
            expect(await rows.count(), `${target.name} shows its content`).toBeGreaterThanOrEqual(target.shows.atLeast);
          }
          await drawEverything(page);
          const widths = await page.evaluate(() => ({
            document: document.documentElement.scrollWidth,
            viewport: window.innerWidth,
          }));
          expect(widths.document, `${target.name} (${path}) is wider than the viewport`).toBeLessThanOrEqual(
            widths.viewport,
          );
          expect(await elementsOutsideViewport(page), `${target.name} (${path})`).toEqual([]);
          expect(await silentScrollBoxes(page), `${target.name} (${path}): a table scrolls unannounced`).toEqual([]);
          expect(await contrastFailures(page), `${target.name} (${path})`).toEqual([]);

          if (target.name === "compare") {
            // The shared tooltip: hover the throughput chart's plot and measure the tooltip too.
            const chart = page.getByTestId("chart-throughput");
            await chart.scrollIntoViewIfNeeded();
            const plot = await chart.locator(".recharts-cartesian-grid").boundingBox();
            expect(plot).not.toBeNull();
            await page.mouse.move(plot!.x + 2, plot!.y + plot!.height / 2);
            await page.getByTestId("load-tooltip").first().waitFor();
            expect(await contrastFailures(page), "compare, with the tooltip open").toEqual([]);
          }
        });
      }
    });
  }
}
