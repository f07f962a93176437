/**
 * One colour per run on every page, in a real browser: the history, each run's page and the comparison of the
 * same runs in two orders. The vLLM baseline and "SGLang TP8, CUDA graphs on" are stored under ids whose own
 * colours clash (tests/unit/colors.test.ts), as the demo's once did in the history.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignRunColors, runColor } from "../../lib/analysis/colors";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures", "servebench");
// Own colours: "IMHjvd1CahGN" and "h" both take the pink; "a" takes the fuchsia.
const RUNS = [
  { id: "IMHjvd1CahGN", file: "vllm-tp8-baseline.json" },
  { id: "h", file: "sglang-tp8-cuda-graphs-on.json" },
  { id: "a", file: "sglang-tp8-cuda-graph-disabled.json" },
] as const;
const IDS = RUNS.map((run) => run.id);

let browser: Browser;
let page: Page;
const names = new Map<string, string>();

/** `#ea580c` → `rgb(234, 88, 12)`, as getComputedStyle writes it. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

async function backgroundOf(selector: string): Promise<string> {
  const element = page.locator(selector).first();
  await element.waitFor();
  return element.evaluate((node) => getComputedStyle(node).backgroundColor);
}

async function compareColors(order: readonly string[]): Promise<Map<string, string>> {
  await page.goto(`${baseUrl}/compare?runs=${order.join(",")}`);
  const colors = new Map<string, string>();
  for (const id of order) {
    const card = page
      .locator("[data-testid=headline-cards] > div")
      .filter({ has: page.getByTestId("card-run-name").getByText(names.get(id)!, { exact: true }) });
    colors.set(id, await card.getByTestId("run-swatch").evaluate((node) => getComputedStyle(node).backgroundColor));
  }
  return colors;
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  for (const { id, file } of RUNS) {
    const document = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), "utf8")) as { name: string };
    const response = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...document, id }),
    });
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
    names.set(id, document.name);
  }
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("a run's colour", () => {
  const expected = new Map(IDS.map((id, index) => [id, rgb(assignRunColors(IDS)[index]!)]));

  it("tells the three runs apart, the clashing pair included", () => {
    expect(runColor("IMHjvd1CahGN")).toBe(runColor("h"));
    expect(new Set(expected.values()).size).toBe(3);
  });

  it("is the same in the history as in a comparison of the same runs", async () => {
    await page.goto(`${baseUrl}/`);
    for (const id of IDS) expect(await backgroundOf(`tr[data-run-id="${id}"] .swatch`)).toBe(expected.get(id));
  });

  it("does not change with the comparison's order", async () => {
    expect(await compareColors(IDS)).toEqual(expected);
    expect(await compareColors([...IDS].reverse())).toEqual(expected);
    expect(await compareColors(["h", "a", "IMHjvd1CahGN"])).toEqual(expected);
  });

  it("is the run's own on its page, which is the history's for every run that kept its own", async () => {
    for (const id of IDS) {
      await page.goto(`${baseUrl}/runs/${id}`);
      const own = rgb(runColor(id));
      expect(await backgroundOf("[data-testid=run-swatch]")).toBe(own);
      // "h" gave way to "IMHjvd1CahGN" (its id sorts later); the other two wear their own colour everywhere.
      if (id !== "h") expect(own).toBe(expected.get(id));
    }
  });
});
