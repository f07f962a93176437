/**
 * Per-request figures and their aggregation, against values worked out by hand with vLLM's definitions
 * (vllm/benchmarks/serve.py, calculate_metrics) and numpy's statistics.
 */
import { describe, expect, it } from "vitest";
import { aggregateLevel, levelWarnings, type RequestRecord, requestMetrics } from "@/lib/bench/metrics";

function ok(start: number, chunks: number[], end: number, usage?: { output: number; input: number }): RequestRecord {
  const record: RequestRecord = { status: "ok", start_ms: start, end_ms: end, text_chunk_ms: chunks };
  if (usage) {
    record.usage_output_tokens = usage.output;
    record.usage_input_tokens = usage.input;
  }
  return record;
}

function failed(start: number, end: number, error: string): RequestRecord {
  return { status: "failed", error, start_ms: start, end_ms: end, text_chunk_ms: [] };
}

// A: five chunks of one token. B: three chunks, one of them two tokens (the server's usage says 4).
// C: one token only, so no TPOT. D: failed, and it is the last to end.
const A = ok(1000, [100, 120, 140, 160, 180], 1185, { output: 5, input: 10 });
const B = ok(1010, [110, 140, 170], 1185, { output: 4, input: 12 });
const C = ok(1200, [90], 1295, { output: 1, input: 8 });
const D = failed(1190, 1400, "HTTP 500 Internal Server Error: simulated internal error");

describe("requestMetrics", () => {
  it("TTFT is the first text chunk; e2e latency the last; TPOT = (e2e − TTFT) / (tokens − 1); ITL the gaps", () => {
    expect(requestMetrics(A)).toEqual({
      ttft_ms: 100,
      e2el_ms: 180,
      tpot_ms: 20, // (180 − 100) / 4
      itl_ms: [20, 20, 20, 20],
      output_tokens: 5,
      output_tokens_exact: true,
      input_tokens: 10,
    });
  });

  it("counts tokens from the server's usage, not chunks: TPOT per token, ITL per chunk", () => {
    const metrics = requestMetrics(B);
    expect(metrics.output_tokens).toBe(4);
    expect(metrics.tpot_ms).toBe(20); // (170 − 110) / 3
    expect(metrics.itl_ms).toEqual([30, 30]);
  });

  it("has no TPOT for a request of one output token", () => {
    expect(requestMetrics(C)).toMatchObject({ ttft_ms: 90, e2el_ms: 90, tpot_ms: null, itl_ms: [] });
  });

  it("without usage, counts text chunks and says the count is approximate", () => {
    const metrics = requestMetrics(ok(0, [50, 70, 90], 95));
    expect(metrics).toMatchObject({ output_tokens: 3, output_tokens_exact: false, input_tokens: null, tpot_ms: 20 });
  });
});

