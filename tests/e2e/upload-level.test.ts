/**
 * The upload page asks for the load level of a file that states none, in Chromium: AIPerf's CSV export on its own
 * (no artifact folder named after the level) is listed with a level input; once it is typed, the file becomes a
 * point at that level and the run is stored with the level's source.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const CSV = path.join(__dirname, "..", "fixtures", "aiperf", "run1", "profile_export_aiperf.csv");

let browser: Browser;
let page: Page;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
});

afterAll(async () => {
  await browser?.close();
});

describe("a file without a load level on the upload page", () => {
  it("asks for its level, and stores the run at the level typed", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(CSV);
    const input = page.getByLabel("Load level of profile_export_aiperf.csv", { exact: true });
    await input.waitFor();
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe(
      "Give the load level of the files that state none.",
    );
    expect(await page.getByTestId("preview-skipped").textContent()).toContain("the CSV states no load level");

    await input.fill("concurrency:100");
    await page.locator("#field-model").fill("openai/gpt-oss-20b");
    await expect.poll(() => page.getByTestId("fragment-format").count()).toBe(1);
    // The input stays, with what was typed, once the file has become a point.
    expect(await input.inputValue()).toBe("concurrency:100");
    await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
    await page.getByTestId("save-run").click();

    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    const id = new URL(page.url()).pathname.split("/").pop();
    const run = (await (await fetch(`${baseUrl}/api/runs/${id}`)).json()) as {
      model: string;
      results: { concurrency: number; mean_ttft_ms: number; sources: Record<string, string> }[];
    };
    expect(run.model).toBe("openai/gpt-oss-20b");
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({ concurrency: 100, mean_ttft_ms: 2343.22 });
    expect(run.results[0]!.sources.concurrency).toBe("given with the upload (level)");
  });
});
