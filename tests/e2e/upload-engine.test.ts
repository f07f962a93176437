/**
 * The upload page takes the engine from what was said, in Chromium: an SGLang bench_serving file of `--backend
 * sglang` says SGLang, a typed `vllm serve …` launch command says vLLM; the field shows it, marked where it came
 * from, and the run is stored without asking. A file nothing names the engine for is stored as engine not stated.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures");
const SGLANG = path.join(FIXTURES, "sglang", "llama_3_3_70b_online_output.jsonl");
const VLLM = path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json");

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

async function storedRun(): Promise<Record<string, unknown>> {
  await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
  const id = new URL(page.url()).pathname.split("/").pop();
  return (await (await fetch(`${baseUrl}/api/runs/${id}`)).json()) as Record<string, unknown>;
}

async function saveWhenAllowed(): Promise<void> {
  await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
  await page.getByTestId("save-run").click();
}

describe("the engine on the upload page", () => {
  it("fills it from an SGLang bench_serving file, marked from the file, and stores it without asking", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(SGLANG);
    await expect.poll(() => page.getByTestId("fragment-format").count()).toBe(7);
    // Two workloads in one file: keep the first five lines, one configuration.
    for (const line of [6, 7]) {
      await Promise.all([
        page.waitForResponse((response) => response.url().includes("dry_run=1")),
        page.getByLabel(`Keep ${path.basename(SGLANG)} line ${line}`, { exact: true }).click(),
      ]);
    }
    await page.getByTestId("from-file-engine").waitFor();
    expect(await page.locator("#field-engine").inputValue()).toBe("sglang");
    expect(await page.getByTestId("from-file-engine").textContent()).toBe("from the file");
    expect(await page.getByTestId("field-error-engine").count()).toBe(0);
    await page.locator("#field-model").fill("meta-llama/Llama-3.3-70B-Instruct");
    await saveWhenAllowed();
    expect(await storedRun()).toMatchObject({ engine: "sglang", model: "meta-llama/Llama-3.3-70B-Instruct" });
  });

  it("fills it from a typed vllm serve command, marked from the command, and stores it without asking", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(VLLM);
    await page.getByTestId("preview-run").waitFor();
    await page.locator("#field-command").fill("vllm serve facebook/opt-125m --max-num-seqs 4");
    await page.getByTestId("from-command-engine").waitFor();
    expect(await page.locator("#field-engine").inputValue()).toBe("vllm");
    expect(await page.getByTestId("from-command-engine").textContent()).toBe("from the command");
    expect(await page.getByTestId("from-file-engine").count()).toBe(0);
    await saveWhenAllowed();
    expect(await storedRun()).toMatchObject({
      engine: "vllm",
      command: "vllm serve facebook/opt-125m --max-num-seqs 4",
      flags: { "--max-num-seqs": "4" },
    });
    expect(await page.getByTestId("engine-not-stated").count()).toBe(0);
  });

  it("stores a file nothing names the engine for as engine not stated, and says so on the run page", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(VLLM);
    await page.getByTestId("preview-run").waitFor();
    // No value shown (not "unknown"), no mark, a hint saying what saving does.
    expect(await page.locator("#field-engine").inputValue()).toBe("");
    expect(await page.getByTestId("from-file-engine").count()).toBe(0);
    expect(await page.locator("#field-engine-note").textContent()).toBe(
      "Not stated by the files or the launch command: stored as “engine not stated” unless filled in.",
    );
    expect(await page.getByTestId("preview-run").textContent()).toContain("engine not stated");
    await saveWhenAllowed();
    expect((await storedRun()).engine).toBe("unknown");
    expect(await page.getByTestId("engine-not-stated").textContent()).toContain("Engine not stated.");
  });
});
