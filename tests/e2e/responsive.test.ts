/**
 * No upload freezes the server: the shapes that did (a JSON-lines file of 100,000 load levels, a launch command
 * that made the redaction pattern backtrack, sixteen small zip bombs) are answered while /api/health keeps
 * answering on connections of its own. The bounds are generous (the machines are shared); the figures are
 * measured by `npm run bench` (docs/benchmarks.md). Before the fixes the JSON-lines file took more than 25
 * minutes and /api/health waited all that time.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { type RunningServer, startServer, stopServer } from "./server";

// A server of its own: these uploads keep its parsing workers busy for seconds, and on the server the other
// browser tests share they would queue those tests' uploads behind them on a loaded machine.
let server: RunningServer;
let baseUrl = "";
let dir = "";
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-responsive-"));
  const dbFile = path.join(dir, "responsive.db");
  migrateDatabase(dbFile);
  server = await startServer(dbFile, path.join(dir, "server.log"));
  baseUrl = server.url;
}, 90_000);
afterAll(async () => {
  if (server) await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Ask /api/health one request at a time until `done` resolves; the longest wait and how many answered. */
async function healthDuring<T>(work: Promise<T>): Promise<{ result: T; longestMs: number; answered: number }> {
  let finished = false;
  let longestMs = 0;
  let answered = 0;
  const sampler = (async () => {
    while (!finished) {
      const started = performance.now();
      const status = await new Promise<number>((resolve) => {
        const request = http.get(`${baseUrl}/api/health`, { agent: false }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        });
        request.on("error", () => resolve(0));
      });
      const waited = performance.now() - started;
      longestMs = Math.max(longestMs, waited);
      if (status === 200) answered += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await work;
  finished = true;
  await sampler;
  return { result, longestMs, answered };
}

async function preview(body: BodyInit, contentType?: string): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/runs?dry_run=1`, {
    method: "POST",
    headers: contentType ? { "content-type": contentType } : {},
    body,
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, text };
}

function sglangLines(count: number): string {
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      backend: "sglang",
      dataset_name: "random",
      request_rate: index + 1,
      max_concurrency: null,
      total_input_tokens: 152612,
      total_output_tokens: 160347,
      median_ttft_ms: 85.7,
      median_itl_ms: 13.6,
      output_throughput: 537.4,
      random_input_len: 1024,
      random_output_len: 1024,
      duration: 298.3,
      completed: 300,
    }),
  ).join("\n");
}

/** A zip of one file of `size` spaces, deflated at level 9: ~1,000 times smaller than what it inflates to. */
function zipOfSpaces(size: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(zipSync({ "spaces.json": [new Uint8Array(size).fill(0x20), { level: 9 }] }));
}

describe("the server keeps answering while it reads hostile uploads", () => {
  it("plans a JSON-lines file of 100,000 load levels, /api/health answering all along", {
    timeout: 120_000,
  }, async () => {
    const body = sglangLines(100_000);
    const { result, longestMs, answered } = await healthDuring(preview(body, "application/x-ndjson"));
    expect(result.status).toBe(200);
    const planned = JSON.parse(result.text) as {
      fragments_total: number;
      runs: { points_total: number; valid: boolean }[];
    };
    expect(planned.fragments_total).toBe(100_000);
    expect(planned.runs.map((run) => [run.points_total, run.valid])).toEqual([[100_000, false]]);
    expect(result.ms).toBeLessThan(60_000);
    expect(answered).toBeGreaterThan(0);
    expect(longestMs).toBeLessThan(3_000);
  });

  it("previews a launch command of a long run of underscores at once", { timeout: 60_000 }, async () => {
    for (const underscores of [46, 190]) {
      const document = {
        format: "servebench/v1",
        engine: "vllm",
        model: "m",
        command: `vllm serve m --a${"_".repeat(underscores)} 1`,
        results: [{ concurrency: 1, output_throughput: 10 }],
      };
      const { result, longestMs } = await healthDuring(preview(JSON.stringify(document), "application/json"));
      expect(result.status).toBe(200);
      expect(result.ms).toBeLessThan(5_000);
      expect(longestMs).toBeLessThan(3_000);
    }
  });

  it("refuses sixteen zip bombs at the shared expansion budget, quickly", { timeout: 120_000 }, async () => {
    const zip = zipOfSpaces(199_000_000);
    const form = new FormData();
    for (let index = 0; index < 16; index += 1) form.append("file", new Blob([zip]), `bomb-${index}.zip`);
    const { result, longestMs } = await healthDuring(preview(form));
    expect(result.status).toBe(413);
    expect((JSON.parse(result.text) as { error: { message: string } }).error.message).toBe(
      '"bomb-1.zip" and the archives before it in this upload expand to more than 200 MB; upload fewer files.',
    );
    expect(result.ms).toBeLessThan(30_000);
    expect(longestMs).toBeLessThan(3_000);
  });
});
