import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { sglangBenchServingParser, sglangOneBatchServerParser } from "@/lib/formats/sglang";
import { FormatError, type Fragment, type SourceFile } from "@/lib/formats/types";
import { vllmBenchServeParser, vllmSweepParser } from "@/lib/formats/vllm";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Json = Record<string, unknown>;

const EARLY_FILES = [
  "sglang/deepseek_dp_mla_output.jsonl",
  "sglang/llama_3_3_70b_offline_output.jsonl",
  "sglang/llama_3_3_70b_online_output.jsonl",
];
const SERVING_FILES = [
  ...EARLY_FILES,
  "sglang/hand-made-late-format.jsonl",
  "sglang/hand-made-late-format-nan.jsonl",
  "sglang/hand-made-broken-figure.jsonl",
];
const ONE_BATCH_FILES = [
  "sglang/hand-made-one-batch-server-v1-basic.jsonl",
  "sglang/hand-made-one-batch-server-v3-last-ttft.jsonl",
  "sglang/hand-made-one-batch-server-v4-spec-cache.jsonl",
];

/**
 * The JSON lines of a fixture as the tool wrote them. Python writes bare NaN/Infinity, which JSON.parse
 * rejects; here they become null/"Infinity" so the test can compare the other numbers.
 */
function rawLines(relative: string): Json[] {
  const text = fs.readFileSync(path.join(FIXTURES_DIR, relative), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line.replace(/\bNaN\b/g, "null").replace(/\bInfinity\b/g, '"Infinity"')) as Json);
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

const LATENCY_SOURCE = /^(mean|median|std|p90|p95|p99)_(ttft|tpot|itl|e2e_latency)_ms$/;

/** Every figure a bench_serving line states, compared with its point, with its source field name. */
function expectServingFigures(point: ResultPoint, raw: Json): void {
  const simple: [keyof ResultPoint, string][] = [
    ["completed", "completed"],
    ["total_input_tokens", "total_input_tokens"],
    ["total_output_tokens", "total_output_tokens"],
    ["request_throughput", "request_throughput"],
    ["output_throughput", "output_throughput"],
    ["total_token_throughput", "total_throughput"],
  ];
  for (const [field, source] of simple) {
    if (raw[source] === undefined) {
      expect(point[field], field).toBeUndefined();
      continue;
    }
    expect(point[field], field).toBeCloseTo(raw[source] as number, 9);
    expect(point.sources?.[field]).toBe(source);
  }
  expect(point.duration_s).toBeCloseTo(raw.duration as number, 9);
  expect(point.sources?.duration_s).toBe("duration");
  let latencies = 0;
  for (const [key, value] of Object.entries(raw)) {
    const match = LATENCY_SOURCE.exec(key);
    if (!match || value === null) continue;
    const field = `${match[1]}_${match[2] === "e2e_latency" ? "e2el" : match[2]}_ms` as keyof ResultPoint;
    expect(point[field], key).toBeCloseTo(value as number, 9);
    expect(point.sources?.[field]).toBe(key);
    latencies += 1;
  }
  expect(latencies).toBeGreaterThan(0);
}

