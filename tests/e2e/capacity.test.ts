/**
 * Capacity on /compare in a real browser: two configurations at the interactive tier (p99 TTFT ≤ 450 ms, p99
 * TPOT ≤ 40 ms) for 500 concurrent users at $2.50 per GPU-hour. A (8 GPUs) meets it up to C=64, B (4 GPUs) up to
 * C=40, so A needs ⌈500 ÷ 64⌉ = 8 replicas = 64 GPUs ($160/h) and B ⌈500 ÷ 40⌉ = 13 replicas = 52 GPUs ($130/h):
 * the planner ranks B first. The per-interactivity table, the inverse answers, a changed demand, a saved
 * comparison and the CSV export say the same.
 */
import crypto from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const suffix = crypto.randomBytes(3).toString("hex");
const A = `capacity-a-${suffix}`;
const B = `capacity-b-${suffix}`;

type Level = [concurrency: number, outputTokS: number, p99TpotMs: number, p99TtftMs: number, requestsPerS: number];

function run(id: string, name: string, gpuCount: number, levels: Level[]) {
  return {
    format: "servebench/v1",
    id,
    name,
    engine: "vllm",
    engine_version: "0.11.0",
    model: "meta-llama/Llama-3.1-70B-Instruct",
    hardware: { gpu: "H100", gpu_count: gpuCount },
    flags: { "--tensor-parallel-size": String(gpuCount) },
    results: levels.map(([concurrency, output, tpot, ttft, rps]) => ({
      concurrency,
      output_throughput: output,
      p99_tpot_ms: tpot,
      p99_ttft_ms: ttft,
      request_throughput: rps,
    })),
  };
}

let browser: Browser;
let page: Page;
const compareUrl = (extra: string) =>
  `${baseUrl}/compare?runs=${A},${B}&tiers=interactive&price=2.5&demand=users:500${extra}`;

