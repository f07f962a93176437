/**
 * The benchmark's open loop, datasets, goodput and per-request results, and the server's own metrics, against
 * the OpenAI-compatible test server: arrivals measured at the server against the rate and burstiness they
 * were drawn for, goodput against targets whose outcome the server's timing decides, and server figures
 * against the load the test server was under.
 */
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRunDocument } from "@/lib/bench/document";
import { randomPrompts } from "@/lib/bench/prompts";
import { arrivalTimesMs } from "@/lib/bench/random";
import { type BenchConfig, type BenchEvent, runBenchmark } from "@/lib/bench/runner";
import { ContextError } from "@/lib/bench/server-info";
import { estimateTokens, readShareGpt } from "@/lib/bench/sharegpt";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { mean, std } from "@/lib/stats";
import { testBenchConfig } from "../support/bench-config";
import {
  DEFAULT_TEST_SERVER_SETTINGS,
  type OpenAITestServer,
  startOpenAITestServer,
  type TestServerSettings,
} from "../support/openai-test-server";

const SHAREGPT = path.join(__dirname, "..", "fixtures", "sharegpt", "hand-made-sharegpt.json");
const QUICK: Partial<TestServerSettings> = { ttftMs: 10, itlMs: 5, tokens: 8 };

let server: OpenAITestServer;

beforeAll(async () => {
  server = await startOpenAITestServer({ version: "0.11.0" });
});

afterAll(async () => {
  await server.close();
});

function serverWith(settings: Partial<TestServerSettings>): void {
  server.update({ ...DEFAULT_TEST_SERVER_SETTINGS, version: "0.11.0", ...settings });
  server.resetStats();
}

function configFor(overrides: Partial<BenchConfig> = {}): BenchConfig {
  return testBenchConfig(server.baseUrl, overrides);
}

function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((time, index) => time - times[index]!);
}

/** Coefficient of variation of the gaps between arrivals: 1 for a Poisson process, 1/√k for gamma shape k. */
function cv(times: readonly number[]): number {
  const g = gaps(times);
  return std(g) / mean(g);
}

