/**
 * Keyboard only: from the upload page to a comparison without the mouse (skip link, file chooser from its
 * button, Save, the navigation, ticking runs with Space, the selection bar's "Compare selected"), and no tab
 * stop anywhere that cannot be seen.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, FileChooser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures", "servebench");

let browser: Browser;
let page: Page;

interface Focused {
  tag: string;
  label: string;
  testId: string | null;
  visible: boolean;
}

async function focused(target: Page): Promise<Focused> {
  return target.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { tag: "body", label: "", testId: null, visible: true };
    const box = element.getBoundingClientRect();
    const label =
      element.getAttribute("aria-label") ??
      (element instanceof HTMLInputElement && element.labels?.[0] ? element.labels[0].textContent : null) ??
      element.textContent ??
      "";
    return {
      tag: element.tagName.toLowerCase(),
      label: label.trim().replace(/\s+/g, " "),
      testId: element.getAttribute("data-testid"),
      // Seen: it has a size, is not hidden, and is inside the window once focus has scrolled it there.
      visible:
        box.width > 0 &&
        box.height > 0 &&
        element.checkVisibility({ opacityProperty: true, visibilityProperty: true }) &&
        box.bottom > 0 &&
        box.top < window.innerHeight &&
        box.right > 0 &&
        box.left < window.innerWidth,
    };
  });
}

/** Tab until `wanted` holds, checking every stop on the way can be seen. Returns the number of presses. */
async function tabTo(target: Page, wanted: (stop: Focused) => boolean, limit = 60): Promise<number> {
  for (let presses = 1; presses <= limit; presses++) {
    await target.keyboard.press("Tab");
    const stop = await focused(target);
    expect(stop.visible, `tab stop ${presses} (${stop.tag} "${stop.label}") cannot be seen`).toBe(true);
    if (wanted(stop)) return presses;
  }
  throw new Error("the wanted element was never focused");
}

/**
 * Enter on the focused "Choose files" button until the file chooser opens: on a loaded machine the page can be
 * "network idle" before React has hydrated the button, and a press before that does nothing. Each press waits
 * 3 s for the chooser, then presses again; only the test's own timeout ends the wait.
 */
async function openFileChooser(target: Page): Promise<FileChooser> {
  for (;;) {
    const opened = target.waitForEvent("filechooser", { timeout: 3_000 });
    await target.keyboard.press("Enter");
    try {
      return await opened;
    } catch {
      expect((await focused(target)).label).toBe("Choose files");
    }
  }
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  // The run the comparison is made against, stored beforehand.
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: fs.readFileSync(path.join(FIXTURES, "sglang-tp8-cuda-graph-disabled.json"), "utf8"),
  });
  expect(response.status).toBe(201);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("keyboard only, from upload to compare", () => {
  it("has no tab stop that cannot be seen on the upload page, and a skip link first", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ tag: "a", label: "Skip to content", visible: true });
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    // Every stop through to the footer can be seen (the hidden file inputs are not stops).
    const labels: string[] = [];
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press("Tab");
      const stop = await focused(page);
      if (stop.tag === "body" || stop.label === "servebench/v1 JSON Schema") break;
      expect(stop.visible, `tab stop "${stop.label}" (${stop.tag}) cannot be seen`).toBe(true);
      labels.push(stop.label);
    }
    expect(labels.slice(0, 3)).toEqual(["servebench/v1", "Choose files", "Choose a folder"]);
  });

  it("uploads a file with the keyboard and saves it", async () => {
    // Once the page's script has taken over, so the button opens the file chooser.
    await page.goto(`${baseUrl}/upload`, { waitUntil: "networkidle" });
    await tabTo(page, (stop) => stop.label === "Choose files");
    const chooser = await openFileChooser(page);
    await chooser.setFiles(path.join(FIXTURES, "sglang-tp8-cuda-graphs-on.json"));
    await expect.poll(() => page.getByTestId("preview-name").textContent()).toBe("SGLang TP8, CUDA graphs on");
    await tabTo(page, (stop) => stop.testId === "save-run");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    expect(await page.getByTestId("run-name").textContent()).toBe("SGLang TP8, CUDA graphs on");
  });

  it("goes to the runs, ticks two with Space, and compares them from the selection bar", async () => {
    await tabTo(page, (stop) => stop.tag === "a" && stop.label === "Runs");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/`);
    await page.getByTestId("runs-table").waitFor();
    await page.waitForLoadState("networkidle");

    await tabTo(page, (stop) => stop.label === "Select SGLang TP8, --disable-cuda-graph");
    await page.keyboard.press("Space");
    await tabTo(page, (stop) => stop.label === "Select SGLang TP8, CUDA graphs on");
    await page.keyboard.press("Space");
    // A ticked row is marked by its background (which follows its checkbox), the unticked one is not.
    const backgrounds = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLTableRowElement>("[data-testid=runs-table] tbody tr")].map((row) => [
        row.querySelector("input")?.checked ?? false,
        getComputedStyle(row).backgroundColor,
      ]),
    );
    const ticked = new Set(backgrounds.filter(([checked]) => checked).map(([, color]) => color));
    const unticked = new Set(backgrounds.filter(([checked]) => !checked).map(([, color]) => color));
    expect(backgrounds.filter(([checked]) => checked)).toHaveLength(2);
    expect(ticked.size).toBe(1);
    expect([...ticked][0]).not.toBe("rgba(0, 0, 0, 0)");
    for (const color of ticked) expect(unticked.has(color)).toBe(false);
    // The selection bar follows the table: a few presses on, not back at the top of the page.
    const presses = await tabTo(page, (stop) => stop.testId === "compare-selected");
    expect(presses).toBeLessThanOrEqual(4);
    expect(await focused(page)).toMatchObject({ label: "Compare selected (2)", visible: true });
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/compare\?runs=/);
    const cards = page.getByTestId("single-stream-delta");
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.nth(1).textContent()).toBe("27 → 63.6 tok/s (+135.6%)");
  });
});
