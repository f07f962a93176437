/**
 * The benchmark runner against the OpenAI-compatible test server: what it measures must be what the server
 * was set to do (TTFT, TPOT, throughput), at concurrency 1 and under load; every way a server fails is a
 * failed request with its reason; an interruption keeps what was measured.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRunDocument } from "@/lib/bench/document";
import { builtinPrompts, parsePromptFile } from "@/lib/bench/prompts";
import { type BenchConfig, type BenchEvent, runBenchmark } from "@/lib/bench/runner";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { testBenchConfig } from "../support/bench-config";
import { type OpenAITestServer, startOpenAITestServer, type TestServerSettings } from "../support/openai-test-server";

// The timing settings: long enough that a millisecond of timer noise is well under the ±5% asserted.
const TTFT_MS = 100;
const ITL_MS = 20;
const TOKENS = 32;
const REQUEST_MS = TTFT_MS + (TOKENS - 1) * ITL_MS; // 720 ms from sending to the last token
// Quick settings for tests that check counts and reasons, not timing.
const QUICK: Partial<TestServerSettings> = { ttftMs: 10, itlMs: 5, tokens: 8 };

let server: OpenAITestServer;

beforeAll(async () => {
  server = await startOpenAITestServer({
    ttftMs: TTFT_MS,
    itlMs: ITL_MS,
    tokens: TOKENS,
    maxConcurrent: 8,
    version: "0.11.0",
  });
});

afterAll(async () => {
  await server.close();
});

function configFor(overrides: Partial<BenchConfig> = {}): BenchConfig {
  return testBenchConfig(server.baseUrl, overrides);
}

/** Set the server up for one test; the defaults of this file unless the test says otherwise. */
function serverWith(settings: Partial<TestServerSettings>): void {
  server.update({
    ttftMs: TTFT_MS,
    itlMs: ITL_MS,
    tokens: TOKENS,
    tokensPerChunk: 1,
    maxConcurrent: 8,
    usage: true,
    fault: null,
    serverInfo: null,
    version: "0.11.0",
    apiKey: null,
    ...settings,
  });
  server.resetStats();
}

/**
 * The figures are held to the server's settings through their medians: no more than 5% faster, and (see
 * latencyWithin) up to 25% slower. On a shared two-CPU machine
 * (CI, or a build next door) one scheduler stall of tens of ms lands in every request in flight at that
 * moment: it moves the mean of a handful of requests, not their median. Throughput is checked exactly
 * against the tokens the server sent over the level's wall time as the test itself clocks it, and loosely
 * (±15%) against the settings, since its wall time adds up every stall of the level.
 */