describe("sglangBenchServingParser: detection", () => {
  test.each(SERVING_FILES)("claims %s and no other vLLM/SGLang parser does", (file) => {
    const source = loadFixture(file);
    expect(sglangBenchServingParser.detect(source)).toBe(true);
    expect(sglangOneBatchServerParser.detect(source)).toBe(false);
    expect(vllmBenchServeParser.detect(source)).toBe(false);
    expect(vllmSweepParser.detect(source)).toBe(false);
  });

  it("does not claim any vLLM file, a vLLM sweep run carrying random_input_len included", () => {
    const files = fixtureFiles("vllm").filter((file) => !file.endsWith("SOURCE.txt"));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) {
      const source = loadFixture(file);
      expect(sglangBenchServingParser.detect(source), file).toBe(false);
      expect(sglangOneBatchServerParser.detect(source), file).toBe(false);
    }
    const sweepRun = readFixtureJson("vllm/hand-made-sweep-run.json") as Json;
    expect(sweepRun.random_input_len).toBe(2048);
    expect(sglangBenchServingParser.detect(inline(sweepRun))).toBe(false);
  });

  it("does not claim the other tools' fixture files", () => {
    let checked = 0;
    for (const folder of [
      "guidellm",
      "aiperf",
      "llmperf",
      "inference-perf",
      "llama-bench",
      "llm-d-benchmark-report",
      "trtllm",
      "servebench",
    ]) {
      let files: string[];
      try {
        files = fixtureFiles(folder);
      } catch {
        continue; // that tool's fixtures are not in this checkout
      }
      for (const file of files) {
        let source: SourceFile;
        try {
          source = loadFixture(file);
        } catch {
          continue; // not a format the decoder reads
        }
        expect(sglangBenchServingParser.detect(source), file).toBe(false);
        expect(sglangOneBatchServerParser.detect(source), file).toBe(false);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2); // the servebench fixtures are always there
  });

  it("never throws on odd input", () => {
    const odd: SourceFile[] = [
      { name: "a", kind: "json", data: null, bytes: 4 },
      { name: "b", kind: "jsonl", data: [1, 2], bytes: 4 },
      { name: "c", kind: "csv", data: [["batch_size", "latency"]], bytes: 20 },
      { name: "d", kind: "yaml", data: { completed: 1, total_output_tokens_retokenized: 3, duration: 1 }, bytes: 9 },
      { name: "e", kind: "json", data: { completed: 1, duration: 2 }, bytes: 9 },
      { name: "f", kind: "json", data: [], bytes: 2 },
    ];
    for (const file of odd) {
      expect(() => sglangBenchServingParser.detect(file)).not.toThrow();
      expect(sglangBenchServingParser.detect(file)).toBe(false);
      expect(sglangOneBatchServerParser.detect(file)).toBe(false);
    }
  });
});

describe("sglangBenchServingParser: the engine a backend names", () => {
  const line = (backend: string) =>
    `{"backend": "${backend}", "dataset_name": "random", "request_rate": 1.0, "max_concurrency": null, "total_input_tokens": 10, "total_output_tokens": 20, "total_output_tokens_retokenized": 20, "mean_e2e_latency_ms": 10.0, "median_e2e_latency_ms": 10.0, "median_ttft_ms": 1.0, "median_itl_ms": 1.0, "output_throughput": 2.0, "duration": 10.0, "completed": 1}`;
  it.each([
    ["sglang", "sglang"],
    ["sglang-native", "sglang"],
    ["trt", "tensorrt-llm"],
    ["sglang-oai", undefined],
    ["vllm", undefined],
    ["lmdeploy", undefined],
  ])("backend %s → %s", (backend, engine) => {
    const [fragment] = sglangBenchServingParser.parse(decodeText("hand-made.jsonl", `${line(backend)}\n`));
    expect(fragment?.context.engine).toBe(engine);
  });
});

