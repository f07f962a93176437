/**
 * The comparison on messy real data, in a real browser: runs measured at different load levels (every line
 * drawn, dashed across the level a run lacks, one x domain on every chart), a vLLM sweep folder stored as
 * one run with repeats (range and "inconclusive" visible), and the SLO and cost inputs (in the URL, kept
 * across a reload, their figures on the cards).
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { drawEverything } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures");
const SWEEP = path.join(FIXTURES, "vllm", "vllm_sweep_v0.25.1");

let browser: Browser;
let page: Page;
const ids = { noGraphs: "", graphs: "", atTwo: "", seqs4: "", seqs8: "" };

function seed(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, "servebench", file), "utf8")) as Record<string, unknown>;
}

async function upload(document: unknown): Promise<string> {
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(document),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** The vLLM sweep's four run=N.json files through the API, each configuration's two repeats as one run. */
async function uploadSweepAsRepeats(): Promise<{ id: string; name: string }[]> {
  const form = new FormData();
  for (const combo of fs.readdirSync(SWEEP).sort()) {
    for (const file of ["run=0.json", "run=1.json"]) {
      const bytes = fs.readFileSync(path.join(SWEEP, combo, file));
      form.append("file", new Blob([bytes]), `${combo}/${file}`);
    }
  }
  form.set("split", "1");
  form.set("repeats", "one_run");
  form.set("engine", "vllm");
  form.set("gpu", "H100");
  form.set("gpu_count", "1");
  const response = await fetch(`${baseUrl}/api/runs`, { method: "POST", body: form });
  if (response.status !== 201) throw new Error(`sweep upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { runs: { id: string; name: string }[] }).runs;
}

function card(name: string) {
  return page
    .locator("[data-testid=headline-cards] > div")
    .filter({ has: page.getByTestId("card-run-name").getByText(name, { exact: true }) });
}

/** Per series (in legend order), the solid path's line segments and the dashed bridges of a chart. */
async function drawnSegments(chart: string): Promise<{ solid: number; dashed: number }[]> {
  return page.evaluate((testId) => {
    const root = document.querySelector(`[data-testid=${testId}]`);
    const lines = [...(root?.querySelectorAll("g.recharts-line") ?? [])];
    const bySeries = new Map<string, { solid: number; dashed: number }>();
    for (const line of lines) {
      const path = line.querySelector("path.recharts-line-curve");
      if (!path) continue;
      const stroke = path.getAttribute("stroke") ?? "";
      const entry = bySeries.get(stroke) ?? { solid: 0, dashed: 0 };
      const segments = (path.getAttribute("d") ?? "").split("L").length - 1;
      if (line.classList.contains("load-bridge")) entry.dashed += segments;
      else entry.solid += segments;
      bySeries.set(stroke, entry);
    }
    return [...bySeries.values()];
  }, chart);
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  ids.noGraphs = await upload(seed("sglang-tp8-cuda-graph-disabled.json"));
  ids.graphs = await upload(seed("sglang-tp8-cuda-graphs-on.json"));
  // A third run measured only at C=2, as a sweep of another configuration often is.
  ids.atTwo = await upload({
    ...seed("sglang-tp8-cuda-graphs-on.json"),
    name: "SGLang TP8, chunked prefill 4096",
    command: `${seed("sglang-tp8-cuda-graphs-on.json").command as string} --chunked-prefill-size 4096`,
    results: [{ concurrency: 2, output_throughput: 120, mean_tpot_ms: 16.2 }],
  });
  const sweep = await uploadSweepAsRepeats();
  ids.seqs4 = sweep[0]!.id;
  ids.seqs8 = sweep[1]!.id;
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("a comparison that decides", () => {
  it("draws every run's line across the level it lacks, dashed, and shares one x domain", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.noGraphs},${ids.graphs},${ids.atTwo}`);
    // Charts draw when scrolled to: scroll through the page as a reader would.
    await drawEverything(page);
    await page.locator("[data-testid=chart-throughput] path.recharts-line-curve").first().waitFor();
    // The two seeds: C=1 and C=128 joined by one dashed segment across C=2; the third run is one dot.
    expect(await drawnSegments("chart-throughput")).toEqual([
      { solid: 0, dashed: 1 },
      { solid: 0, dashed: 1 },
      { solid: 0, dashed: 0 },
    ]);
    const dashes = await page
      .locator("[data-testid=chart-throughput] g.load-bridge path.recharts-line-curve")
      .evaluateAll((paths) => paths.map((item) => item.getAttribute("stroke-dasharray")));
    expect(dashes).toEqual(["6 5", "6 5"]);
    const throughput = page.getByTestId("chart-throughput");
    const tpot = page.getByTestId("chart-tpot");
    expect(await throughput.getAttribute("data-x-domain")).toBe("0,7");
    expect(await tpot.getAttribute("data-x-domain")).toBe("0,7");
    expect(await throughput.getAttribute("data-x-ticks")).toBe("1,2,4,8,16,32,64,128");
    expect(await tpot.getAttribute("data-x-ticks")).toBe("1,2,4,8,16,32,64,128");
    // The x axis is drawn first: its eight labels lead each chart's tick labels.
    const ticks = async (testId: string) =>
      (await page.locator(`[data-testid=${testId}] .recharts-cartesian-axis-tick-value`).allTextContents()).slice(0, 8);
    expect(await ticks("chart-throughput")).toEqual(["1", "2", "4", "8", "16", "32", "64", "128"]);
    expect(await ticks("chart-tpot")).toEqual(await ticks("chart-throughput"));
    expect(await page.getByTestId("missing-levels").textContent()).toContain("They show as gaps, never as zeros.");
  });

  it("shows every figure of every run at the hovered level in one tooltip, against the baseline", async () => {
    await page.getByTestId("chart-throughput").scrollIntoViewIfNeeded();
    const plot = await page.locator("[data-testid=chart-throughput] .recharts-cartesian-grid").boundingBox();
    // C=1 is the left edge of the plot.
    await page.mouse.move(plot!.x + 40, plot!.y + plot!.height / 2);
    await page.mouse.move(plot!.x + 3, plot!.y + plot!.height / 2, { steps: 5 });
    const tooltip = page.getByTestId("load-tooltip").first();
    await tooltip.waitFor();
    const text = await tooltip.textContent();
    expect(text).toContain("C=1");
    expect(text).toContain("Output63.6 tok/s+135.6%");
    expect(text).toContain("Per GPU8 tok/s/GPU+135.6%");
    expect(text).toContain("TPOT mean15.7 ms-57.6%");
  });

  it("shows a run stored with repeats as their mean with the range, and calls an overlapping change inconclusive", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.seqs4},${ids.seqs8}`);
    const base = card("vLLM · opt-125m (--max-num-seqs 4)");
    expect(await base.getByTestId("repeats").textContent()).toBe("Mean of 2 repeats stored in this run");
    // run=0.json and run=1.json of max_num_seqs=4 measured 93.7 and 199 tok/s at C=2: mean 146.6.
    expect(await base.getByTestId("peak-delta").textContent()).toBe("147 tok/s");
    expect(await base.getByTestId("peak-delta-spread").textContent()).toBe("range 93.7–199 over 2 repeats");
    const other = card("vLLM · opt-125m (--max-num-seqs 8)").getByTestId("peak-delta");
    expect(await other.getAttribute("data-verdict")).toBe("inconclusive");
    expect(await other.textContent()).toBe("147 → 189 tok/s (+28.9%)inconclusive");
    // The noise threshold follows the repeats: half of 199.4 − 93.7 over their mean 146.6 is 36.0%, so ±36.5%.
    expect(await page.getByTestId("noise-note").textContent()).toContain("±36.5%");
    const table = page.getByTestId("delta-table-output_throughput");
    expect(await table.getByTestId("cell-spread").allTextContents()).toEqual(["±52.8", "±2.4"]);
    expect(await table.locator("[data-verdict=inconclusive]").textContent()).toBe("+28.9% inconclusive");
    const verdict = page.getByTestId("verdict-line");
    expect(await verdict.getAttribute("data-text")).toBe(
      "--max-num-seqs 8 vs --max-num-seqs 4: peak at C=2: 147 → 189 tok/s (+28.9%) (inconclusive: the intervals overlap)",
    );
    // An inconclusive headline is never coloured.
    expect(await verdict.getAttribute("data-verdict")).toBe("inconclusive");
    expect(await verdict.getByTestId("verdict-headline").getAttribute("class")).toBe("muted");
    expect(await page.getByTestId("remove-series").count()).toBe(2);
  });

  it("keeps SLO targets and a GPU-hour price in the URL and puts their figures on the cards", async () => {
    await page.getByTestId("slo-ttft-input").fill("500");
    await page.getByTestId("slo-ttft-input").press("Enter");
    await page.waitForURL(/slo_ttft=500/);
    await page.getByTestId("slo-tpot-input").fill("10");
    await page.getByTestId("slo-tpot-input").press("Enter");
    await page.waitForURL(/slo_tpot=10/);
    await page.getByTestId("price-input").fill("2.5");
    await page.getByTestId("price-input").press("Enter");
    await page.waitForURL(/price=2\.5/);
    await page.reload();
    expect(await page.getByTestId("slo-ttft-input").inputValue()).toBe("500");
    expect(await page.getByTestId("slo-tpot-input").inputValue()).toBe("10");
    expect(await page.getByTestId("price-input").inputValue()).toBe("2.5");
    // p99 TTFT 410 ms and p99 TPOT 9.2 ms (means of the repeats) meet TTFT ≤ 500, TPOT ≤ 10: 146.6 tok/s on 1 GPU.
    const base = card("vLLM · opt-125m (--max-num-seqs 4)");
    expect(await base.getByTestId("slo-delta").getAttribute("data-status")).toBe("every");
    expect(await base.getByTestId("slo-delta").textContent()).toBe(
      "meets at every measured level; at the highest, C=2: 147 tok/s/GPU",
    );
    // $2.5 / (146.56 tok/s × 3600 / 10⁶) = $4.74 per million output tokens.
    expect(await base.getByTestId("slo-cost").textContent()).toBe("$4.74 per million output tokens there");
    // max_num_seqs=8: p99 TPOT 10.5 ms breaks the target at its only level.
    const other = card("vLLM · opt-125m (--max-num-seqs 8)");
    expect(await other.getByTestId("slo-delta").textContent()).toBe("meets at none of the measured levels");
    expect(await page.getByTestId("delta-table-output_throughput").getByTestId("over-slo").count()).toBe(1);
    await drawEverything(page);
    expect(await page.locator("[data-testid=chart-throughput] [data-over-slo=true]").count()).toBe(1);
    const cost = page.getByTestId("delta-table-cost_per_m_output_tokens");
    expect(await cost.locator("td.num").allTextContents()).toEqual(["$4.74", expect.stringMatching(/^\$3\.68\D/)]);
  });
});
