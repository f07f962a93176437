/** Real files of the classes that used to import wrongly, each uploaded as a person would, with the figures they state. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FIXTURES_DIR } from "./fixtures";

type Doc = {
  results: ResultPoint[];
  warnings?: string[];
  not_imported?: { field: string; value: unknown; reason: string }[];
  metadata: Record<string, unknown>;
  engine?: string;
  engine_version?: string;
  model?: string;
  name?: string;
  hardware?: Record<string, unknown>;
  flags?: Record<string, unknown>;
  workload?: Record<string, unknown>;
  source_format: string;
};

function upload(file: string): { docs: Doc[]; parsed: ReturnType<typeof readUploads> } {
  const parsed = readUploads([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }], FORMAT_PARSERS);
  const docs = planRuns(parsed, { split: true }).runs.map((run) => run.document as unknown as Doc);
  return { docs, parsed };
}

function lines(file: string): Record<string, number>[] {
  return fs
    .readFileSync(path.join(FIXTURES_DIR, file), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, number>);
}

describe("SGLang bench_one_batch_server: output tok/s over wall time, the tool's decode-only figure as decode_throughput", () => {
  it("a prefill/decode-disaggregated run: 819,200 tokens in about 70 s is about 11,700 tok/s, not 2.1 M", () => {
    const file = "sglang/one-batch-server/GeneratedRandomly-SGLang-reproduce-result.jsonl";
    const raw = lines(file);
    const { docs } = upload(file);
    const points = docs.flatMap((doc) => doc.results);
    expect(points).toHaveLength(15);
    const first = points.find((point) => point.duration_s === 70.1871);
    expect(first).toMatchObject({ concurrency: 8192, decode_throughput: 2103963.11, total_token_throughput: 15406.58 });
    expect(first?.output_throughput).toBeCloseTo((8192 * 100) / 70.1871, 6);
    expect(first?.output_throughput).toBeCloseTo(11671.5, 0);
    for (const line of raw) {
      const point = points.find((candidate) => candidate.duration_s === line.latency);
      expect(point?.decode_throughput).toBe(line.output_throughput);
      expect(point?.output_throughput).toBeCloseTo(
        ((line.batch_size ?? 0) * (line.output_len ?? 0)) / (line.latency ?? 1),
        6,
      );
      expect(point?.output_throughput).toBeLessThan(13_000);
    }
    // Each line is a repeat of the same level, so each becomes a run of its own, keeping its last_gen_throughput.
    expect(docs).toHaveLength(15);
    expect(docs.map((doc) => doc.metadata.last_gen_throughput).sort()).toEqual(
      raw.map((line) => line.last_gen_throughput).sort(),
    );
  });

  it("the newest field set (last_ttft, input_throughput): batch 8 × 8192 tokens in 331.9425 s", () => {
    const { docs } = upload("sglang/one-batch-server/sglang_disagg-result.jsonl");
    const point = docs.flatMap((doc) => doc.results).find((candidate) => candidate.duration_s === 331.9425);
    expect(point).toMatchObject({ concurrency: 8, decode_throughput: 289.13, total_token_throughput: 592.3 });
    expect(point?.output_throughput).toBeCloseTo((8 * 8192) / 331.9425, 6);
  });

  it("offline bench_one_batch: output over total latency, median decode throughput as decode-only", () => {
    const { docs } = upload("sglang/one-batch/frgossen-sglang-result.jsonl");
    expect(docs[0]?.source_format).toBe("sglang-bench-one-batch");
    const point = docs.flatMap((doc) => doc.results).find((candidate) => candidate.duration_s === 0.2906115762889385);
    expect(point).toMatchObject({
      concurrency: 1,
      decode_throughput: 112.0005440738405,
      total_token_throughput: 991.0135159710844,
    });
    expect(point?.output_throughput).toBeCloseTo(32 / 0.2906115762889385, 9);
    const reported = docs.flatMap((doc) => doc.not_imported ?? []);
    expect(
      reported.some((entry) => entry.field === "line 1.prefill_latency" && entry.value === 0.01405533216893673),
    ).toBe(true);
  });
});

describe("llama-bench captured with its stderr, and its markdown table", () => {
  it("JSON lines after ggml_cuda_init lines: the records imported, the lines listed in the warnings", () => {
    const { docs } = upload("llama-bench/with-stderr/quick-test.jsonl");
    const doc = docs[0] as Doc;
    expect(doc.results[0]?.output_throughput).toBe(192.587412);
    expect(doc.metadata.pp512_tok_s).toBe(5007.643797);
    expect(doc.metadata["tg128@d4096_tok_s"]).toBe(142.840121);
    expect(doc.engine_version).toBe("b6865 (1c1409e1)");
    expect(doc.warnings?.[0]).toContain('line 3 "ggml_cuda_init: found 1 ROCm devices:"');
  });

  it("the markdown table with log lines and build line: every column, the build, the GPU from the log", () => {
    const { docs } = upload("llama-bench/markdown/GLM-4.5-Air-UD-Q4_K_XL-00001-of-00002__rocm6_4_4.log");
    const doc = docs[0] as Doc;
    expect(doc.source_format).toBe("llama-bench");
    // The table's model column is llama.cpp's architecture, size and quantization, not the model: it names the run
    // and stays in the metadata; the model is the person's to state (the file never says GLM-4.5-Air).
    expect(doc.model).toBeUndefined();
    expect(doc.name).toBe("llama-bench · glm4moe 106B.A12B Q4_K - Medium");
    expect(doc.metadata.model_type).toBe("glm4moe 106B.A12B Q4_K - Medium");
    expect(doc.engine_version).toBe("b6609 (4807e8f9)");
    expect(doc.results[0]?.output_throughput).toBe(19.83);
    expect(doc.metadata).toMatchObject({
      pp512_tok_s: 126.3,
      tg128_tok_s: 19.83,
      model_size: "68.01 GiB",
      model_n_params: "110.47 B",
      backends: "ROCm",
      output_tok_s_stddev: 0,
    });
    expect(doc.flags).toMatchObject({ "-ngl": 99, "-mmp": false });
    expect(doc.hardware).toMatchObject({ gpu: "Radeon 8060S Graphics", gpu_count: 1 });
    expect(doc.not_imported).toContainEqual(expect.objectContaining({ field: "row 1.t/s (± stddev)", value: 0.14 }));
    expect(doc.warnings?.[0]).toContain("rocBLAS error: No hipBLASLt solution found");
  });

  it("a Vulkan table with the fa column", () => {
    const { docs } = upload("llama-bench/markdown/GLM-4.7-Flash-BF16-00001-of-00002__vulkan_radv__fa1.log");
    const doc = docs[0] as Doc;
    expect(doc.results[0]?.output_throughput).toBe(9.46);
    expect(doc.metadata).toMatchObject({ pp512_tok_s: 361.24, model_size: "55.79 GiB" });
    expect(doc.flags).toMatchObject({ "-fa": true });
    expect(doc.engine_version).toBe("b9187 (0253fb21f)");
  });
});

describe("vLLM: no usage, look-alike keys in seconds, goodput", () => {
  it("a level that streamed tokens but counted none: token figures refused with a warning, never 0 tok/s", () => {
    const { docs } = upload("vllm/hand-made-no-usage-streamed.json");
    const point = docs[0]?.results[0] as ResultPoint;
    expect(point.output_throughput).toBeUndefined();
    expect(point.total_output_tokens).toBeUndefined();
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point).toMatchObject({ completed: 4, mean_ttft_ms: 152.4, mean_itl_ms: 23.6, mean_e2el_ms: 6010.5 });
    expect(docs[0]?.warnings?.join(" ")).toMatch(/0 output tokens were counted: the server sent no usage/);
    expect(docs[0]?.not_imported).toContainEqual(expect.objectContaining({ field: "output_throughput", value: 0 }));
  });

  it("InferenceX's median_ttft, p99_tpot… in seconds are converted to ms, with a warning", () => {
    const { docs } = upload("vllm/inferencex-seconds/glm5_fp8_vllm_tp8_isl1024_osl128_conc4.json");
    const point = docs[0]?.results[0] as ResultPoint;
    expect(point).toMatchObject({ concurrency: 4, completed: 40, output_throughput: 164.72765441223032 });
    expect(point.median_ttft_ms).toBeCloseTo(264.99967742711306, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(584.8183088190854, 9);
    expect(point.median_tpot_ms).toBeCloseTo(21.372462615488082, 9);
    expect(point.p99_e2el_ms).toBeCloseTo(3720.3497649915516, 9);
    expect(docs[0]?.warnings?.join(" ")).toMatch(/median_ttft.*read as seconds/);
  });
});

describe("LLMPerf summaries keyed by concurrency, and trtllm-bench's printed report", () => {
  it("one run with a point per key", () => {
    const { docs } = upload("llmperf/keyed/meta-llama_Meta-Llama-3-8B-Instruct_tp_1_results.json");
    expect(docs).toHaveLength(1);
    const points = docs[0]?.results ?? [];
    expect(points.map((point) => point.concurrency)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    expect(points[0]?.mean_ttft_ms).toBeCloseTo(158.1385759098339, 9);
    expect(points[0]?.mean_e2el_per_token_ms).toBeCloseTo(30.31770423789113, 9);
  });

  it("the 0.17 report: 28390.4265 tok/s, 221.8002 req/s, 13525.6862 ms, 3000 requests", () => {
    const { docs } = upload("trtllm/printed/perf-benchmarking-throughput-0.17.0.log");
    const doc = docs[0] as Doc;
    expect(doc.source_format).toBe("trtllm-bench");
    expect(doc.results[0]).toMatchObject({
      request_rate: "inf",
      completed: 3000,
      output_throughput: 28390.4265,
      request_throughput: 221.8002,
    });
    expect(doc.results[0]?.duration_s).toBeCloseTo(13.5256862, 9);
    expect(doc.engine_version).toBe("0.17.0");
    expect(doc.model).toBe("meta-llama/Llama-3.1-8B");
    expect(doc.flags).toMatchObject({ "--max-batch-size": 4096 });
  });

  it("the PyTorch report with the latency breakdown and the dataset table", () => {
    const { docs } = upload("trtllm/printed/perf-benchmarking-pytorch-multimodal.log");
    const point = docs[0]?.results[0] as ResultPoint;
    expect(point).toMatchObject({
      output_throughput: 185.8351,
      total_token_throughput: 780.1607,
      mean_e2el_ms: 3671.8441,
      median_e2el_ms: 3936.3022,
      p99_e2el_ms: 5514.4701,
      completed: 10,
    });
    expect(docs[0]?.not_imported).toContainEqual(
      expect.objectContaining({ field: "PERFORMANCE OVERVIEW.[Latency] MINIMUM", value: 2397.1047 }),
    );
    expect(docs[0]?.not_imported).toContainEqual(
      expect.objectContaining({ field: "DATASET DETAILS.P50 input (tokens)", value: 299 }),
    );
  });
});
