/** The run the benchmark writes: valid against the published JSON Schema, and accepted by the normalizer. */
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { buildRunDocument } from "@/lib/bench/document";
import { aggregateLevel, type RequestRecord } from "@/lib/bench/metrics";
import { builtinPrompts, parsePromptFile, syntheticPrompts } from "@/lib/bench/prompts";
import { headlineLine, levelLine, summaryTable } from "@/lib/bench/report";
import type { BenchConfig, BenchResult } from "@/lib/bench/runner";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { runDocumentJsonSchema } from "@/lib/document/schema";

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
const validate = ajv.compile(runDocumentJsonSchema());

function expectValid(doc: unknown): void {
  const valid = validate(doc);
  expect(validate.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
}

function request(start: number, ttft: number, tokens: number, itl: number, usage = true): RequestRecord {
  const chunks = Array.from({ length: tokens }, (_, k) => ttft + k * itl);
  const record: RequestRecord = {
    status: "ok",
    start_ms: start,
    end_ms: start + chunks[chunks.length - 1]! + 1,
    text_chunk_ms: chunks,
  };
  if (usage) {
    record.usage_output_tokens = tokens;
    record.usage_input_tokens = 11;
  }
  return record;
}

const config: Pick<
  BenchConfig,
  | "baseUrl"
  | "concurrency"
  | "requests"
  | "maxTokens"
  | "temperature"
  | "ignoreEos"
  | "endpoint"
  | "prompts"
  | "inputLen"
  | "timeoutMs"
  | "warmup"
> = {
  baseUrl: new URL("http://user:secret@gpu-box:8000/v1?token=abc"),
  concurrency: [1, 4],
  requests: null,
  maxTokens: 256,
  temperature: 0,
  ignoreEos: false,
  endpoint: "chat",
  prompts: builtinPrompts(),
  timeoutMs: 600_000,
  warmup: 1,
};

function result(overrides: Partial<BenchResult> = {}): BenchResult {
  const single = aggregateLevel(1, [request(0, 100, 32, 20), request(800, 100, 32, 20)]);
  const four = aggregateLevel(4, [
    request(0, 110, 32, 25),
    request(0, 105, 32, 25),
    { status: "failed", error: "HTTP 500 Internal Server Error: boom", start_ms: 0, end_ms: 50, text_chunk_ms: [] },
  ]);
  return {
    context: {
      model: "Qwen/Qwen3-8B",
      engine: "sglang",
      engine_version: "0.5.8",
      flags: {
        "--tp-size": 1,
        "--cuda-graph-bs": [1, 2, 4],
        "--enable-torch-compile": true,
        "--attention-backend": "triton",
      },
      max_model_len: 32768,
      filled: ["/v1/models: max_model_len", "sglang /get_server_info: engine, engine_version, flags"],
      lines: [],
    },
    levels: [single, four],
    warnings: ["C=4: 1 of 3 requests failed: HTTP 500 Internal Server Error: boom"],
    partial: false,
    started_at: new Date("2026-02-14T09:30:00.000Z"),
    ...overrides,
  };
}

describe("buildRunDocument", () => {
  const doc = buildRunDocument(
    config,
    {
      name: "SGLang TP1 bench",
      command: "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-static 0.8",
      gpu: "NVIDIA L4",
      gpu_count: 1,
      tags: ["nightly", "L4"],
      env: { NCCL_P2P_LEVEL: "SYS" },
      notes: "first try",
    },
    result(),
  );

  it("validates against the published JSON Schema", () => {
    expectValid(doc);
  });

  it("is accepted by the normalizer, which keeps its figures", () => {
    const run = normalizeRunDocument(JSON.parse(JSON.stringify(doc)));
    expect(run.source_format).toBe("servebench/v1");
    expect(run.engine).toBe("sglang");
    expect(run.engine_version).toBe("0.5.8");
    expect(run.hardware).toEqual({ gpu: "NVIDIA L4", gpu_count: 1 });
    expect(run.tags).toEqual(["nightly", "l4"]);
    expect(run.env).toEqual({ NCCL_P2P_LEVEL: "SYS" });
    expect(run.results).toHaveLength(2);
    expect(run.results[0]).toMatchObject({
      concurrency: 1,
      completed: 2,
      failed: 0,
      total_output_tokens: 64,
      mean_ttft_ms: 100,
      mean_tpot_ms: 20,
    });
    expect(run.results[1]).toMatchObject({ concurrency: 4, completed: 2, failed: 1, mean_tpot_ms: 25 });
    expect(run.metadata).toMatchObject({ max_model_len: 32768, client: "servebench bench" });
    expect(run.metadata).not.toHaveProperty("partial");
  });

  it("states the workload: dataset, output_len = max_tokens, temperature; no num_prompts when it varies by level", () => {
    expect(doc.workload).toEqual({ dataset: "servebench built-in prompts", output_len: 256, temperature: 0 });
  });

  it("records what the server told and how the benchmark ran, never credentials", () => {
    expect(doc.metadata).toEqual({
      client: "servebench bench",
      base_url: "http://gpu-box:8000/v1",
      endpoint: "/v1/chat/completions",
      requests_per_level: "max(3 × concurrency, 10)",
      warmup_requests: 1,
      timeout_s: 600,
      distinct_prompts: 24,
      max_model_len: 32768,
      context_from_server: "/v1/models: max_model_len; sglang /get_server_info: engine, engine_version, flags",
      output_tokens_counted: "server usage (exact)",
    });
    expect(JSON.stringify(doc)).not.toContain("secret");
    expect(JSON.stringify(doc)).not.toContain("abc");
  });

  it("the server's flags and the command's flags both reach the normalized run", () => {
    const run = normalizeRunDocument(JSON.parse(JSON.stringify(doc)));
    expect(run.flags).toEqual({
      "--model-path": "Qwen/Qwen3-8B",
      "--mem-fraction-static": "0.8",
      "--tp-size": "1",
      "--cuda-graph-bs": ["1", "2", "4"],
      "--enable-torch-compile": true,
      "--attention-backend": "triton",
    });
  });

  it("synthetic prompts: input_len, the seed that drew them, and num_prompts when every level sends the same number", () => {
    const synthetic = buildRunDocument(
      {
        ...config,
        prompts: syntheticPrompts(128),
        inputLen: 128,
        requests: 8,
        maxTokens: 64,
        ignoreEos: true,
        temperature: 0.7,
      },
      {},
      result(),
    );
    expect(synthetic.workload).toEqual({
      dataset: "random synthetic",
      input_len: 128,
      output_len: 64,
      num_prompts: 8,
      seed: 0,
      temperature: 0.7,
    });
    expect(synthetic.metadata).toMatchObject({ requests_per_level: 8, ignore_eos: true });
    expect(synthetic.metadata).not.toHaveProperty("distinct_prompts");
    expectValid(synthetic);
  });

  it("names a prompts file as the dataset", () => {
    const fromFile = buildRunDocument(
      { ...config, prompts: parsePromptFile("one\ntwo\n", "my-prompts.txt") },
      {},
      result(),
    );
    expect(fromFile.workload?.dataset).toBe("my-prompts.txt");
    expect(fromFile.metadata?.distinct_prompts).toBe(2);
  });

  it("a partial run says so in metadata and warnings", () => {
    const partial = buildRunDocument(
      config,
      {},
      result({
        partial: true,
        warnings: ["partial run: interrupted (Ctrl-C) before every level was measured; measured: C=1, C=4"],
      }),
    );
    expect(partial.metadata?.partial).toBe(true);
    expect(partial.warnings).toEqual([
      "partial run: interrupted (Ctrl-C) before every level was measured; measured: C=1, C=4",
    ]);
    expectValid(partial);
    expect(normalizeRunDocument(partial).metadata.partial).toBe(true);
  });

  it("a run where every request of a level failed is still valid, with that level's counts only", () => {
    const failedLevel = aggregateLevel(8, [
      { status: "failed", error: "connection refused (gpu-box:8000)", start_ms: 0, end_ms: 1, text_chunk_ms: [] },
    ]);
    const doc2 = buildRunDocument(config, {}, result({ levels: [failedLevel] }));
    expect(doc2.results).toEqual([{ concurrency: 8, completed: 0, failed: 1 }]);
    expect(doc2.metadata).not.toHaveProperty("output_tokens_counted");
    expectValid(doc2);
    expect(normalizeRunDocument(doc2).results).toEqual([{ concurrency: 8, completed: 0, failed: 1 }]);
  });

  it("marks token counts taken from chunks as approximate", () => {
    const approx = aggregateLevel(1, [request(0, 100, 10, 20, false)]);
    const doc3 = buildRunDocument(config, {}, result({ levels: [approx] }));
    expect(doc3.metadata?.output_tokens_counted).toBe("streamed text chunks (approximate: the server sent no usage)");
    expectValid(doc3);
  });

  it("refuses to build a run of nothing", () => {
    expect(() => buildRunDocument(config, {}, result({ levels: [] }))).toThrow("nothing was measured");
  });
});

describe("the printed summary", () => {
  const levels = result().levels;

  it("a line per level and a table like the hand-written script's", () => {
    // C=1: two requests of 32 tokens, 0 → 1,521 ms: 64 / 1.521 s = 42.1 tok/s.
    expect(levelLine(levels[0]!)).toBe("C=1  2/2 requests  42.1 tok/s  TTFT 100 ms  TPOT 20 ms  1.5 s");
    // C=4: 0 → 886 ms: 64 / 0.886 s = 72.2 tok/s; TTFT (110 + 105) / 2 = 107.5.
    expect(levelLine(levels[1]!)).toBe("C=4  2/3 requests, 1 failed  72.2 tok/s  TTFT 108 ms  TPOT 25 ms  0.89 s");
    expect(summaryTable(levels)).toEqual([
      "C  ok  failed  out tok/s  req/s  TTFT ms  p99  TPOT ms  p99  ITL ms  e2e ms",
      "1   2       0       42.1    1.3      100  100       20   20      20     720",
      "4   2       1       72.2    2.3      108  110       25   25      25     883",
    ]);
  });

  it("ends with single-stream tok/s and peak throughput with its concurrency", () => {
    expect(headlineLine(levels)).toBe("single stream: 42.1 tok/s (C=1)   peak: 72.2 tok/s at C=4");
    expect(headlineLine(levels.slice(1))).toBe("single stream: — (no C=1 level)   peak: 72.2 tok/s at C=4");
  });
});