function within(measured: number | undefined, expected: number, tolerance = 0.05): void {
  expect(measured).toBeDefined();
  expect(Math.abs(measured! - expected) / expected, `${measured} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}

/**
 * A latency against the server's setting: a busy machine can only make a request slower than the server was
 * told to be, never faster, so the bound below is the tolerance and the bound above leaves room for stalls.
 * What this guards against (a unit or a definition off by a token, a chunk or a connection) is larger.
 */
function latencyWithin(measured: number | undefined, expected: number, tolerance = 0.05): void {
  expect(measured).toBeDefined();
  const relative = (measured! - expected) / expected;
  expect(relative, `${measured} vs ${expected}`).toBeGreaterThanOrEqual(-tolerance);
  expect(relative, `${measured} vs ${expected}`).toBeLessThanOrEqual(tolerance + 0.2);
}

/** Throughput against the settings: the mirror of latencyWithin (stalls only lower it). */
function throughputWithin(measured: number | undefined, expected: number, tolerance: number): void {
  expect(measured).toBeDefined();
  const relative = (measured! - expected) / expected;
  expect(relative, `${measured} vs ${expected}`).toBeGreaterThanOrEqual(-(tolerance + 0.2));
  expect(relative, `${measured} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}

/** Clocks each level from the runner's level-start event to its level-end event. */
function levelClock(): { onEvent: (event: BenchEvent) => void; wall_s: Map<number, number> } {
  const started = new Map<number, number>();
  const wall_s = new Map<number, number>();
  return {
    wall_s,
    onEvent: (event) => {
      if (event.type === "level-start" && "concurrency" in event.level)
        started.set(event.level.concurrency, performance.now());
      if (event.type === "level-end")
        wall_s.set(
          event.level.point.concurrency!,
          (performance.now() - started.get(event.level.point.concurrency!)!) / 1000,
        );
    },
  };
}

describe("timing at concurrency 1", () => {
  it("measures the TTFT, TPOT, ITL and throughput the server was set to", async () => {
    serverWith({});
    const clock = levelClock();
    const result = await runBenchmark(configFor({ concurrency: [1], requests: 3, warmup: 1 }), {
      onEvent: clock.onEvent,
    });
    const level = result.levels[0]!;
    const point = level.point;
    process.stdout.write(
      `C=1 set TTFT ${TTFT_MS} ms, TPOT ${ITL_MS} ms → measured ${JSON.stringify({ median_ttft: point.median_ttft_ms, mean_ttft: point.mean_ttft_ms, median_tpot: point.median_tpot_ms, mean_tpot: point.mean_tpot_ms, median_itl: point.median_itl_ms, tok_s: point.output_throughput })}\n`,
    );

    expect(point).toMatchObject({ concurrency: 1, completed: 3, failed: 0, total_output_tokens: 3 * TOKENS });
    latencyWithin(point.median_ttft_ms, TTFT_MS);
    latencyWithin(point.median_tpot_ms, ITL_MS);
    latencyWithin(point.median_itl_ms, ITL_MS);
    latencyWithin(point.median_e2el_ms, REQUEST_MS);
    // The warm-up request was sent and left out of the figures.
    expect(server.stats.requests).toBe(4);
    expect(server.stats.completedTokens).toBe(4 * TOKENS);
    // Throughput: the tokens the server sent for the level over the level's wall time (within the
    // millisecond between the last request's end and the level-end event)…
    within(point.output_throughput, (3 * TOKENS) / clock.wall_s.get(1)!, 0.02);
    // …which, one request at a time, is 32 tokens per 720 ms: 44.4 tok/s, what one user sees.
    throughputWithin(point.output_throughput, TOKENS / (REQUEST_MS / 1000), 0.15);
    // Input tokens are the server's count of the three prompts' words.
    const words = [0, 1, 2]
      .map((i) => (builtinPrompts().at(i) as { text: string }).text.split(/\s+/).length)
      .reduce((a, b) => a + b, 0);
    expect(point.total_input_tokens).toBe(words);
    expect(result.context).toMatchObject({ engine: "vllm", engine_version: "0.11.0", max_model_len: 4096 });
    expect(result.warnings).toEqual([]);
  });
});

describe("timing under load", () => {
  it("at concurrency 8 with a server that generates 8 at once, keeps TTFT and TPOT and multiplies throughput", async () => {
    serverWith({ maxConcurrent: 8 });
    const clock = levelClock();
    const result = await runBenchmark(configFor({ concurrency: [8], requests: 24 }), { onEvent: clock.onEvent });
    const point = result.levels[0]!.point;
    process.stdout.write(
      `C=8 set TTFT ${TTFT_MS} ms, TPOT ${ITL_MS} ms → measured ${JSON.stringify({ median_ttft: point.median_ttft_ms, mean_ttft: point.mean_ttft_ms, median_tpot: point.median_tpot_ms, mean_tpot: point.mean_tpot_ms, median_itl: point.median_itl_ms, tok_s: point.output_throughput })}\n`,
    );

    expect(server.stats.maxInFlight).toBe(8);
    expect(point).toMatchObject({ concurrency: 8, completed: 24, failed: 0, total_output_tokens: 24 * TOKENS });
    latencyWithin(point.median_ttft_ms, TTFT_MS);
    latencyWithin(point.median_tpot_ms, ITL_MS);
    latencyWithin(point.median_itl_ms, ITL_MS);
    // Exactly the tokens the server sent, over the level's wall time.
    expect(point.total_output_tokens).toBe(server.stats.completedTokens);
    within(point.output_throughput, server.stats.completedTokens / clock.wall_s.get(8)!, 0.02);
    // Three waves of eight: 768 tokens in 3 × 720 ms, 355.6 tok/s, eight times the single stream.
    throughputWithin(point.output_throughput, (24 * TOKENS) / ((3 * REQUEST_MS) / 1000), 0.15);
  });

  it("beyond the server's limit, requests queue and the wait shows in TTFT, not TPOT", async () => {
    serverWith({ ttftMs: TTFT_MS, itlMs: ITL_MS, tokens: 10, maxConcurrent: 2 });
    const result = await runBenchmark(configFor({ concurrency: [4], requests: 4 }));
    const point = result.levels[0]!.point;
    // Two generate at once (100 + 9 × 20 = 280 ms); the other two wait for them: TTFTs 100, 100, 380, 380.
    // Four short requests make a small sample: ±15% tells queueing apart from generation all the same.
    expect(server.stats.maxInFlight).toBe(2);
    latencyWithin(point.median_ttft_ms, 240, 0.15);
    latencyWithin(point.p90_ttft_ms, 380, 0.15);
    latencyWithin(point.median_tpot_ms, ITL_MS, 0.15);
  });
});

describe("token counts", () => {
  it("takes exact counts from the usage chunk when a chunk carries several tokens", async () => {
    serverWith({ ttftMs: 20, itlMs: 20, tokens: 8, tokensPerChunk: 2 });
    const result = await runBenchmark(configFor({ concurrency: [2], requests: 6 }));
    const level = result.levels[0]!;
    expect(level.point.total_output_tokens).toBe(48);
    expect(level.approximate_requests).toBe(0);
    // Four chunks of two tokens, at 40, 80, 120 and 160 ms: ITL is per chunk (40 ms); TPOT is per token,
    // vLLM's (e2e − TTFT) / (tokens − 1) = (160 − 40) / 7 = 17.1 ms. (18 gaps: a small sample, ±15%; a stall
    // that makes chunks arrive together shortens some gaps, so the median of few would not hold.)
    latencyWithin(level.point.median_itl_ms, 40, 0.15);
    latencyWithin(level.point.median_tpot_ms, 120 / 7, 0.15);
  });

  it("counts text chunks, marked approximate, when the server sends no usage", async () => {
    serverWith({ ...QUICK, usage: false });
    const result = await runBenchmark(configFor({ concurrency: [4], requests: 2 }));
    const level = result.levels[0]!;
    expect(level.point.total_output_tokens).toBe(16);
    expect(level.point.total_input_tokens).toBeUndefined();
    expect(level.approximate_requests).toBe(2);
    expect(result.warnings).toEqual([
      "C=4: only 2 requests per level, so this level never had 4 requests in flight",
      "C=4: the server sent no token usage for 2 of 2 completed requests; their output tokens are the number of streamed text chunks (approximate: a chunk may carry several tokens)",
    ]);
    const doc = buildRunDocument(configFor(), {}, result);
    expect(doc.metadata?.output_tokens_counted).toBe("streamed text chunks (approximate: the server sent no usage)");
  });

  it("the completions endpoint and chat messages from a file work the same way", async () => {
    serverWith(QUICK);
    const completions = await runBenchmark(configFor({ endpoint: "completions", concurrency: [1], requests: 2 }));
    expect(completions.levels[0]!.point).toMatchObject({ completed: 2, failed: 0, total_output_tokens: 16 });
    expect(server.stats.bodies[0]).toMatchObject({
      prompt: "Explain the theory of general relativity in detail.",
      stream: true,
      stream_options: { include_usage: true },
    });

    server.resetStats();
    const prompts = parsePromptFile(
      '[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hi"}]\n',
      "chat.jsonl",
    );
    const chat = await runBenchmark(configFor({ prompts, concurrency: [1], requests: 1 }));
    expect(chat.levels[0]!.point).toMatchObject({ completed: 1, total_input_tokens: 4 });
    expect(server.stats.bodies[0]).toMatchObject({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hi" },
      ],
      max_tokens: 256,
      temperature: 0,
    });
  });
});

