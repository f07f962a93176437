/**
 * `servebench bench` from a shell: it measures the OpenAI-compatible test server, writes the run, uploads it
 * to the production build the e2e project serves, and the stored run carries the figures the server was set
 * to; the run then compares with an imported vLLM file. A real Ctrl-C leaves a partial run on disk.
 */
import { execFile, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { type OpenAITestServer, startOpenAITestServer } from "../support/openai-test-server";
import { launchBrowser } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const ROOT = path.join(__dirname, "..", "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures");
const TTFT_MS = 100;
const ITL_MS = 20;
const TOKENS = 32;
const SINGLE_STREAM_TOK_S = TOKENS / ((TTFT_MS + (TOKENS - 1) * ITL_MS) / 1000); // 44.4

let server: OpenAITestServer;
let dir: string;
const suffix = crypto.randomBytes(3).toString("hex");
const benchName = `bench e2e ${suffix}`;
const importName = `vllm import e2e ${suffix}`;
let benchId = "";

beforeAll(async () => {
  server = await startOpenAITestServer({
    ttftMs: TTFT_MS,
    itlMs: ITL_MS,
    tokens: TOKENS,
    maxConcurrent: 8,
    version: "0.11.0",
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-bench-e2e-"));
});

afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The CLI's environment: no API key or write token of the machine's own leaks into a test. */
function cliEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.SERVEBENCH_TOKEN;
  return env;
}

function servebench(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "bin", "servebench.mjs"), ...args],
      { cwd: ROOT, timeout: 600_000, env: { ...cliEnv(), ...extraEnv } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A figure against the server's setting. A busy machine only makes requests slower (latency up, throughput
 * down), never faster: the bound on the side a stall cannot reach is the tolerance, the other leaves room.
 */
function within(measured: unknown, expected: number, tolerance: number, stallsMake: "higher" | "lower"): void {
  expect(typeof measured).toBe("number");
  const relative = ((measured as number) - expected) / expected;
  const [low, high] = stallsMake === "higher" ? [-tolerance, tolerance + 0.2] : [-(tolerance + 0.2), tolerance];
  expect(relative, `${String(measured)} vs ${expected}`).toBeGreaterThanOrEqual(low);
  expect(relative, `${String(measured)} vs ${expected}`).toBeLessThanOrEqual(high);
}

describe.sequential("npx servebench bench", () => {
  it("measures the server, writes the run, uploads it and prints its link", async () => {
    const out = path.join(dir, "run.json");
    const result = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--model",
      "test-model",
      "--concurrency",
      "1,4",
      "--requests",
      "8",
      "--upload",
      baseUrl,
      "--out",
      out,
      "--engine",
      "vllm",
      "--name",
      benchName,
      "--gpu",
      "NVIDIA L4",
      "--gpu-count",
      "1",
      "--command",
      "vllm serve test-model --max-num-seqs 8",
      "--tag",
      "bench-e2e",
      "--env",
      "VLLM_USE_V1=1",
      "--notes",
      "measured by the e2e test",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const match = new RegExp(`^${baseUrl}/runs/([A-Za-z0-9_-]{12})$`).exec(lines[lines.length - 1] ?? "");
    expect(match, result.stdout).not.toBeNull();
    benchId = match![1]!;
    expect(lines).toContain("  from the server (vllm /version): version 0.11.0");
    expect(lines).toContain(`wrote ${out}`);
    // The summary table: a header, then a row per level.
    const header = lines.findIndex((line) =>
      /^\s*C\s+ok\s+failed\s+out tok\/s\s+req\/s\s+TTFT ms\s+p99\s+TPOT ms\s+p99\s+ITL ms\s+e2e ms$/.test(line),
    );
    expect(header, result.stdout).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(/^\s*1\s+8\s+0\s/);
    expect(lines[header + 2]).toMatch(/^\s*4\s+8\s+0\s/);
    expect(lines.find((line) => line.startsWith("single stream: "))).toMatch(
      /^single stream: \d+(\.\d)? tok\/s \(C=1\) {3}peak: \d+(\.\d)? tok\/s at C=4$/,
    );

    const response = await fetch(`${baseUrl}/api/runs/${benchId}`);
    expect(response.status).toBe(200);
    const run = (await response.json()) as Record<string, unknown> & {
      results: Record<string, number>[];
      metadata: Record<string, unknown>;
    };
    expect(run).toMatchObject({
      name: benchName,
      engine: "vllm",
      engine_version: "0.11.0",
      model: "test-model",
      hardware: { gpu: "NVIDIA L4", gpu_count: 1 },
      flags: { "--max-num-seqs": "8", "--model": "test-model" },
      env: { VLLM_USE_V1: "1" },
      tags: ["bench-e2e"],
      notes: "measured by the e2e test",
      source_format: "servebench/v1",
      workload: { dataset: "servebench built-in prompts", output_len: 256, num_prompts: 8, temperature: 0 },
    });
    expect(run.metadata).toMatchObject({
      client: "servebench bench",
      max_model_len: 4096,
      context_from_server: "/v1/models: max_model_len; vllm /version: engine_version",
      output_tokens_counted: "server usage (exact)",
      requests_per_level: 8,
      warmup_requests: 1,
    });
    expect(
      run.results.map((point) => [point.concurrency, point.completed, point.failed, point.total_output_tokens]),
    ).toEqual([
      [1, 8, 0, 8 * TOKENS],
      [4, 8, 0, 8 * TOKENS],
    ]);
    for (const point of run.results) {
      const figures = {
        median_ttft: point.median_ttft_ms,
        median_tpot: point.median_tpot_ms,
        median_itl: point.median_itl_ms,
        tok_s: point.output_throughput,
      };
      process.stdout.write(
        `C=${point.concurrency} set TTFT ${TTFT_MS} ms, TPOT ${ITL_MS} ms → stored ${JSON.stringify(figures)}\n`,
      );
    }
    // The figures are those the server was set to: medians within 5% below (a stall cannot make them faster)
    // and 25% above; throughput within 15% above and 35% below, as its wall time adds up every scheduler
    // stall of a shared machine (see tests/integration/bench-measure.test.ts).
    for (const point of run.results) {
      within(point.median_ttft_ms, TTFT_MS, 0.05, "higher");
      within(point.median_tpot_ms, ITL_MS, 0.05, "higher");
      within(point.median_itl_ms, ITL_MS, 0.05, "higher");
    }
    within(run.results[0]!.output_throughput, SINGLE_STREAM_TOK_S, 0.15, "lower");
    // Four at a time, eight requests: two waves, four times the single stream.
    within(run.results[1]!.output_throughput, 4 * SINGLE_STREAM_TOK_S, 0.15, "lower");
    for (const point of run.results)
      expect(point.output_throughput).toBeCloseTo(point.total_output_tokens! / point.duration_s!, 1);

    // The file holds the same run as the server stored.
    const written = normalizeRunDocument(JSON.parse(fs.readFileSync(out, "utf8")));
    expect(written.results).toEqual(run.results);
    expect(written.metadata).toEqual(run.metadata);
  });

  it("the run page's reproduce block holds the command that measures the same levels again", async () => {
    expect(benchId).not.toBe("");
    const browser = await launchBrowser();
    let block: string;
    try {
      const page = await browser.newPage();
      await page.goto(`${baseUrl}/runs/${benchId}`);
      block = (await page.getByTestId("reproduce-block").textContent()) ?? "";
    } finally {
      await browser.close();
    }
    expect(block).toContain("# Engine: vllm 0.11.0\n");
    expect(block).toContain("export VLLM_USE_V1=1\n");
    expect(block).toContain("# The server's launch command\nvllm serve test-model --max-num-seqs 8\n");
    const command = block.split("\n").find((line) => line.startsWith("npx servebench bench "));
    expect(command).toBe(
      `npx servebench bench --base-url ${server.baseUrl} --model test-model --concurrency 1,4 --requests 8`,
    );

    // Run as it is, from a shell, with only where to write added.
    const out = path.join(dir, "again.json");
    const again = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        "sh",
        ["-c", `${command} --out ${out}`],
        { cwd: ROOT, timeout: 600_000, env: cliEnv() },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stderr }),
      );
    });
    expect(again.code, again.stderr).toBe(0);
    const measured = normalizeRunDocument(JSON.parse(fs.readFileSync(out, "utf8")));
    const first = (await (await fetch(`${baseUrl}/api/runs/${benchId}`)).json()) as {
      results: Record<string, number>[];
    };
    const levels = (results: readonly Record<string, unknown>[]) =>
      results.map((point) => [point.concurrency, point.completed, point.failed]);
    expect(levels(measured.results)).toEqual(levels(first.results));
    expect(levels(measured.results)).toEqual([
      [1, 8, 0],
      [4, 8, 0],
    ]);
    expect(measured.model).toBe("test-model");
    expect(measured.metadata.bench_command).toBe(command);
  });

  it("the uploaded run compares with an imported vLLM file", async () => {
    const form = new FormData();
    form.append(
      "file",
      new Blob([fs.readFileSync(path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json"))]),
      "bench_serve_v0.25.1.json",
    );
    form.set("engine", "vllm");
    form.set("name", importName);
    const created = await fetch(`${baseUrl}/api/runs`, { method: "POST", body: form });
    expect(created.status).toBe(201);
    const { id: vllmId } = (await created.json()) as { id: string };
    expect(benchId).not.toBe("");

    const page = await fetch(`${baseUrl}/compare?runs=${benchId},${vllmId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain(benchName);
    expect(html).toContain(importName);
  });

  it("exits 2 before measuring when the server does not serve the model", async () => {
    const result = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--model",
      "nope",
      "--engine",
      "vllm",
      "--out",
      path.join(dir, "never.json"),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'servebench bench: the server does not serve model "nope"; /v1/models lists: test-model\n',
    );
    expect(fs.existsSync(path.join(dir, "never.json"))).toBe(false);
  });

  it("exits 1 with the server's message when the upload is rejected, and keeps the file", async () => {
    const out = path.join(dir, "rejected.json");
    const result = await servebench([
      "bench",
      "--base-url",
      server.baseUrl,
      "--concurrency",
      "1",
      "--requests",
      "1",
      "--warmup",
      "0",
      "--tag",
      "a,b",
      "--upload",
      baseUrl,
      "--out",
      out,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "servebench bench: upload rejected (422 validation_failed): The run document is invalid. tags.0: must not contain a comma\n",
    );
    expect(result.stdout).toContain("\n  model: test-model (the one the server lists in /v1/models)\n");
    expect(JSON.parse(fs.readFileSync(out, "utf8"))).toMatchObject({
      engine: "vllm",
      model: "test-model",
      results: [{ concurrency: 1, completed: 1 }],
    });
  });

  it("sends the write token ($SERVEBENCH_TOKEN) with the upload, and never prints it", async () => {
    // A stand-in dashboard that needs the token, as one with SERVEBENCH_WRITE_TOKEN set does.
    const seen: (string | undefined)[] = [];
    const dashboard = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      req.on("end", () => {
        const ok = req.headers.authorization === "Bearer e2e-write-token-0123456789";
        res.writeHead(ok ? 201 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            ok
              ? { id: "tokenrun0001", url: "/runs/tokenrun0001" }
              : { error: { code: "unauthorized", message: "a write token is required" } },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => dashboard.listen(0, "127.0.0.1", resolve));
    const dashboardUrl = `http://127.0.0.1:${(dashboard.address() as AddressInfo).port}`;
    try {
      const args = [
        "bench",
        "--base-url",
        server.baseUrl,
        "--concurrency",
        "1",
        "--requests",
        "1",
        "--warmup",
        "0",
        "--upload",
        dashboardUrl,
        "--out",
        path.join(dir, "token.json"),
      ];
      const result = await servebench(args, { SERVEBENCH_TOKEN: "e2e-write-token-0123456789" });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.trimEnd().split("\n").pop()).toBe(`${dashboardUrl}/runs/tokenrun0001`);
      expect(result.stdout).not.toContain("e2e-write-token");
      expect(fs.readFileSync(path.join(dir, "token.json"), "utf8")).not.toContain("e2e-write-token");
      const refused = await servebench(args);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe("servebench bench: upload rejected (401 unauthorized): a write token is required\n");
      expect(seen).toEqual(["Bearer e2e-write-token-0123456789", undefined]);
    } finally {
      await new Promise((resolve) => dashboard.close(resolve));
    }
  });

  it("Ctrl-C writes what was measured so far, marked partial", async () => {
    const out = path.join(dir, "partial.json");
    // A terminal's Ctrl-C signals the whole process group: the launcher, tsx and the command.
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, "bin", "servebench.mjs"),
        "bench",
        "--base-url",
        server.baseUrl,
        "--concurrency",
        "1,4",
        "--requests",
        "3",
        "--warmup",
        "0",
        "--out",
        out,
      ],
      {
        cwd: ROOT,
        env: cliEnv(),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await expect.poll(() => stdout, { interval: 50 }).toMatch(/^C=1 {2}3\/3 requests/m);
    process.kill(-child.pid!, "SIGINT");
    await expect.poll(() => fs.existsSync(out), { interval: 50 }).toBe(true);
    await expect.poll(() => stdout, { interval: 50 }).toContain("(partial run)");
    const doc = JSON.parse(fs.readFileSync(out, "utf8")) as {
      metadata: Record<string, unknown>;
      warnings: string[];
      results: { concurrency: number; completed: number }[];
    };
    expect(doc.metadata.partial).toBe(true);
    expect(doc.results[0]).toMatchObject({ concurrency: 1, completed: 3 });
    expect(doc.warnings[doc.warnings.length - 1]).toMatch(
      /^partial run: interrupted \(Ctrl-C\) before every level was measured; measured: C=1/,
    );
  });
});
