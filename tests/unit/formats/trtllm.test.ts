import { describe, expect, it, test } from "vitest";
import { decodeText } from "@/lib/formats/decode";
import { trtllmBenchParser } from "@/lib/formats/trtllm";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Raw = Record<string, Record<string, unknown>>;

const STREAMING = "trtllm/hand-made-streaming.json";
const THROUGHPUT = "trtllm/hand-made-throughput.json";

/** A copy of a fixture with some fields replaced: `{ "performance.total_latency_ms": 1 }`; undefined deletes. */
function variant(fixture: string, changes: Record<string, unknown>, name = "variant.json"): SourceFile {
  const raw = structuredClone(readFixtureJson(fixture)) as Record<string, unknown>;
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split(".");
    let target = raw as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
    const last = keys[keys.length - 1]!;
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  // Python's json writes bare NaN; the placeholder becomes one.
  return decodeText(name, JSON.stringify(raw, null, 2).replace(/"__NaN__"/g, "NaN"));
}

function parseError(file: SourceFile): FormatError {
  try {
    trtllmBenchParser.parse(file);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected a FormatError");
}

describe("trtllm-bench --report_json, streaming (hand-made-streaming.json: `trtllm-bench latency`, PyTorch, Eagle)", () => {
  const file = loadFixture(STREAMING);
  const raw = readFixtureJson(STREAMING) as Raw;
  const fragments = trtllmBenchParser.parse(file);
  const point = fragments[0]!.points[0]!;

  it("is detected and is one point", () => {
    expect(trtllmBenchParser.detect(file)).toBe(true);
    expect(fragments).toHaveLength(1);
    expect(fragments[0]?.format).toBe("trtllm-bench");
    expect(fragments[0]?.part).toBe("");
    expect(fragments[0]?.points).toHaveLength(1);
    expect(fragments[0]?.warnings).toEqual([]);
  });

  it("files it at concurrency 1: max_batch_size 1 and requests submitted one at a time", () => {
    expect(point.concurrency).toBe(1);
    expect(point.request_rate).toBeUndefined();
    expect(point.sources?.concurrency).toBe("world_info.max_batch_size");
  });

  it("carries the performance figures, with the run duration in seconds", () => {
    const perf = raw.performance!;
    const latency = perf.request_latency_percentiles_ms as Record<string, number>;
    expect(point.completed).toBe(50);
    expect(point.duration_s).toBeCloseTo((perf.total_latency_ms as number) / 1000, 9);
    expect(point.request_throughput).toBe(perf.request_throughput_req_s);
    expect(point.output_throughput).toBe(perf.system_output_throughput_tok_s);
    expect(point.total_token_throughput).toBe(perf.system_total_throughput_tok_s);
    expect(point.mean_e2el_ms).toBe(perf.avg_request_latency_ms);
    expect(point.median_e2el_ms).toBe(latency.p50);
    expect(point.p90_e2el_ms).toBe(latency.p90);
    expect(point.p95_e2el_ms).toBe(latency.p95);
    expect(point.p99_e2el_ms).toBe(latency.p99);
    expect(point.sources).toMatchObject({
      completed: "request_info.num_requests",
      duration_s: "performance.total_latency_ms",
      request_throughput: "performance.request_throughput_req_s",
      output_throughput: "performance.system_output_throughput_tok_s",
      total_token_throughput: "performance.system_total_throughput_tok_s",
      mean_e2el_ms: "performance.avg_request_latency_ms",
      median_e2el_ms: "performance.request_latency_percentiles_ms.p50",
      p99_e2el_ms: "performance.request_latency_percentiles_ms.p99",
    });
  });

  it("takes TTFT and TPOT (first token excluded) from streaming_metrics, in ms", () => {
    const streaming = raw.streaming_metrics!;
    const ttft = streaming.ttft_percentiles as Record<string, number>;
    const tpot = streaming.tpot_percentiles as Record<string, number>;
    expect(point.mean_ttft_ms).toBe(12.1);
    expect(point.median_ttft_ms).toBe(ttft.p50);
    expect(point.p90_ttft_ms).toBe(ttft.p90);
    expect(point.p95_ttft_ms).toBe(ttft.p95);
    expect(point.p99_ttft_ms).toBe(ttft.p99);
    expect(point.mean_tpot_ms).toBe(6.4992);
    expect(point.median_tpot_ms).toBe(tpot.p50);
    expect(point.p90_tpot_ms).toBe(tpot.p90);
    expect(point.p95_tpot_ms).toBe(tpot.p95);
    expect(point.p99_tpot_ms).toBe(tpot.p99);
    expect(point.sources?.mean_tpot_ms).toBe("streaming_metrics.avg_tpot_ms");
    expect(point.sources?.p99_tpot_ms).toBe("streaming_metrics.tpot_percentiles.p99");
    expect(point.sources?.mean_ttft_ms).toBe("streaming_metrics.avg_ttft_ms");
    expect(point.mean_e2el_per_token_ms).toBeUndefined();
    expect(point.mean_itl_ms).toBeUndefined();
  });

  it("states engine, version, model, GPUs, flags, workload and speculative decoding", () => {
    const context = fragments[0]!.context;
    expect(context.engine).toBe("tensorrt-llm");
    expect(context.engine_version).toBe("1.0.0rc6");
    expect(context.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(context.hardware).toEqual({ gpu_count: 1 });
    expect(context.flags).toEqual({
      "--tp-size": 1,
      "--pp-size": 1,
      "--ep-size": 1,
      "--max-batch-size": 1,
      "--max-num-tokens": 8192,
      "--kv-cache-free-gpu-memory-fraction": 0.9,
      "--scheduler-policy": "guaranteed_no_evict",
    });
    expect(context.workload).toEqual({
      num_prompts: 50,
      input_len: 128,
      output_len: 128,
      dataset: "synthetic_128_128.txt",
    });
    expect(context.speculative).toEqual({ method: "Eagle", acceptance_rate: 0.5468 });
    expect(context.metadata).toMatchObject({
      streaming: true,
      backend: "Pytorch",
      quantization: "FP8",
      kv_cache_dtype: "FP8",
      avg_num_concurrent_requests: 0.9998,
      token_output_speed_tok_s: 153.8,
      acceptance_length: 2.64,
      output_throughput_per_user_tok_s: 152.88,
    });
    expect(context.measured_at).toBeUndefined();
  });
});

describe("trtllm-bench --report_json, not streaming (hand-made-throughput.json: `trtllm-bench throughput`, TRT engine, TP 2)", () => {
  const file = loadFixture(THROUGHPUT);
  const raw = readFixtureJson(THROUGHPUT) as Raw;
  const fragments = trtllmBenchParser.parse(file);
  const point = fragments[0]!.points[0]!;

  it("is detected and is one point", () => {
    expect(trtllmBenchParser.detect(file)).toBe(true);
    expect(fragments).toHaveLength(1);
    expect(fragments[0]?.part).toBe("");
  });

  it("files it at request rate inf, because every request was submitted at the start, and says so", () => {
    expect(point.request_rate).toBe("inf");
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("world_info.issue_rate");
    expect(fragments[0]?.warnings).toEqual([
      'trtllm/hand-made-throughput.json: trtllm-bench\'s report does not record --concurrency; filed at request rate "inf" ' +
        "(every request handed to the engine at once, trtllm-bench's default --concurrency -1). " +
        "Its 3000 requests were all submitted within the first 1.52 s of the 13.5 s run.",
    ]);
  });

  it("carries the figures the file states and no TTFT/TPOT (they need --streaming)", () => {
    const perf = raw.performance!;
    expect(point.completed).toBe(3000);
    expect(point.duration_s).toBeCloseTo(13.5256862, 9);
    expect(point.request_throughput).toBe(221.8002);
    expect(point.output_throughput).toBe(28390.4265);
    expect(point.total_token_throughput).toBe(56780.853);
    expect(point.mean_e2el_ms).toBe(perf.avg_request_latency_ms);
    expect(point.median_e2el_ms).toBe(12010.6447);
    expect(point.p99_e2el_ms).toBe(13470.5519);
    expect(Object.keys(point).filter((key) => /_(ttft|tpot|itl|e2el_per_token)_ms$/.test(key))).toEqual([]);
  });

  it("states world size as GPU count and TP 2 as a flag", () => {
    const context = fragments[0]!.context;
    expect(context.engine).toBe("tensorrt-llm");
    expect(context.engine_version).toBe("0.17.0");
    expect(context.model).toBe("meta-llama/Llama-3.1-8B");
    expect(context.hardware).toEqual({ gpu_count: 2 });
    expect(context.flags?.["--tp-size"]).toBe(2);
    expect(context.flags?.["--max-batch-size"]).toBe(4096);
    expect(context.speculative).toBeUndefined();
    expect(context.metadata).toMatchObject({ streaming: false, backend: "TRT", issue_rate: 5.0689e14 });
  });
});

describe("trtllm-bench load level", () => {
  test("requests submitted over most of the run mean an unrecorded --concurrency cap: refused, naming issue_rate", () => {
    // 3000 requests, 4.333 ms apart: submitted over 13 s of a 13.5 s run.
    const error = parseError(variant(THROUGHPUT, { "world_info.issue_rate": 4.333e15 }));
    expect(error.path).toBe("world_info.issue_rate");
    expect(error.message).toContain("--concurrency");
    expect(error.message).toContain("13.0 s of the 13.5 s run");
  });

  test("an issue rate written as a true rate in req/s is read as one", () => {
    const fast = trtllmBenchParser.parse(variant(THROUGHPUT, { "world_info.issue_rate": 1972.8 }));
    expect(fast[0]?.points[0]?.request_rate).toBe("inf");
    expect(parseError(variant(THROUGHPUT, { "world_info.issue_rate": 230 })).path).toBe("world_info.issue_rate");
  });

  test("max_batch_size 1 with requests submitted all at once is still request rate inf (they queued)", () => {
    const queued = trtllmBenchParser.parse(variant(THROUGHPUT, { "world_info.max_batch_size": 1 }));
    expect(queued[0]?.points[0]?.request_rate).toBe("inf");
    expect(queued[0]?.points[0]?.concurrency).toBeUndefined();
  });

  test("without an issue rate: max_batch_size 1 is concurrency 1; otherwise the default, with a warning", () => {
    const serial = trtllmBenchParser.parse(variant(STREAMING, { "world_info.issue_rate": undefined }));
    expect(serial[0]?.points[0]?.concurrency).toBe(1);
    expect(serial[0]?.warnings).toEqual([]);
    const unknown = trtllmBenchParser.parse(variant(THROUGHPUT, { "world_info.issue_rate": undefined }));
    expect(unknown[0]?.points[0]?.request_rate).toBe("inf");
    expect(unknown[0]?.points[0]?.sources?.request_rate).toContain("not recorded");
    expect(unknown[0]?.warnings[0]).toContain("could not be checked");
  });
});

describe("trtllm-bench traps", () => {
  test("numbers written as strings are read", () => {
    const file = variant(STREAMING, {
      "performance.system_output_throughput_tok_s": "152.8358",
      "performance.request_latency_percentiles_ms.p99": "851.7",
      "request_info.num_requests": "50",
      "world_info.world_size": "1",
      "streaming_metrics.avg_tpot_ms": "6.4992",
    });
    const point = trtllmBenchParser.parse(file)[0]!.points[0]!;
    expect(point.output_throughput).toBe(152.8358);
    expect(point.p99_e2el_ms).toBe(851.7);
    expect(point.completed).toBe(50);
    expect(point.mean_tpot_ms).toBe(6.4992);
  });

  test("PercentileStats: p50 … p99 go to their fields; another pNN to percentiles; average is the mean again", () => {
    const fragment = trtllmBenchParser.parse(loadFixture(STREAMING))[0]!;
    // trtllm-bench writes p50, p90, p95, p99, minimum, maximum and average: no percentile beyond the fixed fields.
    expect(fragment.points[0]?.percentiles).toBeUndefined();
    expect(fragment.notImported).toContainEqual({
      file: STREAMING,
      field: "streaming_metrics.ttft_percentiles.average",
      value: 12.1,
      reason: "the mean again: the point keeps it from streaming_metrics.avg_ttft_ms",
    });
    const more = trtllmBenchParser.parse(
      variant(STREAMING, {
        "streaming_metrics.ttft_percentiles.p75": 12.6,
        "streaming_metrics.avg_ttft_ms": undefined,
      }),
    )[0]!;
    expect(more.points[0]?.percentiles).toEqual({ ttft: { p75: 12.6 } });
    // Without its own average line, the percentiles' average is the mean.
    expect(more.points[0]?.mean_ttft_ms).toBe(12.1);
    expect(more.points[0]?.sources?.mean_ttft_ms).toBe("streaming_metrics.ttft_percentiles.average");
  });

  test("a NaN figure is no data with a warning", () => {
    const fragment = trtllmBenchParser.parse(
      variant(STREAMING, { "streaming_metrics.avg_tpot_ms": "__NaN__" }, "nan.json"),
    )[0]!;
    expect(fragment.points[0]?.mean_tpot_ms).toBeUndefined();
    expect(fragment.points[0]?.median_tpot_ms).toBe(6.4987);
    expect(fragment.warnings).toEqual(["nan.json: streaming_metrics.avg_tpot_ms is NaN; stored as no data."]);
  });

  test("a report whose figures are all 0 is no data, never a 0 tok/s point", () => {
    const zeros: Record<string, unknown> = {};
    for (const key of [
      "request_throughput_req_s",
      "system_output_throughput_tok_s",
      "system_total_throughput_tok_s",
      "avg_request_latency_ms",
      "total_latency_ms",
    ]) {
      zeros[`performance.${key}`] = 0;
    }
    for (const key of ["p50", "p90", "p95", "p99"]) zeros[`performance.request_latency_percentiles_ms.${key}`] = 0;
    for (const key of ["p50", "p90", "p95", "p99"]) {
      zeros[`streaming_metrics.ttft_percentiles.${key}`] = 0;
      zeros[`streaming_metrics.tpot_percentiles.${key}`] = 0;
    }
    zeros["streaming_metrics.avg_ttft_ms"] = 0;
    zeros["streaming_metrics.avg_tpot_ms"] = 0;
    zeros["request_info.num_requests"] = undefined;
    const fragment = trtllmBenchParser.parse(variant(STREAMING, zeros, "zeros.json"))[0]!;
    // Only the level and the run's duration remain.
    expect(fragment.points[0]).toEqual({
      concurrency: 1,
      duration_s: 0,
      sources: { concurrency: "world_info.max_batch_size", duration_s: "performance.total_latency_ms" },
    });
    expect(fragment.warnings.some((warning) => warning.includes("no data"))).toBe(true);
  });

  test("a figure of the wrong type is a FormatError naming its path", () => {
    const error = parseError(variant(STREAMING, { "performance.system_output_throughput_tok_s": { value: 1 } }));
    expect(error.path).toBe("performance.system_output_throughput_tok_s");
    expect(error.message).toContain("an object");
    expect(parseError(variant(STREAMING, { "streaming_metrics.ttft_percentiles.p99": [1] })).path).toBe(
      "streaming_metrics.ttft_percentiles.p99",
    );
  });
});

describe("trtllm-bench detection", () => {
  it("claims no other tool's file", () => {
    const others: Record<string, unknown> = {
      vllm: { backend: "vllm", model_id: "m", max_concurrency: 4, output_throughput: 10, mean_tpot_ms: 5 },
      guidellm: { benchmarks: [{ metrics: {} }] },
      aiperf: { output_token_throughput: { avg: 1, unit: "tokens/sec" }, input_config: {} },
      llmperf: { results_mean_output_throughput_token_per_s: 1, num_concurrent_requests: 1 },
      inferencePerf: { load_summary: { count: 1 }, successes: { throughput: { output_tokens_per_sec: 1 } } },
      llamaBench: [{ build_commit: "a", n_prompt: 0, n_gen: 128, avg_ts: 1 }],
      llmd: { version: "0.2", run: { uid: "x" }, results: { request_performance: {} } },
      servebench: { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] },
      engineOnly: { engine: { model: "m" }, world_info: {} },
      nullish: null,
      list: [1, 2],
    };
    for (const [name, data] of Object.entries(others)) {
      expect(trtllmBenchParser.detect({ name, kind: "json", data, bytes: 1 }), name).toBe(false);
    }
    const report = readFixtureJson(STREAMING);
    expect(trtllmBenchParser.detect({ name: "x.yaml", kind: "yaml", data: report, bytes: 1 })).toBe(false);
    expect(trtllmBenchParser.detect({ name: "x.jsonl", kind: "jsonl", data: [report, report], bytes: 1 })).toBe(false);
  });

  it("does not claim the llama-bench or llm-d fixtures", () => {
    for (const name of [...fixtureFiles("llama-bench"), ...fixtureFiles("llm-d-benchmark-report")]) {
      let file: SourceFile;
      try {
        file = loadFixture(name);
      } catch {
        continue;
      }
      expect(trtllmBenchParser.detect(file), name).toBe(false);
    }
  });
});