describe("open loop", () => {
  // 50 ms between arrivals on average: a timer a few ms late (a shared two-core machine) barely moves the spread.
  const RATE = 20;
  const N = 100;

  it.each([
    [1, 1],
    [0.5, 1],
    [4, 1],
  ])(
    "arrives at the set rate, with gaps whose spread is the burstiness's (burstiness %s, seed %s)",
    async (burstiness, seed) => {
      serverWith(QUICK);
      // Client and server share this process's event loop: every stall of it (a loaded machine, a collection)
      // delays the arrivals due in it. The stalls are measured, and the lateness judged against them.
      const stalls = monitorEventLoopDelay({ resolution: 1 });
      stalls.enable();
      const result = await runBenchmark(
        configFor({ requestRates: [RATE], burstiness, seed, concurrency: [], requests: N }),
      );
      stalls.disable();
      const longestStallMs = stalls.max / 1e6;
      const point = result.levels[0]!.point;
      expect(point).toMatchObject({ request_rate: RATE, completed: N, failed: 0 });
      expect(point.concurrency).toBeUndefined();

      const measured = server.stats.arrivals_ms.map((at) => at - server.stats.arrivals_ms[0]!);
      const planned = arrivalTimesMs(N, RATE, burstiness, seed);
      const plannedFromFirst = planned.map((at) => at - planned[0]!);
      // The seed fixes the schedule: every request arrived when it was drawn to, within timer jitter.
      const lateness = measured.map((at, index) => at - plannedFromFirst[index]!);
      const sortedLateness = lateness.map(Math.abs).sort((a, b) => a - b);
      const worst = sortedLateness[sortedLateness.length - 1]!;
      const p95 = sortedLateness[Math.floor(0.95 * (sortedLateness.length - 1))]!;
      const measuredRate = (N - 1) / (measured[N - 1]! / 1000);
      const plannedRate = (N - 1) / (plannedFromFirst[N - 1]! / 1000);
      process.stdout.write(
        `open loop rate ${RATE} req/s, burstiness ${burstiness}, seed ${seed}: arrivals at the server ${measuredRate.toFixed(2)} req/s (schedule ${plannedRate.toFixed(2)}), gap CV ${cv(measured).toFixed(3)} (schedule ${cv(plannedFromFirst).toFixed(3)}, gamma theory ${(1 / Math.sqrt(burstiness)).toFixed(3)}), lateness p95 ${p95.toFixed(1)} ms, worst ${worst.toFixed(1)} ms, longest event-loop stall ${longestStallMs.toFixed(1)} ms\n`,
      );
      // The schedule is absolute: an arrival is late by the stall it fell in (the first arrival's own lateness
      // included, as times are counted from it), never by the sum of the stalls before it. Had each gap been
      // timed from the previous send, the lateness would pile up along the level, far past any one stall.
      expect(worst).toBeLessThan(2 * longestStallMs + 20);
      // vLLM's scaling puts the last of N arrivals at exactly N / rate: the rate over the level is the one set.
      expect(planned[N - 1]).toBeCloseTo((N / RATE) * 1000, 6);
      // The spread of the gaps is the gamma distribution's: CV 1/√burstiness (1 for Poisson, 0.5 at 4). What the
      // server saw follows that schedule within the stalls bounded above; how closely on an idle machine (rate
      // and gap spread at the server) is printed above and measured by `npm run bench`.
      expect(Math.abs(cv(plannedFromFirst) - 1 / Math.sqrt(burstiness))).toBeLessThan(0.15);
    },
  );

  it("the same seed sends the same schedule, another seed another", () => {
    expect(arrivalTimesMs(50, 10, 1, 3)).toEqual(arrivalTimesMs(50, 10, 1, 3));
    expect(arrivalTimesMs(50, 10, 1, 4)).not.toEqual(arrivalTimesMs(50, 10, 1, 3));
  });

  it("Ctrl-C in an open loop stops the arrivals, cuts off what is in flight and keeps what finished", async () => {
    serverWith({ ...QUICK, ttftMs: 30 });
    const controller = new AbortController();
    const result = await runBenchmark(
      configFor({ requestRates: [10, 20], concurrency: [], requests: 30, maxConcurrency: 2 }),
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "level-progress" && event.progress.done === 5) controller.abort();
        },
      },
    );
    expect(result.partial).toBe(true);
    expect(result.levels).toHaveLength(1);
    const level = result.levels[0]!;
    expect(level.completed).toBeGreaterThanOrEqual(5);
    expect(level.completed + level.aborted).toBe(30);
    // Arrivals stopped at once: far fewer than 30 reached the server, and the second rate never started.
    expect(server.stats.requests).toBeLessThan(10);
    expect(result.warnings.at(-1)).toBe(
      "partial run: interrupted (Ctrl-C) before every level was measured; measured: 10 req/s",
    );
  });

  it("at rate inf every request goes at once; --max-concurrency holds the rest back and says so", async () => {
    serverWith({ ...QUICK, ttftMs: 60 });
    const result = await runBenchmark(
      configFor({ requestRates: [20, "inf"], maxConcurrency: 2, concurrency: [], requests: 8, saveDetailed: true }),
    );
    // Never more than the cap at the server (two at once when the machine lets the second out before the
    // first is done, which a stall of the client can prevent).
    expect(server.stats.maxInFlight).toBeGreaterThanOrEqual(1);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(2);
    const inf = result.levels[1]!.point;
    expect(inf.request_rate).toBe("inf");
    // Held in the client, not at the server: its queue time is in `queue_ms`, and TTFT counts from the sending.
    const queue = inf.requests!.queue_ms!;
    const held = queue.filter((wait) => wait > 50);
    expect(held).toHaveLength(6);
    // Had TTFT counted the wait in the client, the median would be at least 60 ms plus the shortest wait.
    expect(inf.median_ttft_ms!).toBeGreaterThanOrEqual(60);
    expect(inf.median_ttft_ms!).toBeLessThan(60 + Math.min(...held));
    expect(result.warnings.some((warning) => warning.startsWith("20 req/s: requests went out at"))).toBe(true);
    const doc = buildRunDocument(
      configFor({ requestRates: [20, "inf"], maxConcurrency: 2, concurrency: [], requests: 8 }),
      {},
      result,
    );
    expect(doc.workload).toMatchObject({ burstiness: 1, max_concurrency: 2, seed: 0, num_prompts: 8 });
    expect(normalizeRunDocument(doc).results.map((point) => point.request_rate)).toEqual([20, "inf"]);
  });
});