describe("a bad server", () => {
  it("counts every fault mode as a failed request with its reason, and still measures the rest", async () => {
    const faults = [null, "http-500", "malformed-sse", "truncate", "no-first-token", "reset", "json-response"] as const;
    serverWith({ ...QUICK, fault: (index) => faults[index % faults.length] ?? null });
    // The timeout only has to end the request that never sends a token; a short one would also end a slow good
    // request on a loaded machine and change its failure reason.
    // (3 s was seen to be too short on a CI machine under load.)
    const result = await runBenchmark(configFor({ concurrency: [7], requests: 7, timeoutMs: 6000 }));
    const level = result.levels[0]!;
    expect(level.completed).toBe(1);
    expect(level.failed).toBe(6);
    const reasons = level.failures.map((failure) => failure.message).sort();
    expect(reasons).toHaveLength(6);
    expect(reasons).toContain(
      'the server answered with one JSON document instead of an event stream (does it support "stream": true?)',
    );
    expect(reasons).toContain("HTTP 500 Internal Server Error: simulated internal error");
    expect(reasons).toContain(
      'malformed SSE event (not JSON): "{"choices": [{"delta": {"content": "oops"" (after 2 text chunks)',
    );
    expect(reasons, JSON.stringify(reasons)).toContain("the stream ended before [DONE] (after 4 text chunks)");
    expect(reasons, JSON.stringify(reasons)).toContain("no first token within 6 s (timeout)");
    // The reset arrives right after the second chunk; whether those two were read before it depends on the kernel.
    expect(
      reasons.some((reason) =>
        /^(connection reset by the server|aborted|the connection closed) mid-stream \(after [0-2] text chunks?\)$/.test(
          reason,
        ),
      ),
    ).toBe(true);
    // The one good request still gives figures.
    expect(level.point).toMatchObject({ completed: 1, failed: 6, total_output_tokens: 8 });
    expect(level.point.mean_tpot_ms).toBeDefined();
    expect(result.warnings[0]).toMatch(/^C=7: 6 of 7 requests failed: .+; and 3 other reasons$/);
  });

  it("a refused connection fails every request; the run is still written, with counts and no figures", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const config = configFor({
      baseUrl: new URL(`http://127.0.0.1:${port}/v1`),
      concurrency: [1, 2],
      requests: 2,
      warmup: 1,
      explicit: { model: "m", engine: "vllm" },
    });
    const result = await runBenchmark(config);
    expect(result.levels.map((level) => level.point)).toEqual([
      { concurrency: 1, completed: 0, failed: 2 },
      { concurrency: 2, completed: 0, failed: 2 },
    ]);
    expect(result.warnings).toEqual([
      `warm-up: 1 of 1 requests failed: connection refused (127.0.0.1:${port})`,
      `C=1: every request failed (2), so the level has no figures: connection refused (127.0.0.1:${port}) (×2)`,
      `C=2: every request failed (2), so the level has no figures: connection refused (127.0.0.1:${port}) (×2)`,
    ]);
    const run = normalizeRunDocument(buildRunDocument(config, {}, result));
    expect(run.results).toEqual([
      { concurrency: 1, completed: 0, failed: 2 },
      { concurrency: 2, completed: 0, failed: 2 },
    ]);
  });

  it("sends the API key as a bearer token and never keeps it, even when the server echoes it", async () => {
    serverWith({ ...QUICK, apiKey: "sk-test-123" });
    const good = await runBenchmark(configFor({ apiKey: "sk-test-123", concurrency: [1], requests: 1 }));
    expect(good.levels[0]!.point.completed).toBe(1);
    expect(server.stats.authorization).toEqual(["Bearer sk-test-123"]);
    expect(JSON.stringify(buildRunDocument(configFor(), {}, good))).not.toContain("sk-test-123");

    const bad = await runBenchmark(configFor({ apiKey: "sk-wrong", concurrency: [1], requests: 1 }));
    expect(bad.levels[0]!.failures).toEqual([{ message: "HTTP 401 Unauthorized: invalid API key", count: 1 }]);
  });
});

