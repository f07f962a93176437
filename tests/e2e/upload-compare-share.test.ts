/**
 * The product's main path in a real browser: upload the campaign's three runs through the form, find them
 * in the history, compare two, read the delta that explains the day, share the link, switch the baseline.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { drawEverything } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures", "servebench");

const RUNS = {
  vllm: { file: "vllm-tp8-baseline.json", name: "vLLM TP8 baseline" },
  noGraphs: { file: "sglang-tp8-cuda-graph-disabled.json", name: "SGLang TP8, --disable-cuda-graph" },
  graphs: { file: "sglang-tp8-cuda-graphs-on.json", name: "SGLang TP8, CUDA graphs on" },
} as const;

let browser: Browser;
let context: BrowserContext;
let page: Page;
const ids: Partial<Record<keyof typeof RUNS, string>> = {};
let sharedLink = "";

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

async function cardOf(target: Page, name: string) {
  return target
    .locator("[data-testid=headline-cards] > div")
    .filter({ has: target.getByTestId("card-run-name").getByText(name, { exact: true }) });
}

describe.sequential("upload → history → compare → share", () => {
  it("shows how to upload when the database is empty", async () => {
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByTestId("empty-history").isVisible()).toBe(true);
    expect(await page.getByTestId("empty-history").textContent()).toContain("Upload a results file");
  });

  it("names the broken field in the preview, keeps the form, and does not offer to save an invalid run", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.locator("#field-gpu").fill("H100 80GB");
    await page.getByTestId("file-input").setInputFiles({
      name: "broken.json",
      mimeType: "application/json",
      buffer: Buffer.from(
        JSON.stringify({ format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 0 }] }),
      ),
    });
    await expect.poll(() => page.getByTestId("preview-issues").textContent()).toContain("results.0.concurrency");
    expect(await page.getByTestId("preview-issues").textContent()).toContain(
      "results.0.concurrency: Too small: expected number to be >=1",
    );
    // Save waits for a valid run and says why (the server's 422 for the same body is an integration test).
    expect(await page.getByTestId("save-run").isDisabled()).toBe(true);
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe(
      "The preview lists what is wrong with the run.",
    );
    expect(await page.locator("#field-gpu").inputValue()).toBe("H100 80GB");
  });

  for (const key of ["vllm", "noGraphs", "graphs"] as const) {
    it(`uploads ${RUNS[key].file} through the form and lands on its page`, async () => {
      await page.goto(`${baseUrl}/upload`);
      await page.getByTestId("file-input").setInputFiles(path.join(FIXTURES, RUNS[key].file));
      await expect.poll(() => page.getByTestId("preview-name").textContent()).toBe(RUNS[key].name);
      expect(await page.getByTestId("missing-context").textContent()).toContain("engine version");
      await page.getByTestId("save-run").click();
      await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
      ids[key] = new URL(page.url()).pathname.split("/").pop();
      expect(await page.getByTestId("run-name").textContent()).toBe(RUNS[key].name);
    });
  }

  it("shows the run page with its figures and charts", async () => {
    await page.goto(`${baseUrl}/runs/${ids.noGraphs}`);
    expect(await page.getByTestId("single-stream").textContent()).toBe("27 tok/s");
    expect(await page.getByTestId("peak").textContent()).toBe("2,216 tok/s");
    expect(await page.getByTestId("flags-table").textContent()).toContain("--disable-cuda-graph");
    await drawEverything(page);
    const line = page.locator("[data-testid=chart-throughput] path.recharts-line-curve");
    await line.first().waitFor();
    expect(await line.count()).toBe(1);
    expect(await line.first().getAttribute("d")).toMatch(/^M[\d.]+,[\d.]+L[\d.]+,[\d.]+$/);
  });

  it("lists the three runs in the history, newest first", async () => {
    await page.goto(`${baseUrl}/`);
    const rows = page.locator("[data-testid=runs-table] tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.evaluateAll((elements) => elements.map((row) => row.getAttribute("data-run-id")))).toEqual([
      ids.graphs,
      ids.noGraphs,
      ids.vllm,
    ]);
    expect(await page.getByTestId("pagination-summary").textContent()).toBe("1–3 of 3");
  });

  it("filters the history by engine", async () => {
    await page.goto(`${baseUrl}/`);
    await page.locator("#filter-engine").selectOption("vllm");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/engine=vllm/);
    const rows = page.locator("[data-testid=runs-table] tbody tr");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-run-id")).toBe(ids.vllm);
  });

  it("selects two runs and opens them in Compare with the first ticked as baseline", async () => {
    await page.goto(`${baseUrl}/`);
    await page.getByLabel(`Select ${RUNS.noGraphs.name}`).check();
    await page.getByLabel(`Select ${RUNS.graphs.name}`).check();
    expect(await page.getByTestId("compare-selected").textContent()).toBe("Compare selected (2)");
    await page.getByTestId("compare-selected").click();
    await page.waitForURL(/\/compare\?runs=/);
    expect(new URL(page.url()).searchParams.get("runs")).toBe(`${ids.noGraphs},${ids.graphs}`);

    const graphsCard = await cardOf(page, RUNS.graphs.name);
    expect(await graphsCard.getByTestId("single-stream-delta").textContent()).toBe("27 → 63.6 tok/s (+135.6%)");
    expect(await graphsCard.getByTestId("peak-delta").textContent()).toBe("2,216 → 2,370 tok/s (+6.9%)");
    const changes = await graphsCard.locator("[data-testid=what-changed] li").allTextContents();
    expect(changes).toEqual(["--disable-cuda-graph removed"]);

    const baselineCard = await cardOf(page, RUNS.noGraphs.name);
    expect(await baselineCard.textContent()).toContain("baseline");
  });

  it("draws a line per run and a bar per run", async () => {
    // Charts draw when scrolled to: scroll through the page as a reader would.
    await drawEverything(page);
    const throughputLines = page.locator("[data-testid=chart-throughput] path.recharts-line-curve");
    await throughputLines.first().waitFor();
    expect(await throughputLines.count()).toBe(2);
    for (const d of await throughputLines.evaluateAll((paths) => paths.map((p) => p.getAttribute("d") ?? ""))) {
      expect(d).toMatch(/^M[\d.]+,[\d.]+L[\d.]+,[\d.]+$/);
    }
    // TPOT was measured at C=1 only: one dot per run, no line to draw.
    expect(await page.locator("[data-testid=chart-tpot] .recharts-line-dots circle").count()).toBe(2);
    expect(await page.locator("[data-testid=chart-single-stream] .recharts-bar-rectangle path").count()).toBe(2);
    const table = page.getByTestId("delta-table-output_throughput");
    expect(await table.locator("tbody tr").first().textContent()).toBe("C=12763.6+135.6%");
  });

  it("copies a link that shows the same comparison in a fresh browser", async () => {
    await page.getByTestId("copy-link").click();
    await expect.poll(() => page.getByTestId("copy-link").textContent()).toBe("Link copied");
    sharedLink = await page.evaluate(() => navigator.clipboard.readText());
    expect(sharedLink).toBe(page.url());

    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(sharedLink);
    const graphsCard = await cardOf(fresh, RUNS.graphs.name);
    expect(await graphsCard.getByTestId("single-stream-delta").textContent()).toBe("27 → 63.6 tok/s (+135.6%)");
    expect(await graphsCard.locator("[data-testid=what-changed] li").allTextContents()).toEqual([
      "--disable-cuda-graph removed",
    ]);
    await other.close();
  });

  it("switches the baseline and puts it in the URL", async () => {
    await page.getByTestId("baseline-select").selectOption(ids.graphs!);
    await page.waitForURL(new RegExp(`baseline=${ids.graphs}`));
    const noGraphsCard = await cardOf(page, RUNS.noGraphs.name);
    await expect
      .poll(() => noGraphsCard.getByTestId("single-stream-delta").textContent())
      .toBe("63.6 → 27 tok/s (-57.5%)");
    expect(await noGraphsCard.locator("[data-testid=what-changed] li").allTextContents()).toEqual([
      "--disable-cuda-graph added",
    ]);

    const reopened = await context.newPage();
    await reopened.goto(page.url());
    expect(await reopened.getByTestId("baseline-select").inputValue()).toBe(ids.graphs);
    await reopened.close();
  });

  it("adds the vLLM run from the picker and shows its engine change", async () => {
    await page.getByTestId("add-run").selectOption(ids.vllm!);
    await page.waitForURL(new RegExp(`runs=${ids.noGraphs},${ids.graphs},${ids.vllm}`));
    const vllmCard = await cardOf(page, RUNS.vllm.name);
    await expect
      .poll(() => vllmCard.getByTestId("single-stream-delta").textContent())
      .toBe("63.6 → 82.5 tok/s (+29.7%)");
    expect(await vllmCard.getByTestId("peak-delta").textContent()).toBe("2,370 → 1,536 tok/s (-35.2%)");
    expect(await vllmCard.locator("[data-testid=what-changed] li").first().textContent()).toBe("engine: sglang → vllm");
  });

  it("edits a run's name and tags, then deletes it", async () => {
    await page.goto(`${baseUrl}/runs/${ids.vllm}`);
    await page.getByTestId("edit-run").click();
    await page.locator("#edit-name").fill("vLLM TP8 baseline (NCCL tuned)");
    await page.locator("#edit-tags").fill("blackwell, tp8, nccl");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByTestId("run-name").textContent()).toBe("vLLM TP8 baseline (NCCL tuned)");

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("delete-run").click();
    await page.waitForURL(`${baseUrl}/`);
    const rows = page.locator("[data-testid=runs-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    const response = await page.goto(`${baseUrl}/runs/${ids.vllm}`);
    expect(response?.status()).toBe(404);
    expect(await page.getByTestId("not-found").isVisible()).toBe(true);
  });
});
