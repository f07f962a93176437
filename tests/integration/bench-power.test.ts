/**
 * The GPUs' power per load level, measured by the benchmark runner against the OpenAI-compatible test server
 * exposing DCGM's power gauge and energy counter at a set wattage: J per output token and W per GPU as the server
 * was set, power found on the server's own /metrics or at a DCGM exporter's URL, nothing (and one line saying so)
 * when there is none, and the figures kept through upload, export and restore.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { joulesPerOutputToken, tokSPerKw, wattsPerGpu } from "@/lib/analysis/energy";
import { buildRunDocument } from "@/lib/bench/document";
import { type BenchConfig, type BenchEvent, runBenchmark } from "@/lib/bench/runner";
import { ContextError } from "@/lib/bench/server-info";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { testBenchConfig } from "../support/bench-config";
import {
  DEFAULT_TEST_SERVER_SETTINGS,
  type OpenAITestServer,
  startOpenAITestServer,
  type TestServerSettings,
} from "../support/openai-test-server";
import { BASE, clearDatabase, idContext, jsonRequest, noContext } from "./helpers";

const GPUS = 2;
const WATTS = 350;
/** Long enough (about 2.7 s a level) that the readings around the level are a small part of it. */
const LEVEL: Partial<TestServerSettings> = { ttftMs: 50, itlMs: 20, tokens: 32 };

let server: OpenAITestServer;

beforeAll(async () => {
  server = await startOpenAITestServer({ version: "0.11.0" });
});

afterAll(async () => {
  await server.close();
});

beforeEach(async () => {
  await clearDatabase();
});

function serverWith(settings: Partial<TestServerSettings>): void {
  server.update({ ...DEFAULT_TEST_SERVER_SETTINGS, version: "0.11.0", ...LEVEL, ...settings });
  server.resetStats();
}

function configFor(overrides: Partial<BenchConfig> = {}): BenchConfig {
  return testBenchConfig(server.baseUrl, {
    concurrency: [4],
    requests: 16,
    metrics: { intervalMs: 100 },
    power: { mode: "auto", intervalMs: 100 },
    ...overrides,
  });
}

async function measure(config: BenchConfig) {
  const events: BenchEvent[] = [];
  const result = await runBenchmark(config, { onEvent: (event) => events.push(event) });
  const lines = events.flatMap((event) => (event.type === "metrics" ? [event.line] : []));
  return { result, lines, point: result.levels[0]!.point };
}

