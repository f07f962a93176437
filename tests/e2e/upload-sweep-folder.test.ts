/**
 * A sweep folder of a hundred results files through the upload page, in Chromium, on a connection slowed down
 * (Chrome's own network throttling) so each stage can be seen: the bar counts the bytes going up and the files
 * chosen, then says the server is reading them; the preview makes one run of a point per file; the save shows the
 * same bar, then "Storing the run…", and lands on the run, which holds the hundred points with the figures of
 * their files. On a phone in the dark theme, saving the same folder again says it is already stored.
 *
 * The files are `vllm bench serve --save-result` payloads (one load level each, `max_concurrency`), made from
 * tests/fixtures/vllm/bench_serve_v0.25.1.json with the level and the figures varied. Screenshots of each stage
 * go to /tmp/look/ for a person to look at.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const SOURCE = path.join(__dirname, "..", "fixtures", "vllm", "bench_serve_v0.25.1.json");
const LOOK = "/tmp/look";
const LEVELS = Array.from({ length: 100 }, (_, index) => index + 1);
/**
 * The body (about 130 kB) goes up at this many bytes a second: several seconds of "Sending", however fast the
 * machine. The added latency holds each answer back after the body is sent, so "Reading…" shows for a while too.
 */
const SLOW = { offline: false, latency: 1_500, downloadThroughput: -1, uploadThroughput: 24_000 };

type Json = Record<string, unknown>;

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** The real file measured at concurrency `level`: more throughput and longer waits the more requests at once. */
function payloadAt(source: Json, level: number): Json {
  const completed = 8 * level;
  const outputThroughput = round((source.output_throughput as number) * level ** 0.8, 6);
  const minutes = 8 + level;
  return {
    ...source,
    date: `20260816-${String(16 + Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}53`,
    max_concurrency: level,
    max_concurrent_requests: level,
    num_prompts: completed,
    completed,
    total_input_tokens: 32 * completed,
    total_output_tokens: 16 * completed,
    duration: round((16 * completed) / outputThroughput, 6),
    output_throughput: outputThroughput,
    total_token_throughput: round(outputThroughput * 3, 6),
    request_throughput: round(outputThroughput / 16, 6),
    mean_ttft_ms: round((source.mean_ttft_ms as number) * (1 + level / 20), 6),
    median_ttft_ms: round((source.median_ttft_ms as number) * (1 + level / 20), 6),
    p99_ttft_ms: round((source.p99_ttft_ms as number) * (1 + level / 20), 6),
    mean_tpot_ms: round((source.mean_tpot_ms as number) * (1 + level / 50), 6),
    median_tpot_ms: round((source.median_tpot_ms as number) * (1 + level / 50), 6),
    p99_tpot_ms: round((source.p99_tpot_ms as number) * (1 + level / 50), 6),
  };
}

/** One file a level, named the way a sweep script names them, in `<dir>/sweep`. */
function writeSweep(dir: string): { folder: string; payloads: Map<number, Json>; bytes: number } {
  const source = JSON.parse(fs.readFileSync(SOURCE, "utf8")) as Json;
  const folder = path.join(dir, "sweep");
  fs.mkdirSync(folder);
  const payloads = new Map<number, Json>();
  let bytes = 0;
  for (const level of LEVELS) {
    const payload = payloadAt(source, level);
    payloads.set(level, payload);
    const text = `${JSON.stringify(payload, null, 2)}\n`;
    bytes += Buffer.byteLength(text);
    fs.writeFileSync(path.join(folder, `bench_serve_c${String(level).padStart(3, "0")}.json`), text);
  }
  return { folder, payloads, bytes };
}

interface Seen {
  mode: string | null;
  phase: string | null;
  label: string;
  files: string;
  now: string | null;
  max: string | null;
  text: string | null;
}

