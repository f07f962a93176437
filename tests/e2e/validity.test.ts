/**
 * The validity checks on a run's page, in a real browser: a run faster than its GPU's memory could decode is
 * stored (never refused), carries a one-line warning near the top, and its "Validity checks" panel gives the mark
 * and its reason as text; a plausible run shows no warning; a name full of markup is shown as text; the panel
 * fits a 390 px screen.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();

let browser: Browser;
let page: Page;

async function upload(document: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ format: "servebench/v1", engine: "vllm", ...document }),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

// One H100 SXM holding Llama-3.3-70B in BF16: 3,350 GB/s ÷ (70e9 × 2 bytes) = 23.9 tok/s per stream at most.
const llama = {
  model: "meta-llama/Llama-3.3-70B-Instruct",
  hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1 },
  command: "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 1",
};
const ids = { impossible: "", plausible: "", markup: "" };

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  // 1000 / 20 ms = 50 tok/s per stream: 2.1× the bound.
  ids.impossible = await upload({
    ...llama,
    name: "Llama 70B faster than memory",
    results: [
      { concurrency: 1, mean_tpot_ms: 20, output_throughput: 48, completed: 10, failed: 0 },
      { concurrency: 8, mean_tpot_ms: 45, output_throughput: 170, completed: 24, failed: 0 },
    ],
  });
  // 1000 / 55 ms = 18.2 tok/s: 76% of the bound.
  ids.plausible = await upload({
    ...llama,
    name: "Llama 70B within the bound",
    results: [{ concurrency: 1, mean_tpot_ms: 55, output_throughput: 17.5, completed: 10, failed: 0 }],
  });
  ids.markup = await upload({
    ...llama,
    name: "A GPU named in markup",
    hardware: { gpu: "<b>Accelerator</b><img src=x>", gpu_count: 1 },
    results: [{ concurrency: 1, mean_tpot_ms: 20 }],
  });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("validity checks on the run page", () => {
  it("marks a run above the memory-bandwidth bound, near the top and in the panel, with its reason", async () => {
    await page.goto(`${baseUrl}/runs/${ids.impossible}`);
    const warning = page.getByTestId("validity-warning");
    await warning.waitFor();
    expect(await warning.textContent()).toContain(
      "Marked: 50 tok/s per stream exceeds the 23.9 tok/s memory-bandwidth bound.",
    );
    const roofline = page.getByTestId("validity-check-roofline");
    expect(await roofline.getAttribute("data-status")).toBe("marked");
    expect(await roofline.getByTestId("validity-status").textContent()).toBe("⚠Marked");
    const detail = await roofline.textContent();
    expect(detail).toContain("Memory-bandwidth bound");
    expect(detail).toContain(
      "50 tok/s per stream at C=1 exceeds the 23.9 tok/s memory-bandwidth bound of 1× H100 SXM (3,350 GB/s each, tensor parallel 1) for 70B active params at 2 bytes (BF16, assumed)",
    );
    // The other checks are listed too, each with its status in words.
    expect(await page.getByTestId("validity-check-failed-requests").getAttribute("data-status")).toBe("ok");
    expect(await page.getByTestId("validity-check-gpu-count").getAttribute("data-status")).toBe("ok");
    expect(await page.getByTestId("validity-check-client-path").getAttribute("data-status")).toBe("unknown");
    // The link in the warning leads to the panel.
    await warning.getByRole("link", { name: "See the validity checks" }).click();
    await page.waitForURL(/#validity$/);
  });

  it("shows no warning on a run within the bound", async () => {
    await page.goto(`${baseUrl}/runs/${ids.plausible}`);
    await page.getByTestId("validity-panel").waitFor();
    expect(await page.getByTestId("validity-warning").count()).toBe(0);
    expect(await page.getByTestId("validity-check-roofline").getAttribute("data-status")).toBe("ok");
    expect(await page.getByTestId("validity-check-roofline").textContent()).toContain(
      "76% of the 23.9 tok/s bound of 1× H100 SXM",
    );
  });

  it("shows a GPU name of markup as text, never as HTML", async () => {
    await page.goto(`${baseUrl}/runs/${ids.markup}`);
    const roofline = page.getByTestId("validity-check-roofline");
    await roofline.waitFor();
    expect(await roofline.textContent()).toContain("GPU not in the catalogue: “<b>Accelerator</b><img src=x>”");
    expect(await page.locator("[data-testid=validity-panel] b, [data-testid=validity-panel] img").count()).toBe(0);
  });

  it("fits a 390 px screen", async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phone.goto(`${baseUrl}/runs/${ids.impossible}`);
    await phone.getByTestId("validity-panel").waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.close();
  });
});

describe.sequential("validity and uncertainty on the compare page", () => {
  it("warns that a side is marked, says it first in the verdict, and marks a p99 of ten requests ≈ max", async () => {
    // A configuration of its own, so the two are two series rather than repeats of one.
    const plausible = await upload({
      ...llama,
      name: "Llama 70B within the bound, 4 sequences",
      command: `${llama.command} --max-num-seqs 4`,
      results: [{ concurrency: 1, mean_tpot_ms: 55, output_throughput: 17.5, completed: 10, failed: 0 }],
    });
    await page.goto(`${baseUrl}/compare?runs=${plausible},${ids.impossible}`);
    const warnings = page.getByTestId("validity-warnings");
    await warnings.waitFor();
    expect(await warnings.textContent()).toContain("Llama 70B faster than memory: ");
    expect(await warnings.textContent()).not.toContain("4 sequences");
    const verdict = page.getByTestId("verdict-line");
    expect(await verdict.getAttribute("data-text")).toMatch(/^This run failed a validity check — /);
    expect(await verdict.getByTestId("verdict-caveat").textContent()).toBe("This run failed a validity check — ");
    // Both runs state a mean TPOT of 10 requests at C=1; the mean has no "≈ max" mark, only percentiles do.
    expect(await page.getByTestId("delta-table-mean_tpot_ms").getByTestId("cell-interval").count()).toBe(0);
  });

  it("shows a percentile's request count cannot support it, and calls its change inconclusive", async () => {
    const base = await upload({
      ...llama,
      name: "p99 of ten requests, A",
      flags: { "--max-num-seqs": 8 },
      results: [{ concurrency: 1, mean_tpot_ms: 60, p99_tpot_ms: 70, output_throughput: 16, completed: 10 }],
    });
    const other = await upload({
      ...llama,
      name: "p99 of ten requests, B",
      flags: { "--max-num-seqs": 16 },
      results: [{ concurrency: 1, mean_tpot_ms: 60, p99_tpot_ms: 140, output_throughput: 16, completed: 10 }],
    });
    await page.goto(`${baseUrl}/compare?runs=${base},${other}`);
    const table = page.getByTestId("delta-table-p99_tpot_ms");
    await table.waitFor();
    // 0.99^10 = 0.90 > 0.025: a p99 from ten requests has no upper bound; +100% cannot be told from chance.
    expect(await table.getByTestId("cell-interval").allTextContents()).toEqual(["≈ max (n=10)", "≈ max (n=10)"]);
    expect(await table.locator("[data-verdict=inconclusive]").textContent()).toBe("+100.0% inconclusive");
  });
});
