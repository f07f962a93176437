/**
 * The MCP endpoint through the official MCP TypeScript SDK's client: over streamable HTTP (the route handler, as
 * Next calls it) and over stdio (the `servebench mcp` command relaying to an HTTP server on a real port), against
 * the real database. The comparison it answers is the one the compare page and its CSV export show.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as compareCsv } from "@/app/api/compare/csv/route";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "@/app/api/mcp/route";
import { POST as postAccuracy } from "@/app/api/runs/[id]/accuracy/route";
import { POST as postRun } from "@/app/api/runs/route";
import { GET as getLlmsTxt } from "@/app/llms.txt/route";
import { MCP_TOOL_NAMES } from "@/lib/mcp/server";
import { BASE, clearDatabase, counts, fixtureText, noContext, SEED_FILES } from "./helpers";

const ROOT = path.join(__dirname, "..", "..");
const TOOLS = [
  "compare_runs",
  "get_comparison",
  "get_run",
  "get_series",
  "list_alerts",
  "list_comparisons",
  "list_series",
  "search_runs",
];

/** The route handler of /api/mcp, called the way Next calls it. */
function routeFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(url, init);
  const handler = request.method === "POST" ? mcpPost : request.method === "DELETE" ? mcpDelete : mcpGet;
  return handler(request, noContext);
}

async function uploadRun(file: string): Promise<string> {
  const response = await postRun(
    new Request(`${BASE}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: fixtureText(file),
    }),
    noContext,
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

function json(result: unknown): Record<string, unknown> {
  const content = (result as CallToolResult).content;
  expect(content[0]?.type).toBe("text");
  return JSON.parse((content[0] as { text: string }).text) as Record<string, unknown>;
}

let vllm: string;
let noGraphs: string;
let graphs: string;
let client: Client;

beforeAll(async () => {
  await clearDatabase();
  vllm = await uploadRun(SEED_FILES.vllm);
  noGraphs = await uploadRun(SEED_FILES.sglangNoGraphs);
  graphs = await uploadRun(SEED_FILES.sglangGraphs);
  client = new Client({ name: "servebench-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp`), { fetch: routeFetch }));
});

afterAll(async () => {
  await client?.close();
});

type Delta = {
  metric: string;
  rows: { level: string; cells: { run: string; value: number | null; change_pct: number | null; verdict: string }[] }[];
};