describe("goodput", () => {
  it("counts the requests that met every target, per second, as vLLM does", async () => {
    // Two slots: at C=4 the first two requests start at once (TTFT 100 ms), every other one waits for a slot
    // (TTFT ≥ 100 + 9 × 20 = 280 ms). TPOT is 20 ms for all.
    serverWith({ ttftMs: 100, itlMs: 20, tokens: 10, maxConcurrent: 2 });
    const result = await runBenchmark(configFor({ concurrency: [4], requests: 8, goodput: { ttft: 200, tpot: 25 } }));
    const level = result.levels[0]!;
    process.stdout.write(
      `goodput ttft ≤ 200 ms, tpot ≤ 25 ms at C=4 on two slots: ${level.good_requests} of ${level.completed} good, ${level.point.request_goodput} req/s over ${level.point.duration_s} s\n`,
    );
    expect(level.good_requests).toBe(2);
    expect(level.point.request_goodput).toBeCloseTo(2 / level.point.duration_s!, 3);

    // A TTFT target below the server's 100 ms: no request meets it (a timer never fires early, so no load can
    // make a first token come sooner), and goodput is a measured 0.
    serverWith({ ttftMs: 100, itlMs: 20, tokens: 10, maxConcurrent: 2 });
    const strict = await runBenchmark(configFor({ concurrency: [4], requests: 8, goodput: { ttft: 80 } }));
    expect(strict.levels[0]!.good_requests).toBe(0);
    expect(strict.levels[0]!.point.request_goodput).toBe(0);

    // An e2e target every request meets: goodput is the request throughput.
    serverWith({ ttftMs: 100, itlMs: 20, tokens: 10, maxConcurrent: 2 });
    const loose = await runBenchmark(configFor({ concurrency: [4], requests: 8, goodput: { e2el: 5_000 } }));
    expect(loose.levels[0]!.point.request_goodput).toBeCloseTo(loose.levels[0]!.point.request_throughput!, 3);
  });
});

describe("datasets", () => {
  it("ShareGPT: the sampled conversations' first turns, with their replies' lengths as max_tokens", async () => {
    serverWith(QUICK);
    const prompts = await readShareGpt(SHAREGPT, { count: 6, seed: 1 });
    expect(prompts.dataset).toBe("sharegpt");
    expect(prompts.distinct).toBe(6);
    expect(prompts.metadata).toMatchObject({
      dataset_file: "hand-made-sharegpt.json",
      dataset_entries: 11,
      dataset_valid_pairs: 6,
    });
    expect(String(prompts.metadata?.dataset_sha256)).toMatch(/^[0-9a-f]{64}$/);
    const result = await runBenchmark(configFor({ prompts, concurrency: [2], requests: 6 }));
    expect(result.levels[0]!.point.completed).toBe(6);
    const file = (await import("node:fs")).readFileSync(SHAREGPT, "utf8");
    const entries = JSON.parse(file) as { id: string; conversations?: { value: string }[] }[];
    const usable = entries.filter((entry) => entry.id.startsWith("a"));
    const sent = server.stats.bodies.map((body) => {
      const messages = body.messages as { role: string; content: string }[];
      return { prompt: messages[0]!.content, max_tokens: body.max_tokens };
    });
    // Every usable conversation once (six asked of six), none of the dropped ones, each with its reply's length.
    expect(sent.map((item) => item.prompt).sort()).toEqual(
      usable.map((entry) => entry.conversations![0]!.value).sort(),
    );
    for (const item of sent) {
      const entry = usable.find((candidate) => candidate.conversations![0]!.value === item.prompt)!;
      expect(item.max_tokens).toBe(estimateTokens(entry.conversations![1]!.value));
    }
    // The same seed samples the same prompts in the same order.
    const again = await readShareGpt(SHAREGPT, { count: 6, seed: 1 });
    expect([0, 1, 2, 3, 4, 5].map((i) => again.at(i))).toEqual([0, 1, 2, 3, 4, 5].map((i) => prompts.at(i)));
  });

  it("random prompts with a shared prefix: the server's prefix cache serves the prefix", async () => {
    serverWith({ ...QUICK, metrics: "vllm" });
    const prompts = randomPrompts({ inputLen: 16, prefixLen: 64, seed: 5 });
    const result = await runBenchmark(
      configFor({ prompts, concurrency: [1], requests: 20, metrics: { intervalMs: 100 } }),
    );
    const point = result.levels[0]!.point;
    // Nineteen of twenty prompts find the 64-word prefix in the cache: 19 × 64 / (20 × 80) = 0.76, plus
    // the odd first own word that matches another prompt's.
    expect(point.server_prefix_cache_hit_rate).toBeGreaterThanOrEqual(0.76);
    expect(point.server_prefix_cache_hit_rate).toBeLessThan(0.78);
    const sent = server.stats.bodies.map((body) => (body.messages as { content: string }[])[0]!.content.split(" "));
    expect(new Set(sent.map((words) => words.slice(0, 64).join(" "))).size).toBe(1);
    expect(new Set(sent.map((words) => words.join(" "))).size).toBe(20);
    expect(sent.every((words) => words.length === 80)).toBe(true);
  });
});

