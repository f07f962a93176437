/**
 * The comparison in depth, in a real browser: like-for-like checks, noise, hiding series (kept in the URL
 * across a reload), the Pareto and latency charts, and every export.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileDate } from "../../lib/comparisons/file-name";
import { deleteAllRuns, launchBrowser } from "./browser";
import { drawEverything } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
// "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph", the comparison's title, as a file name.
const TITLE_SLUG = "sglang-tp8-cuda-graphs-on-vs-sglang-tp8-disable-cuda-graph";
const FIXTURES = path.join(__dirname, "..", "fixtures");

let browser: Browser;
let context: BrowserContext;
let page: Page;
const ids: Record<"noGraphs" | "graphs" | "llama", string> = { noGraphs: "", graphs: "", llama: "" };

async function upload(document: unknown): Promise<string> {
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(document),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

function seed(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, "servebench", file), "utf8")) as Record<string, unknown>;
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  ids.noGraphs = await upload(seed("sglang-tp8-cuda-graph-disabled.json"));
  ids.graphs = await upload(seed("sglang-tp8-cuda-graphs-on.json"));
  ids.llama = await upload({
    ...seed("vllm-tp8-baseline.json"),
    name: "vLLM Llama 70B TP4",
    model: "Llama-3.1-70B",
    hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 4 },
  });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

function card(target: Page, name: string) {
  return target
    .locator("[data-testid=headline-cards] > div")
    .filter({ has: target.getByTestId("card-run-name").getByText(name, { exact: true }) });
}

describe.sequential("comparing in depth", () => {
  it("says the seed pair is like for like and shows what changed next to the delta", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.noGraphs},${ids.graphs}`);
    expect(await page.getByTestId("like-for-like").textContent()).toBe(
      "Like for like: same model, hardware and workload, measured at the same load levels.",
    );
    const graphs = card(page, "SGLang TP8, CUDA graphs on");
    expect(await graphs.getByTestId("single-stream-delta").textContent()).toBe("27 → 63.6 tok/s (+135.6%)");
    expect(await graphs.locator("[data-testid=what-changed] li").allTextContents()).toEqual([
      "--disable-cuda-graph removed",
    ]);
  });

  it("reads the verdict line an engineer pastes into chat", async () => {
    const verdict = page.getByTestId("verdict-line");
    expect(await verdict.getAttribute("data-text")).toBe(
      "CUDA graphs on vs CUDA graphs off: single stream 27 → 63.6 tok/s (+135.6%); peak at C=128: 2,216 → 2,370 tok/s (+6.9%)",
    );
    // One sentence coloured by its headline's direction, the other clauses below it.
    expect(await verdict.getAttribute("data-verdict")).toBe("better");
    expect(await verdict.locator("p").textContent()).toBe(
      "CUDA graphs on vs CUDA graphs off: single stream 27 → 63.6 tok/s (+135.6%)",
    );
    expect(await verdict.getByTestId("verdict-clauses").textContent()).toBe(
      "peak at C=128: 2,216 → 2,370 tok/s (+6.9%)",
    );
  });

  it("draws the latency–throughput trade-off with each point labelled by its load level", async () => {
    // Charts draw when scrolled to: scroll through the page as a reader would.
    await drawEverything(page);
    const labels = page.locator("[data-testid=chart-efficiency] [data-testid=efficiency-point-labels] text");
    await labels.first().waitFor();
    expect(await labels.allTextContents()).toEqual(["C=1", "C=1"]);
    // The seeds state no TTFT: the chart says so instead of drawing an empty box.
    expect(await page.getByTestId("chart-ttft").textContent()).toBe(
      "No run states this figure under any statistic at any load level.",
    );
  });

  it("hides a series from the legend, keeps that in the URL, and still hides it after a reload", async () => {
    const lines = page.locator("[data-testid=chart-throughput] path.recharts-line-curve");
    await lines.first().waitFor();
    expect(await lines.count()).toBe(2);
    await page
      .locator("[data-testid=chart-throughput] [data-testid=chart-legend] button", {
        hasText: "SGLang TP8, CUDA graphs on",
      })
      .click();
    await page.waitForURL(new RegExp(`hide=${ids.graphs}`));
    await expect.poll(() => lines.count()).toBe(1);
    await page.reload();
    await drawEverything(page);
    await page.locator("[data-testid=chart-throughput] path.recharts-line-curve").first().waitFor();
    expect(await page.locator("[data-testid=chart-throughput] path.recharts-line-curve").count()).toBe(1);
    const entry = page.locator("[data-testid=chart-throughput] [data-testid=chart-legend] button", {
      hasText: "SGLang TP8, CUDA graphs on",
    });
    expect(await entry.getAttribute("aria-pressed")).toBe("false");
    // Hidden from the charts, not from the deltas.
    expect(await card(page, "SGLang TP8, CUDA graphs on").getByTestId("single-stream-delta").textContent()).toBe(
      "27 → 63.6 tok/s (+135.6%)",
    );
    await entry.click();
    await expect.poll(() => page.url()).not.toContain("hide=");
  });

  it("calls a change within the noise threshold noise, and the threshold lives in the URL", async () => {
    const peak = card(page, "SGLang TP8, CUDA graphs on").getByTestId("peak-delta");
    expect(await peak.getAttribute("data-verdict")).toBe("better");
    await page.getByTestId("noise-input").fill("10");
    await page.getByTestId("noise-input").press("Enter");
    await page.waitForURL(/noise=10/);
    await expect.poll(() => peak.getAttribute("data-verdict")).toBe("noise");
    expect(await peak.textContent()).toBe("2,216 → 2,370 tok/s (+6.9%)within noise");
    expect(
      await card(page, "SGLang TP8, CUDA graphs on").getByTestId("single-stream-delta").getAttribute("data-verdict"),
    ).toBe("better");
  });

  it("downloads the delta table as CSV", async () => {
    // The link carries the page's state: the noise threshold of the test before, no hidden series. On a loaded
    // machine the page may still be taking that state in when this test starts.
    const link = page.getByTestId("export-csv");
    await expect.poll(async () => link.getAttribute("href")).toMatch(/noise=10/);
    expect(await link.getAttribute("href")).not.toContain("hide=");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    // Named after the comparison and the day.
    expect(download.suggestedFilename()).toBe(`servebench-${TITLE_SLUG}-${fileDate(new Date())}-deltas.csv`);
    const text = fs.readFileSync((await download.path())!, "utf8");
    const rows = text.trim().split("\r\n");
    expect(rows[0]).toBe(
      "metric,unit,load,concurrency,request_rate,series,runs,value,baseline_value,change_pct,verdict",
    );
    // Compared as lists, so that a difference shows the rows there are.
    expect(rows.filter((row) => row.startsWith("output_throughput,") && row.includes(ids.graphs))).toEqual([
      `output_throughput,tok/s,C=1,1,,"SGLang TP8, CUDA graphs on",${ids.graphs},63.6,27,135.56,better`,
      `output_throughput,tok/s,C=128,128,,"SGLang TP8, CUDA graphs on",${ids.graphs},2370,2216,6.95,noise`,
    ]);
    // Throughput, throughput per GPU and mean TPOT: 3 tables × 2 levels × 2 series, and the header; then each
    // series at the four preset tiers (no p99 is stated, so none can be judged) and no per-interactivity row (each
    // frontier has one level with a TPOT).
    const capacity = rows.filter((row) => /^(tier:|plan:|tok_s_per_gpu_at)/.test(row));
    expect(rows).toHaveLength(13 + capacity.length);
    expect(capacity).toHaveLength(8);
    expect(capacity.filter((row) => row.includes(ids.graphs)).map((row) => row.split(",").at(-1))).toEqual([
      "unknown",
      "unknown",
      "unknown",
      "unknown",
    ]);
  });

  it("downloads the runs as JSON that uploads again", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-json").click()]);
    const runs = JSON.parse(fs.readFileSync((await download.path())!, "utf8")) as {
      id: string;
      format: string;
      name: string;
    }[];
    expect(runs.map((run) => [run.id, run.format])).toEqual([
      [ids.noGraphs, "servebench/v1"],
      [ids.graphs, "servebench/v1"],
    ]);
    const response = await fetch(`${baseUrl}/api/runs?dry_run=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(runs),
    });
    const preview = (await response.json()) as { runs: { document: { name: string }; valid: boolean }[] };
    expect(preview.runs.map((run) => [run.document.name, run.valid])).toEqual([
      ["SGLang TP8, --disable-cuda-graph", true],
      ["SGLang TP8, CUDA graphs on", true],
    ]);
  });

  it("downloads a chart as SVG and as PNG", async () => {
    const [svg] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-throughput-svg").click()]);
    expect(svg.suggestedFilename()).toBe(`servebench-${TITLE_SLUG}-${fileDate(new Date())}-throughput.svg`);
    const svgText = fs.readFileSync((await svg.path())!, "utf8");
    expect(svgText).toMatch(/^<svg /);
    expect(svgText).toContain("recharts-line-curve");
    expect(svgText).toContain("SGLang TP8, CUDA graphs on");
    const [png] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-throughput-png").click()]);
    expect(png.suggestedFilename()).toBe(`servebench-${TITLE_SLUG}-${fileDate(new Date())}-throughput.png`);
    const bytes = fs.readFileSync((await png.path())!);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.readUInt32BE(16)).toBeGreaterThan(600);
  });

  it("flags an unfair pair above the charts, naming the difference", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.graphs},${ids.llama}`);
    const warning = page.getByTestId("not-like-for-like");
    expect(await warning.textContent()).toContain("Not like for like");
    const items = await warning.locator("li").allTextContents();
    expect(items).toEqual([
      "Model differs: Kimi-K2.5 INT4 (SGLang TP8, CUDA graphs on) vs Llama-3.1-70B (vLLM Llama 70B TP4)",
      "GPU count differs: 8 (SGLang TP8, CUDA graphs on) vs 4 (vLLM Llama 70B TP4)",
    ]);
    const box = await warning.boundingBox();
    const chart = await page.getByTestId("chart-throughput").boundingBox();
    expect(box!.y).toBeLessThan(chart!.y);
  });

  it("shows the latency statistic the URL asks for", async () => {
    await page.getByTestId("stat-select").selectOption("p99");
    await page.waitForURL(/stat=p99/);
    await expect.poll(() => page.locator("#chart-tpot-title").textContent()).toBe("P99 TPOT (ms) vs concurrency");
  });

  it("builds a comparison from the history, saves it, and its short link shows it to a fresh browser", async () => {
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("Select SGLang TP8, --disable-cuda-graph").check();
    await page.getByLabel("Select SGLang TP8, CUDA graphs on").check();
    await page.getByTestId("compare-selected").click();
    await page.waitForURL(/\/compare\?runs=/);
    await page.getByTestId("save-comparison").click();
    expect(await page.getByTestId("save-title").inputValue()).toBe(
      "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
    );
    await page.getByTestId("save-title").fill("SGLang CUDA graphs vs --disable-cuda-graph");
    await page.getByTestId("save-notes").fill("Kimi-K2.5 INT4, 8x RTX PRO 6000. <b>Not bold</b>");
    await page.getByTestId("save-submit").click();
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    const shortLink = page.url();

    const fresh = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const other = await fresh.newPage();
    await other.goto(shortLink);
    expect(await other.locator("h1").textContent()).toBe("SGLang CUDA graphs vs --disable-cuda-graph");
    expect(await other.getByText("Kimi-K2.5 INT4, 8x RTX PRO 6000. <b>Not bold</b>").count()).toBe(1);
    const graphs = card(other, "SGLang TP8, CUDA graphs on");
    expect(await graphs.getByTestId("single-stream-delta").textContent()).toBe("27 → 63.6 tok/s (+135.6%)");
    expect(await graphs.locator("[data-testid=what-changed] li").allTextContents()).toEqual([
      "--disable-cuda-graph removed",
    ]);

    // The preview card a chat app unfurls.
    const ogImage = await other.locator('meta[property="og:image"]').getAttribute("content");
    expect(ogImage).toMatch(new RegExp(`^${baseUrl}/api/og\\?`));
    expect(await other.locator('meta[property="og:title"]').getAttribute("content")).toBe(
      "SGLang CUDA graphs vs --disable-cuda-graph",
    );
    expect(await other.locator('meta[property="og:description"]').getAttribute("content")).toContain(
      "single stream 27 → 63.6 tok/s (+135.6%)",
    );
    expect(await other.locator('meta[name="twitter:card"]').getAttribute("content")).toBe("summary_large_image");
    const image = await fetch(ogImage!);
    expect(image.headers.get("content-type")).toBe("image/png");

    // Hide a series on the short link, reload: still hidden.
    await other
      .locator("[data-testid=chart-throughput] [data-testid=chart-legend] button", {
        hasText: "SGLang TP8, --disable-cuda-graph",
      })
      .click();
    await other.waitForURL(new RegExp(`hide=${ids.noGraphs}`));
    await other.reload();
    await drawEverything(other);
    await other.locator("[data-testid=chart-throughput] path.recharts-line-curve").first().waitFor();
    expect(await other.locator("[data-testid=chart-throughput] path.recharts-line-curve").count()).toBe(1);
    await fresh.close();

    await page.goto(`${baseUrl}/comparisons`);
    expect(
      await page.getByRole("link", { name: "SGLang CUDA graphs vs --disable-cuda-graph" }).getAttribute("href"),
    ).toBe(new URL(shortLink).pathname);
  });
});