beforeAll(async () => {
  const documents = [
    run(A, "TP8 replicas", 8, [
      [1, 60, 15, 100, 0.2],
      [8, 400, 18, 200, 1.5],
      [32, 1200, 30, 400, 5],
      [64, 2000, 38, 440, 8],
      [128, 2800, 60, 900, 11],
    ]),
    run(B, "TP4 replicas", 4, [
      [1, 50, 12, 90, 0.2],
      [10, 400, 20, 150, 1.8],
      [20, 700, 28, 250, 3.2],
      [40, 1100, 36, 420, 5.5],
      [80, 1500, 70, 1200, 7],
    ]),
  ];
  for (const document of documents) {
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

async function plannerRows() {
  const rows = page.getByTestId("planner-row");
  const out: { name: string; gpus: string }[] = [];
  for (let index = 0; index < (await rows.count()); index += 1) {
    const row = rows.nth(index);
    out.push({
      name: ((await row.locator("td").nth(1).textContent()) ?? "").trim(),
      gpus: ((await row.getByTestId("planner-gpus").textContent()) ?? "").trim(),
    });
  }
  return out;
}

describe.sequential("capacity, cost and energy on /compare", () => {
  it("states each run's capacity at the tier: its highest measured level meeting it, per GPU", async () => {
    await page.goto(compareUrl(""));
    const tier = page.locator('[data-testid="capacity-tier"][data-tier="interactive"]');
    await tier.waitFor();
    expect(await tier.locator("h3").textContent()).toContain("TTFT ≤ 450 ms, TPOT ≤ 40 ms (p99)");
    expect(await tier.getByTestId("capacity-level").allTextContents()).toEqual(["C=64", "C=40"]);
    // 2,000 tok/s ÷ 8 GPUs and 1,100 ÷ 4.
    expect(await tier.getByTestId("capacity-per-gpu").allTextContents()).toEqual(["250", "275"]);
  });

  it("ranks the configurations for 500 users: B on 52 GPUs ($130/h) before A on 64 ($160/h)", async () => {
    expect(await page.getByTestId("planner-answer").textContent()).toBe(
      "Fewest GPUs: TP4 replicas, 13 × 4 GPUs = 52 GPUs on 7 nodes, $130.00/hour.",
    );
    expect(await plannerRows()).toEqual([
      { name: "TP4 replicas", gpus: "52" },
      { name: "TP8 replicas(baseline)", gpus: "64" },
    ]);
    expect(await page.getByTestId("planner-usd-hour").allTextContents()).toEqual(["$130.00", "$160.00"]);
  });

  it("draws throughput per GPU at each step of interactivity against the baseline, blank beyond a frontier", async () => {
    const rows = page.getByTestId("bucket-row");
    await rows.first().waitFor();
    // p99 TPOT 15–60 ms (A) and 12–70 ms (B): 14.3 to 83.3 tok/s per user, every 10.
    expect(await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-tok-s-per-user")))).toEqual([
      "20",
      "30",
      "40",
      "50",
      "60",
      "70",
      "80",
    ]);
    const cells = async (index: number) => rows.nth(index).getByTestId("bucket-cell").allTextContents();
    // A reaches 66.7 tok/s per user at most (C=1, TPOT 15 ms): nothing for it at 70 and 80.
    expect((await cells(5))[0]).toBe("—");
    expect((await cells(6))[0]).toBe("—");
    expect((await cells(6))[1]).not.toBe("—");
    // At 30 tok/s per user B serves more per GPU than A: a green cell with a positive change.
    const at30 = rows.nth(1).getByTestId("bucket-cell").nth(1);
    expect(Number(await at30.getAttribute("data-change"))).toBeGreaterThan(0.03);
    expect(await at30.getAttribute("class")).toMatch(/bg-green-/);
  });

  it("answers the inverse questions: most interactivity under $5/M tokens, most users on 100 GPUs", async () => {
    await page.goto(compareUrl("&max_cost=5&gpu_budget=100"));
    await page.getByTestId("capacity-under-cost").waitFor();
    // $2.50/h at ≤ $5/M needs 138.9 tok/s per GPU: A's C=32 (150 per GPU, 1000/30 = 33.3 tok/s per user).
    const cost = await page.getByTestId("under-cost-row").allTextContents();
    expect(cost[0]).toContain("33.3 tok/s per user at C=32 ($4.63 / M)");
    // 100 GPUs: 12 replicas of A (768 users), 25 of B (1,000 users).
    expect(await page.getByTestId("under-budget-row").allTextContents()).toEqual([
      "TP8 replicas(baseline): 768 users on 96 GPUs (12 replicas)",
      "TP4 replicas: 1,000 users on 100 GPUs (25 replicas)",
    ]);
  });

  it("takes a new demand from its input into the URL and sizes again", async () => {
    await page.goto(compareUrl(""));
    const input = page.getByTestId("capacity-demand-input");
    await input.fill("1000");
    await input.press("Enter");
    await page.waitForFunction(() => new URLSearchParams(window.location.search).get("demand") === "users:1000");
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="planner-gpus"]')].some((cell) => cell.textContent === "100"),
    );
    // ⌈1000 ÷ 40⌉ = 25 replicas of 4; ⌈1000 ÷ 64⌉ = 16 of 8.
    expect(await page.getByTestId("planner-gpus").allTextContents()).toEqual(["100", "128"]);
  });

  it("keeps the capacity view in a saved comparison and in the CSV export", async () => {
    const response = await fetch(`${baseUrl}/api/comparisons`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        runs: [A, B],
        price: "2.5",
        capacity: { tiers: "interactive", demand: "users:500", gpu_budget: 100 },
      }),
    });
    expect(response.status).toBe(201);
    const { slug } = (await response.json()) as { slug: string };
    const saved = (await (await fetch(`${baseUrl}/api/comparisons/${slug}`)).json()) as {
      slug: string;
      capacity: Record<string, string>;
    };
    expect(saved.capacity).toEqual({ tiers: "interactive", demand: "users:500", gpu_budget: "100" });
    await page.goto(`${baseUrl}/c/${saved.slug}`);
    await page.getByTestId("planner-answer").waitFor();
    expect(await page.getByTestId("planner-answer").textContent()).toContain("52 GPUs on 7 nodes");

    const csv = await (
      await fetch(`${baseUrl}/api/compare/csv?runs=${A},${B}&tiers=interactive&demand=users:500&price=2.5`)
    ).text();
    expect(csv).toContain(`plan:gpus,GPUs,500 concurrent users at interactive,,,TP4 replicas,${B},52,,,`);
    expect(csv).toContain(`tier:interactive:tok_s_per_gpu,tok/s/GPU,C=40,40,,TP4 replicas,${B},275,250,10,partial`);

    // The section's own JSON export: the link on the page, with the page's parameters.
    const href = await page.getByTestId("export-capacity").getAttribute("href");
    const json = (await (await fetch(`${baseUrl}${href}`)).json()) as {
      planner: { ranking: { series: string; gpus: number; usd_per_hour: number }[] };
      most_users_under_budget: { runs: { series: string; users: number }[] };
    };
    expect(json.planner.ranking.map((row) => [row.series, row.gpus, row.usd_per_hour])).toEqual([
      ["TP4 replicas", 52, 130],
      ["TP8 replicas", 64, 160],
    ]);
    expect(json.most_users_under_budget.runs.map((row) => row.users)).toEqual([768, 1000]);
  });

  it("refuses a saved comparison whose tier cannot be read, naming it", async () => {
    const response = await fetch(`${baseUrl}/api/comparisons`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ runs: [A, B], capacity: { tiers: "fast:ttft=soon" } }),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toContainEqual({
      path: "capacity.tiers",
      message:
        '"ttft=soon" in tier fast is not a target (ttft=MS, tpot=MS, e2e=MS, up to 3600000) nor a statistic (mean, median, p90, p95, p99)',
    });
  });
});
