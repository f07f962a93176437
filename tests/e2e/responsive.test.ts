/**
 * No upload freezes the server: the shapes that did (a JSON-lines file of 100,000 load levels, a launch command
 * that made the redaction pattern backtrack, sixteen small zip bombs) are answered, and /api/health answers on
 * connections of its own while the longest of them is still being read. No bound on time here (a loaded machine
 * stretches every figure); how long each takes and how long /api/health waits is measured by `npm run bench`
 * (docs/benchmarks.md). Before the fixes the JSON-lines file took more than 25 minutes and /api/health waited
 * all that time; a backtracking pattern never finishes, which the test's timeout catches.
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
/**
 * The zip bomb, deflated before any request: deflating 199 MB takes seconds of this process's own thread, and a
 * keep-alive connection the server closed meanwhile would not be seen closed until the thread is free again, so
 * the next upload would be written into it (EPIPE) instead of a fresh connection.
 */
let bomb: Uint8Array<ArrayBuffer>;
beforeAll(async () => {
  bomb = zipOfSpaces(199_000_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-responsive-"));
  const dbFile = path.join(dir, "responsive.db");
  migrateDatabase(dbFile);
  server = await startServer(dbFile, path.join(dir, "server.log"));
  baseUrl = server.url;
});
afterAll(async () => {
  if (server) await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Ask /api/health one request at a time until `work` settles; how many answers arrived while it was pending. */
async function healthDuring<T>(work: Promise<T>): Promise<{ result: T; answeredWhilePending: number }> {
  let finished = false;
  let answeredWhilePending = 0;
  const sampler = (async () => {
    while (!finished) {
      const status = await new Promise<number>((resolve) => {
        const request = http.get(`${baseUrl}/api/health`, { agent: false }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        });
        request.on("error", () => resolve(0));
      });
      if (status === 200 && !finished) answeredWhilePending += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await work;
  finished = true;
  await sampler;
  return { result, answeredWhilePending };
}

async function preview(body: BodyInit, contentType?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/api/runs?dry_run=1`, {
    method: "POST",
    headers: contentType ? { "content-type": contentType } : {},
    body,
  });
  return { status: response.status, text: await response.text() };
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
  it("plans a JSON-lines file of 100,000 load levels, /api/health answering while it reads", async () => {
    const body = sglangLines(100_000);
    const { result, answeredWhilePending } = await healthDuring(preview(body, "application/x-ndjson"));
    expect(result.status).toBe(200);
    const planned = JSON.parse(result.text) as {
      fragments_total: number;
      runs: { points_total: number; valid: boolean }[];
    };
    expect(planned.fragments_total).toBe(100_000);
    expect(planned.runs.map((run) => [run.points_total, run.valid])).toEqual([[100_000, false]]);
    // Parsing runs in a worker thread: the server's own thread answered other requests meanwhile.
    expect(answeredWhilePending).toBeGreaterThan(0);
  });

  it("previews a launch command of a long run of underscores", async () => {
    for (const underscores of [46, 190]) {
      const document = {
        format: "servebench/v1",
        engine: "vllm",
        model: "m",
        command: `vllm serve m --a${"_".repeat(underscores)} 1`,
        results: [{ concurrency: 1, output_throughput: 10 }],
      };
      const result = await preview(JSON.stringify(document), "application/json");
      expect(result.status).toBe(200);
      expect((JSON.parse(result.text) as { runs: { valid: boolean }[] }).runs.map((run) => run.valid)).toEqual([true]);
    }
  });

  it("refuses sixteen zip bombs at the shared expansion budget", async () => {
    const form = new FormData();
    for (let index = 0; index < 16; index += 1) form.append("file", new Blob([bomb]), `bomb-${index}.zip`);
    const result = await preview(form);
    expect(result.status).toBe(413);
    expect((JSON.parse(result.text) as { error: { message: string } }).error.message).toBe(
      '"bomb-1.zip" and the archives before it in this upload expand to more than 200 MB; upload fewer files.',
    );
  });
});
