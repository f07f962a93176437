/**
 * From a shell to the browser: `servebench bench` runs an open loop over ShareGPT prompts with goodput
 * targets, per-request results and the test server's /metrics, uploads to the production build, and the run
 * page draws the server's figures beside TTFT (with their tooltip) and each level's distribution; two runs
 * compare with the server's panels on the comparison's axis; an inference-perf folder imports its stages'
 * client and server figures into one run.
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAITestServer, startOpenAITestServer } from "../support/openai-test-server";
import { launchBrowser } from "./browser";
import { drawEverything } from "./pages";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const ROOT = path.join(__dirname, "..", "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures");
const suffix = crypto.randomBytes(3).toString("hex");

let server: OpenAITestServer;
let browser: Browser;
let dir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // Eight slots, each running request holding an eighth of the KV cache: full at eight in flight.
  server = await startOpenAITestServer({
    ttftMs: 40,
    itlMs: 8,
    tokens: 24,
    maxConcurrent: 8,
    version: "0.11.0",
    metrics: "vllm",
    kvUsagePerRequest: 0.125,
  });
  browser = await launchBrowser();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-server-metrics-e2e-"));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function servebench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.SERVEBENCH_TOKEN;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "bin", "servebench.mjs"), ...args],
      { cwd: ROOT, timeout: 600_000, env },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

function linkOf(stdout: string): string {
  const match = new RegExp(`${baseUrl}/runs/([A-Za-z0-9_-]{12})\\s*$`).exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match![1]!;
}

/**
 * Move over a chart until Recharts shows its tooltip (it reacts to mouse movement, not to one position); on a
 * loaded machine the page may not answer the first sweeps, so the sweep repeats until the tooltip is there. The
 * chart is found and measured again before every sweep: charts above it draw when scrolled to, and one that
 * drew late moved it down the page, away from where it was first measured.
 */
async function hover(page: Page, selector: string, at: number, tooltip: string): Promise<void> {
  const wrapper = page.locator(selector).first();
  while ((await page.locator(tooltip).count()) === 0) {
    await wrapper.scrollIntoViewIfNeeded();
    const box = await wrapper.boundingBox();
    if (!box) continue;
    for (let step = 0; step < 10; step += 1) {
      await page.mouse.move(box.x + box.width * (at - 0.1 + step * 0.01), box.y + box.height * 0.5);
    }
  }
}

/** A chart's x-axis tick labels: the tick values drawn lowest in the chart (the y axis's are to the left). */
async function xTicks(page: Page, chart: string): Promise<string[]> {
  const ticks = await page
    .locator(`${chart} .recharts-cartesian-axis-tick-value`)
    .evaluateAll((texts) => texts.map((text) => [text.textContent ?? "", Number(text.getAttribute("y"))] as const));
  const bottom = Math.max(...ticks.map(([, y]) => y));
  return ticks.filter(([, y]) => y === bottom).map(([label]) => label);
}