describe("MCP over streamable HTTP (/api/mcp)", () => {
  it("lists the read-only tools, and nothing that writes", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.annotations?.destructiveHint, tool.name).toBe(false);
    }
    expect(client.getServerVersion()?.name).toBe("servebench");
  });

  it("answers a comparison whose figures are the compare page's (its CSV export), with verdicts and links", async () => {
    const answer = json(await client.callTool({ name: "compare_runs", arguments: { runs: [noGraphs, graphs] } }));
    expect(answer.url).toBe(`${BASE}/compare?runs=${noGraphs},${graphs}`);
    expect(answer.baseline).toBe(noGraphs);
    expect(answer.like_for_like).toBe(true);
    const verdicts = answer.verdicts as string[];
    expect(verdicts).toHaveLength(1);
    // The campaign's one line: CUDA graphs took single stream from 27 to 63.6 tok/s.
    expect(verdicts[0]).toContain("27 → 63.6 tok/s");
    const series = answer.series as { id: string; what_changed: string[] }[];
    expect(series[1]?.what_changed).toContain("--disable-cuda-graph removed");

    const csvResponse = await compareCsv(new Request(`${BASE}/api/compare/csv?runs=${noGraphs},${graphs}`), noContext);
    expect(csvResponse.status).toBe(200);
    const rows = parseCsv(await csvResponse.text(), { columns: true }) as Record<string, string>[];
    const deltas = answer.deltas as Delta[];
    let compared = 0;
    // The capacity rows follow the deltas: each series at each preset tier, as the answer's `capacity` says.
    const capacityRows = rows.filter((row) => row.metric!.startsWith("tier:"));
    const capacity = answer.capacity as {
      tiers: { id: string; runs: { status: string; tok_s_per_gpu: number | null }[] }[];
    };
    expect(capacityRows.map((row) => row.metric)).toEqual(
      capacity.tiers.flatMap((tier) => tier.runs.map(() => `tier:${tier.id}:tok_s_per_gpu`)),
    );
    expect(capacityRows.filter((row) => row.verdict !== "baseline").map((row) => row.verdict)).toEqual(
      capacity.tiers.map((tier) => tier.runs[1]!.status),
    );
    for (const row of rows.filter((candidate) => !/^(tier:|plan:|tok_s_per_gpu_at)/.test(candidate.metric!))) {
      const table = deltas.find((delta) => delta.metric === row.metric);
      expect(table, row.metric).toBeDefined();
      const level = row.concurrency ? `c:${row.concurrency}` : `r:${row.request_rate}`;
      const cell = table!.rows
        .find((candidate) => candidate.level === level)
        ?.cells.find((candidate) => row.runs!.split(" ").includes(candidate.run));
      expect(cell, `${row.metric} ${level} ${row.series}`).toBeDefined();
      expect(cell!.value === null ? "" : String(cell!.value)).toBe(row.value);
      if (row.verdict !== "baseline") {
        expect(cell!.change_pct === null ? "" : String(cell!.change_pct)).toBe(row.change_pct);
        expect(row.verdict).toBe(cell!.value === null ? "missing" : cell!.verdict);
      }
      compared += 1;
    }
    expect(compared).toBeGreaterThanOrEqual(8);
    // A demand at a typed tier on the mean TPOT both runs state: sized in whole replicas of their 8 GPUs.
    const sized = json(
      await client.callTool({
        name: "compare_runs",
        arguments: { runs: [noGraphs, graphs], tiers: "loose:tpot=50:mean", demand: "users:300", price: "2" },
      }),
    );
    const planner = (
      sized.capacity as { planner: { ranking: { series: string; gpus: number | null; reason: string | null }[] } }
    ).planner;
    expect(planner.ranking.map((row) => [row.gpus, row.reason])).toEqual([
      // Both state a mean TPOT at C=1 only (37 and 15.7 ms): one user per 8-GPU replica, so 300 replicas each.
      [2400, null],
      [2400, null],
    ]);
    const throughput = deltas.find((delta) => delta.metric === "output_throughput")!;
    const single = throughput.rows.find((row) => row.level === "c:1")!;
    expect(single.cells.map((cell) => cell.value)).toEqual([27, 63.6]);
    expect(single.cells[1]?.change_pct).toBe(135.56);
  });

  it("finds runs by text and reads one with its validity and link", async () => {
    const found = json(await client.callTool({ name: "search_runs", arguments: { engine: "vllm" } }));
    const runs = found.runs as { id: string; url: string }[];
    expect(runs.map((run) => run.id)).toEqual([vllm]);
    expect(runs[0]?.url).toBe(`${BASE}/runs/${vllm}`);
    const read = json(await client.callTool({ name: "get_run", arguments: { id: graphs } }));
    expect((read.run as { id: string; engine: string }).engine).toBe("sglang");
    expect(read.url).toBe(`${BASE}/runs/${graphs}`);
    expect(read.validity).toMatchObject({ marked: expect.any(Boolean) });
  });

  it("answers a refusal as a tool error naming the problem, and has no tool that writes", async () => {
    const missing = await client.callTool({ name: "get_run", arguments: { id: "no-such-run" } });
    expect(missing.isError).toBe(true);
    expect(json(missing).error).toMatchObject({ code: "not_found" });
    const one = await client.callTool({ name: "compare_runs", arguments: { runs: [vllm] } });
    expect(one.isError).toBe(true);
    const before = await counts();
    for (const name of ["upload_run", "delete_run", "save_comparison"]) {
      const attempt = await client.callTool({ name, arguments: { id: vllm } });
      expect(attempt.isError, name).toBe(true);
      expect(JSON.stringify(attempt.content)).toContain(`Tool ${name} not found`);
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses a request sent by a page of another site: 403, and nothing is read", async () => {
    const response = await routeFetch(`${BASE}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "http://evil.example",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("forbidden");
  });

  it("is described, with every tool, in /llms.txt for agents", async () => {
    expect([...MCP_TOOL_NAMES].sort()).toEqual(TOOLS);
    const response = await getLlmsTxt(new Request(`${BASE}/llms.txt`), noContext);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith("# servebench\n")).toBe(true);
    expect(text).toContain(`[MCP server](${BASE}/api/mcp)`);
    for (const tool of TOOLS) expect(text).toContain(`\`${tool}\``);
    expect(text).toContain(`npx servebench mcp --url ${BASE}`);
    expect(text).toContain(`(${BASE}/api/schema)`);
  });

  it("keeps GET and DELETE for the stream and session it does not have: 405", async () => {
    for (const method of ["GET", "DELETE"] as const) {
      const response = await routeFetch(`${BASE}/api/mcp`, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });
});

describe("MCP over stdio (servebench mcp --url)", () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    // The route handler on a real port, so the command's relay goes over HTTP as it does to a running servebench.
    server = http.createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === "string") headers.set(name, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const response = await routeFetch(`http://${incoming.headers.host}${incoming.url}`, {
        method: incoming.method,
        headers,
        body,
      });
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.close();
  });

  it("relays the same tools and answers", async () => {
    const stdio = new Client({ name: "servebench-stdio-test", version: "1.0.0" });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "bin", "servebench.mjs"), "mcp", "--url", url],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await stdio.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const answer = json(await stdio.callTool({ name: "compare_runs", arguments: { runs: [noGraphs, graphs] } }));
      const overHttp = json(await client.callTool({ name: "compare_runs", arguments: { runs: [noGraphs, graphs] } }));
      // The same figures and verdicts; only the links differ (each names the address it was reached at).
      expect(answer.deltas).toEqual(overHttp.deltas);
      expect(answer.verdicts).toEqual(overHttp.verdicts);
      expect(answer.url).toBe(`${url}/compare?runs=${noGraphs},${graphs}`);
    } finally {
      await stdio.close();
    }
  });
});