describe("aggregateLevel", () => {
  const level = aggregateLevel(4, [A, B, C, D]);

  it("counts completed and failed requests", () => {
    expect(level.completed).toBe(3);
    expect(level.failed).toBe(1);
    expect(level.point).toMatchObject({ concurrency: 4, completed: 3, failed: 1 });
  });

  it("divides the completed requests' tokens by the level's wall time, first start to last end (failed included)", () => {
    // 1000 → 1400 ms: 0.4 s. Output 5 + 4 + 1 = 10 tokens; input 10 + 12 + 8 = 30.
    expect(level.point).toMatchObject({
      duration_s: 0.4,
      total_output_tokens: 10,
      total_input_tokens: 30,
      output_throughput: 25,
      total_token_throughput: 100,
      request_throughput: 7.5,
    });
  });

  it("TTFT statistics over completed requests: [100, 110, 90]", () => {
    expect(level.point).toMatchObject({
      mean_ttft_ms: 100,
      median_ttft_ms: 100,
      std_ttft_ms: 8.165, // sqrt(200 / 3)
      p90_ttft_ms: 108, // rank 1.8 of [90, 100, 110]
      p95_ttft_ms: 109,
      p99_ttft_ms: 109.8,
    });
  });

  it("TPOT over requests with more than one token only: [20, 20]", () => {
    expect(level.point).toMatchObject({ mean_tpot_ms: 20, median_tpot_ms: 20, std_tpot_ms: 0, p99_tpot_ms: 20 });
  });

  it("ITL pooled over requests: [20, 20, 20, 20, 30, 30]", () => {
    expect(level.point).toMatchObject({
      mean_itl_ms: 23.333,
      median_itl_ms: 20,
      std_itl_ms: 4.714,
      p90_itl_ms: 30,
      p95_itl_ms: 30,
      p99_itl_ms: 30,
    });
  });

  it("e2e latency: [180, 170, 90]", () => {
    expect(level.point).toMatchObject({
      mean_e2el_ms: 146.667,
      median_e2el_ms: 170,
      std_e2el_ms: 40.277,
      p90_e2el_ms: 178,
      p95_e2el_ms: 179,
      p99_e2el_ms: 179.8,
    });
  });

  it("keeps the failure reasons, most frequent first", () => {
    const many = aggregateLevel(2, [
      A,
      failed(0, 1, "connection refused (127.0.0.1:9)"),
      failed(0, 1, "HTTP 500"),
      failed(0, 2, "HTTP 500"),
    ]);
    expect(many.failures).toEqual([
      { message: "HTTP 500", count: 2 },
      { message: "connection refused (127.0.0.1:9)", count: 1 },
    ]);
    expect(levelWarnings(many)).toEqual([
      "C=2: 3 of 4 requests failed: HTTP 500 (×2); connection refused (127.0.0.1:9)",
    ]);
  });

  it("a level where every request failed keeps its counts and has no figures", () => {
    const all = aggregateLevel(8, [failed(0, 5, "HTTP 500"), failed(1, 6, "HTTP 500")]);
    expect(all.point).toEqual({ concurrency: 8, completed: 0, failed: 2 });
    expect(levelWarnings(all)).toEqual(["C=8: every request failed (2), so the level has no figures: HTTP 500 (×2)"]);
  });

  it("names at most three reasons", () => {
    const records = ["a", "b", "c", "d", "e"].map((reason) => failed(0, 1, reason));
    expect(levelWarnings(aggregateLevel(1, records))[0]).toBe(
      "C=1: every request failed (5), so the level has no figures: a; b; c; and 2 other reasons",
    );
  });

  it("marks approximate token counts and leaves input tokens out when the server sent no usage", () => {
    const approx = aggregateLevel(1, [ok(0, [100, 120, 140], 150), ok(150, [100, 110], 260)]);
    expect(approx.approximate_requests).toBe(2);
    expect(approx.point.total_output_tokens).toBe(5);
    expect(approx.point.total_input_tokens).toBeUndefined();
    expect(approx.point.total_token_throughput).toBeUndefined();
    expect(approx.point.output_throughput).toBeCloseTo(5 / 0.26, 3);
    expect(levelWarnings(approx)).toEqual([
      "C=1: the server sent no token usage for 2 of 2 completed requests; their output tokens are the number of streamed text chunks (approximate: a chunk may carry several tokens)",
    ]);
  });

  it("leaves interrupted requests out of both counts and the wall time", () => {
    const cut: RequestRecord = {
      status: "aborted",
      error: "interrupted",
      start_ms: 1300,
      end_ms: 5000,
      text_chunk_ms: [100],
    };
    const partial = aggregateLevel(4, [A, B, cut]);
    expect(partial).toMatchObject({ completed: 2, failed: 0, aborted: 1 });
    expect(partial.point.duration_s).toBe(0.185); // 1000 → 1185
    expect(levelWarnings(partial)).toEqual([
      "C=4: interrupted with 1 request in flight or not sent; the figures cover the 2 that finished",
    ]);
  });
});
