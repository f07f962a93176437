/**
 * The comparison's controls under a burst of edits, in a real browser: each edit is made while the previous
 * one's navigation is still in flight, and the URL and the controls end up holding every one of them.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures", "servebench");

let browser: Browser;
let page: Page;
const ids: string[] = [];

async function upload(file: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: fs.readFileSync(path.join(FIXTURES, file), "utf8"),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** The page's query once it holds every parameter of `wanted` (polled; the URL is the view). */
async function waitForQuery(wanted: Record<string, string | null>): Promise<URLSearchParams> {
  await page.waitForFunction((expected) => {
    const query = new URLSearchParams(window.location.search);
    return Object.entries(expected).every(([key, value]) => query.get(key) === value);
  }, wanted);
  return new URL(page.url()).searchParams;
}

/** Wait until the control shows `value` (the page re-rendered from the final URL). */
async function waitForValue(testId: string, value: string): Promise<void> {
  await page.waitForFunction(
    ([id, expected]) =>
      (document.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null)?.value === expected,
    [testId, value] as const,
  );
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  for (const file of [
    "vllm-tp8-baseline.json",
    "sglang-tp8-cuda-graph-disabled.json",
    "sglang-tp8-cuda-graphs-on.json",
  ])
    ids.push(await upload(file));
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("a burst of edits in the compare controls", () => {
  it("keeps every edit made through the controls without waiting between them", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.join(",")}`);
    // Each edit straight after the last: no wait for the URL or the page in between.
    await page.getByTestId("slo-ttft-input").fill("500");
    await page.getByTestId("slo-ttft-input").press("Enter");
    await page.getByTestId("stat-select").selectOption("p99");
    await page.getByTestId("slo-tpot-input").fill("20");
    await page.getByTestId("slo-tpot-input").press("Tab");
    await page.getByTestId("slo-stat-select").selectOption("p90");
    await page.getByTestId("baseline-select").selectOption(ids[1]!);
    await page.getByTestId("log-y").check();
    await page.getByTestId("noise-input").fill("5");
    await page.getByTestId("noise-input").press("Enter");

    const query = await waitForQuery({
      slo_ttft: "500",
      stat: "p99",
      slo_tpot: "20",
      slo_stat: "p90",
      baseline: ids[1]!,
      logy: "1",
      noise: "5",
    });
    expect(query.get("runs")).toBe(ids.join(","));
    await waitForValue("stat-select", "p99");
    await waitForValue("slo-stat-select", "p90");
    await waitForValue("baseline-select", ids[1]!);
    expect(await page.getByTestId("slo-ttft-input").inputValue()).toBe("500");
    expect(await page.getByTestId("slo-tpot-input").inputValue()).toBe("20");
    expect(await page.getByTestId("noise-input").inputValue()).toBe("5");
    expect(await page.getByTestId("log-y").isChecked()).toBe(true);
  });

  it("keeps every edit of a burst fired within one task, before any navigation can answer", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.join(",")}`);
    await page.getByTestId("stat-select").waitFor();
    // React's own input tracking: set through the native setter, then the event React listens for.
    await page.evaluate(() => {
      const set = (testId: string, value: string, event: "change" | "input") => {
        const element = document.querySelector(`[data-testid="${testId}"]`) as HTMLInputElement | HTMLSelectElement;
        const prototype =
          element instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(prototype, "value")!.set!.call(element, value);
        element.dispatchEvent(new Event(event, { bubbles: true }));
      };
      set("stat-select", "median", "change");
      set("slo-stat-select", "p95", "change");
    });
    await page.getByTestId("slo-ttft-input").fill("800");
    await page.evaluate(() => {
      const ttft = document.querySelector('[data-testid="slo-ttft-input"]') as HTMLInputElement;
      ttft.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      const stat = document.querySelector('[data-testid="stat-select"]') as HTMLSelectElement;
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")!.set!.call(stat, "p95");
      stat.dispatchEvent(new Event("change", { bubbles: true }));
    });
    const query = await waitForQuery({ stat: "p95", slo_stat: "p95", slo_ttft: "800" });
    expect(query.get("runs")).toBe(ids.join(","));
    await waitForValue("stat-select", "p95");
    await waitForValue("slo-stat-select", "p95");
    expect(await page.getByTestId("slo-ttft-input").inputValue()).toBe("800");
  });
});
