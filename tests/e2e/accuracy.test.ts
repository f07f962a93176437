/**
 * Accuracy beside speed in a real browser: an FP8 run 40% faster than its BF16 baseline whose gsm8k score fell 6
 * points (stderr 1.3 on both sides, noise band ±3.7) reads as a trade-off in the verdict, on its card and in the
 * accuracy table, never as simply better; the run page lists its scores.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();

function run(id: string, name: string, tokS: number, gsm8k: number, flags: Record<string, string>) {
  return {
    format: "servebench/v1",
    id,
    name,
    engine: "vllm",
    engine_version: "0.11.0",
    model: "meta-llama/Llama-3.1-8B-Instruct",
    hardware: { gpu: "H100", gpu_count: 1 },
    flags,
    results: [1, 8, 32].map((concurrency) => ({
      concurrency,
      output_throughput: (tokS * concurrency) / 32,
      mean_tpot_ms: 10 + concurrency / 4,
      mean_ttft_ms: 40 + concurrency,
    })),
    accuracy: [
      {
        evaluator: "lm-eval",
        evaluator_version: "0.4.9",
        task: "gsm8k",
        metric: "exact_match",
        filter: "strict-match",
        value: gsm8k,
        stderr: 0.013,
        num_fewshot: 5,
        samples: 1319,
      },
    ],
  };
}

let browser: Browser;
let page: Page;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  for (const document of [
    run("bf16-baseline", "Llama 8B BF16", 1000, 0.78, {}),
    run("fp8-run", "Llama 8B FP8", 1400, 0.72, { "--quantization": "fp8" }),
    { ...run("no-scores", "Llama 8B, not evaluated", 1000, 0, {}), accuracy: undefined },
  ]) {
    const response = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(document),
    });
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  }
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("a faster run that lost accuracy", () => {
  it("reads as a trade-off in the verdict, the drop first", async () => {
    await page.goto(`${baseUrl}/compare?runs=bf16-baseline,fp8-run&baseline=bf16-baseline`);
    const verdict = page.getByTestId("verdict-line").first();
    await verdict.waitFor();
    expect(await verdict.getAttribute("data-verdict")).toBe("worse");
    expect(await page.getByTestId("verdict-trade-off").textContent()).toContain("trade-off");
    expect(await page.getByTestId("verdict-headline").textContent()).toBe(
      "accuracy: gsm8k · exact_match (strict-match) 78.0 → 72.0 (−6.0 points, beyond ±3.7)",
    );
    // The speed figures are still said, after it.
    expect(await verdict.getAttribute("data-text")).toMatch(/; peak at C=32: 1,000 → 1,400 tok\/s \(\+40\.0%\)/);
  });

  it("says so on the run's card and in the accuracy table", async () => {
    const line = page.getByTestId("accuracy-card-line");
    expect(await line.count()).toBe(1);
    expect(await line.textContent()).toContain("trade-off: faster, less accurate");
    expect(await line.textContent()).toContain("78.0 → 72.0 (−6.0 points, beyond ±3.7)");
    const row = page.getByTestId("accuracy-row");
    expect(await row.count()).toBe(1);
    expect(await row.getAttribute("data-verdict")).toBe("worse");
    expect((await row.locator("td").allTextContents()).map((text) => text.trim())).toEqual([
      "gsm8k · exact_match (strict-match)lm-eval",
      "78.0 ± 1.3",
      "72.0 ± 1.3",
      "−6.0 pts",
      "±3.7 pts",
      "worse",
    ]);
  });

  it("lists the scores on the run's page", async () => {
    await page.goto(`${baseUrl}/runs/fp8-run`);
    const row = page.getByTestId("run-accuracy-row");
    await row.first().waitFor();
    expect((await row.locator("td").allTextContents()).map((text) => text.trim())).toEqual([
      "gsm8k · exact_match (strict-match)",
      "72.0%",
      "1.3",
      "5",
      "1,319",
      "lm-eval 0.4.9",
    ]);
    // A run with scores keeps its form for more results behind one button.
    expect(await page.getByTestId("attach-accuracy-input").count()).toBe(0);
    await page.getByTestId("attach-accuracy-open").click();
    await page.getByTestId("attach-accuracy-input").waitFor();
  });

  it("attaches an lm-eval results file from the run page's form", async () => {
    await page.goto(`${baseUrl}/runs/no-scores`);
    await page
      .getByTestId("attach-accuracy-input")
      .setInputFiles(
        path.join(__dirname, "..", "fixtures", "accuracy", "lm-eval", "v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json"),
      );
    await page.getByTestId("attach-accuracy-submit").click();
    const rows = page.getByTestId("run-accuracy-row");
    await expect.poll(() => rows.count()).toBe(2);
    // The page refreshed into the table of scores; the form kept its place and its confirmation.
    expect(await page.getByTestId("attach-accuracy-done").allTextContents()).toEqual([
      "The run holds 2 accuracy scores.",
    ]);
    expect(await page.getByTestId("attach-accuracy-input").isVisible()).toBe(true);
    expect((await rows.nth(1).locator("td").allTextContents()).map((text) => text.trim()).slice(0, 4)).toEqual([
      "gsm8k · exact_match (strict-match)",
      "75.6%",
      "1.2",
      "5",
    ]);
  });
});
