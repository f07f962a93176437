import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { decodeText } from "@/lib/formats/decode";
import { sglangBenchServingParser, sglangOneBatchServerParser } from "@/lib/formats/sglang";
import { FormatError, type Fragment, type SourceFile } from "@/lib/formats/types";
import { vllmBenchServeParser, vllmSweepParser } from "@/lib/formats/vllm";
import { fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Json = Record<string, unknown>;

const SWEEP = "vllm/vllm_sweep_v0.25.1";
const SWEEP_4 = `${SWEEP}/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8`;
const SWEEP_8 = `${SWEEP}/SERVE--max_num_seqs=8-BENCH--max_concurrency=2-num_prompts=8`;

const PLAIN_FILES = [
  "vllm/bench_serve_v0.25.1.json",
  "vllm/bench_serve_all_requests_failed_v0.25.1.json",
  "vllm/benchmark_2025-05-13_04-55-27.json",
  "vllm/benchmark_2025-05-13_05-00-45.json",
  "vllm/hand-made-append-result.jsonl",
  "vllm/hand-made-strings-as-numbers.json",
  "vllm/hand-made-broken-figure.json",
  "vllm/inferencex-multinode/concurrency_4_req_rate_inf_gpus_16_ctx_8_gen_8.json",
];
const SWEEP_FILES = [
  `${SWEEP_4}/run=0.json`,
  `${SWEEP_4}/run=1.json`,
  `${SWEEP_4}/summary.json`,
  `${SWEEP_8}/run=0.json`,
  `${SWEEP_8}/run=1.json`,
  `${SWEEP_8}/summary.json`,
  "vllm/hand-made-sweep-run.json",
];

function json(path: string): Json {
  return readFixtureJson(path) as Json;
}

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

function onlyPoint(fragment: Fragment): ResultPoint {
  return only(fragment.points);
}

function inline(value: unknown, name = "inline.json"): SourceFile {
  return decodeText(name, JSON.stringify(value));
}

function formatError(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error("expected a FormatError");
}

/** Every figure vLLM writes, compared with the point, with its source field name. */
function expectPayloadFigures(point: ResultPoint, raw: Json): void {
  expect(point.completed).toBe(raw.completed);
  expect(point.sources?.completed).toBe("completed");
  if (raw.failed !== undefined) {
    expect(point.failed).toBe(raw.failed);
    expect(point.sources?.failed).toBe("failed");
  }
  expect(point.duration_s).toBeCloseTo(raw.duration as number, 9);
  expect(point.sources?.duration_s).toBe("duration");
  for (const key of [
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "output_throughput",
    "total_token_throughput",
  ] as const) {
    expect(point[key]).toBeCloseTo(raw[key] as number, 9);
    expect(point.sources?.[key]).toBe(key);
  }
  let latencies = 0;
  for (const [key, value] of Object.entries(raw)) {
    const match = /^(mean|median|std|p90|p95|p99)_(ttft|tpot|itl|e2el)_ms$/.exec(key);
    if (!match) continue;
    latencies += 1;
    expect(point[key as keyof ResultPoint]).toBeCloseTo(value as number, 9);
    expect(point.sources?.[key]).toBe(key);
  }
  expect(latencies).toBeGreaterThan(0);
}

const OTHER_TOOL_SHAPES: Record<string, unknown> = {
  "SGLang bench_serving line": {
    backend: "sglang",
    dataset_name: "random",
    request_rate: 4,
    max_concurrency: null,
    total_input_tokens: 1000,
    total_output_tokens: 900,
    total_output_tokens_retokenized: 899,
    mean_e2e_latency_ms: 1200,
    median_ttft_ms: 80,
    output_throughput: 300,
    duration: 3,
    completed: 10,
  },
  "SGLang bench_one_batch_server line": {
    run_name: "default",
    batch_size: 16,
    input_len: 1024,
    output_len: 8,
    latency: 0.4,
    output_throughput: 319,
    overall_throughput: 41156,
  },
  "GuideLLM benchmarks.json": {
    benchmarks: [{ type_: "generative_benchmark", metrics: { output_tokens_per_second: { successful: { mean: 1 } } } }],
  },
  "LLMPerf summary": {
    model: "m",
    num_concurrent_requests: 4,
    results_mean_output_throughput_token_per_s: "550",
    results_ttft_s_mean: 0.1,
  },
  "AIPerf profile export": {
    output_token_throughput: { unit: "tokens/sec", avg: 100 },
    input_config: { loadgen: { concurrency: 4 } },
  },
  "servebench/v1": {
    format: "servebench/v1",
    engine: "vllm",
    model: "m",
    results: [{ concurrency: 1, output_throughput: 1 }],
  },
  "trtllm-bench report": {
    engine: { model: "m" },
    world_info: { tp_size: 1 },
    performance: { system_output_throughput_tok_s: 100 },
  },
  "inference-perf stage": {
    load_summary: { concurrency: 4 },
    successes: { throughput: { output_tokens_per_sec: 10 } },
  },
  "llama-bench": [{ model_type: "llama 8B", n_prompt: 512, n_gen: 0, avg_ns: 1000, avg_ts: 500 }],
};

describe("vllmBenchServeParser: detection", () => {
  test.each(PLAIN_FILES)("claims %s and no other vLLM/SGLang parser does", (path) => {
    const file = loadFixture(path);
    expect(vllmBenchServeParser.detect(file)).toBe(true);
    expect(vllmSweepParser.detect(file)).toBe(false);
    expect(sglangBenchServingParser.detect(file)).toBe(false);
    expect(sglangOneBatchServerParser.detect(file)).toBe(false);
  });

  test.each(SWEEP_FILES)("leaves the sweep file %s to the sweep parser", (path) => {
    expect(vllmBenchServeParser.detect(loadFixture(path))).toBe(false);
  });

  test.each(Object.entries(OTHER_TOOL_SHAPES))("does not claim a %s", (_name, value) => {
    const file = inline(value);
    expect(vllmBenchServeParser.detect(file)).toBe(false);
    expect(vllmSweepParser.detect(file)).toBe(false);
  });

  it("does not claim the other tools' fixture files", () => {
    const folders = [
      "guidellm",
      "aiperf",
      "llmperf",
      "inference-perf",
      "llama-bench",
      "llm-d-benchmark-report",
      "trtllm",
      "servebench",
      "sglang",
      "vllm-bench-rs",
    ];
    let checked = 0;
    for (const folder of folders) {
      let files: string[];
      try {
        files = fixtureFiles(folder);
      } catch {
        continue; // that tool's fixtures are not in this checkout
      }
      for (const path of files) {
        let file: SourceFile;
        try {
          file = loadFixture(path);
        } catch {
          continue; // not a text format the decoder reads (an archive, say)
        }
        expect(vllmBenchServeParser.detect(file), path).toBe(false);
        expect(vllmSweepParser.detect(file), path).toBe(false);
        checked += 1;
      }
    }
    // The SGLang fixtures alone are in every checkout of this test.
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it("never throws and rejects anything that is not a payload", () => {
    const odd: SourceFile[] = [
      { name: "a", kind: "json", data: null, bytes: 4 },
      { name: "b", kind: "json", data: 42, bytes: 2 },
      { name: "c", kind: "json", data: "text", bytes: 6 },
      { name: "d", kind: "json", data: [], bytes: 2 },
      { name: "e", kind: "jsonl", data: [], bytes: 0 },
      { name: "f", kind: "jsonl", data: [null, 1], bytes: 8 },
      {
        name: "g",
        kind: "csv",
        data: [
          ["completed", "model_id"],
          ["8", "m"],
        ],
        bytes: 20,
      },
      { name: "h", kind: "yaml", data: { completed: 8, model_id: "m", duration: 1 }, bytes: 30 },
      { name: "i", kind: "json", data: { completed: 8, duration: 1 }, bytes: 30 },
    ];
    for (const file of odd) {
      expect(() => vllmBenchServeParser.detect(file)).not.toThrow();
      expect(vllmBenchServeParser.detect(file)).toBe(false);
      expect(vllmSweepParser.detect(file)).toBe(false);
    }
  });

  it("rejects JSON lines where one line is not a vLLM payload", () => {
    const good = json("vllm/bench_serve_v0.25.1.json");
    const file = decodeText(
      "mixed.jsonl",
      `${JSON.stringify(good)}\n${JSON.stringify(OTHER_TOOL_SHAPES["SGLang bench_serving line"])}\n`,
    );
    expect(file.kind).toBe("jsonl");
    expect(vllmBenchServeParser.detect(file)).toBe(false);
  });
});

describe("vllmBenchServeParser: real files", () => {
  it("reads vllm bench serve --save-result of vLLM 0.25.1", () => {
    const path = "vllm/bench_serve_v0.25.1.json";
    const raw = json(path);
    const fragment = only(vllmBenchServeParser.parse(loadFixture(path)));
    expect(fragment.format).toBe("vllm-bench-serve");
    expect(fragment.file).toBe(path);
    expect(fragment.part).toBe("");
    expect(fragment.warnings).toEqual([]);
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(2);
    expect(point.sources?.concurrency).toBe("max_concurrency");
    expect(point.request_rate).toBe("inf");
    expect(point.sources?.request_rate).toBe("request_rate");
    expectPayloadFigures(point, raw);
    expect(point.mean_tpot_ms).toBeCloseTo(11.265828258331112, 12);
    expect(point.p99_ttft_ms).toBeCloseTo(734.4049174101428, 12);
    expect(point.mean_e2el_ms).toBeUndefined();
    // backend/endpoint_type "vllm" is the client's API style, not the engine.
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.model).toBe("facebook/opt-125m");
    expect(fragment.context.measured_at).toBe("2026-08-16T16:08:53Z");
    expect(fragment.context.workload).toEqual({ num_prompts: 8 });
    expect(fragment.context.flags).toBeUndefined();
    expect(fragment.context.metadata).toEqual({
      backend: "vllm",
      max_concurrent_requests: 6,
      max_output_tokens_per_s: 85,
    });
  });

  it("turns the all-requests-failed file into a no-data point with a warning", () => {
    const path = "vllm/bench_serve_all_requests_failed_v0.25.1.json";
    const raw = json(path);
    const fragment = only(vllmBenchServeParser.parse(loadFixture(path)));
    const point = onlyPoint(fragment);
    expect(point.request_rate).toBe("inf");
    expect(point.concurrency).toBeUndefined(); // max_concurrency null = unlimited
    expect(point.completed).toBe(0);
    expect(point.failed).toBe(8);
    expect(point.duration_s).toBeCloseTo(raw.duration as number, 12);
    for (const key of [
      "output_throughput",
      "total_token_throughput",
      "request_throughput",
      "mean_ttft_ms",
      "mean_tpot_ms",
      "p99_itl_ms",
      "total_input_tokens",
    ] as const) {
      expect(point[key], key).toBeUndefined();
      expect(point.sources?.[key], key).toBeUndefined();
    }
    expect(fragment.warnings).toHaveLength(1);
    expect(fragment.warnings[0]).toContain("no request completed (8 failed)");
    expect(fragment.context.model).toBe("facebook/opt-125m");
    expect(fragment.context.measured_at).toBe("2026-08-18T04:13:50Z");
  });

  it("keeps p99.9 of every metric (--metric-percentiles 90,99,99.9, InferenceX's multi-node results) in percentiles", () => {
    const path = "vllm/inferencex-multinode/concurrency_4_req_rate_inf_gpus_16_ctx_8_gen_8.json";
    const raw = json(path);
    const fragment = only(vllmBenchServeParser.parse(loadFixture(path)));
    const point = onlyPoint(fragment);
    expectPayloadFigures(point, raw);
    expect(point.concurrency).toBe(4);
    expect(point.p99_ttft_ms).toBe(987.5254542799665);
    expect(point.percentiles).toEqual({
      ttft: { "p99.9": 1082.7990462793985 },
      tpot: { "p99.9": 8.429241839897129 },
      itl: { "p99.9": 9.727208444615831 },
      e2el: { "p99.9": 9560.362910952654 },
    });
    expect(point.sources).toMatchObject({
      "percentiles.ttft.p99.9": "p99.9_ttft_ms",
      "percentiles.tpot.p99.9": "p99.9_tpot_ms",
      "percentiles.itl.p99.9": "p99.9_itl_ms",
      "percentiles.e2el.p99.9": "p99.9_e2el_ms",
    });
    expect(fragment.notImported).toEqual([]);
    expect(fragment.warnings).toEqual([]);
  });

  test.each([
    ["vllm/benchmark_2025-05-13_04-55-27.json", 3.6, 200, "2025-05-13T04:56:48Z", "2025-05-13_04-55-27,model"],
    ["vllm/benchmark_2025-05-13_05-00-45.json", 5.5, 250, "2025-05-13T05:01:46Z", "2025-05-13_05-00-45,model"],
  ])(
    "reads the older benchmark_serving.py file %s (p95, request_goodput: key, unlimited concurrency)",
    (path, rate, prompts, date, stamp) => {
      const raw = json(path);
      const fragment = only(vllmBenchServeParser.parse(loadFixture(path)));
      const point = onlyPoint(fragment);
      expect(point.request_rate).toBe(rate);
      expect(point.concurrency).toBeUndefined();
      expect(point.failed).toBeUndefined(); // that version did not write it
      expectPayloadFigures(point, raw);
      expect(point.p95_ttft_ms).toBeCloseTo(raw.p95_ttft_ms as number, 12);
      expect(point.sources?.p95_itl_ms).toBe("p95_itl_ms");
      expect(fragment.warnings).toEqual([]);
      expect(fragment.context.engine).toBeUndefined();
      expect(fragment.context.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
      expect(fragment.context.measured_at).toBe(date);
      expect(fragment.context.workload).toEqual({ num_prompts: prompts });
      // "request_goodput:" is null; the stray "timestamp" string is a --metadata value.
      expect(fragment.context.metadata).toEqual({ backend: "openai", burstiness: 100, timestamp: stamp });
    },
  );
});

describe("vllmBenchServeParser: hand-made files", () => {
  it("reads --append-result JSON lines as one fragment per line, ignoring per-request arrays", () => {
    const path = "vllm/hand-made-append-result.jsonl";
    const file = loadFixture(path);
    expect(file.kind).toBe("jsonl");
    const fragments = vllmBenchServeParser.parse(file);
    expect(fragments.map((f) => f.part)).toEqual(["line 1", "line 2", "line 3"]);
    const lines = (file.data as Json[]).map((line) => line);
    fragments.forEach((fragment, index) => {
      const raw = lines[index] as Json;
      const point = onlyPoint(fragment);
      expectPayloadFigures(point, raw);
      expect(point.mean_e2el_ms).toBeCloseTo(raw.mean_e2el_ms as number, 12);
      expect(point.sources?.p90_ttft_ms).toBe("p90_ttft_ms");
      // p50 is the median, which the line states too: reported as the same figure, not kept twice.
      expect(point.sources?.median_ttft_ms).toBe("median_ttft_ms");
      expect(Object.values(point.sources ?? {})).not.toContain("p50_ttft_ms");
      expect(fragment.notImported).toContainEqual({
        file: path,
        field: `line ${index + 1}.p50_ttft_ms`,
        value: raw.p50_ttft_ms,
        reason: "the 50th percentile, which is the median: the point keeps it from median_ttft_ms",
      });
      // p99.9 has no field of its own: it is in `percentiles`, with its source.
      for (const metric of ["ttft", "tpot", "itl", "e2el"] as const) {
        expect(point.percentiles?.[metric]).toEqual({ "p99.9": raw[`p99.9_${metric}_ms`] });
        expect(point.sources?.[`percentiles.${metric}.p99.9`]).toBe(`p99.9_${metric}_ms`);
      }
      expect(fragment.context.model).toBe("Qwen/Qwen3-8B");
      expect(fragment.context.engine).toBeUndefined();
      expect(fragment.context.metadata?.gpu).toBe("H100 80GB");
      expect(fragment.context.metadata?.run_id).toBe("r17");
      expect(fragment.warnings).toEqual([]);
    });
    expect(fragments.map((f) => onlyPoint(f).concurrency)).toEqual([1, 8, 32]);
    expect(fragments.map((f) => onlyPoint(f).request_rate)).toEqual(["inf", "inf", 16]);
    expect(onlyPoint(fragments[2] as Fragment).failed).toBe(1);
    expect(onlyPoint(fragments[0] as Fragment).p99_e2el_ms).toBeCloseTo(911.6, 9);
    expect(fragments[2]?.context.metadata?.spec_decode_acceptance_rate_percent).toBe(61.5);
    expect(fragments[2]?.context.metadata?.spec_decode_acceptance_length).toBe(2.845);
    expect(fragments[2]?.context.workload).toEqual({ num_prompts: 256 });
    expect(fragments[0]?.context.measured_at).toBe("2026-03-01T10:15:00Z");
    const stored = JSON.stringify(fragments);
    for (const array of [
      "generated_texts",
      "Once upon a time",
      "ttfts",
      "itls",
      "input_lens",
      "start_times",
      "errors",
    ]) {
      expect(stored).not.toContain(array);
    }
  });

  it("reads numbers written as strings", () => {
    const fragment = only(vllmBenchServeParser.parse(loadFixture("vllm/hand-made-strings-as-numbers.json")));
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(8);
    expect(point.request_rate).toBe(4);
    expect(point.completed).toBe(100);
    expect(point.output_throughput).toBe(1234.56);
    expect(point.total_token_throughput).toBe(2469.12);
    expect(point.mean_ttft_ms).toBe(45);
    expect(point.sources?.output_throughput).toBe("output_throughput");
    expect(fragment.context.metadata?.max_concurrent_requests).toBe(8);
  });

  it("rejects a figure of the wrong type, naming its path", () => {
    const error = formatError(() => vllmBenchServeParser.parse(loadFixture("vllm/hand-made-broken-figure.json")));
    expect(error.path).toBe("output_throughput");
    expect(error.message).toContain("an object");
  });
});

describe("vllmBenchServeParser: traps, inline", () => {
  const base = json("vllm/bench_serve_v0.25.1.json");

  it("names the line of a broken JSONL entry", () => {
    const broken = { ...base, completed: [8] };
    const file = decodeText("runs.jsonl", `${JSON.stringify(base)}\n${JSON.stringify(broken)}\n`);
    const error = formatError(() => vllmBenchServeParser.parse(file));
    expect(error.path).toBe("line 2.completed");
  });

  it("refuses a payload without any load level", () => {
    const error = formatError(() =>
      vllmBenchServeParser.parse(inline({ ...base, max_concurrency: null, request_rate: null })),
    );
    expect(error.path).toBe("request_rate");
  });

  it("reads a one-line JSONL file (decoded as one object) with part ''", () => {
    const file = decodeText("one.jsonl", `${JSON.stringify(base)}\n`);
    expect(file.kind).toBe("json");
    expect(only(vllmBenchServeParser.parse(file)).part).toBe("");
  });

  it("accepts the ways an unlimited request rate is written", () => {
    for (const rate of ["inf", "Infinity", -1]) {
      expect(onlyPoint(only(vllmBenchServeParser.parse(inline({ ...base, request_rate: rate })))).request_rate).toBe(
        "inf",
      );
    }
    const bare = decodeText(
      "bare.json",
      JSON.stringify({ ...base, request_rate: 1 }).replace('"request_rate":1', '"request_rate":Infinity'),
    );
    expect(onlyPoint(only(vllmBenchServeParser.parse(bare))).request_rate).toBe("inf");
  });

  it("stores NaN and infinite figures as no data, with warnings", () => {
    const text = JSON.stringify({ ...base, mean_ttft_ms: 1, p99_itl_ms: 2 })
      .replace('"mean_ttft_ms":1', '"mean_ttft_ms":NaN')
      .replace('"p99_itl_ms":2', '"p99_itl_ms":Infinity');
    const fragment = only(vllmBenchServeParser.parse(decodeText("nan.json", text)));
    const point = onlyPoint(fragment);
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point.p99_itl_ms).toBeUndefined();
    expect(point.median_ttft_ms).toBeCloseTo(base.median_ttft_ms as number, 12);
    expect(fragment.warnings).toEqual([
      "nan.json: p99_itl_ms is infinite; stored as no data.",
      "nan.json: mean_ttft_ms is NaN; stored as no data.",
    ]);
  });

  it("takes p50 as the median only when the median is missing", () => {
    const { median_ttft_ms: _median, ...rest } = base;
    const point = onlyPoint(only(vllmBenchServeParser.parse(inline({ ...rest, p50_ttft_ms: 54.5 }))));
    expect(point.median_ttft_ms).toBe(54.5);
    expect(point.sources?.median_ttft_ms).toBe("p50_ttft_ms");
  });

  it("keeps every percentile --metric-percentiles asked for, 20 per metric at most (the highest), the rest reported", () => {
    // --metric-percentiles 1,2,…,30,99.9: 31 percentiles of TTFT, none of them the median, p90, p95 or p99.
    const extra: Json = {};
    for (let p = 1; p <= 30; p += 1) extra[`p${p}_ttft_ms`] = p * 10;
    extra["p99.9_ttft_ms"] = 999;
    extra.p25_tpot_ms = 9.5;
    const fragment = only(vllmBenchServeParser.parse(inline({ ...base, ...extra })));
    const point = onlyPoint(fragment);
    const ttft = point.percentiles?.ttft ?? {};
    // The 20 highest: p99.9 and p12 … p30.
    expect(Object.keys(ttft)).toHaveLength(20);
    expect(ttft["p99.9"]).toBe(999);
    expect(ttft.p30).toBe(300);
    expect(ttft.p12).toBe(120);
    expect(ttft.p11).toBeUndefined();
    expect(point.percentiles?.tpot).toEqual({ p25: 9.5 });
    expect(point.sources?.["percentiles.ttft.p12"]).toBe("p12_ttft_ms");
    const refused = fragment.notImported?.filter((entry) => /^p\d+_ttft_ms$/.test(entry.field)) ?? [];
    expect(refused.map((entry) => entry.field).sort()).toEqual(
      Array.from({ length: 11 }, (_, index) => `p${index + 1}_ttft_ms`).sort(),
    );
    expect(refused[0]?.reason).toBe(
      "one of the 31 percentiles of TTFT the file states besides the median, p90, p95 and p99: a point keeps 20 (the highest, from p12 up)",
    );
  });

  it("reports a percentile servebench cannot name exactly, and reads a look-alike's percentile in seconds", () => {
    const fragment = only(
      vllmBenchServeParser.parse(inline({ ...base, "p99.9999_ttft_ms": 812, "p99.9_ttft": 0.75, p99_ttft: 0.734 })),
    );
    const point = onlyPoint(fragment);
    expect(point.percentiles?.ttft).toEqual({ "p99.9": 750 });
    expect(point.sources?.["percentiles.ttft.p99.9"]).toBe("p99.9_ttft");
    expect(fragment.warnings).toEqual([
      "inline.json: p99.9_ttft has no _ms in the name: read as seconds (the modified benchmark_serving.py that writes such keys states them in s) and stored in ms.",
    ]);
    // p99_ttft beside p99_ttft_ms: the _ms key wins, the other is the same statistic again.
    expect(point.p99_ttft_ms).toBe(base.p99_ttft_ms);
    expect(fragment.notImported).toContainEqual({
      file: "inline.json",
      field: "p99_ttft",
      value: 0.734,
      reason:
        "the same statistic as p99_ttft_ms, which the point keeps (files that write it without _ms state it in seconds)",
    });
    expect(fragment.notImported).toContainEqual({
      file: "inline.json",
      field: "p99.9999_ttft_ms",
      value: 812,
      reason:
        "the 99.9999th percentile: servebench names percentiles with at most three decimals (p99.999), so it cannot hold this one exactly",
    });
  });

  it("refuses TPOT's extra percentiles with TPOT when the server sent no usage (0 output tokens counted)", () => {
    const noUsage = json("vllm/hand-made-no-usage-streamed.json");
    const fragment = only(
      vllmBenchServeParser.parse(inline({ ...noUsage, "p99.9_tpot_ms": 0, "p99.9_ttft_ms": 96.5 }, "no-usage.json")),
    );
    const point = onlyPoint(fragment);
    expect(point.percentiles).toEqual({ ttft: { "p99.9": 96.5 } });
    expect(point.sources?.["percentiles.tpot.p99.9"]).toBeUndefined();
    expect(fragment.notImported).toContainEqual({
      file: "no-usage.json",
      field: "p99.9_tpot_ms",
      value: 0,
      reason: "0 output tokens were counted although the requests streamed tokens: not a measurement",
    });
  });

  it("keeps both the concurrency cap and the request rate", () => {
    const point = onlyPoint(
      only(vllmBenchServeParser.parse(inline({ ...base, max_concurrency: 64, request_rate: 12.5 }))),
    );
    expect(point.concurrency).toBe(64);
    expect(point.request_rate).toBe(12.5);
  });

  it("warns that a ramp-up point is filed under the rate as written", () => {
    const fragment = only(
      vllmBenchServeParser.parse(
        inline({
          ...base,
          max_concurrency: null,
          ramp_up_strategy: "linear",
          ramp_up_start_rps: 1,
          ramp_up_end_rps: 20,
        }),
      ),
    );
    expect(onlyPoint(fragment).request_rate).toBe("inf");
    expect(fragment.warnings[0]).toContain("ramped linearly from 1 to 20 req/s");
    expect(fragment.context.metadata).toMatchObject({
      ramp_up_strategy: "linear",
      ramp_up_start_rps: 1,
      ramp_up_end_rps: 20,
    });
  });

  it("uses the label as the run's name and keeps --metadata strings, not other unknown values", () => {
    const fragment = only(
      vllmBenchServeParser.parse(inline({ ...base, label: "baseline", owner: "perf-team", some_number: 3 })),
    );
    expect(fragment.context.name).toBe("baseline");
    expect(fragment.context.metadata?.owner).toBe("perf-team");
    expect(fragment.context.metadata?.some_number).toBeUndefined();
  });

  it("reads a pooling (embedding) result, which has only end-to-end latency", () => {
    const pooling = {
      date: "20260101-000000",
      endpoint_type: "openai-embeddings",
      backend: "openai-embeddings",
      label: null,
      model_id: "BAAI/bge-m3",
      tokenizer_id: "BAAI/bge-m3",
      num_prompts: 100,
      request_rate: "inf",
      burstiness: 1.0,
      max_concurrency: 16,
      duration: 2.5,
      completed: 100,
      total_input_tokens: 51200,
      total_input_sequences: 100,
      request_throughput: 40,
      input_sequence_throughput: 40,
      total_token_throughput: 20480,
      mean_e2el_ms: 390.1,
      median_e2el_ms: 380.2,
      std_e2el_ms: 20.3,
      p99_e2el_ms: 450.4,
    };
    const point = onlyPoint(only(vllmBenchServeParser.parse(inline(pooling))));
    expect(point.concurrency).toBe(16);
    expect(point.total_token_throughput).toBe(20480);
    expect(point.p99_e2el_ms).toBe(450.4);
    expect(point.output_throughput).toBeUndefined();
  });
});

describe("vllmSweepParser", () => {
  test.each(SWEEP_FILES)("claims %s and no other vLLM/SGLang parser does", (path) => {
    const file = loadFixture(path);
    expect(vllmSweepParser.detect(file)).toBe(true);
    expect(vllmBenchServeParser.detect(file)).toBe(false);
    expect(sglangBenchServingParser.detect(file)).toBe(false);
    expect(sglangOneBatchServerParser.detect(file)).toBe(false);
  });

  test.each(PLAIN_FILES)("does not claim the plain bench serve file %s", (path) => {
    expect(vllmSweepParser.detect(loadFixture(path))).toBe(false);
  });

  test.each([
    [SWEEP_4, "4"],
    [SWEEP_8, "8"],
  ])("reads each run file of %s with the serve override as a flag", (folder, seqs) => {
    for (const run of [0, 1]) {
      const path = `${folder}/run=${run}.json`;
      const raw = json(path);
      const fragment = only(vllmSweepParser.parse(loadFixture(path)));
      expect(fragment.format).toBe("vllm-sweep");
      expect(fragment.part).toBe(`run ${run}`);
      expect(fragment.warnings).toEqual([]);
      const point = onlyPoint(fragment);
      expect(point.concurrency).toBe(2);
      expect(point.request_rate).toBe("inf");
      expectPayloadFigures(point, raw);
      expect(point.mean_e2el_ms).toBeCloseTo(raw.mean_e2el_ms as number, 12);
      expect(point.sources?.p99_e2el_ms).toBe("p99_e2el_ms");
      expect(fragment.context.engine).toBe("vllm");
      expect(fragment.context.model).toBe("facebook/opt-125m");
      expect(fragment.context.flags).toEqual({ "--max-num-seqs": seqs });
      expect(fragment.context.workload).toEqual({ num_prompts: 8 });
      expect(fragment.context.measured_at).toBe(compactDate(raw.date as string));
      expect(fragment.context.metadata?.backend).toBe("openai");
      expect(fragment.context.metadata?.run_number).toBeUndefined();
    }
  });

  test.each([SWEEP_4, SWEEP_8])("reads summary.json of %s into the same fragments as the run files", (folder) => {
    const summary = vllmSweepParser.parse(loadFixture(`${folder}/summary.json`));
    expect(summary.map((fragment) => fragment.part)).toEqual(["run 0", "run 1"]);
    for (const run of [0, 1]) {
      const fromRun = only(vllmSweepParser.parse(loadFixture(`${folder}/run=${run}.json`)));
      const fromSummary = summary[run] as Fragment;
      expect(fromSummary.file).toBe(`${folder}/summary.json`);
      // Exactly equal apart from the file name (key order included), so the upload drops the repeat.
      expect(JSON.stringify(fromSummary.context)).toBe(JSON.stringify(fromRun.context));
      expect(JSON.stringify(fromSummary.points)).toBe(JSON.stringify(fromRun.points));
      expect(fromSummary.part).toBe(fromRun.part);
    }
  });

  it("maps serve overrides of every type to flags and bench overrides to the workload", () => {
    const fragment = only(vllmSweepParser.parse(loadFixture("vllm/hand-made-sweep-run.json")));
    expect(fragment.part).toBe("run 2");
    expect(fragment.context.engine).toBe("vllm");
    expect(fragment.context.flags).toEqual({
      "--max-num-seqs": "256",
      "--enable-prefix-caching": false,
      "--kv-cache-dtype": "fp8",
      "--compilation-config.cudagraph-mode": "FULL_AND_PIECEWISE",
      "--speculative-config": '{"method":"eagle3","num_speculative_tokens":3}',
    });
    expect(fragment.context.speculative).toEqual({ method: "eagle3", num_speculative_tokens: 3 });
    expect(fragment.context.workload).toEqual({ num_prompts: 64, dataset: "random", input_len: 2048, output_len: 512 });
    expect(fragment.context.metadata?.benchmark_name).toBe("fp8-kv");
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(16);
    expect(point.mean_e2el_ms).toBe(5390.3);
    expect(point.output_throughput).toBeCloseTo(32768 / 12.5, 9);
  });

  it("rejects a run file whose run_number is not a whole number", () => {
    const raw = json(`${SWEEP_4}/run=0.json`);
    const file = inline([raw, { ...raw, run_number: 1.5 }]);
    expect(vllmSweepParser.detect(file)).toBe(true);
    expect(formatError(() => vllmSweepParser.parse(file)).path).toBe("[1].run_number");
  });

  it("does not claim an empty summary or a list of plain payloads", () => {
    expect(vllmSweepParser.detect(inline([]))).toBe(false);
    expect(vllmSweepParser.detect(inline([json("vllm/bench_serve_v0.25.1.json")]))).toBe(false);
  });
});

function compactDate(value: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) throw new Error(`not a vLLM date: ${value}`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}
