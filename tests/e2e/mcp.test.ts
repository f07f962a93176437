/**
 * The MCP endpoint of the production build, through its proxy, with the official SDK's client: the comparison it
 * answers is the one the compare page shows in Chromium, cell for cell (value and verdict).
 */
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllRuns, launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const SEED = path.join(process.cwd(), "tests", "fixtures", "servebench");

type Cell = { run: string; value: number | null; change_pct: number | null; verdict: string };
type Delta = { metric: string; rows: { level: string; cells: Cell[] }[] };

let client: Client;
const ids: string[] = [];

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  for (const file of ["sglang-tp8-cuda-graph-disabled.json", "sglang-tp8-cuda-graphs-on.json"]) {
    const response = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: fs.readFileSync(path.join(SEED, file)),
    });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  client = new Client({ name: "servebench-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`)));
});

afterAll(async () => {
  await client?.close();
});

describe("MCP on the running server", () => {
  it("answers compare_runs with the figures and verdicts of the compare page's delta tables", async () => {
    const result = (await client.callTool({ name: "compare_runs", arguments: { runs: ids } })) as CallToolResult;
    const answer = JSON.parse((result.content[0] as { text: string }).text) as {
      url: string;
      verdicts: string[];
      deltas: Delta[];
    };
    expect(answer.url).toBe(`${baseUrl}/compare?runs=${ids.join(",")}`);

    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(answer.url);
      expect(await page.getByTestId("verdict-line").first().getAttribute("data-text")).toBe(answer.verdicts[0]);
      let cellsCompared = 0;
      // Every table the answer holds is on the page (these runs state throughput and TPOT, not TTFT).
      expect(answer.deltas.map((table) => table.metric)).toEqual(
        expect.arrayContaining(["output_throughput", "mean_tpot_ms"]),
      );
      for (const delta of answer.deltas) {
        const metric = delta.metric;
        const rows = page.getByTestId(`delta-table-${metric}`).locator("tbody tr");
        expect(await rows.count(), metric).toBe(delta.rows.length);
        for (const [rowIndex, row] of delta.rows.entries()) {
          const cells = rows.nth(rowIndex).locator("td");
          for (const [index, cell] of row.cells.entries()) {
            const shown = cells.nth(index);
            if (cell.value === null) {
              expect(await shown.textContent()).toContain("missing");
              continue;
            }
            // The page rounds for reading; the figure is the same.
            const text = (await shown.locator("span").first().textContent()) ?? "";
            expect(Number(text.replaceAll(",", "")), `${metric} ${row.level}`).toBeCloseTo(cell.value, 0);
            if (index > 0) {
              const verdict = await shown.locator("[data-verdict]").getAttribute("data-verdict");
              expect(verdict, `${metric} ${row.level}`).toBe(cell.verdict);
            }
            cellsCompared += 1;
          }
        }
      }
      expect(cellsCompared).toBeGreaterThanOrEqual(8);
    } finally {
      await browser.close();
    }
  });

  it("is open without the write token's header and refuses another site's page", async () => {
    const foreign = await fetch(`${baseUrl}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "http://evil.example",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(foreign.status).toBe(403);
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
  });
});
