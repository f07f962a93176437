/**
 * The client path `servebench bench` records for the validity checks: the address it reached the server at, and
 * the round trip timed before the sweep (median of five GET /v1/models), both in the run's metadata.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "@/lib/bench/client";
import { buildRunDocument } from "@/lib/bench/document";
import { clientPathOf, measureRoundTrip, runBenchmark } from "@/lib/bench/runner";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { checkRun } from "@/lib/validity/checks";
import { testBenchConfig } from "../support/bench-config";
import { type OpenAITestServer, startOpenAITestServer } from "../support/openai-test-server";

let server: OpenAITestServer;

/** A loopback port nothing listens on: connections to it are refused at once. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

beforeAll(async () => {
  server = await startOpenAITestServer({ ttftMs: 5, itlMs: 2, tokens: 8, version: "0.11.0" });
});

afterAll(async () => {
  await server.close();
});

describe("the client path", () => {
  it.each([
    ["http://localhost:8000/v1", "localhost"],
    ["http://127.0.0.1:8000/v1", "localhost"],
    ["http://127.10.0.3:8000/v1", "localhost"],
    ["http://[::1]:8000/v1", "localhost"],
    ["http://gpu-box:8000/v1", "network"],
    ["http://10.0.0.5:8000/v1", "network"],
    ["https://api.example.com/v1", "network"],
  ])("%s is %s", (url, path) => {
    expect(clientPathOf(new URL(url))).toBe(path);
  });
});

describe("the round trip before the sweep", () => {
  it("is timed on GET /v1/models and lands in the run's metadata, sending no extra generation", async () => {
    server.resetStats();
    const config = testBenchConfig(server.baseUrl, { concurrency: [1], requests: 2 });
    const result = await runBenchmark(config);
    expect(result.client_path).toBe("localhost");
    expect(result.client_rtt_ms).toBeGreaterThan(0);
    // In milliseconds, not seconds or microseconds: a loopback answer of a model list is well under a minute
    // even on the busiest machine, and more than a microsecond on the fastest.
    expect(result.client_rtt_ms).toBeGreaterThan(0.001);
    expect(result.client_rtt_ms).toBeLessThan(60_000);
    expect(server.stats.requests).toBe(2);

    const doc = buildRunDocument(config, {}, result);
    expect(doc.metadata?.client_path).toBe("localhost");
    expect(doc.metadata?.client_rtt_ms).toBe(Math.round(result.client_rtt_ms! * 1000) / 1000);
    const check = checkRun(normalizeRunDocument(doc)).checks.find((entry) => entry.id === "client-path");
    expect(check?.status).not.toBe("unknown");
    expect(check?.detail).toContain("Client path: localhost, round trip");
  });

  it("is null when the server does not answer, and the document then records the path alone", async () => {
    const url = new URL(`http://127.0.0.1:${await closedPort()}/v1`);
    const pool = createPool(url, 1);
    try {
      expect(await measureRoundTrip(pool, testBenchConfig(url.href))).toBeNull();
    } finally {
      pool.close();
    }
    const config = testBenchConfig(url.href, { requests: 1, explicit: { model: "m", engine: "vllm" } });
    const result = await runBenchmark(config);
    expect(result.client_rtt_ms).toBeUndefined();
    expect(result.client_path).toBe("localhost");
    const doc = buildRunDocument(config, {}, result);
    expect(doc.metadata?.client_path).toBe("localhost");
    expect(doc.metadata).not.toHaveProperty("client_rtt_ms");
  });
});