describe("context from the server", () => {
  it("fills engine, version and flags from SGLang's /get_server_info", async () => {
    serverWith({
      ...QUICK,
      version: null,
      serverInfo: {
        model_path: "org/test",
        tp_size: 1,
        disable_cuda_graph: true,
        api_key: "sk-x",
        speculative_algorithm: null,
        version: "0.5.8",
      },
    });
    const result = await runBenchmark(configFor({ requests: 1 }));
    expect(result.context).toMatchObject({
      engine: "sglang",
      engine_version: "0.5.8",
      flags: { "--model-path": "org/test", "--tp-size": 1, "--disable-cuda-graph": true },
      filled: ["/v1/models: max_model_len", "sglang /get_server_info: engine, engine_version, flags"],
    });
    expect(result.context.flags).not.toHaveProperty("--api-key");
  });
});

describe("Ctrl-C", () => {
  it("aborting keeps what was measured, marks the run partial and stops sending", async () => {
    serverWith(QUICK);
    const controller = new AbortController();
    const events: BenchEvent["type"][] = [];
    const result = await runBenchmark(configFor({ concurrency: [1, 2, 4], requests: 4 }), {
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event.type);
        // Interrupt C=2 as soon as its first request is done: one is then in flight, two not sent.
        if (
          event.type === "level-progress" &&
          "concurrency" in event.progress.level &&
          event.progress.level.concurrency === 2 &&
          event.progress.done === 1
        )
          controller.abort();
      },
    });
    expect(result.partial).toBe(true);
    expect(result.levels.map((level) => [level.point.concurrency, level.completed, level.aborted])).toEqual([
      [1, 4, 0],
      [2, 1, 3],
    ]);
    expect(result.warnings).toEqual([
      "C=2: interrupted with 3 requests in flight or not sent; the figures cover the 1 that finished",
      "partial run: interrupted (Ctrl-C) before every level was measured; measured: C=1, C=2",
    ]);
    expect(server.stats.requests).toBe(6); // 4 at C=1, 2 at C=2; C=4 never started
    expect(events.filter((type) => type === "level-start")).toHaveLength(2);
    const doc = buildRunDocument(configFor({ concurrency: [1, 2, 4], requests: 4 }), {}, result);
    expect(doc.metadata?.partial).toBe(true);
    expect(normalizeRunDocument(doc).results.map((point) => point.concurrency)).toEqual([1, 2]);
  });
});