describe("server metrics", () => {
  it("stores the figures of the load the server was under, from vLLM's names", async () => {
    serverWith({ ttftMs: 100, itlMs: 20, tokens: 16, maxConcurrent: 2, kvUsagePerRequest: 0.25, metrics: "vllm" });
    const events: BenchEvent[] = [];
    const result = await runBenchmark(configFor({ concurrency: [1, 4], requests: 8, metrics: { intervalMs: 100 } }), {
      onEvent: (event) => events.push(event),
    });
    const [one, four] = result.levels.map((level) => level.point);
    process.stdout.write(
      `server metrics (2 slots, 0.25 KV per running request, TTFT 100 ms, ITL 20 ms): ${JSON.stringify(
        [one, four].map((point) =>
          Object.fromEntries(
            Object.entries(point!).filter(([key]) => key.startsWith("server_") || key === "mean_ttft_ms"),
          ),
        ),
      )}\n`,
    );
    expect(events.find((event) => event.type === "metrics")).toEqual({
      type: "metrics",
      line: `server metrics: http://127.0.0.1:${server.port}/metrics every 100 ms`,
    });
    // C=1: one request running whenever a scrape lands, bar the scrapes that fall between two requests
    // (sub-millisecond on an idle machine, stretched on a busy CI machine: a mean of 0.81 has been seen).
    // A mean of 0.5 or 2 would mean the scrapes are counted wrong.
    expect(one!.server_running_requests_max).toBe(1);
    expect(one!.server_running_requests_mean).toBeGreaterThan(0.7);
    expect(one!.server_running_requests_mean).toBeLessThanOrEqual(1);
    expect(one!.server_waiting_requests_max).toBe(0);
    expect(one!.server_kv_cache_usage_max).toBe(0.25);
    expect(one!.server_preemptions).toBe(0);
    // The engine's TTFT is its configured 100 ms (timers never fire early) and lies inside the client's, which
    // adds the connection: never more than the client measured.
    expect(one!.server_mean_ttft_ms).toBeGreaterThan(95);
    expect(one!.server_mean_ttft_ms).toBeLessThanOrEqual(one!.mean_ttft_ms!);
    // C=4 on two slots: two running, two waiting, half the KV cache, and all but the first two requests
    // found every slot taken.
    expect(four!.server_running_requests_max).toBe(2);
    expect(four!.server_running_requests_mean).toBeGreaterThan(1.6);
    expect(four!.server_running_requests_mean).toBeLessThanOrEqual(2);
    expect(four!.server_waiting_requests_max).toBe(2);
    // Four waves of two; the last has nobody behind it: two waiting in three waves of four, a mean of 1.5
    // (the scrapes of a loaded machine land unevenly: ±0.5).
    expect(four!.server_waiting_requests_mean).toBeGreaterThan(1);
    expect(four!.server_waiting_requests_mean).toBeLessThan(2);
    expect(four!.server_kv_cache_usage_max).toBe(0.5);
    expect(four!.server_kv_cache_usage_mean).toBeGreaterThan(0.4);
    expect(four!.server_preemptions).toBe(6);
    // The engine's TTFT counts its queue, as the client's does.
    expect(Math.abs(four!.server_mean_ttft_ms! - four!.mean_ttft_ms!) / four!.mean_ttft_ms!).toBeLessThan(0.1);
    for (const point of [one!, four!]) {
      expect(point.server_mean_tpot_ms).toBeCloseTo(20, 6);
      expect(point.server_mean_itl_ms).toBeCloseTo(20, 6);
      expect(point.server_metrics_samples).toBeGreaterThan(5);
      // Not speculating: no acceptance figures (absent, never 0).
      expect(point.server_spec_acceptance_rate).toBeUndefined();
      expect(point.sources?.server_kv_cache_usage_mean).toBe("vllm:kv_cache_usage_perc");
    }
    const doc = normalizeRunDocument(buildRunDocument(configFor({ concurrency: [1, 4], requests: 8 }), {}, result));
    expect(doc.results[1]).toMatchObject({ server_preemptions: 6, server_kv_cache_usage_max: 0.5 });
    expect(doc.metadata.server_metrics).toBe(`http://127.0.0.1:${server.port}/metrics`);
  });

  it("reads SGLang's names, and speculative acceptance from either engine", async () => {
    serverWith({
      ...QUICK,
      tokens: 12,
      maxConcurrent: 2,
      kvUsagePerRequest: 0.3,
      metrics: "sglang",
      speculative: { tokens: 3, accepted: 2 },
    });
    const sglang = (await runBenchmark(configFor({ concurrency: [4], requests: 8, metrics: { intervalMs: 50 } })))
      .levels[0]!.point;
    expect(sglang).toMatchObject({
      server_running_requests_max: 2,
      server_waiting_requests_max: 2,
      server_kv_cache_usage_max: 0.6,
      server_preemptions: 6,
      server_spec_acceptance_length: 3,
    });
    expect(sglang.server_spec_acceptance_rate).toBeCloseTo(2 / 3, 4);
    expect(sglang.sources?.server_preemptions).toBe("sglang:num_retracted_requests_total");
    // SGLang has no per-request TPOT histogram: absent, never 0.
    expect(sglang.server_mean_tpot_ms).toBeUndefined();
    expect(sglang.server_mean_itl_ms).toBeCloseTo(5, 6);

    serverWith({ ...QUICK, tokens: 12, metrics: "vllm", speculative: { tokens: 3, accepted: 2 } });
    const vllm = (await runBenchmark(configFor({ concurrency: [2], requests: 6, metrics: { intervalMs: 50 } })))
      .levels[0]!.point;
    expect(vllm.server_spec_acceptance_rate).toBeCloseTo(2 / 3, 4);
    expect(vllm.server_spec_acceptance_length).toBe(3);

    // SGLang's speculative gauges read 0 when it does not speculate: that is "not speculating", not 0%.
    serverWith({ ...QUICK, metrics: "sglang" });
    const off = (await runBenchmark(configFor({ concurrency: [2], requests: 4, metrics: { intervalMs: 50 } })))
      .levels[0]!.point;
    expect(off.server_spec_acceptance_rate).toBeUndefined();
    expect(off.server_spec_acceptance_length).toBeUndefined();
  });

  it("a server without /metrics gives no server figures and says so; a --metrics-url that fails stops the run", async () => {
    serverWith({ ...QUICK, metrics: null });
    const events: BenchEvent[] = [];
    const result = await runBenchmark(configFor({ metrics: { intervalMs: 100 } }), {
      onEvent: (event) => events.push(event),
    });
    const point = result.levels[0]!.point;
    expect(Object.keys(point).filter((key) => key.startsWith("server_"))).toEqual([]);
    const line = events.find((event) => event.type === "metrics");
    expect(line).toMatchObject({ type: "metrics" });
    expect((line as { line: string }).line).toMatch(
      /^server metrics: not collected \(http:\/\/127\.0\.0\.1:\d+\/metrics: HTTP 404 Not Found/,
    );

    await expect(
      runBenchmark(configFor({ metrics: { intervalMs: 100, url: new URL(`http://127.0.0.1:${server.port}/nope`) } })),
    ).rejects.toThrow(
      new ContextError(`--metrics-url http://127.0.0.1:${server.port}/nope: HTTP 404 Not Found: Not Found`),
    );
  });
});

describe("per-request results", () => {
  it("keeps each request's figures in send order, and a sample past the limit, said in the warnings", async () => {
    serverWith({ ...QUICK, fault: (index) => (index === 3 ? "http-500" : null) });
    const result = await runBenchmark(
      configFor({ concurrency: [2], requests: 12, saveDetailed: true, detailLimit: 5, percentiles: [75, 99] }),
    );
    const level = result.levels[0]!;
    const detail = level.point.requests!;
    // Twelve requests, five rows at most: every third is kept (four rows).
    expect(detail.total).toBe(12);
    expect(detail.ttft_ms).toHaveLength(4);
    expect(level.sampled_every).toBe(3);
    expect(detail.start_ms).toEqual([...detail.start_ms!].sort((a, b) => a - b));
    expect(result.warnings).toContain(
      "C=2: the per-request results keep one in every 3 of its 12 requests (4 rows, the most a load point keeps); its figures cover all of them",
    );
    // The failed request (the fourth sent) is the second row: null figures and its reason.
    expect(detail.ttft_ms[1]).toBeNull();
    expect(detail.errors).toEqual(["HTTP 500 Internal Server Error: simulated internal error"]);
    expect(detail.error).toEqual([null, 0, null, null]);
    expect(detail.output_tokens.filter((tokens) => tokens !== null)).toEqual([8, 8, 8]);
    // p75 has no field of its own: it is in `percentiles`; p99 is the p99 field.
    expect(level.point.percentiles?.ttft?.p75).toBeGreaterThan(0);
    expect(level.point.percentiles?.ttft?.p99).toBeUndefined();
    const stored = normalizeRunDocument(buildRunDocument(configFor(), {}, result));
    expect(stored.results[0]!.requests).toEqual(detail);
  });
});
