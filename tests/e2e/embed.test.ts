/**
 * Embeds in a real browser: a page on another origin frames a comparison's embed and a series' embed, and they
 * render (verdict, chart lines, a link back, the theme its URL asks for); the same page framing the ordinary compare
 * page gets nothing, as every page but the embeds refuses to be framed. The compare page's Embed button copies the
 * iframe snippet that does this.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { freePort } from "./server";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const SEED = path.join(process.cwd(), "tests", "fixtures", "servebench");

let browser: Browser;
let host: http.Server;
let hostUrl: string;
let hostPage = "";
let noGraphs = "";
let graphs = "";
let seriesId = "";

async function upload(document: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${baseUrl}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(document),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

const seed = (file: string) => JSON.parse(fs.readFileSync(path.join(SEED, file), "utf8")) as Record<string, unknown>;

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  noGraphs = await upload(seed("sglang-tp8-cuda-graph-disabled.json"));
  graphs = await upload(seed("sglang-tp8-cuda-graphs-on.json"));
  // Two nights of one configuration: a series.
  const nightly = seed("vllm-tp8-baseline.json");
  await upload({ ...nightly, name: "nightly 1", measured_at: "2026-11-01T02:00:00Z" });
  await upload({ ...nightly, name: "nightly 2", measured_at: "2026-11-02T02:00:00Z" });
  const series = (await (await fetch(`${baseUrl}/api/series`)).json()) as { series: { id: string; name: string }[] };
  seriesId = series.series.find((one) => one.name.includes("vLLM") || one.name.includes("vllm"))?.id ?? "";
  expect(seriesId).not.toBe("");

  browser = await launchBrowser();
  // 127.0.0.1 on another port: another origin than the servebench's.
  const port = await freePort();
  hostUrl = `http://127.0.0.1:${port}`;
  host = http.createServer((_request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(hostPage);
  });
  await new Promise<void>((resolve) => host.listen(port, "127.0.0.1", resolve));
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => host?.close(resolve));
});

function frameAt(page: Page, pathPrefix: string): Frame {
  const frame = page.frames().find((candidate) => candidate.url().includes(pathPrefix));
  if (!frame)
    throw new Error(
      `no frame at ${pathPrefix}: ${page
        .frames()
        .map((f) => f.url())
        .join(", ")}`,
    );
  return frame;
}

describe("embeds framed by another site", () => {
  it("render a comparison (verdict, chart lines, a link back) and a series, in the theme asked for", async () => {
    const compare = `${baseUrl}/embed/compare?runs=${noGraphs},${graphs}&chart=throughput,tpot&theme=dark&height=240`;
    const series = `${baseUrl}/embed/series/${seriesId}?theme=light`;
    hostPage = `<!doctype html><html><body><h1>Design doc</h1>
<iframe id="compare" src="${compare}" width="900" height="900"></iframe>
<iframe id="series" src="${series}" width="900" height="500"></iframe>
</body></html>`;
    const page = await browser.newPage();
    try {
      await page.goto(hostUrl);
      const frame = frameAt(page, "/embed/compare");
      await frame.getByTestId("embed-comparison").waitFor();
      const verdict = (await frame.getByTestId("verdict-line").first().getAttribute("data-text")) ?? "";
      expect(verdict).toContain("27 → 63.6 tok/s");
      // Both charts draw a line per run.
      for (const chart of ["chart-throughput", "chart-tpot"]) {
        // Attached, not visible: a run that states a figure at one level only draws a one-point line.
        await frame.locator(`[data-testid="${chart}"] .recharts-line-curve`).nth(1).waitFor({ state: "attached" });
        expect(await frame.locator(`[data-testid="${chart}"] .recharts-line-curve`).count(), chart).toBe(2);
      }
      // No navigation; a link back to the whole view, in a new tab.
      expect(await frame.locator("nav").count()).toBe(0);
      const back = frame.getByTestId("embed-full-view");
      expect(await back.getAttribute("href")).toBe(`/compare?runs=${noGraphs},${graphs}`);
      expect(await back.getAttribute("target")).toBe("_blank");
      // The theme of the URL, whatever the system's: the site's own dark background on a light system, and its
      // light one on a dark system.
      const background = (target: Frame) =>
        target.locator("body").evaluate((body) => getComputedStyle(body).backgroundColor);
      const systemBackground = async (scheme: "light" | "dark") => {
        const plain = await browser.newPage();
        try {
          await plain.emulateMedia({ colorScheme: scheme });
          await plain.goto(`${baseUrl}/embed/series/${seriesId}`);
          return await background(plain.mainFrame());
        } finally {
          await plain.close();
        }
      };
      const [lightBackground, darkBackground] = [await systemBackground("light"), await systemBackground("dark")];
      expect(lightBackground).not.toBe(darkBackground);
      await page.emulateMedia({ colorScheme: "light" });
      expect(await frame.locator("html").getAttribute("data-theme")).toBe("dark");
      expect(await background(frame)).toBe(darkBackground);

      // Charts draw once they are on screen: bring the second frame into view.
      await page.locator("#series").scrollIntoViewIfNeeded();
      const seriesFrame = frameAt(page, "/embed/series/");
      await seriesFrame.getByTestId("embed-series").waitFor();
      await seriesFrame
        .locator('[data-testid="series-chart"] .recharts-line-curve')
        .first()
        .waitFor({ state: "attached" });
      await page.emulateMedia({ colorScheme: "dark" });
      expect(await seriesFrame.locator("html").getAttribute("data-theme")).toBe("light");
      expect(await background(seriesFrame)).toBe(lightBackground);
    } finally {
      await page.close();
    }
  });

  it("a normal page refuses to be framed there", async () => {
    hostPage = `<!doctype html><html><body>
<iframe id="page" src="${baseUrl}/compare?runs=${noGraphs},${graphs}" width="900" height="600"></iframe>
<iframe id="embed" src="${baseUrl}/embed/compare?runs=${noGraphs},${graphs}" width="900" height="600"></iframe>
</body></html>`;
    const page = await browser.newPage();
    try {
      await page.goto(hostUrl);
      const embed = frameAt(page, "/embed/compare");
      await embed.getByTestId("embed-comparison").waitFor();
      // The compare page's frame holds Chromium's refusal, not the page: none of its content is there.
      const refused = page.frames().find((frame) => frame !== page.mainFrame() && frame !== embed);
      expect(refused).toBeDefined();
      expect(await refused!.locator('[data-testid="verdict-line"]').count()).toBe(0);
      expect(refused!.url()).not.toContain("/compare?runs=");
    } finally {
      await page.close();
    }
    // What makes it so: the headers of each.
    const normal = await fetch(`${baseUrl}/compare?runs=${noGraphs},${graphs}`);
    expect(normal.headers.get("x-frame-options")).toBe("DENY");
    expect(normal.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const embedded = await fetch(`${baseUrl}/embed/compare?runs=${noGraphs},${graphs}`);
    expect(embedded.headers.get("x-frame-options")).toBeNull();
    expect(embedded.headers.get("content-security-policy")).toContain("frame-ancestors *");
    // The API and the other pages keep refusing frames.
    for (const address of ["/", "/api/runs", `/series/${seriesId}`, "/embedded"]) {
      const response = await fetch(`${baseUrl}${address}`);
      expect(response.headers.get("x-frame-options"), address).toBe("DENY");
    }
  });

  it("the compare page's Embed button copies the iframe snippet of its embed", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    const page = await context.newPage();
    try {
      await page.goto(`${baseUrl}/compare?runs=${noGraphs},${graphs}`);
      await page.getByTestId("embed-copy").click();
      await page.getByTestId("embed-copy").filter({ hasText: "Copied" }).waitFor();
      const snippet = await page.evaluate(() => navigator.clipboard.readText());
      const src =
        /^<iframe src="([^"]+)" title="[^"]+" width="100%" height="480" style="border:0" loading="lazy"><\/iframe>$/.exec(
          snippet,
        )?.[1];
      expect(src, snippet).toBe(`${baseUrl}/embed/compare?runs=${noGraphs},${graphs}`);
    } finally {
      await context.close();
    }
  });
});