describe("sglangBenchServingParser: early-2025 files (reduced field set)", () => {
  it("reads a one-line file (decoded as one object) with part ''", () => {
    const file = "sglang/deepseek_dp_mla_output.jsonl";
    const source = loadFixture(file);
    expect(source.kind).toBe("json");
    const fragment = only(sglangBenchServingParser.parse(source));
    expect(fragment.format).toBe("sglang-bench-serving");
    expect(fragment.part).toBe("");
    const raw = only(rawLines(file));
    const point = onlyPoint(fragment);
    expect(point.request_rate).toBe("inf"); // bare Infinity
    expect(point.concurrency).toBeUndefined();
    expectServingFigures(point, raw);
    expect(point.mean_e2el_ms).toBeCloseTo(381236.82297268615, 9);
    expect(point.sources?.mean_e2el_ms).toBe("mean_e2e_latency_ms");
    expect(point.median_ttft_ms).toBeCloseTo(10014.104524045251, 9);
    expect(point.median_itl_ms).toBeCloseTo(371.844899491407, 9);
    expect(point.mean_ttft_ms).toBeUndefined(); // that version wrote medians only
    // backend "sglang" posts to SGLang's own /generate, which no other engine serves: the server was SGLang.
    expect(fragment.context.engine).toBe("sglang");
    expect(fragment.context.model).toBeUndefined();
    expect(fragment.context.workload).toEqual({ dataset: "random", input_len: 1, output_len: 512 });
    expect(fragment.context.metadata).toEqual({ backend: "sglang", random_range_ratio: 1 });
    expect(fragment.warnings).toEqual([]);
  });

  it("reads the offline file: seven lines, seven fragments at request rate inf", () => {
    const file = "sglang/llama_3_3_70b_offline_output.jsonl";
    const fragments = sglangBenchServingParser.parse(loadFixture(file));
    const raws = rawLines(file);
    expect(fragments).toHaveLength(7);
    fragments.forEach((fragment, index) => {
      const raw = raws[index] as Json;
      expect(fragment.part).toBe(`line ${index + 1}`);
      const point = onlyPoint(fragment);
      expect(point.request_rate).toBe("inf");
      expectServingFigures(point, raw);
      expect(fragment.warnings).toEqual([]);
    });
    expect(fragments.map((f) => f.context.workload)).toEqual([
      { dataset: "random", input_len: 1024, output_len: 1024 },
      { dataset: "random", input_len: 1024, output_len: 512 },
      { dataset: "random", input_len: 4096, output_len: 2048 },
      { dataset: "random", input_len: 4096, output_len: 1024 },
      { dataset: "random", input_len: 4096, output_len: 1024 },
      { dataset: "random", input_len: 256, output_len: 512 },
      // random_* are defaults the sharegpt dataset does not use.
      { dataset: "sharegpt" },
    ]);
    expect(onlyPoint(fragments[6] as Fragment).output_throughput).toBeCloseTo(3939.9256459856624, 9);
  });

  it("reads the online file: one fragment per request rate", () => {
    const file = "sglang/llama_3_3_70b_online_output.jsonl";
    const fragments = sglangBenchServingParser.parse(loadFixture(file));
    const raws = rawLines(file);
    expect(fragments.map((f) => onlyPoint(f).request_rate)).toEqual([1, 2, 4, 8, 16, 4, 8]);
    fragments.forEach((fragment, index) => {
      const point = onlyPoint(fragment);
      expect(point.sources?.request_rate).toBe("request_rate");
      expectServingFigures(point, raws[index] as Json);
    });
    expect(onlyPoint(fragments[4] as Fragment).median_e2el_ms).toBeCloseTo(159469.04255752452, 9);
  });

  test.each(["sglang/llama_3_3_70b_offline_output.jsonl", "sglang/llama_3_3_70b_online_output.jsonl"])(
    "%s: each line's figures are its point's, never listed as not imported (the sources are relative to the line)",
    (file) => {
      const parsed = readUploads(
        [{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }],
        FORMAT_PARSERS,
      );
      const raws = rawLines(file);
      parsed.fragments.forEach((fragment, index) => {
        expect(fragment.root).toBe(`line ${index + 1}`);
        const reported = (fragment.notImported ?? []).map((entry) => entry.field);
        expect(reported).not.toContain(`line ${index + 1}.median_ttft_ms`);
        expect(reported).not.toContain(`line ${index + 1}.output_throughput`);
        // What is left is the one figure servebench has no field for.
        expect(fragment.notImported).toContainEqual({
          file,
          field: `line ${index + 1}.total_output_tokens_retokenized`,
          value: (raws[index] as Json).total_output_tokens_retokenized,
          reason: "no servebench field holds this figure",
        });
      });
    },
  );
});