describe.sequential("server metrics, open loop and per-request results, end to end", () => {
  it("an open loop over ShareGPT with goodput targets and the server's metrics, uploaded", async () => {
    const out = path.join(dir, "open.json");
    const result = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--engine",
      "vllm",
      "--name",
      `open loop ${suffix}`,
      "--request-rate",
      "20,80",
      "--burstiness",
      "0.5",
      "--seed",
      "4",
      "--requests",
      "40",
      "--dataset",
      "sharegpt",
      path.join(FIXTURES, "sharegpt", "hand-made-sharegpt.json"),
      "--output-len",
      "24",
      "--goodput",
      "ttft:100",
      "tpot:20",
      "--percentiles",
      "50,99,99.9",
      "--save-detailed",
      "--metrics-interval",
      "100",
      "--out",
      out,
      "--upload",
      baseUrl,
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "open loop at 20,80 req/s · gamma arrivals, burstiness 0.5 · seed 4 · 40 requests per level",
    );
    expect(result.stdout).toContain("goodput targets: ttft ≤ 100 ms, tpot ≤ 20 ms");
    expect(result.stdout).toContain(`server metrics: http://127.0.0.1:${server.port}/metrics every 100 ms`);
    expect(result.stdout).toMatch(
      /\n\s+rate\s+ok\s+failed\s+out tok\/s\s+req\/s\s+goodput\s+TTFT ms\s+p50\s+p99\s+p99\.9\s/,
    );
    ids.open = linkOf(result.stdout);

    const run = (await (await fetch(`${baseUrl}/api/runs/${ids.open}`)).json()) as {
      workload: Record<string, unknown>;
      metadata: Record<string, unknown>;
      results: Record<string, unknown>[];
    };
    expect(run.workload).toEqual({
      dataset: "sharegpt",
      output_len: 24,
      num_prompts: 40,
      temperature: 0,
      burstiness: 0.5,
      seed: 4,
    });
    expect(run.metadata).toMatchObject({
      dataset_file: "hand-made-sharegpt.json",
      // --output-len lifts the reply-length rule: the conversation with a one-word reply is usable too.
      dataset_valid_pairs: 7,
      goodput: "ttft:100 tpot:20",
      percentiles: "50,99,99.9",
      per_request_results: true,
      server_metrics: `http://127.0.0.1:${server.port}/metrics`,
    });
    type StoredPoint = Record<string, number> & {
      requests: { ttft_ms: number[]; tpot_ms: (number | null)[] };
      percentiles: { ttft: Record<string, number> };
    };
    const [slow, fast] = run.results as unknown as StoredPoint[];
    expect(slow!.request_rate).toBe(20);
    expect(fast!.request_rate).toBe(80);
    // Goodput counts the requests stored with the level that met both targets, per second of the level (how many
    // did depends on how busy the machine was; the rule does not).
    for (const point of [slow!, fast!]) {
      const good = point.requests.ttft_ms.filter(
        (ttft, index) => ttft <= 100 && (point.requests.tpot_ms[index] ?? 0) <= 20,
      ).length;
      expect(point.request_goodput).toBeCloseTo(good / point.duration_s!, 2);
    }
    for (const point of [slow!, fast!]) {
      expect(point.completed).toBe(40);
      expect(point.request_goodput).toBeLessThanOrEqual(point.request_throughput!);
      expect(point.requests.ttft_ms).toHaveLength(40);
      expect(point.percentiles.ttft["p99.9"]).toBeGreaterThan(0);
      expect(point.server_metrics_samples).toBeGreaterThan(3);
    }
    // 80 req/s of 232 ms requests is about 18 in flight on eight slots: the cache fills and a queue forms.
    process.stdout.write(
      `open loop, server figures: 20 req/s KV ${slow!.server_kv_cache_usage_mean} waiting ${slow!.server_waiting_requests_mean}; 80 req/s KV ${fast!.server_kv_cache_usage_mean} (max ${fast!.server_kv_cache_usage_max}) waiting ${fast!.server_waiting_requests_mean} (max ${fast!.server_waiting_requests_max})\n`,
    );
    expect(fast!.server_kv_cache_usage_max).toBe(1);
    expect(fast!.server_waiting_requests_max).toBeGreaterThan(slow!.server_waiting_requests_max!);
    expect(fast!.server_kv_cache_usage_mean).toBeGreaterThan(slow!.server_kv_cache_usage_mean!);
  });

  it("a closed loop on the same server, for a comparison", async () => {
    const result = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--engine",
      "vllm",
      "--name",
      `closed loop ${suffix}`,
      "--concurrency",
      "1,4,16",
      "--requests",
      "16",
      "--command",
      "vllm serve test-model --max-num-seqs 8",
      "--metrics-interval",
      "100",
      "--upload",
      baseUrl,
      "--out",
      path.join(dir, "closed.json"),
    ]);
    expect(result.code, result.stderr).toBe(0);
    ids.closed = linkOf(result.stdout);
    const other = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--engine",
      "vllm",
      "--name",
      `closed loop no metrics ${suffix}`,
      "--concurrency",
      "1,4,16",
      "--requests",
      "16",
      "--no-metrics",
      "--upload",
      baseUrl,
      "--out",
      path.join(dir, "closed-no-metrics.json"),
    ]);
    expect(other.code, other.stderr).toBe(0);
    ids.noMetrics = linkOf(other.stdout);
  });

  it("the run page draws the server's figures beside TTFT, with a tooltip, and each level's distribution", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/runs/${ids.open}`);
      await expect.poll(() => page.locator('[data-testid="server-metrics"]').count()).toBe(1);
      // Charts draw when scrolled to.
      await drawEverything(page);
      const panels = await page
        .locator('[data-testid="server-metrics"] [data-panel]')
        .evaluateAll((figures) => figures.map((figure) => (figure as HTMLElement).dataset.panel));
      expect(panels.slice(0, 3)).toEqual(["ttft", "kv", "waiting"]);
      expect(panels).toContain("running");
      // The KV panel's mean and max lines, drawn against request rate (two levels, two points each).
      await expect.poll(() => page.locator('[data-testid="server-metrics-kv"] .recharts-line').count()).toBe(2);
      await expect.poll(() => page.locator('[data-testid="server-metrics-kv"] .recharts-line-dot').count()).toBe(4);

      // Hovering one panel shows every panel's tooltip at that level; the TTFT panel's summarizes the level.
      await hover(
        page,
        '[data-testid="server-metrics-kv"] .recharts-wrapper',
        0.9,
        '[data-testid="server-tooltip-kv"]',
      );
      expect(await page.locator('[data-testid="server-tooltip-kv"]').count()).toBe(1);
      const kvTip = await page.locator('[data-testid="server-tooltip-kv"]').textContent();
      expect(kvTip).toContain("80 req/s");
      expect(kvTip).toMatch(/mean: \d+(\.\d+)?%/);
      expect(kvTip).toContain("max: 100%");
      const ttftTip = await page.locator('[data-testid="server-tooltip-ttft"]').textContent();
      expect(ttftTip).toMatch(/KV cache \d+(\.\d+)?% \(max 100%\)/);
      expect(ttftTip).toMatch(/waiting \d+(\.\d+)? \(max \d+\)/);
      expect(ttftTip).toMatch(/server TTFT \d+(\.\d+)? ms/);

      // The distribution from the per-request results: a curve per level, switchable.
      const distribution = page.locator('[data-testid="latency-distribution"]');
      await expect.poll(() => distribution.getAttribute("data-metric")).toBe("ttft");
      await expect.poll(() => distribution.locator(".recharts-line").count()).toBe(2);
      await page.click('[data-testid="distribution-e2el"]');
      await expect.poll(() => distribution.getAttribute("data-metric")).toBe("e2el");

      // The points table has the server's figures and the extra percentile.
      const headers = await page.locator('[data-testid="points-table"] th').allTextContents();
      expect(headers).toContain("Server KV-cache usage (mean) %");
      expect(headers).toContain("P99.9 TTFT ms");

      // A run without server figures has no such panel.
      await page.goto(`${baseUrl}/runs/${ids.noMetrics}`);
      await expect.poll(() => page.locator('[data-testid="points-table"]').count()).toBe(1);
      expect(await page.locator('[data-testid="server-metrics"]').count()).toBe(0);
      expect(await page.locator('[data-testid="latency-distribution"]').count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("the compare page puts the runs' server figures on the comparison's axis; the CSV has them", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/compare?runs=${ids.closed},${ids.noMetrics}`);
      await expect.poll(() => page.locator('[data-testid="compare-server-metrics"]').count()).toBe(1);
      await drawEverything(page);
      // One series has server figures: one KV line, at the three concurrency levels 1, 4, 16 on a log2 axis.
      await expect.poll(() => page.locator('[data-testid="compare-server-metrics-kv"] .recharts-line').count()).toBe(1);
      await expect.poll(() => page.locator('[data-testid="chart-ttft"] .recharts-line').count()).toBe(2);
      const ticks = await xTicks(page, '[data-testid="compare-server-metrics-kv"]');
      expect(ticks).toEqual(["1", "2", "4", "8", "16"]);
      const ttftTicks = await xTicks(page, '[data-testid="chart-ttft"]');
      expect(ticks).toEqual(ttftTicks);
      await hover(
        page,
        '[data-testid="compare-server-metrics-waiting"] .recharts-wrapper',
        0.95,
        '[data-testid="server-tooltip-waiting"]',
      );
      expect(await page.locator('[data-testid="server-tooltip-waiting"]').count()).toBe(1);
      expect(await page.locator('[data-testid="server-tooltip-waiting"]').textContent()).toContain("C=16");

      const csv = await (await fetch(`${baseUrl}/api/compare/csv?runs=${ids.closed},${ids.noMetrics}`)).text();
      const waiting = csv.split("\r\n").filter((line) => line.startsWith("server_waiting_requests_max,"));
      expect(waiting).toHaveLength(3);
      const c16 = new RegExp(
        `^server_waiting_requests_max,requests,C=16,16,,closed loop ${suffix},${ids.closed},(\\d+(\\.\\d+)?),,,baseline$`,
      ).exec(waiting[2]!);
      expect(c16, waiting[2]).not.toBeNull();
      // Sixteen in flight on eight slots: up to eight wait.
      expect(Number(c16![1])).toBeGreaterThan(4);
      expect(Number(c16![1])).toBeLessThanOrEqual(8);
    } finally {
      await page.close();
    }
  });

  it("an inference-perf folder: each stage's client and server figures in one point, drawn on the run page", async () => {
    const folder = path.join(FIXTURES, "inference-perf", "hand-made-2026-report");
    const form = new FormData();
    form.append("engine", "vllm");
    form.append("model", `inference-perf e2e ${suffix}`);
    for (const name of fs.readdirSync(folder).sort()) {
      form.append("file", new Blob([fs.readFileSync(path.join(folder, name))]), `report/${name}`);
    }
    const response = await fetch(`${baseUrl}/api/runs`, { method: "POST", body: form });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const run = (await (await fetch(`${baseUrl}/api/runs/${id}`)).json()) as { results: Record<string, number>[] };
    expect(run.results[0]).toMatchObject({
      concurrency: 16,
      completed: 398,
      server_kv_cache_usage_mean: 0.41,
      server_waiting_requests_mean: 3.2,
      server_preemptions: 3,
    });
    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/runs/${id}`);
      await drawEverything(page);
      await expect.poll(() => page.locator('[data-testid="server-metrics-kv"] .recharts-line').count()).toBe(1);
    } finally {
      await page.close();
    }
  });
});
