/**
 * The validity checks (lib/validity): the GPU catalogue and its name matcher, model sizes from names, and each
 * check against hand-computed figures; then every fixture through the importers and the checks.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { DEMO_RUNS } from "@/lib/demo/runs";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { RunDocumentInput } from "@/lib/document/schema";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import {
  type CheckableRun,
  type CheckId,
  checkRun,
  ROOFLINE_TOLERANCE,
  type ValidityCheck,
} from "@/lib/validity/checks";
import { GPUS, matchGpuId } from "@/lib/validity/gpus";
import { modelSizeOf, precisionFromText } from "@/lib/validity/model-size";
import { FIXTURES_DIR, fixtureFiles } from "./formats/fixtures";

function check(run: CheckableRun, id: CheckId): ValidityCheck {
  const found = checkRun(run).checks.find((entry) => entry.id === id);
  if (!found) throw new Error(`no ${id} check`);
  return found;
}

/** A run written as a person would upload it, normalized as the server stores it. */
function stored(doc: Omit<RunDocumentInput, "format" | "engine"> & { engine?: string }) {
  return normalizeRunDocument({ format: "servebench/v1", engine: "vllm", ...doc });
}

describe("the GPU catalogue", () => {
  it("gives every entry a datasheet figure set and an https source", () => {
    for (const gpu of Object.values(GPUS)) {
      expect(gpu.memory_gb).toBeGreaterThan(0);
      expect(gpu.bandwidth_gb_s).toBeGreaterThan(0);
      expect(gpu.tdp_w).toBeGreaterThan(0);
      expect(gpu.source_url).toMatch(/^https:\/\//);
    }
  });

  it.each([
    ["NVIDIA H100 80GB HBM3", "h100-sxm"],
    ["H100-SXM5-80GB", "h100-sxm"],
    ["h100_sxm5_80gb", "h100-sxm"],
    ["H100", "h100-sxm"],
    ["NVIDIA H100 PCIe", "h100-pcie"],
    ["NVIDIA H100 NVL", "h100-nvl"],
    ["NVIDIA H200", "h200-sxm"],
    ["H200 NVL", "h200-nvl"],
    ["NVIDIA H20", "h20"],
    ["NVIDIA B200", "b200"],
    ["GB200", "gb200"],
    ["NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"],
    ["NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"],
    ["NVIDIA A100-PCIE-40GB", "a100-40gb-pcie"],
    ["NVIDIA A100 80GB PCIe", "a100-80gb-pcie"],
    ["NVIDIA L40S", "l40s"],
    ["NVIDIA L4", "l4"],
    ["NVIDIA A10G", "a10g"],
    ["RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"],
    ["NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000-blackwell-workstation"],
    ["NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000-blackwell-max-q"],
    ["RTX PRO 6000 Blackwell", "rtx-pro-6000-blackwell"],
    ["NVIDIA GeForce RTX 4090", "rtx-4090"],
    ["RTX4090", "rtx-4090"],
    ["NVIDIA GeForce RTX 5090", "rtx-5090"],
    ["NVIDIA GeForce RTX 3090", "rtx-3090"],
    ["AMD Instinct MI300X", "mi300x"],
    ["MI325X", "mi325x"],
    ["AMD Instinct MI355X", "mi355x"],
    ["Intel Gaudi 3", "gaudi-3"],
  ])("“%s” is %s", (name, id) => {
    expect(matchGpuId(name)).toBe(id);
  });

  it.each([
    "TPU v5e",
    "NVIDIA L40",
    "NVIDIA GeForce RTX 3090 Ti",
    "NVIDIA GeForce RTX 4090 Laptop GPU",
    "NVIDIA RTX 6000 Ada Generation",
    "NVIDIA GH200 480GB",
    "AMD Instinct MI300A",
    "",
  ])("“%s” is not in the catalogue", (name) => {
    expect(matchGpuId(name)).toBeNull();
  });

  it("tells the variants of a bare name apart by the run's memory per GPU", () => {
    expect(matchGpuId("A100", 40_960)).toBe("a100-40gb-sxm");
    expect(matchGpuId("A100", 81_920)).toBe("a100-80gb-sxm");
    expect(matchGpuId("H100", 81_559)).toBe("h100-sxm");
    expect(matchGpuId("H100", 95_830)).toBe("h100-nvl");
  });
});

describe("model sizes from names", () => {
  it("reads a dense model's size, BF16 when nothing says otherwise", () => {
    expect(modelSizeOf({ model: "meta-llama/Llama-3.3-70B-Instruct" })).toMatchObject({
      total_params_b: 70,
      active_params_b: 70,
      mixture_of_experts: false,
      bytes_per_param: 2,
      precision_source: "assumed",
    });
    expect(modelSizeOf({ model: "Qwen/Qwen3-0.6B" })).toMatchObject({ total_params_b: 0.6, active_params_b: 0.6 });
    expect(modelSizeOf({ model: "facebook/opt-125m" })).toMatchObject({ total_params_b: 0.125 });
    // A million-token context is not a size.
    expect(modelSizeOf({ model: "Qwen2.5-7B-Instruct-1M" })).toMatchObject({ total_params_b: 7, active_params_b: 7 });
  });

  it("reads total and active parameters of a mixture of experts", () => {
    expect(modelSizeOf({ model: "Qwen3-30B-A3B" })).toMatchObject({
      total_params_b: 30,
      active_params_b: 3,
      mixture_of_experts: true,
    });
    expect(modelSizeOf({ model: "ibm-granite/granite-3.0-3b-a800m" })).toMatchObject({ active_params_b: 0.8 });
    // "MoE" without an active count: the total alone is known.
    expect(modelSizeOf({ model: "deepseek-moe-16b-base" })).toMatchObject({
      total_params_b: 16,
      active_params_b: null,
      mixture_of_experts: true,
    });
  });

  it.each([
    ["mistralai/Mixtral-8x7B-Instruct-v0.1", 46.7, 12.9, 2],
    ["Kimi-K2.5 INT4", 1_000, 32, 0.5],
    ["moonshotai/Kimi-K2-Instruct", 1_000, 32, 1],
    ["deepseek-ai/DeepSeek-V3-0324", 671, 37, 1],
    ["deepseek-ai/DeepSeek-R1", 671, 37, 1],
    ["openai/gpt-oss-120b", 117, 5.1, 0.5],
    ["openai/gpt-oss-20b", 21, 3.6, 0.5],
    ["meta-llama/Llama-4-Scout-17B-16E-Instruct", 109, 17, 2],
    ["meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 400, 17, 1],
  ])("the known model “%s” has %sB total, %sB active, %s bytes per weight", (model, total, active, bytes) => {
    const size = modelSizeOf({ model });
    expect(size).toMatchObject({ total_params_b: total, active_params_b: active, bytes_per_param: bytes });
    expect(size.known_model?.source_url).toMatch(/^https:\/\//);
  });

  it("a distilled model is its student, whose size its name states", () => {
    expect(modelSizeOf({ model: "deepseek-ai/DeepSeek-R1-Distill-Llama-70B" })).toMatchObject({
      total_params_b: 70,
      active_params_b: 70,
      mixture_of_experts: false,
    });
  });

  it("a name with no size leaves the parameters unknown", () => {
    expect(modelSizeOf({ model: "microsoft/phi-4" })).toMatchObject({ total_params_b: null, active_params_b: null });
    expect(modelSizeOf({ model: "OLMoE-1B-7B" }).active_params_b).toBeNull();
  });

  it.each([
    ["Kimi-K2.5 INT4", 0.5],
    ["Llama-3.3-70B-Instruct-FP8", 1],
    ["RedHatAI/Llama-3.3-70B-Instruct-quantized.w8a8", 1],
    ["RedHatAI/Llama-3.3-70B-Instruct-quantized.w4a16", 0.5],
    ["Qwen2.5-72B-Instruct-AWQ", 0.5],
    ["Qwen2.5-72B-Instruct-GPTQ-Int4", 0.5],
    // GPTQ is 4-bit unless the name states another width.
    ["Qwen2.5-72B-Instruct-GPTQ-Int8", 1],
    ["nvidia/DeepSeek-R1-NVFP4", 0.5],
    ["gpt-oss-120b-MXFP4", 0.5],
    ["Llama-3.1-8B-Instruct-BF16", 2],
    ["Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", 0.5],
    ["Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", 1],
  ])("“%s” is %s bytes per weight", (model, bytes) => {
    expect(modelSizeOf({ model }).bytes_per_param).toBe(bytes);
  });

  it("takes the launch flags' quantization when the name states none, and a stated size over everything", () => {
    expect(modelSizeOf({ model: "Llama-3.3-70B-Instruct", flags: { "--quantization": "fp8" } })).toMatchObject({
      bytes_per_param: 1,
      precision_source: "flags",
    });
    expect(
      modelSizeOf({ model: "Llama-3.3-70B-Instruct", flags: { "--quantization": "compressed-tensors" } }),
    ).toMatchObject({ bytes_per_param: 0.5 });
    expect(modelSizeOf({ model: "Llama-3.3-70B-Instruct", flags: ["--dtype", "float32"] }).bytes_per_param).toBe(4);
    expect(
      modelSizeOf({
        model: "my-finetune",
        model_size: { total_params_b: 235, active_params_b: 22, bytes_per_param: 1 },
      }),
    ).toMatchObject({
      total_params_b: 235,
      active_params_b: 22,
      mixture_of_experts: true,
      bytes_per_param: 1,
      params_source: "stated",
      precision_source: "stated",
    });
    expect(precisionFromText("no width here")).toBeNull();
  });

  it("uses llama-bench's own count of the file: bytes over parameters is the average width", () => {
    // 3.56 GiB over 6.74 B parameters: 3.56 × 1024³ / 6.74e9 = 0.567 bytes (4.54 bits) per weight.
    const size = modelSizeOf({
      model: "llama 7B Q4_0",
      metadata: { model_size: "3.56 GiB", model_n_params: "6.74 B" },
    });
    expect(size.total_params_b).toBeCloseTo(6.74, 6);
    expect(size.bytes_per_param).toBeCloseTo((3.56 * 1024 ** 3) / 6.74e9, 6);
    expect(size.precision_source).toBe("llama-bench");
  });
});

describe("roofline: per-stream decode speed against memory bandwidth ÷ active weight bytes", () => {
  // H100 SXM: 3,350 GB/s × 1 GPU ÷ (70e9 params × 2 bytes) = 3,350 / 140 = 23.93 tok/s per stream.
  const bound = 3_350 / (70 * 2);
  const llama = (tok_s: number, extra: Partial<RunDocumentInput> = {}) =>
    stored({
      model: "meta-llama/Llama-3.3-70B-Instruct",
      hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1 },
      results: [{ concurrency: 1, mean_tpot_ms: 1000 / tok_s, output_throughput: tok_s * 0.95 }],
      ...extra,
    });

  it("writes the bound out: 23.9 tok/s for a 70B BF16 model on one H100 SXM", () => {
    expect(bound).toBeCloseTo(23.93, 2);
    expect(check(llama(0.8 * bound), "roofline").detail).toContain("of the 23.9 tok/s bound of 1× H100 SXM");
  });

  it("marks a run at 2× the bound, not one at 0.8×", () => {
    const fast = check(llama(2 * bound), "roofline");
    expect(fast.status).toBe("marked");
    expect(fast.levels).toEqual(["C=1"]);
    expect(fast.detail).toContain(
      "47.9 tok/s per stream at C=1 exceeds the 23.9 tok/s memory-bandwidth bound of 1× H100 SXM (3,350 GB/s each) for 70B active params at 2 bytes (BF16, assumed)",
    );
    expect(check(llama(0.8 * bound), "roofline").status).toBe("ok");
    // The tolerance: 1.05× passes, 1.15× does not.
    expect(ROOFLINE_TOLERANCE).toBe(1.1);
    expect(check(llama(1.05 * bound), "roofline").status).toBe("ok");
    expect(check(llama(1.15 * bound), "roofline").status).toBe("marked");
  });

  it("counts the tensor-parallel GPUs: the same speed on TP 8 is within 8× the bound", () => {
    // 8 × 3,350 / 140 = 191.4 tok/s.
    const run = llama(2 * bound, { hardware: { gpu: "H100-SXM5-80GB", gpu_count: 8 }, command: "vllm serve m --tp 8" });
    const roofline = check(run, "roofline");
    expect(roofline.status).toBe("ok");
    expect(roofline.detail).toContain("25% of the 191 tok/s bound of 8× H100 SXM (3,350 GB/s each, tensor parallel 8)");
  });

  it("reads a mixture of experts' active parameters, not its total", () => {
    // Qwen3-30B-A3B in BF16 on one H100 SXM: 3,350 / (3 × 2) = 558.3 tok/s; 300 tok/s is well within it,
    // though a dense 30B (3,350 / 60 = 55.8 tok/s) could not reach it.
    const run = stored({
      model: "Qwen/Qwen3-30B-A3B",
      hardware: { gpu: "H100", gpu_count: 1 },
      results: [{ concurrency: 1, mean_tpot_ms: 1000 / 300 }],
    });
    expect(check(run, "roofline")).toMatchObject({ status: "ok" });
    expect(check(run, "roofline").detail).toContain("558 tok/s bound");
  });

  it("the demo's Kimi-K2.5 INT4 runs are well within 8× RTX PRO 6000's 896 tok/s", () => {
    // 8 × 1,792 GB/s ÷ (32e9 active × 0.5 bytes) = 14,336 / 16 = 896 tok/s per stream.
    for (const demo of DEMO_RUNS) {
      const roofline = check(normalizeRunDocument(demo), "roofline");
      expect(roofline.status).toBe("ok");
      expect(roofline.detail).toContain("896 tok/s bound of 8× RTX PRO 6000 Blackwell");
    }
  });

  it("multiplies the bound by 1 + drafted tokens under speculative decoding", () => {
    // 2× the bound, with 3 drafted tokens per step: the bound becomes 4 × 23.9 = 95.7 tok/s.
    const declared = llama(2 * bound, { speculative: { method: "eagle3", num_speculative_tokens: 3 } });
    expect(check(declared, "roofline").status).toBe("ok");
    expect(check(declared, "roofline").detail).toContain("multiplied by 4");
    const fromFlags = llama(2 * bound, {
      flags: { "--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}' },
    });
    expect(check(fromFlags, "roofline").status).toBe("ok");
    // 5× the bound is beyond even 4 tokens a step.
    expect(check(llama(5 * bound, { speculative: { num_speculative_tokens: 3 } }), "roofline").status).toBe("marked");
  });

  it("says why it cannot check a speculative run that does not say how many tokens it drafts", () => {
    const run = llama(2 * bound, { command: "python -m sglang.launch_server --speculative-algorithm EAGLE3" });
    const roofline = check(run, "roofline");
    expect(roofline.status).toBe("unknown");
    expect(roofline.detail).toContain("Speculative decoding is on (--speculative-algorithm EAGLE3)");
  });

  it("is unknown, saying what is missing, without a GPU, a catalogued GPU or a model size", () => {
    const base = { results: [{ concurrency: 1, mean_tpot_ms: 10 }] };
    expect(check(stored({ ...base, model: "Llama-3.1-8B" }), "roofline").detail).toContain("does not name its GPU");
    const tpu = check(stored({ ...base, model: "Llama-3.1-8B", hardware: { gpu: "TPU v5e" } }), "roofline");
    expect(tpu).toMatchObject({ status: "unknown" });
    expect(tpu.detail).toContain("GPU not in the catalogue: “TPU v5e”");
    const phi = check(stored({ ...base, model: "microsoft/phi-4", hardware: { gpu: "L4", gpu_count: 1 } }), "roofline");
    expect(phi.status).toBe("unknown");
    expect(phi.detail).toContain("Model size unknown");
    // A stated size makes it checkable: 300 GB/s ÷ (14.7 × 2) = 10.2 tok/s; 100 tok/s (10 ms TPOT) is impossible.
    const statedPhi = stored({
      ...base,
      model: "microsoft/phi-4",
      model_size: { active_params_b: 14.7 },
      hardware: { gpu: "L4", gpu_count: 1 },
    });
    expect(check(statedPhi, "roofline").status).toBe("marked");
  });
});

describe("saturation: TTFT multiplies while throughput stays flat", () => {
  // A hand-made sweep whose knee is at C=8: beyond it throughput gains 1.4% and 0.3% while TTFT triples.
  const sweep = [
    { concurrency: 1, output_throughput: 50, median_ttft_ms: 40 },
    { concurrency: 2, output_throughput: 98, median_ttft_ms: 42 },
    { concurrency: 4, output_throughput: 190, median_ttft_ms: 45 },
    { concurrency: 8, output_throughput: 360, median_ttft_ms: 60 },
    { concurrency: 16, output_throughput: 365, median_ttft_ms: 190 },
    { concurrency: 32, output_throughput: 366, median_ttft_ms: 600, server_waiting_requests_mean: 14.5 },
  ];

  it("marks the levels past the knee, with TTFT's growth and throughput's", () => {
    const saturation = check(stored({ model: "m", results: sweep }), "saturation");
    expect(saturation.status).toBe("marked");
    expect(saturation.levels).toEqual(["C=16", "C=32"]);
    // 190 / 60 = ×3.17, 600 / 190 = ×3.16; 365 / 360 − 1 = +1.4%, 366 / 365 − 1 = +0.3%.
    expect(saturation.detail).toContain("C=16, C=32: TTFT ×3.2 while throughput +0.27% to +1.4% — the queue only grew");
    expect(saturation.detail).toContain("C=32 14.5");
  });

  it("leaves a sweep that still gains throughput, and a small TTFT rise, unmarked", () => {
    const healthy = sweep.slice(0, 4);
    expect(check(stored({ model: "m", results: healthy }), "saturation").status).toBe("ok");
    // ×2.2 but only 6 ms: noise, not a queue.
    const tiny = [
      { concurrency: 1, output_throughput: 100, median_ttft_ms: 5 },
      { concurrency: 2, output_throughput: 101, median_ttft_ms: 11 },
    ];
    expect(check(stored({ model: "m", results: tiny }), "saturation").status).toBe("ok");
    expect(check(stored({ model: "m", results: [sweep[0]!] }), "saturation").status).toBe("unknown");
  });
});

describe("output length: mean output tokens per request against workload.output_len", () => {
  const run = (tokens: number) =>
    stored({
      model: "m",
      workload: { output_len: 256 },
      results: [{ concurrency: 1, completed: 10, failed: 0, total_output_tokens: tokens }],
    });

  it("marks requests that ended early or ran long, not those within 90–110%", () => {
    // 2,120 / 10 = 212 tokens = 82.8% of 256.
    const early = check(run(2_120), "output-length");
    expect(early.status).toBe("marked");
    expect(early.detail).toContain("C=1: 212 tokens per request on average, 82.8% of the 256 expected");
    expect(early.detail).toContain("end-of-sequence was not ignored");
    expect(check(run(2_560), "output-length").status).toBe("ok");
    expect(check(run(2_400), "output-length").status).toBe("ok");
    // 3,000 / 10 = 300 = 117% of 256.
    expect(check(run(3_000), "output-length").status).toBe("marked");
    expect(check(stored({ model: "m", results: [{ concurrency: 1 }] }), "output-length").status).toBe("unknown");
  });

  it("expects half the asked length from SGLang's random dataset at random_range_ratio 0", () => {
    const sglang = stored({
      model: "m",
      workload: { output_len: 1024 },
      metadata: { random_range_ratio: 0 },
      results: [{ concurrency: 1, completed: 100, total_output_tokens: 51_500 }],
    });
    expect(check(sglang, "output-length").status).toBe("ok");
  });
});

describe("failed requests: a level's failed share above 1%", () => {
  it("marks the levels, with their shares", () => {
    const run = stored({
      model: "m",
      results: [
        { concurrency: 1, completed: 100, failed: 1 },
        { concurrency: 64, completed: 95, failed: 5 },
      ],
    });
    const failed = check(run, "failed-requests");
    expect(failed.status).toBe("marked");
    expect(failed.levels).toEqual(["C=64"]);
    expect(failed.detail).toContain("C=64 5% (5 of 100)");
    const fine = stored({ model: "m", results: [{ concurrency: 1, completed: 100, failed: 1 }] });
    expect(check(fine, "failed-requests").status).toBe("ok");
  });
});

describe("GPU count: the launch flags' parallelism against hardware.gpu_count", () => {
  const run = (command: string | undefined, gpuCount: number | undefined, metadata?: Record<string, string>) =>
    stored({
      model: "m",
      ...(command ? { command } : {}),
      ...(gpuCount ? { hardware: { gpu: "H100", gpu_count: gpuCount } } : {}),
      ...(metadata ? { metadata } : {}),
      results: [{ concurrency: 1 }],
    });

  it("marks a run stored with the wrong count", () => {
    const wrong = check(run("vllm serve m --tensor-parallel-size 8", 1), "gpu-count");
    expect(wrong.status).toBe("marked");
    expect(wrong.detail).toContain("The flags use 8 GPUs (tensor parallel 8) but the run says 1 GPU");
    const replicas = check(run("vllm serve m --tp 8", 16), "gpu-count");
    expect(replicas.status).toBe("marked");
    expect(replicas.detail).toContain("Unless 2 replicas served it together");
  });

  it("multiplies tensor, pipeline and data parallelism, except SGLang's DP attention", () => {
    expect(check(run("vllm serve m --tp 4 --pipeline-parallel-size 2", 8), "gpu-count").status).toBe("ok");
    expect(check(run("vllm serve m --tp 2 --data-parallel-size 4", 8), "gpu-count").status).toBe("ok");
    expect(
      check(run("python -m sglang.launch_server --tp 8 --dp 8 --enable-dp-attention", 8), "gpu-count").status,
    ).toBe("ok");
  });

  it("accepts more GPUs than one server's over a stack of servers, and is unknown without flags or count", () => {
    expect(check(run("vllm serve m --tp 8", 16, { roles: "prefill, decode" }), "gpu-count").status).toBe("ok");
    expect(check(run(undefined, 8), "gpu-count").status).toBe("unknown");
    expect(check(run("vllm serve m --tp 8", undefined), "gpu-count").status).toBe("unknown");
  });
});

describe("client path: the round trip against the single-stream TPOT", () => {
  const run = (metadata: Record<string, string | number> | undefined) =>
    stored({ model: "m", ...(metadata ? { metadata } : {}), results: [{ concurrency: 1, mean_tpot_ms: 12 }] });

  it("states the path and round trip, and marks a round trip above 5% of a token's time", () => {
    // 0.3 / 12 = 2.5%.
    const local = check(run({ client_path: "localhost", client_rtt_ms: 0.3 }), "client-path");
    expect(local.status).toBe("ok");
    expect(local.detail).toBe("Client path: localhost, round trip 0.3 ms: 2.5% of the 12 ms mean TPOT at C=1.");
    // 2.09 / 12 = 17.4%: what a port-forward added in AIPerf's measurement.
    const forwarded = check(run({ client_path: "port-forward", client_rtt_ms: 2.09 }), "client-path");
    expect(forwarded.status).toBe("marked");
    expect(forwarded.detail).toContain("17.4% of the 12 ms mean TPOT at C=1, above 5%");
  });

  it("is unknown when not recorded", () => {
    expect(check(run(undefined), "client-path").status).toBe("unknown");
    expect(check(run({ client_path: "network" }), "client-path").status).toBe("unknown");
    expect(check(run({ client_path: "localhost" }), "client-path").status).toBe("ok");
  });
});

describe("metric definitions", () => {
  it("says which definitions an imported tool's figures follow", () => {
    const guidellm = check(
      { model: "m", source_format: "guidellm", metadata: { guidellm_version: "0.4.0" }, results: [] },
      "metric-definitions",
    );
    expect(guidellm.status).toBe("ok");
    expect(guidellm.detail).toContain("GuideLLM 0.4.0: its time_per_output_token includes the first token");
    const bench = check(
      { model: "m", source_format: "servebench/v1", metadata: { client: "servebench bench" }, results: [] },
      "metric-definitions",
    );
    expect(bench.status).toBe("ok");
  });

  it("marks a hand-written TPOT that is really e2e latency / output tokens", () => {
    // 100 tokens per request, TTFT 200 ms, e2e 1,400 ms: vLLM's TPOT is 1,200 / 99 = 12.1 ms, e2e / tokens is 14 ms.
    const point = { concurrency: 1, completed: 10, total_output_tokens: 1_000, mean_ttft_ms: 200, mean_e2el_ms: 1_400 };
    const included = check(stored({ model: "m", results: [{ ...point, mean_tpot_ms: 14 }] }), "metric-definitions");
    expect(included.status).toBe("marked");
    expect(included.detail).toContain("the mean TPOT of 14 ms equals e2e latency / output tokens (14 ms)");
    const excluded = check(stored({ model: "m", results: [{ ...point, mean_tpot_ms: 12.1 }] }), "metric-definitions");
    expect(excluded.status).toBe("unknown");
  });
});

describe("the report", () => {
  it("is marked with a one-sentence summary naming what is marked, and empty when nothing is", () => {
    const report = checkRun(
      stored({
        model: "meta-llama/Llama-3.3-70B-Instruct",
        hardware: { gpu: "H100", gpu_count: 1 },
        results: [{ concurrency: 1, mean_tpot_ms: 10, completed: 90, failed: 10 }],
      }),
    );
    expect(report.marked).toBe(true);
    // 1000 / 10 = 100 tok/s against 23.9.
    expect(report.summary).toBe(
      "Marked: 100 tok/s per stream exceeds the 23.9 tok/s memory-bandwidth bound; over 1% failed at C=1.",
    );
    expect(report.checks.map((entry) => entry.id)).toEqual([
      "roofline",
      "saturation",
      "output-length",
      "failed-requests",
      "gpu-count",
      "client-path",
      "metric-definitions",
    ]);
    const clean = checkRun(normalizeRunDocument(DEMO_RUNS[0]!));
    expect(clean).toMatchObject({ marked: false, summary: "" });
  });
});

describe("every fixture through its importer and the checks", () => {
  const isResult = (file: string) =>
    !file.endsWith(".md") && !file.endsWith("SOURCE.txt") && !file.endsWith("_json_schema.json");
  const files = fs
    .readdirSync(FIXTURES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .flatMap((folder) => fixtureFiles(folder))
    .filter(isResult);

  function runsOf(file: string): CheckableRun[] {
    const parsed = readUploads([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }], FORMAT_PARSERS);
    return planRuns(parsed, { split: true }).runs.map((run) => run.document as unknown as CheckableRun);
  }

  test.each(files)("%s: no check throws", (file) => {
    let runs: CheckableRun[] = [];
    try {
      runs = runsOf(file);
    } catch {
      // A file that is no run on its own (a companion file, a trap the importer refuses) has nothing to check.
      return;
    }
    for (const run of runs) {
      const report = checkRun(run);
      expect(report.checks).toHaveLength(7);
      expect(report.marked).toBe(report.summary !== "");
    }
  });

  it("AIPerf's run1: 11 of 100 requests failed at C=100; its TPOT is AIPerf's (first token excluded)", () => {
    const [run] = runsOf("aiperf/run1/profile_export_aiperf.json");
    const report = checkRun(run!);
    expect(report.checks.find((entry) => entry.id === "failed-requests")).toMatchObject({
      status: "marked",
      levels: ["C=100"],
    });
    expect(report.checks.find((entry) => entry.id === "metric-definitions")?.status).toBe("ok");
    expect(report.checks.find((entry) => entry.id === "roofline")?.status).toBe("unknown");
  });

  it("llm-d's v0.1 example states a TPOT no 17 H100s could decode DeepSeek-R1 at", () => {
    // 1000 / 0.0837 ms = 11,948 tok/s per stream; 17 × 3,350 GB/s ÷ (37e9 × 1 byte) = 1,539 tok/s.
    const [run] = runsOf("llm-d-benchmark-report/br_v0_1_example.yaml");
    const roofline = check(run!, "roofline");
    expect(roofline.status).toBe("marked");
    expect(roofline.detail).toContain("11,948 tok/s per stream at 1.3 req/s exceeds the 1,539 tok/s");
    expect(check(run!, "gpu-count").status).toBe("ok");
  });

  it("SGLang's online Llama 3.3 70B sweep: lengths as drawn, no over-saturation", () => {
    const [run] = runsOf("sglang/llama_3_3_70b_online_output.jsonl");
    expect(check(run!, "output-length").status).toBe("ok");
    expect(check(run!, "saturation").status).toBe("ok");
    expect(check(run!, "metric-definitions").status).toBe("ok");
  });
});
