/**
 * A page on another origin tries to write to an open servebench (no write token) the two ways a browser allows
 * without asking the person: an auto-submitted multipart form and a `no-cors` fetch. Chromium sends `Origin`
 * (and `Sec-Fetch-Site`); servebench answers 403 and stores nothing. The same body sent without a browser (no
 * Origin) is stored, so the refusal is the origin rule, not the body.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { freePort } from "./server";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const SEED = path.join(process.cwd(), "tests", "fixtures", "servebench");

let browser: Browser;
let attacker: http.Server;
let attackerUrl: string;
/** Requests the attacking page's own server saw (the page reports what it did there). */
const reports: string[] = [];

function attackPage(target: string, document: string): string {
  // The run document goes in a text field named `file`, which an upload takes as a file.
  const escaped = document.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return `<!doctype html><html><body>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="POST" action="${target}/api/runs" enctype="multipart/form-data" target="sink">
  <input type="hidden" name="file" value="${escaped}">
  <input type="hidden" name="name" value="written by another site (form)">
</form>
<script>
  document.getElementById("f").submit();
  const body = new FormData();
  body.append("file", new Blob([${JSON.stringify(document)}.replace("vLLM TP8 baseline", "written by another site (fetch)")]), "run.json");
  fetch(${JSON.stringify(`${target}/api/runs`)}, { method: "POST", mode: "no-cors", body })
    .then(() => fetch("/report?fetch=sent"), () => fetch("/report?fetch=failed"));
</script>
</body></html>`;
}

async function runNames(): Promise<string[]> {
  const response = await fetch(`${baseUrl}/api/runs?per_page=100`);
  return ((await response.json()) as { runs: { name: string }[] }).runs.map((run) => run.name).sort();
}

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  browser = await launchBrowser();
  const document = fs.readFileSync(path.join(SEED, "vllm-tp8-baseline.json"), "utf8");
  const port = await freePort();
  // 127.0.0.1 is another site than the servebench's localhost.
  attackerUrl = `http://127.0.0.1:${port}`;
  attacker = http.createServer((request, response) => {
    if (request.url?.startsWith("/report")) {
      reports.push(request.url);
      response.end("ok");
      return;
    }
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(attackPage(baseUrl, document));
  });
  await new Promise<void>((resolve) => attacker.listen(port, "127.0.0.1", resolve));
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
});

describe("writes from another site, in Chromium", () => {
  it("refuses the auto-submitted form and the no-cors fetch of a page on another origin", async () => {
    expect(await runNames()).toEqual([]);
    const context = await browser.newContext();
    const page = await context.newPage();
    const answers: { status: number; origin: string | null; site: string | null }[] = [];
    page.on("response", (response) => {
      if (!response.url().startsWith(`${baseUrl}/api/runs`)) return;
      // allHeaders: the headers Chromium really sent, Origin included (headers() shows the provisional ones).
      void response
        .request()
        .allHeaders()
        .then((headers) =>
          answers.push({
            status: response.status(),
            origin: headers.origin ?? null,
            site: headers["sec-fetch-site"] ?? null,
          }),
        );
    });
    await page.goto(attackerUrl);
    await expect.poll(() => reports).toContain("/report?fetch=sent");
    await expect.poll(() => answers.length).toBe(2);
    // Both refused. (Playwright shows the fetch's headers, Origin and Sec-Fetch-Site: cross-site among them; for
    // the form's navigation inside the frame it reports none, though Chromium sends them: the answer is a 403.)
    expect(answers.map((answer) => answer.status)).toEqual([403, 403]);
    expect(answers).toContainEqual({ status: 403, origin: attackerUrl, site: "cross-site" });
    expect(await runNames()).toEqual([]);
    await context.close();
  });

  it("stores the same body sent without a browser page (curl, the CLI)", async () => {
    const form = new FormData();
    form.append("file", fs.readFileSync(path.join(SEED, "vllm-tp8-baseline.json"), "utf8"));
    form.append("name", "written by curl");
    const response = await fetch(`${baseUrl}/api/runs`, { method: "POST", body: form });
    expect(response.status).toBe(201);
    expect(await runNames()).toEqual(["written by curl"]);
  });

  it("still takes writes from its own pages", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl}/upload`);
    await page.getByTestId("file-input").setInputFiles({
      name: "run.json",
      mimeType: "application/json",
      buffer: Buffer.from(
        JSON.stringify({
          ...JSON.parse(fs.readFileSync(path.join(SEED, "sglang-tp8-cuda-graphs-on.json"), "utf8")),
          name: "written by its own upload page",
        }),
      ),
    });
    await expect.poll(() => page.getByTestId("preview-name").textContent()).toBe("written by its own upload page");
    await page.getByTestId("save-run").click();
    await page.waitForURL(/\/runs\/[A-Za-z0-9_-]{12}$/);
    expect(await runNames()).toEqual(["written by curl", "written by its own upload page"]);
    await context.close();
  });
});
