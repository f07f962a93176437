/**
 * The compare page's latency distributions in a real browser: two runs with per-request results uploaded
 * (tests/fixtures/servebench/hand-made-requests-*.json), /compare opened at a level and latency named in its URL,
 * one curve per run, and the table's n and p50 computed here from the fixtures' own requests (completed ones,
 * repeats pooled, numpy's linear percentile). The pickers write the URL.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatNumber } from "../../lib/format";
import { launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURES = path.join(__dirname, "..", "fixtures", "servebench");
const FILES = ["hand-made-requests-vllm.json", "hand-made-requests-sglang.json"] as const;
const suffix = crypto.randomBytes(3).toString("hex");

interface FixtureRequests {
  ttft_ms: (number | null)[];
  tpot_ms: (number | null)[];
  e2el_ms: (number | null)[];
  error?: (number | null)[];
}

interface Fixture {
  name: string;
  results: { concurrency?: number; requests?: FixtureRequests }[];
}

const documents = FILES.map((file) => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), "utf8")) as Fixture);
const ids: string[] = [];
let browser: Browser;
let page: Page;

/** n and p50 of one latency at one concurrency: every repeat's completed requests pooled, numpy's linear median. */
function expected(document: Fixture, concurrency: number, column: keyof Omit<FixtureRequests, "error">) {
  const values = document.results
    .filter((point) => point.concurrency === concurrency && point.requests)
    .flatMap((point) =>
      point.requests![column].filter(
        (value, row): value is number => value !== null && (point.requests!.error?.[row] ?? null) === null,
      ),
    )
    .sort((a, b) => a - b);
  const rank = (values.length - 1) / 2;
  const p50 = values[Math.floor(rank)]! + (values[Math.ceil(rank)]! - values[Math.floor(rank)]!) * (rank % 1);
  return { n: values.length.toLocaleString("en-US"), p50: formatNumber(p50) };
}

/** The table under the chart, row by row: the run id, n and p50 as shown. */
async function tableRows(): Promise<{ id: string; n: string; p50: string }[]> {
  return page.locator('[data-testid="latency-cdf-row"]').evaluateAll((rows) =>
    rows.map((row) => ({
      id: (row as HTMLElement).dataset.seriesId ?? "",
      n: row.querySelector('[data-testid="cdf-n"]')?.textContent ?? "",
      p50: row.querySelector('[data-testid="cdf-p50"]')?.textContent ?? "",
    })),
  );
}

async function drawnCurves(): Promise<number> {
  const section = page.locator("#chart-latency-cdf");
  await section.scrollIntoViewIfNeeded();
  return section.locator(".recharts-line").count();
}

beforeAll(async () => {
  for (const document of documents) {
    // A name of its own, so the upload is a new run whatever other test files stored before.
    const response = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...document, name: `${document.name} ${suffix}` }),
    });
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.sequential("the compare page's latency distributions", () => {
  it("draw one curve per run at the level of the URL, with n and p50 from the runs' requests", async () => {
    await page.goto(`${baseUrl}/compare?runs=${ids.join(",")}&cdf_level=c:8&cdf_metric=ttft`);
    const chart = page.locator('[data-testid="latency-cdf"]');
    await expect.poll(() => chart.getAttribute("data-level")).toBe("c:8");
    expect(await chart.getAttribute("data-metric")).toBe("ttft");
    expect(await page.locator("#chart-latency-cdf-title").textContent()).toBe("Latency distributions at C=8");
    await expect.poll(drawnCurves).toBe(2);

    const rows = await tableRows();
    expect(rows).toEqual(ids.map((id, index) => ({ id, ...expected(documents[index]!, 8, "ttft_ms") })));
    // What the fixtures hold, said plainly: nine completed of ten (one failed) pooled from two repeats; a sample of 4.
    expect(rows.map((row) => [row.n, row.p50])).toEqual([
      ["9", "110"],
      ["4", "80"],
    ]);
    // The SGLang run stored 4 of its 8 requests at C=8: the page says the curve is of a sample.
    expect(await page.getByTestId("latency-cdf-notes").textContent()).toContain("4 of its 8 requests at C=8");
    expect(await page.getByTestId("latency-cdf-missing").count()).toBe(0);
  });

  it("switch the latency and the level through the URL", async () => {
    await page.getByTestId("cdf-metric-e2e").click();
    await expect.poll(() => new URL(page.url()).searchParams.get("cdf_metric")).toBe("e2e");
    const chart = page.locator('[data-testid="latency-cdf"]');
    await expect.poll(() => chart.getAttribute("data-metric")).toBe("e2e");
    await expect
      .poll(tableRows)
      .toEqual(ids.map((id, index) => ({ id, ...expected(documents[index]!, 8, "e2el_ms") })));

    await page.getByTestId("cdf-level-select").selectOption("c:1");
    await expect.poll(() => new URL(page.url()).searchParams.get("cdf_level")).toBe("c:1");
    await expect.poll(() => chart.getAttribute("data-level")).toBe("c:1");
    await expect
      .poll(tableRows)
      .toEqual(ids.map((id, index) => ({ id, ...expected(documents[index]!, 1, "e2el_ms") })));
    await expect.poll(drawnCurves).toBe(2);
  });
});
