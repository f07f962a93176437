/**
 * The upload form validates as it is filled in: no "Update preview" press, required fields marked, Save
 * disabled with its reason until the run is valid, each problem said once, the file's own values shown as
 * filled values marked "from the file", examples written "e.g.", and an upload already stored said so.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures");
const SGLANG = path.join(FIXTURES, "sglang", "llama_3_3_70b_online_output.jsonl");
const CAMPAIGN_RUN = path.join(FIXTURES, "servebench", "vllm-tp8-baseline.json");

let browser: Browser;
let page: Page;
let storedUrl = "";

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
});

afterAll(async () => {
  await browser?.close();
});

async function keepOnlyTheFirstFiveLines(target: Page) {
  await target.getByTestId("file-input").setInputFiles(SGLANG);
  await expect.poll(() => target.getByTestId("fragment-format").count()).toBe(7);
  for (const line of [6, 7]) {
    await Promise.all([
      target.waitForResponse((response) => response.url().includes("dry_run=1")),
      target.getByLabel(`Keep ${path.basename(SGLANG)} line ${line}`, { exact: true }).click(),
    ]);
  }
  await expect.poll(() => target.getByTestId("preview-conflicts").count()).toBe(0);
}

describe.sequential("the upload form as it is filled in", () => {
  it("marks the required fields and writes its examples as examples", async () => {
    await page.goto(`${baseUrl}/upload`);
    // The engine is not required: the file or the launch command may say it, and a run nothing names it for is
    // stored as "engine not stated".
    expect(await page.locator("#field-engine").getAttribute("aria-required")).toBeNull();
    expect(await page.locator("#field-model").getAttribute("aria-required")).toBe("true");
    expect(await page.locator("#field-gpu").getAttribute("aria-required")).toBeNull();
    for (const id of ["engine", "engine_version", "model", "gpu", "gpu_count", "command", "tags"]) {
      expect(await page.locator(`#field-${id}`).getAttribute("placeholder"), id).toMatch(/^e\.g\. /);
    }
    expect(await page.getByTestId("save-run").isDisabled()).toBe(true);
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe("Choose files first.");
  });

  it("says once, beside each field, what the run lacks, and keeps Save disabled with the reason", async () => {
    await keepOnlyTheFirstFiveLines(page);
    // The file was written by bench_serving --backend sglang, which speaks SGLang's own API: it says the engine.
    expect(await page.locator("#field-engine").inputValue()).toBe("sglang");
    expect(await page.getByTestId("from-file-engine").isVisible()).toBe(true);
    expect(await page.getByTestId("field-error-engine").count()).toBe(0);
    expect(await page.getByTestId("field-error-model").textContent()).toContain("is required");
    // Not again in the preview, and no error box repeating it.
    expect(await page.getByTestId("preview-issues").count()).toBe(0);
    expect(await page.getByTestId("api-error").count()).toBe(0);
    expect(await page.getByTestId("save-run").isDisabled()).toBe(true);
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe("Fill in or correct: model.");
  });

  it("refreshes the preview shortly after typing, without a button press", async () => {
    expect(await page.getByTestId("preview-run").textContent()).toContain("sglang · model not given");
    expect(await page.getByTestId("save-blocked-by").textContent()).toBe("Fill in or correct: model.");
    expect(await page.getByTestId("save-run").isDisabled()).toBe(true);

    await page.locator("#field-model").pressSequentially("meta-llama/Llama-3.3-70B-Instruct", { delay: 5 });
    await expect.poll(() => page.getByTestId("save-blocked-by").count()).toBe(0);
    expect(await page.getByTestId("save-run").isDisabled()).toBe(false);
    expect(await page.getByTestId("preview-name").textContent()).toBe(
      "SGLang · Llama-3.3-70B-Instruct · random 1024→1024",
    );
  });

  it("saves the valid run", async () => {
    await page.getByTestId("save-run").click();
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    storedUrl = new URL(page.url()).pathname;
    expect(await page.getByTestId("run-name").textContent()).toBe("SGLang · Llama-3.3-70B-Instruct · random 1024→1024");
  });

  it("says that the same content is already stored, and links to it", async () => {
    await page.goto(`${baseUrl}/upload`);
    await keepOnlyTheFirstFiveLines(page);
    await page.locator("#field-engine").fill("sglang");
    await page.locator("#field-model").fill("meta-llama/Llama-3.3-70B-Instruct");
    await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
    await page.getByTestId("save-run").click();
    const notice = page.getByTestId("already-stored");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("This is already stored");
    expect(new URL(page.url()).pathname).toBe("/upload");
    expect(await notice.getByRole("link").getAttribute("href")).toBe(storedUrl);
  });

  it("shows what the file says as filled values marked from the file, and sends them only when edited", async () => {
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles(CAMPAIGN_RUN);
    await page.getByTestId("from-file-engine").waitFor();
    expect(await page.locator("#field-engine").inputValue()).toBe("vllm");
    expect(await page.locator("#field-model").inputValue()).toBe("Kimi-K2.5 INT4");
    expect(await page.locator("#field-gpu").inputValue()).toBe("RTX PRO 6000 Blackwell");
    expect(await page.locator("#field-gpu_count").inputValue()).toBe("8");
    expect(await page.getByTestId("from-file-gpu_count").isVisible()).toBe(true);
    // The file states no engine version: an empty field with an example, not a value.
    expect(await page.locator("#field-engine_version").inputValue()).toBe("");
    expect(await page.getByTestId("from-file-engine_version").count()).toBe(0);

    // Editing a value makes it the person's: the mark goes, and the preview follows the edit.
    await page.locator("#field-gpu_count").fill("4");
    await expect.poll(() => page.getByTestId("from-file-gpu_count").count()).toBe(0);
    await expect.poll(() => page.getByTestId("preview-run").textContent()).toContain("4× RTX PRO 6000 Blackwell");
    // Emptied and left, it goes back to what the file says.
    await page.locator("#field-gpu_count").fill("");
    await page.locator("#field-tags").focus();
    await expect.poll(() => page.locator("#field-gpu_count").inputValue()).toBe("8");
    await expect.poll(() => page.getByTestId("preview-run").textContent()).toContain("8× RTX PRO 6000 Blackwell");
  });
});
