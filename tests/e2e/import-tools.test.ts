/**
 * Importing what benchmark tools wrote, in a real browser: a vLLM sweep folder's files and an SGLang
 * bench_serving JSONL, each with a conflict settled in the preview and the missing hardware supplied, then
 * the two runs compared.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures");
const SWEEP = "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8";
const SGLANG = "sglang/llama_3_3_70b_online_output.jsonl";

let browser: Browser;
let page: Page;
const ids: { vllm?: string; sglang?: string } = {};

function readJson(relative: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, relative), "utf8")) as Record<string, unknown>;
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
});

afterAll(async () => {
  await browser?.close();
});

async function keepOnly(target: Page, fileLabel: string, keep: boolean) {
  const box = target.getByLabel(`Keep ${fileLabel}`, { exact: true });
  if ((await box.isChecked()) !== keep) {
    // Each tick asks the server for a new preview; wait for it before the next step reads the page.
    await Promise.all([target.waitForResponse((response) => response.url().includes("dry_run=1")), box.click()]);
  }
}

describe.sequential("importing tool files through the upload page", () => {
  it("reads a vLLM sweep folder, drops the summary's duplicates, and keeps one of two repeats", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page
      .getByTestId("file-input")
      .setInputFiles(["run=0.json", "run=1.json", "summary.json"].map((name) => path.join(FIXTURES, SWEEP, name)));
    const formats = page.getByTestId("fragment-format");
    // The first preview of a freshly started server takes its time on a busy machine: wait for it, not a second.
    await expect.poll(() => formats.count()).toBe(2);
    expect(await formats.allTextContents()).toEqual([
      "vLLM bench sweep serve (run=N.json, summary.json)",
      "vLLM bench sweep serve (run=N.json, summary.json)",
    ]);
    expect(await page.getByTestId("preview-skipped").textContent()).toContain("summary.json");
    expect(await page.getByTestId("preview-conflicts").textContent()).toContain(
      "2 points at C=2 (run=0.json (run 0), run=1.json (run 1))",
    );
    expect(await page.getByTestId("save-run").isDisabled()).toBe(true);

    await keepOnly(page, "run=1.json run 1", false);
    await expect.poll(() => page.getByTestId("preview-conflicts").count()).toBe(0);
    const payload = readJson(`${SWEEP}/run=0.json`);
    expect(await page.getByTestId("preview-format").textContent()).toBe("vLLM bench sweep serve");
    expect(await page.getByTestId("missing-context").textContent()).toContain("GPU, GPU count");
    expect(await page.getByTestId("preview-peak").textContent()).toBe(
      `${Number(payload.output_throughput).toFixed(1)} tok/s @ C=2`,
    );

    await page.locator("#field-gpu").fill("NVIDIA L4");
    await page.locator("#field-gpu_count").fill("1");
    await page.getByTestId("save-run").click();
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    ids.vllm = new URL(page.url()).pathname.split("/").pop();
    expect(await page.getByTestId("run-name").textContent()).toBe("vLLM · opt-125m");
    expect(await page.getByTestId("peak").textContent()).toBe(`${Number(payload.output_throughput).toFixed(1)} tok/s`);
    expect(await page.getByTestId("flags-table").textContent()).toContain("--max-num-seqs4");
  });

  it("reads an SGLang JSONL, keeps the random-dataset lines, and takes the missing context from the form", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(path.join(FIXTURES, SGLANG));
    await expect.poll(() => page.getByTestId("fragment-format").count()).toBe(7);
    expect(await page.getByTestId("preview-conflicts").textContent()).toContain("2 different configurations");
    await keepOnly(page, `${path.basename(SGLANG)} line 6`, false);
    await keepOnly(page, `${path.basename(SGLANG)} line 7`, false);
    await expect.poll(() => page.getByTestId("preview-conflicts").count()).toBe(0);
    // The file's backend "sglang" says the engine; the missing model is said once, beside its field (not again
    // in the preview), and Save says why it waits.
    expect(await page.locator("#field-engine").inputValue()).toBe("sglang");
    expect(await page.getByTestId("field-error-model").textContent()).toContain("is required");
    expect(await page.getByTestId("preview-issues").count()).toBe(0);
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe("Fill in or correct: model.");

    await page.locator("#field-model").fill("facebook/opt-125m");
    await page.locator("#field-gpu").fill("NVIDIA L4");
    await page.locator("#field-gpu_count").fill("1");
    await page.getByRole("button", { name: "Update preview" }).click();
    await expect.poll(() => page.getByTestId("preview-issues").count()).toBe(0);
    expect(await page.getByTestId("preview-points").locator("tbody tr").count()).toBe(5);
    // The preview follows each typed field: Save waits until it has caught up with the last one.
    await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
    await page.getByTestId("save-run").click();
    // The new run's page is judged against its series as it renders: slow on a busy machine.
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    ids.sglang = new URL(page.url()).pathname.split("/").pop();
    expect(await page.getByTestId("run-name").textContent()).toBe("SGLang · opt-125m · random 1024→1024");
    const first = JSON.parse(fs.readFileSync(path.join(FIXTURES, SGLANG), "utf8").split("\n")[0]!) as {
      output_throughput: number;
    };
    expect(await page.getByTestId("points-table").locator("tbody tr").first().textContent()).toContain(
      new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(first.output_throughput),
    );
  });

  it("compares the two imported runs", async () => {
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("Select vLLM · opt-125m").check();
    await page.getByLabel("Select SGLang · opt-125m · random 1024→1024").check();
    await page.getByTestId("compare-selected").click();
    await page.waitForURL(/\/compare\?runs=/);
    expect(new URL(page.url()).searchParams.get("runs")).toBe(`${ids.vllm},${ids.sglang}`);
    const sglangCard = page.locator("[data-testid=headline-cards] > div").nth(1);
    const changes = await sglangCard.locator("[data-testid=what-changed] li").allTextContents();
    expect(changes).toContain("engine: vllm → sglang");
    expect(changes).toContain("--max-num-seqs 4 removed");
    expect(await page.getByTestId("delta-table-output_throughput").locator("tbody tr").count()).toBe(6);
  });
});