/**
 * Keep, in the page, every state the progress box is drawn in: a MutationObserver sees each one React commits,
 * however briefly, so no stage is missed on a machine too busy to poll in time.
 */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Seen[] = [];
    (window as unknown as { progressSeen: Seen[] }).progressSeen = seen;
    const record = () => {
      const box = document.querySelector('[data-testid="upload-progress"]');
      if (!box) return;
      const bar = box.querySelector('[role="progressbar"]');
      const entry: Seen = {
        mode: box.getAttribute("data-mode"),
        phase: box.getAttribute("data-phase"),
        label: box.querySelector('[data-testid="upload-progress-label"]')?.textContent ?? "",
        files: box.querySelector('[data-testid="upload-progress-files"]')?.textContent ?? "",
        now: bar?.getAttribute("aria-valuenow") ?? null,
        max: bar?.getAttribute("aria-valuemax") ?? null,
        text: bar?.getAttribute("aria-valuetext") ?? null,
      };
      const last = seen[seen.length - 1];
      if (!last || JSON.stringify(last) !== JSON.stringify(entry)) seen.push(entry);
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

async function progressSeen(page: Page): Promise<Seen[]> {
  return page.evaluate(() => (window as unknown as { progressSeen: Seen[] }).progressSeen);
}

/**
 * Screenshots of the page once the progress box shows `phase` (of `mode`), unless `done` shows first (a stage over
 * before the test got to look: the recording above still has it): `<name>-<scheme>.png` in the context's own colour
 * scheme, then in the other one. Says whether it caught the stage.
 */
async function shoot(page: Page, mode: string, phase: string, done: string, name: string): Promise<boolean> {
  const stage = `[data-testid="upload-progress"][data-mode="${mode}"][data-phase="${phase}"]`;
  await page.locator(`${stage}, ${done}`).first().waitFor();
  if ((await page.locator(stage).count()) === 0) return false;
  const own = (await page.evaluate(() => window.matchMedia("(prefers-color-scheme: dark)").matches)) ? "dark" : "light";
  const other = own === "dark" ? "light" : "dark";
  await page.screenshot({ path: path.join(LOOK, `${name}-${own}.png`) });
  await page.emulateMedia({ colorScheme: other });
  await page.screenshot({ path: path.join(LOOK, `${name}-${other}.png`) });
  await page.emulateMedia({ colorScheme: own });
  return true;
}

async function throttle(cdp: CDPSession, on: boolean): Promise<void> {
  await cdp.send(
    "Network.emulateNetworkConditions",
    on ? SLOW : { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
  );
}

async function openUpload(context: BrowserContext): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await page.goto(`${baseUrl}/upload`);
  // Hydrated: the folder picker's attribute is set by the form once it runs.
  await expect.poll(() => page.getByTestId("folder-input").getAttribute("webkitdirectory")).toBe("");
  await recordProgress(page);
  return { page, cdp };
}

const SENDING = /^Sending (\d+\.\d) of (\d+\.\d) kB \((\d+)%\)$/;

/** The states recorded for `mode`: sending with counted bytes, then `serverLabel` with an indeterminate bar. */
function expectStages(seen: Seen[], mode: string, serverLabel: string, files: string): void {
  const mine = seen.filter((entry) => entry.mode === mode);
  const sending = mine.filter((entry) => entry.phase === "sending");
  expect(sending.length, JSON.stringify(mine)).toBeGreaterThan(0);
  for (const entry of sending) {
    expect(entry.label).toMatch(SENDING);
    const [, sent, total, percent] = SENDING.exec(entry.label)!;
    expect(`${total} kB`).toBe(files.split(", ")[1]);
    expect(Number(sent)).toBeLessThanOrEqual(Number(total));
    expect(entry).toMatchObject({ files, now: percent, max: "100", text: entry.label });
  }
  // The count only ever goes up.
  const percents = sending.map((entry) => Number(entry.now));
  expect(percents).toEqual([...percents].sort((a, b) => a - b));
  // The bytes were seen going up, not only at 0% and 100%.
  expect(
    sending.some((entry) => Number(entry.now) > 0 && Number(entry.now) < 100),
    JSON.stringify(sending),
  ).toBe(true);
  const server = mine.filter((entry) => entry.phase === "server");
  expect(server.length, JSON.stringify(mine)).toBeGreaterThan(0);
  for (const entry of server) expect(entry).toMatchObject({ label: serverLabel, files, now: null, max: "100" });
  // Sending comes before the server's stage, never after it.
  const firstServer = mine.findIndex((entry) => entry.phase === "server");
  expect(mine.slice(firstServer).some((entry) => entry.phase === "sending")).toBe(false);
}

let browser: Browser;
let dir: string;
let sweep: ReturnType<typeof writeSweep>;
let filesText: string;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-sweep-"));
  sweep = writeSweep(dir);
  filesText = `100 files, ${(sweep.bytes / 1000).toFixed(1)} kB`;
  fs.mkdirSync(LOOK, { recursive: true });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.sequential("uploading a sweep folder of 100 files", () => {
  let runId: string;

  it("shows the bytes going up and the server reading, previews one run of 100 points, and stores it", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, colorScheme: "light" });
    const { page, cdp } = await openUpload(context);
    await throttle(cdp, true);

    await page.getByTestId("folder-input").setInputFiles(sweep.folder);
    expect(await page.getByTestId("chosen-files").textContent()).toBe("100 files");
    const previewShown = '[data-testid="preview-run"]';
    await shoot(page, "preview", "sending", previewShown, "upload-sweep-1280-sending");
    await shoot(page, "preview", "server", previewShown, "upload-sweep-1280-reading");

    // The preview: one run, a point per file, nothing in the way of saving.
    await expect.poll(() => page.getByTestId("preview-run").count()).toBe(1);
    expect(await page.getByTestId("preview-points-total").textContent()).toBe("100 points");
    expect(await page.getByTestId("preview-format").textContent()).toBe("vLLM bench serve");
    expect(await page.locator('[data-testid="preview-points"] tbody tr').count()).toBe(100);
    expect(await page.getByTestId("fragment-format").count()).toBe(100);
    expect(await page.getByTestId("preview-peak").textContent()).toBe(
      `${Math.round(sweep.payloads.get(100)!.output_throughput as number).toLocaleString("en-US")} tok/s @ C=100`,
    );
    expect(await page.getByTestId("upload-progress").count()).toBe(0);
    expectStages(await progressSeen(page), "preview", "Reading 100 files…", filesText);

    // An edit asks again: the bar shows above the preview, not among the fields being typed in.
    await page.locator("#field-gpu").fill("NVIDIA L4");
    await page.locator("#field-gpu_count").fill("1");
    const recheck = '[data-testid="preview"] [data-testid="upload-progress"]';
    await page.locator(`${recheck}, [data-testid="save-run"]:enabled`).first().waitFor();
    await page.screenshot({ path: path.join(LOOK, "upload-sweep-1280-recheck-light.png") });
    await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
    expect(await page.getByTestId("preview-run").textContent()).toContain("NVIDIA L4");

    await page.getByTestId("save-run").click();
    await shoot(page, "save", "sending", '[data-testid="run-name"]', "upload-sweep-1280-saving");
    await shoot(page, "save", "server", '[data-testid="run-name"]', "upload-sweep-1280-storing");
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    expectStages(await progressSeen(page), "save", "Storing the run…", filesText);
    await throttle(cdp, false);

    runId = new URL(page.url()).pathname.split("/").pop()!;
    await page.getByTestId("run-name").waitFor();
    const run = (await (await fetch(`${baseUrl}/api/runs/${runId}`)).json()) as Json & { results: Json[] };
    expect(run).toMatchObject({ model: "facebook/opt-125m", source_format: "vllm-bench-serve" });
    expect(run.hardware).toMatchObject({ gpu: "NVIDIA L4", gpu_count: 1 });
    expect(run.results).toHaveLength(100);
    expect(run.results.map((point) => point.concurrency)).toEqual(LEVELS);
    for (const level of [1, 2, 37, 64, 100]) {
      const file = sweep.payloads.get(level)!;
      expect(run.results.find((point) => point.concurrency === level)).toMatchObject({
        concurrency: level,
        completed: file.completed,
        failed: 0,
        output_throughput: file.output_throughput,
        mean_ttft_ms: file.mean_ttft_ms,
        mean_tpot_ms: file.mean_tpot_ms,
        p99_ttft_ms: file.p99_ttft_ms,
      });
    }
    await context.close();
  });

  it("on a phone in the dark theme, shows the same stages, and says a second save of the folder is already stored", async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: "dark",
      isMobile: true,
      hasTouch: true,
    });
    const { page, cdp } = await openUpload(context);
    await throttle(cdp, true);

    await page.getByTestId("folder-input").setInputFiles(sweep.folder);
    const previewShown = '[data-testid="preview-run"]';
    await shoot(page, "preview", "sending", previewShown, "upload-sweep-390-sending");
    await shoot(page, "preview", "server", previewShown, "upload-sweep-390-reading");
    await expect.poll(() => page.getByTestId("preview-run").count()).toBe(1);
    expect(await page.getByTestId("preview-points-total").textContent()).toBe("100 points");
    expectStages(await progressSeen(page), "preview", "Reading 100 files…", filesText);
    // The box fits the phone's width: nothing in it runs off the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await page.locator("#field-gpu").fill("NVIDIA L4");
    await page.locator("#field-gpu_count").fill("1");
    await expect.poll(() => page.getByTestId("save-run").isDisabled()).toBe(false);
    await page.getByTestId("save-run").click();
    const stored = '[data-testid="already-stored"]';
    await shoot(page, "save", "sending", stored, "upload-sweep-390-saving");
    await shoot(page, "save", "server", stored, "upload-sweep-390-storing");
    await page.locator(stored).waitFor();
    expectStages(await progressSeen(page), "save", "Storing the run…", filesText);
    expect(await page.getByTestId("upload-progress").count()).toBe(0);
    expect(await page.locator(`${stored} a`).getAttribute("href")).toContain(`/runs/${runId}`);
    await throttle(cdp, false);
    await context.close();
  });
});