describe("sglangBenchServingParser: late format (hand-made from bench_serving.py)", () => {
  const file = "sglang/hand-made-late-format.jsonl";

  it("reads every statistic and files the point under max_concurrency, not the measured concurrency", () => {
    const fragments = sglangBenchServingParser.parse(loadFixture(file));
    const raws = rawLines(file);
    expect(fragments.map((f) => f.part)).toEqual(["line 1", "line 2"]);
    fragments.forEach((fragment, index) => {
      const raw = raws[index] as Json;
      const point = onlyPoint(fragment);
      expect(point.concurrency).toBe(raw.max_concurrency);
      expect(point.sources?.concurrency).toBe("max_concurrency");
      expect(point.request_rate).toBe("inf");
      expectServingFigures(point, raw);
      expect(fragment.context.metadata?.measured_concurrency).toBe(raw.concurrency);
      expect(fragment.warnings).toEqual([]);
    });
    const second = onlyPoint(fragments[1] as Fragment);
    expect(second.concurrency).toBe(64);
    expect(second.p95_itl_ms).toBe(41.33);
    expect(second.p99_e2el_ms).toBe(10377.9);
    expect(second.total_token_throughput).toBeCloseTo((655360 + 163840) / 92.4, 9);
    expect(fragments[1]?.context.metadata).toMatchObject({
      measured_concurrency: 63.6,
      max_concurrent_requests: 64,
      max_output_tokens_per_s: 2230,
    });
  });

  it("takes engine, version, model, GPUs and launch flags from server_info", () => {
    const fragment = sglangBenchServingParser.parse(loadFixture(file))[0] as Fragment;
    const { context } = fragment;
    expect(context.engine).toBe("sglang");
    expect(context.engine_version).toBe("0.5.4");
    expect(context.model).toBe("moonshotai/Kimi-K2.5");
    expect(context.hardware).toEqual({ gpu_count: 8 });
    expect(context.workload).toEqual({ dataset: "random", input_len: 1024, output_len: 256 });
    const flags = context.flags ?? {};
    expect(flags["--disable-cuda-graph"]).toBe(true);
    expect(flags["--tp-size"]).toBe("8");
    expect(flags["--attention-backend"]).toBe("triton");
    expect(flags["--mem-fraction-static"]).toBe("0.88");
    expect(flags["--cuda-graph-bs"]).toEqual(["1", "2", "4", "8"]);
    // Unset (null), switched-off (false), secret and non-argument keys are not flags.
    for (const absent of [
      "--disable-radix-cache",
      "--quantization",
      "--api-key",
      "--internal-states",
      "--version",
      "--status",
      "--max-total-num-tokens",
      "--enable-dp-attention",
    ]) {
      expect(flags[absent], absent).toBeUndefined();
    }
    expect(JSON.stringify(fragment)).not.toContain("sk-hand-made-not-a-real-key");
    expect(context.metadata?.max_total_num_tokens).toBe(1048576);
    expect(context.speculative).toBeUndefined();
  });

  it("gives every line of one server the same grouping context", () => {
    const [first, second] = sglangBenchServingParser.parse(loadFixture(file)) as [Fragment, Fragment];
    const { metadata: _a, ...a } = first.context;
    const { metadata: _b, ...b } = second.context;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it("never stores the per-request arrays of --output-details", () => {
    expect(rawLines(file)[0]?.generated_texts).toBeDefined();
    const stored = JSON.stringify(sglangBenchServingParser.parse(loadFixture(file)));
    for (const key of ["generated_texts", "The quick brown fox", "ttfts", "itls", "input_lens", "errors"])
      expect(stored).not.toContain(key);
  });

  it("turns NaN into no data with a warning, and an all-failed line into a no-data point", () => {
    const nanFile = "sglang/hand-made-late-format-nan.jsonl";
    const [failed, partial] = sglangBenchServingParser.parse(loadFixture(nanFile)) as [Fragment, Fragment];
    const failedPoint = onlyPoint(failed);
    expect(failedPoint).toEqual({
      concurrency: 16,
      request_rate: "inf",
      completed: 0,
      duration_s: 0.81,
      sources: {
        concurrency: "max_concurrency",
        request_rate: "request_rate",
        completed: "completed",
        duration_s: "duration",
      },
    });
    expect(failed.warnings).toEqual([
      "sglang/hand-made-late-format-nan.jsonl (line 1): mean_e2e_latency_ms is NaN; stored as no data.",
      "sglang/hand-made-late-format-nan.jsonl (line 1): median_e2e_latency_ms is NaN; stored as no data.",
      "sglang/hand-made-late-format-nan.jsonl (line 1): std_e2e_latency_ms is NaN; stored as no data.",
      "sglang/hand-made-late-format-nan.jsonl (line 1): p99_e2e_latency_ms is NaN; stored as no data.",
      "sglang/hand-made-late-format-nan.jsonl (line 1): no request completed; its figures are stored as no data.",
    ]);

    const point = onlyPoint(partial);
    const raw = rawLines(nanFile)[1] as Json;
    expect(point.request_rate).toBe(4);
    expect(point.concurrency).toBeUndefined();
    expect(point.p99_tpot_ms).toBeUndefined();
    expectServingFigures(point, raw);
    expect(partial.warnings).toEqual([
      "sglang/hand-made-late-format-nan.jsonl (line 2): p99_tpot_ms is NaN; stored as no data.",
    ]);
    expect(partial.context.metadata?.tag).toBe("partial-nan");
  });

  it("rejects a figure of the wrong type, naming the line", () => {
    const error = formatError(() =>
      sglangBenchServingParser.parse(loadFixture("sglang/hand-made-broken-figure.jsonl")),
    );
    expect(error.path).toBe("line 2.output_throughput");
    expect(error.message).toContain("an object");
  });
});

describe("sglangBenchServingParser: traps, inline", () => {
  const early = rawLines("sglang/llama_3_3_70b_online_output.jsonl")[0] as Json;

  it("reads numbers written as strings", () => {
    const point = onlyPoint(
      only(
        sglangBenchServingParser.parse(
          inline({ ...early, output_throughput: "1,537.41", completed: "300", max_concurrency: "32" }),
        ),
      ),
    );
    expect(point.output_throughput).toBe(1537.41);
    expect(point.completed).toBe(300);
    expect(point.concurrency).toBe(32);
    expect(point.request_rate).toBe(1);
  });

  it("skips a trace-timed run without max_concurrency, with a warning", () => {
    const fragment = only(sglangBenchServingParser.parse(inline({ ...early, request_rate: "trace" }, "trace.jsonl")));
    expect(fragment.points).toEqual([]);
    expect(fragment.warnings[0]).toContain('request_rate "trace"');
    const capped = only(
      sglangBenchServingParser.parse(inline({ ...early, request_rate: "trace", max_concurrency: 8 })),
    );
    expect(onlyPoint(capped).concurrency).toBe(8);
  });

  it("refuses a line without any load level", () => {
    expect(formatError(() => sglangBenchServingParser.parse(inline({ ...early, request_rate: null }))).path).toBe(
      "request_rate",
    );
  });

  it("reads p90/p95 statistics of forks, and p50 as a missing median", () => {
    const point = onlyPoint(
      only(
        sglangBenchServingParser.parse(
          inline({ ...early, p90_ttft_ms: 120.5, p95_e2e_latency_ms: 9000.25, p50_tpot_ms: 13.5 }),
        ),
      ),
    );
    expect(point.p90_ttft_ms).toBe(120.5);
    expect(point.p95_e2el_ms).toBe(9000.25);
    expect(point.median_tpot_ms).toBe(13.5);
    expect(point.sources?.median_tpot_ms).toBe("p50_tpot_ms");
  });

  it("keeps any other percentile a line states (forks that add p25/p99.9) in percentiles, in ms", () => {
    const fragment = only(
      sglangBenchServingParser.parse(
        inline({ ...early, "p99.9_ttft_ms": 410.5, p25_itl_ms: 12.25, p75_e2e_latency_ms: 8100.5 }),
      ),
    );
    const point = onlyPoint(fragment);
    expect(point.percentiles).toEqual({ ttft: { "p99.9": 410.5 }, itl: { p25: 12.25 }, e2el: { p75: 8100.5 } });
    expect(point.sources?.["percentiles.e2el.p75"]).toBe("p75_e2e_latency_ms");
    // The line's own median stays the median; a p50 beside it is the same figure, reported as such.
    const both = only(sglangBenchServingParser.parse(inline({ ...early, p50_ttft_ms: 85.7 })));
    expect(onlyPoint(both).median_ttft_ms).toBe(early.median_ttft_ms);
    expect(both.notImported).toEqual([
      {
        file: "inline.json",
        field: "p50_ttft_ms",
        value: 85.7,
        reason: "the 50th percentile, which is the median: the point keeps it from median_ttft_ms",
      },
    ]);
  });

  it("reads a PD-disaggregated server_info from its decode server", () => {
    const args = {
      model_path: "deepseek-ai/DeepSeek-V3",
      tp_size: 8,
      dp_size: 8,
      enable_dp_attention: true,
      disaggregation_mode: "decode",
      version: "0.5.2",
    };
    const fragment = only(
      sglangBenchServingParser.parse(
        inline({ ...early, server_info: { prefill: [{ ...args, disaggregation_mode: "prefill" }], decode: [args] } }),
      ),
    );
    expect(fragment.context.engine).toBe("sglang");
    expect(fragment.context.engine_version).toBe("0.5.2");
    expect(fragment.context.flags?.["--disaggregation-mode"]).toBe("decode");
    expect(fragment.context.flags?.["--enable-dp-attention"]).toBe(true);
    // One prefill and one decode server, 8 GPUs each (DP attention runs inside the TP group).
    expect(fragment.context.hardware).toEqual({ gpu_count: 16 });
    expect(fragment.context.metadata).toMatchObject({
      pd_disaggregation: true,
      prefill_engine_version: "0.5.2",
      decode_engine_version: "0.5.2",
      prefill_servers: 1,
      decode_servers: 1,
      prefill_gpus: 8,
      decode_gpus: 8,
    });
  });

  it("keeps each role's version of a PD-disaggregated run when they differ, and counts every server's GPUs", () => {
    const decode = {
      model_path: "deepseek-ai/DeepSeek-R1",
      tp_size: 8,
      disaggregation_mode: "decode",
      version: "0.5.5",
    };
    const prefill = { ...decode, tp_size: 4, disaggregation_mode: "prefill", version: "0.5.4" };
    const fragment = only(
      sglangBenchServingParser.parse(
        inline({ ...early, server_info: { prefill: [prefill, prefill, prefill], decode: [decode, decode] } }),
      ),
    );
    expect(fragment.context.engine_version).toBe("0.5.4 (prefill) / 0.5.5 (decode)");
    expect(fragment.context.flags?.["--disaggregation-mode"]).toBe("decode");
    expect(fragment.context.flags?.["--tp-size"]).toBe("8");
    expect(fragment.context.hardware).toEqual({ gpu_count: 3 * 4 + 2 * 8 });
    expect(fragment.context.metadata).toMatchObject({
      prefill_engine_version: "0.5.4",
      decode_engine_version: "0.5.5",
      prefill_servers: 3,
      decode_servers: 2,
      prefill_gpus: 12,
      decode_gpus: 16,
    });
    // A server that does not state its size: no GPU count is guessed for the run.
    const { tp_size: _unstated, ...sizeless } = prefill;
    const partial = only(
      sglangBenchServingParser.parse(inline({ ...early, server_info: { prefill: [sizeless], decode: [decode] } })),
    );
    expect(partial.context.hardware).toBeUndefined();
    expect(partial.context.engine_version).toBe("0.5.4 (prefill) / 0.5.5 (decode)");
  });

  it("counts GPUs as tp × pp × dp, dp only without DP attention, and reads speculative settings", () => {
    const info = {
      model_path: "meta-llama/Llama-3.1-8B-Instruct",
      tp_size: 2,
      pp_size: 1,
      dp_size: 4,
      enable_dp_attention: false,
      speculative_algorithm: "EAGLE3",
      speculative_draft_model_path: "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
      speculative_num_draft_tokens: 4,
      version: "0.5.4",
    };
    const fragment = only(sglangBenchServingParser.parse(inline({ ...early, server_info: info, accept_length: 3.1 })));
    expect(fragment.context.hardware).toEqual({ gpu_count: 8 });
    expect(fragment.context.speculative).toEqual({
      method: "eagle3",
      draft_model: "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
      num_speculative_tokens: 4,
    });
    expect(fragment.context.metadata?.accept_length).toBe(3.1);
    const withDpAttention = only(
      sglangBenchServingParser.parse(inline({ ...early, server_info: { ...info, enable_dp_attention: true } })),
    );
    expect(withDpAttention.context.hardware).toEqual({ gpu_count: 2 });
  });
});

describe("sglangOneBatchServerParser", () => {
  test.each(ONE_BATCH_FILES)("claims %s and no other vLLM/SGLang parser does", (file) => {
    const source = loadFixture(file);
    expect(sglangOneBatchServerParser.detect(source)).toBe(true);
    expect(sglangBenchServingParser.detect(source)).toBe(false);
    expect(vllmBenchServeParser.detect(source)).toBe(false);
    expect(vllmSweepParser.detect(source)).toBe(false);
  });

  test.each(ONE_BATCH_FILES)("reads every line of %s as one batch size", (file) => {
    const raws = rawLines(file);
    const fragments = sglangOneBatchServerParser.parse(loadFixture(file));
    expect(fragments).toHaveLength(raws.length);
    fragments.forEach((fragment, index) => {
      const raw = raws[index] as Json;
      expect(fragment.format).toBe("sglang-bench-one-batch-server");
      expect(fragment.part).toBe(`line ${index + 1}`);
      const point = onlyPoint(fragment);
      const wall = ((raw.batch_size as number) * (raw.output_len as number)) / (raw.latency as number);
      // The first revision's output_throughput is over wall time; later ones are decode-only (latency − ttft).
      const firstRevision = !("last_gen_throughput" in raw) && !("last_ttft" in raw) && !("ttft" in raw);
      expect(point).toMatchObject({
        concurrency: raw.batch_size,
        duration_s: raw.latency,
        total_token_throughput: raw.overall_throughput,
      });
      if (firstRevision) {
        expect(point.output_throughput).toBe(raw.output_throughput);
        expect(point.decode_throughput).toBeUndefined();
      } else {
        expect(point.output_throughput).toBeCloseTo(wall, 9);
        expect(point.decode_throughput).toBe(raw.output_throughput);
        expect(point.sources?.output_throughput).toBe("batch_size × output_len / latency");
      }
      expect(fragment.context.workload).toEqual({ input_len: raw.input_len, output_len: raw.output_len });
      expect(fragment.context.engine).toBeUndefined();
      expect(fragment.context.metadata?.run_name).toBe(raw.run_name);
      expect(fragment.warnings).toEqual([]);
    });
  });

  it("reads the first field set: no TTFT, no input throughput", () => {
    const fragments = sglangOneBatchServerParser.parse(loadFixture(ONE_BATCH_FILES[0] as string));
    expect(fragments.map((f) => onlyPoint(f).concurrency)).toEqual([1, 16, 64]);
    expect(fragments[0]?.context.metadata).toEqual({ run_name: "default" });
  });

  it("reads the second field set (last_gen_throughput added, no last_ttft) from inline lines", () => {
    // bench_one_batch_server.py's second revision: output_throughput = batch_size × output_len / (latency − ttft).
    const lines = [
      {
        run_name: "default",
        batch_size: 1,
        input_len: 1024,
        output_len: 16,
        latency: 0.2101,
        output_throughput: 86.02,
        overall_throughput: 4950.02,
        last_gen_throughput: 91.4,
      },
      {
        run_name: "default",
        batch_size: 16,
        input_len: 1024,
        output_len: 16,
        latency: 0.6877,
        output_throughput: 609.52,
        overall_throughput: 24196.6,
        last_gen_throughput: -1,
      },
    ];
    const fragments = sglangOneBatchServerParser.parse(
      decodeText("v2.jsonl", lines.map((line) => JSON.stringify(line)).join("\n")),
    );
    expect(fragments.map((f) => onlyPoint(f).concurrency)).toEqual([1, 16]);
    // Over wall time: 1 × 16 / 0.2101 s and 16 × 16 / 0.6877 s; the tool's decode-only figures are kept as such.
    expect(fragments.map((f) => onlyPoint(f).output_throughput)).toEqual([16 / 0.2101, 256 / 0.6877]);
    expect(fragments.map((f) => onlyPoint(f).decode_throughput)).toEqual([86.02, 609.52]);
    expect(fragments[0]?.context.metadata).toEqual({ run_name: "default", last_gen_throughput: 91.4 });
    expect(fragments[1]?.context.metadata).toEqual({ run_name: "default" });
  });

  it("keeps last_ttft and input throughput as metadata and drops the -1 'not available' values", () => {
    const fragments = sglangOneBatchServerParser.parse(loadFixture(ONE_BATCH_FILES[1] as string));
    expect(fragments.map((f) => onlyPoint(f).concurrency)).toEqual([1, 32, 128]);
    expect(fragments[2]?.context.metadata).toEqual({
      run_name: "tp8",
      last_ttft_s: 3.6018,
      input_throughput: 72781.39,
      last_gen_throughput: 2622.64,
    });
    expect(onlyPoint(fragments[2] as Fragment).mean_ttft_ms).toBeUndefined();
  });

  it("reads the newest field set with speculative decoding and cache statistics", () => {
    const fragments = sglangOneBatchServerParser.parse(loadFixture(ONE_BATCH_FILES[2] as string));
    expect(fragments[1]?.context.metadata).toEqual({
      run_name: "eagle3",
      last_ttft_s: 0.2215,
      input_throughput: 36984.2,
      last_gen_throughput: 2391.57,
      accept_length: 2.7902,
      spec_accept_rate: 0.5967,
      cache_hit_rate: 0,
    });
    expect(onlyPoint(fragments[1] as Fragment).decode_throughput).toBe(2437.22);
  });

  it("reads a single line (decoded as one object) and numbers written as strings", () => {
    const line = {
      run_name: "x",
      batch_size: "4",
      input_len: 512,
      output_len: 32,
      latency: "0.5",
      output_throughput: "256.0",
      overall_throughput: "4,352.0",
    };
    const fragment = only(sglangOneBatchServerParser.parse(inline(line, "one.jsonl")));
    expect(fragment.part).toBe("");
    expect(onlyPoint(fragment)).toMatchObject({
      concurrency: 4,
      duration_s: 0.5,
      output_throughput: 256,
      total_token_throughput: 4352,
    });
  });

  it("rejects a line without a usable batch size or with a figure of the wrong type", () => {
    const good = rawLines(ONE_BATCH_FILES[0] as string)[0] as Json;
    const badBatch = decodeText("b.jsonl", `${JSON.stringify(good)}\n${JSON.stringify({ ...good, batch_size: 0 })}\n`);
    expect(formatError(() => sglangOneBatchServerParser.parse(badBatch)).path).toBe("line 2.batch_size");
    const badLatency = inline({ ...good, latency: { seconds: 1 } });
    expect(formatError(() => sglangOneBatchServerParser.parse(badLatency)).path).toBe("latency");
  });

  it("does not claim bench_serving lines, and bench_serving does not claim one-batch lines", () => {
    for (const file of SERVING_FILES) expect(sglangOneBatchServerParser.detect(loadFixture(file)), file).toBe(false);
    for (const file of ONE_BATCH_FILES) expect(sglangBenchServingParser.detect(loadFixture(file)), file).toBe(false);
  });
});
