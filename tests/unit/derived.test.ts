import { describe, expect, it, test } from "vitest";
import { type HeadlinePointInput, headline, peakThroughput, singleStream } from "@/lib/document/derived";
import { SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, VLLM_RUN } from "./seeds";

describe("singleStream", () => {
  it("uses the output throughput at concurrency 1", () => {
    expect(
      singleStream([
        { concurrency: 128, output_throughput: 2370 },
        { concurrency: 1, output_throughput: 63.6, mean_tpot_ms: 15.7 },
      ]),
    ).toEqual({
      output_tok_s: 63.6,
      derived: false,
    });
  });

  it("falls back to 1000 / mean TPOT and marks it derived", () => {
    const single = singleStream([{ concurrency: 1, mean_tpot_ms: 37 }]);
    expect(single?.derived).toBe(true);
    expect(single?.output_tok_s).toBeCloseTo(27.027027027, 9);
    expect(single?.output_tok_s).toBe(1000 / 37);
  });

  test.each<[string, HeadlinePointInput[]]>([
    ["null output_throughput", [{ concurrency: 1, output_throughput: null, mean_tpot_ms: 40 }]],
    ["zero output_throughput", [{ concurrency: 1, output_throughput: 0, mean_tpot_ms: 40 }]],
  ])("falls back to TPOT when the C=1 point has %s", (_label, points) => {
    expect(singleStream(points)).toEqual({ output_tok_s: 25, derived: true });
  });

  test.each<[string, HeadlinePointInput[]]>([
    ["no points", []],
    [
      "no C=1 point",
      [
        { concurrency: 2, output_throughput: 50 },
        { concurrency: 128, output_throughput: 2216 },
      ],
    ],
    [
      "request-rate points only",
      [
        { request_rate: 1, output_throughput: 30 },
        { request_rate: "inf", output_throughput: 2000 },
      ],
    ],
    ["a C=1 point without figures", [{ concurrency: 1 }]],
    ["a C=1 point with zero TPOT", [{ concurrency: 1, output_throughput: 0, mean_tpot_ms: 0 }]],
  ])("is null with %s", (_label, points) => {
    expect(singleStream(points)).toBeNull();
  });

  test.each([
    [VLLM_RUN.results, 82.5],
    [SGLANG_NO_GRAPHS_RUN.results, 27],
    [SGLANG_GRAPHS_RUN.results, 63.6],
  ])("seed run → %d tok/s", (results, expected) => {
    expect(singleStream(results)).toEqual({ output_tok_s: expected, derived: false });
  });
});

describe("peakThroughput", () => {
  it("picks the largest output throughput with its concurrency", () => {
    expect(
      peakThroughput([
        { concurrency: 1, output_throughput: 63.6 },
        { concurrency: 64, output_throughput: 2400 },
        { concurrency: 128, output_throughput: 2370 },
      ]),
    ).toEqual({ output_tok_s: 2400, concurrency: 64, request_rate: null });
  });

  it("ignores null, missing and zero throughput", () => {
    expect(
      peakThroughput([
        { concurrency: 1, output_throughput: null },
        { concurrency: 2 },
        { concurrency: 4, output_throughput: 0 },
        { concurrency: 8, output_throughput: 310 },
      ]),
    ).toEqual({ output_tok_s: 310, concurrency: 8, request_rate: null });
  });

  it("keeps the first point when two tie", () => {
    expect(
      peakThroughput([
        { concurrency: 64, output_throughput: 2000 },
        { concurrency: 128, output_throughput: 2000 },
      ]),
    ).toEqual({ output_tok_s: 2000, concurrency: 64, request_rate: null });
  });

  test.each<[HeadlinePointInput[], number, number | "inf"]>([
    [
      [
        { request_rate: 4, output_throughput: 900 },
        { request_rate: "inf", output_throughput: 2300 },
      ],
      2300,
      "inf",
    ],
    [
      [
        { request_rate: 4, output_throughput: 900 },
        { request_rate: 16, output_throughput: 850 },
      ],
      900,
      4,
    ],
  ])("gives request-rate points concurrency null: %j", (points, value, rate) => {
    expect(peakThroughput(points)).toEqual({ output_tok_s: value, concurrency: null, request_rate: rate });
  });

  test.each<[string, HeadlinePointInput[]]>([
    ["no points", []],
    [
      "only zero and null throughput",
      [
        { concurrency: 1, output_throughput: 0 },
        { concurrency: 2, output_throughput: null },
      ],
    ],
  ])("is null with %s", (_label, points) => {
    expect(peakThroughput(points)).toBeNull();
  });

  test.each([
    [VLLM_RUN.results, 1536],
    [SGLANG_NO_GRAPHS_RUN.results, 2216],
    [SGLANG_GRAPHS_RUN.results, 2370],
  ])("seed run → %d tok/s at C=128", (results, expected) => {
    expect(peakThroughput(results)).toEqual({ output_tok_s: expected, concurrency: 128, request_rate: null });
  });
});

describe("headline", () => {
  it("combines single stream and peak", () => {
    expect(headline(SGLANG_NO_GRAPHS_RUN.results)).toEqual({
      single_stream: { output_tok_s: 27, derived: false },
      peak: { output_tok_s: 2216, concurrency: 128, request_rate: null },
    });
  });

  it("derives single stream from TPOT while the peak comes from throughput", () => {
    expect(
      headline([
        { concurrency: 1, mean_tpot_ms: 15.625 },
        { concurrency: 32, output_throughput: 1200 },
      ]),
    ).toEqual({
      single_stream: { output_tok_s: 64, derived: true },
      peak: { output_tok_s: 1200, concurrency: 32, request_rate: null },
    });
  });

  it("is all null for no points", () => {
    expect(headline([])).toEqual({ single_stream: null, peak: null });
  });
});