describe("accuracy in compare_runs", () => {
  it("gives each score against the baseline's with its noise band, and marks a faster run that lost accuracy", async () => {
    const lmEval = JSON.parse(fixtureText("accuracy/lm-eval/v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json")) as {
      results: { gsm8k: Record<string, number> };
    };
    const attach = async (run: string, strictMatch: number) => {
      lmEval.results.gsm8k["exact_match,strict-match"] = strictMatch;
      const response = await postAccuracy(
        new Request(`${BASE}/api/runs/${run}/accuracy`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(lmEval),
        }),
        { params: Promise.resolve({ id: run }) },
      );
      expect(response.status, await response.clone().text()).toBe(200);
    };
    await attach(noGraphs, 0.7559);
    // CUDA graphs on: faster, and (in this test) 6 points lower on gsm8k strict-match, stderr 1.18 on both sides.
    await attach(graphs, 0.6959);
    const answer = json(await client.callTool({ name: "compare_runs", arguments: { runs: [noGraphs, graphs] } }));
    const series = answer.series as {
      trade_off: boolean;
      accuracy: { scores: { filter: string; delta: number; noise_band: number; verdict: string }[] } | null;
    }[];
    expect(series[0]!.accuracy).toBeNull();
    expect(series[1]!.trade_off).toBe(true);
    const strict = series[1]!.accuracy!.scores.find((score) => score.filter === "strict-match")!;
    expect(strict.delta).toBeCloseTo(-0.06, 12);
    expect(strict.noise_band).toBeCloseTo(2 * Math.sqrt(2 * 0.011832404674077592 ** 2), 12);
    expect(strict.verdict).toBe("worse");
    expect(series[1]!.accuracy!.scores.find((score) => score.filter === "flexible-extract")!.verdict).toBe("noise");
    expect((answer.verdicts as string[])[0]).toMatch(
      /trade-off, accuracy: gsm8k · exact_match \(strict-match\) 75\.6 → 69\.6/,
    );
  });
});
