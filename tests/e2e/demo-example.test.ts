/**
 * What a fresh start shows, in a real browser: the demo seeded into a migrated SQLite file of its own (as
 * `npm start` does on an empty database), then the MiniMax-M2.5 example's saved comparison opened from the
 * Saved list. Its charts draw lines for both runs and its cards state SLO goodput and $ per million tokens.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb } from "../../lib/db/client";
import { migrateDatabase } from "../../lib/db/migrate";
import { EXAMPLE_COMPARISON } from "../../lib/demo/example-sweeps";
import { seedDemoRunsIfEmpty } from "../../lib/demo/seed";
import { launchBrowser } from "./browser";
import { drawEverything } from "./pages";
import { type RunningServer, startServer, stopServer } from "./server";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-demo-"));
let server: RunningServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const file = path.join(dir, "demo.db");
  migrateDatabase(file);
  process.env.DATABASE_URL = `file:${file}`;
  expect(await seedDemoRunsIfEmpty()).toBe(7);
  await disconnectDb();
  server = await startServer(file, path.join(dir, "server.log"), { SERVEBENCH_DEMO: "0" });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server) await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
});

function card(name: string) {
  return page
    .locator("[data-testid=headline-cards] > div")
    .filter({ has: page.getByTestId("card-run-name").getByText(name, { exact: true }) });
}

/**
 * The lines a chart draws, and per line how many segments it has: the latency charts draw Recharts lines, the
 * per-GPU chart its frontiers as smooth scatter lines (curve commands, not straight ones).
 */
const LINES: Record<string, string> = {
  "chart-efficiency": "g.recharts-scatter-line path.recharts-curve",
  "chart-ttft": "g.recharts-line path.recharts-line-curve",
  "chart-tpot": "g.recharts-line path.recharts-line-curve",
};

async function lineSegments(chart: string): Promise<{ stroke: string | null; segments: number }[]> {
  return page.evaluate(
    (selector) =>
      [...document.querySelectorAll(selector)].map((line) => ({
        stroke: line.getAttribute("stroke"),
        segments: ((line.getAttribute("d") ?? "").match(/[LC]/g) ?? []).length,
      })),
    `[data-testid=${chart}] ${LINES[chart]}`,
  );
}

describe.sequential("the demo's second example", () => {
  it("is listed under Saved and opens with both runs' lines in the per-GPU, TTFT and TPOT charts", async () => {
    await page.goto(`${server.url}/comparisons`);
    await page.getByRole("link", { name: EXAMPLE_COMPARISON.title }).click();
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+/);
    await drawEverything(page);
    for (const chart of Object.keys(LINES)) {
      await page.locator(`[data-testid=${chart}] ${LINES[chart]}`).first().waitFor();
      const lines = (await lineSegments(chart)).filter((line) => line.segments >= 1);
      // DEP8 and TEP8 each drawn, in their own colour, as a line through at least two of their measured levels.
      expect(new Set(lines.map((line) => line.stroke)).size, chart).toBe(2);
    }
  });

  it("states SLO goodput and $ per million tokens on both cards", async () => {
    const dep8 = card("MiniMax-M2.5 DEP8, 1024 in");
    const tep8 = card("MiniMax-M2.5 TEP8, 1024 in");
    // p99 TTFT ≤ 2 s and p99 TPOT ≤ 50 ms hold up to C=16 for both; C=48 (DEP8) and C=32 (TEP8) break them.
    expect(await dep8.getByTestId("slo-delta").getAttribute("data-status")).toBe("partial");
    expect(await tep8.getByTestId("slo-delta").getAttribute("data-status")).toBe("partial");
    expect(await dep8.getByTestId("slo-delta").textContent()).toContain("C=16");
    expect(await tep8.getByTestId("slo-delta").textContent()).toContain("C=16");
    // $3.50 per H200-hour over 514.5 tok/s ÷ 8 GPUs: $15.12; over 525.9 tok/s ÷ 8: $14.79.
    expect(await dep8.getByTestId("slo-cost").textContent()).toBe("$15.12 per million output tokens there");
    expect(await tep8.getByTestId("slo-cost").textContent()).toBe(
      "$14.79 per million output tokens there (baseline $15.12, -2.2%)",
    );
  });
});