describe("power from DCGM's metrics", () => {
  it("records J per output token within 5% of the set power ÷ measured tok/s, and W per GPU within 5% of the set wattage", async () => {
    serverWith({ metrics: "vllm", dcgm: { gpus: GPUS, watts: WATTS } });
    const { result, lines, point } = await measure(configFor());
    const metricsUrl = `http://127.0.0.1:${server.port}/metrics`;
    expect(lines).toContain(`power: ${metricsUrl} every 100 ms (dcgm-exporter)`);
    expect(point.completed).toBe(16);
    expect(point.power_source).toBe("dcgm-exporter");
    expect(point.power_gpu_count).toBe(GPUS);
    // The gauge reads exactly 2 × 350 W at every sample.
    expect(point.power_w_mean).toBe(GPUS * WATTS);
    expect(point.power_w_max).toBe(GPUS * WATTS);
    expect(point.power_samples).toBeGreaterThan(10);
    expect(point.energy_j).toBeGreaterThan(0);
    expect(point.sources).toMatchObject({
      power_w_mean: "DCGM_FI_DEV_POWER_USAGE",
      energy_j: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (after − before the level)",
    });

    // What the server was set to: 700 W over the output tok/s the client measured.
    const expectedJoules = (GPUS * WATTS) / point.output_throughput!;
    const joules = joulesPerOutputToken(point, null)!;
    console.log(
      `J/token ${joules.toFixed(4)} (energy ${point.energy_j} J / ${point.total_output_tokens} tokens) vs set ${expectedJoules.toFixed(4)} (${GPUS * WATTS} W / ${point.output_throughput} tok/s)`,
    );
    expect(Math.abs(joules / expectedJoules - 1)).toBeLessThan(0.05);
    expect(Math.abs(wattsPerGpu(point, null)! / WATTS - 1)).toBeLessThan(0.05);
    expect(Math.abs(tokSPerKw(point)! / (point.output_throughput! / 0.7) - 1)).toBeLessThan(0.05);

    const doc = buildRunDocument(configFor(), { gpu_count: GPUS }, result);
    expect(doc.metadata?.power_metrics).toBe(metricsUrl);
    const normalized = normalizeRunDocument(doc);
    expect(normalized.results[0]).toMatchObject({
      power_w_mean: 700,
      power_gpu_count: 2,
      power_source: "dcgm-exporter",
    });

    // Stored, exported and restored: the power figures come back as measured.
    const posted = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
    expect(posted.status, await posted.clone().text()).toBe(201);
    const { id } = (await posted.json()) as { id: string };
    const read = async () =>
      (
        (await (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id))).json()) as {
          results: Record<string, unknown>[];
        }
      ).results[0]!;
    const stored = await read();
    for (const key of ["power_w_mean", "power_w_max", "energy_j", "power_gpu_count", "power_samples", "power_source"])
      expect(stored[key], key).toEqual(point[key as keyof typeof point]);
    const exported = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
    expect(exported).toContain('"power_source":"dcgm-exporter"');
    await clearDatabase();
    const restored = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: exported,
      }),
      noContext,
    );
    expect(restored.status).toBe(200);
    expect(await read()).toEqual(stored);
  });

  it("reads a DCGM exporter named with --power-metrics, the server's own metrics off", async () => {
    serverWith({ metrics: null, dcgm: { gpus: GPUS, watts: WATTS } });
    const url = new URL(`http://127.0.0.1:${server.port}/dcgm/metrics`);
    const { lines, point } = await measure(
      configFor({ metrics: null, power: { mode: "dcgm", metricsUrl: url, intervalMs: 100 } }),
    );
    expect(lines).toEqual([`power: ${url.href} every 100 ms (dcgm-exporter)`]);
    expect(point.power_w_mean).toBe(700);
    expect(point.server_metrics_samples).toBeUndefined();
    expect(Math.abs(joulesPerOutputToken(point)! / (700 / point.output_throughput!) - 1)).toBeLessThan(0.05);
  });

  it("stops before measuring when --power-metrics does not answer with DCGM's power", async () => {
    serverWith({ metrics: "vllm", dcgm: null });
    const url = new URL(`http://127.0.0.1:${server.port}/metrics`);
    await expect(
      runBenchmark(configFor({ power: { mode: "dcgm", metricsUrl: url, intervalMs: 100 } })),
    ).rejects.toEqual(new ContextError(`--power-metrics ${url.href}: no DCGM_FI_DEV_POWER_USAGE in the metrics`));
    expect(server.stats.requests).toBe(0);
  });
});

describe("no power to read", () => {
  it("measures without power figures and says so once, never a 0 W point", async () => {
    serverWith({ metrics: "vllm", dcgm: null });
    const { lines, point } = await measure(configFor({ power: { mode: "dcgm", intervalMs: 100 } }));
    expect(lines.filter((line) => line.startsWith("power:"))).toEqual([
      `power: not measured (http://127.0.0.1:${server.port}/metrics has no DCGM_FI_DEV_POWER_USAGE; --power-metrics names a DCGM exporter)`,
    ]);
    expect(point.completed).toBe(16);
    for (const key of ["power_w_mean", "power_w_max", "energy_j", "power_gpu_count", "power_samples", "power_source"])
      expect(point[key as keyof typeof point], key).toBeUndefined();
  });

  it("a vendor tool that is not on PATH fails nothing: the level is measured without power", async () => {
    serverWith({ metrics: null, dcgm: null });
    const saved = process.env.PATH;
    process.env.PATH = "";
    try {
      const { lines, point } = await measure(
        configFor({ metrics: null, requests: 4, power: { mode: "nvidia-smi", intervalMs: 100 } }),
      );
      expect(lines).toEqual(["power: not measured (nvidia-smi: not found on PATH)"]);
      expect(point.completed).toBe(4);
      expect(point.power_source).toBeUndefined();
    } finally {
      process.env.PATH = saved;
    }
  });
});
