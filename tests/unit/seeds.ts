import type { ResultPoint } from "@/lib/document/schema";

export const SEED_HARDWARE = { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 };
export const SEED_WORKLOAD = { dataset: "fixed chat prompt", output_len: 256, temperature: 0 };
export const SEED_MODEL = "Kimi-K2.5 INT4";

export const VLLM_COMMAND = "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8";
export const SGLANG_GRAPHS_COMMAND =
  "python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --attention-backend triton";
export const SGLANG_NO_GRAPHS_COMMAND = `${SGLANG_GRAPHS_COMMAND} --disable-cuda-graph`;

export interface SeedRun {
  name: string;
  engine: string;
  command: string;
  results: ResultPoint[];
}

export const VLLM_RUN: SeedRun = {
  name: "vLLM TP8 baseline",
  engine: "vllm",
  command: VLLM_COMMAND,
  results: [
    { concurrency: 1, output_throughput: 82.5, mean_tpot_ms: 12.1 },
    { concurrency: 128, output_throughput: 1536 },
  ],
};

export const SGLANG_NO_GRAPHS_RUN: SeedRun = {
  name: "SGLang TP8, --disable-cuda-graph",
  engine: "sglang",
  command: SGLANG_NO_GRAPHS_COMMAND,
  results: [
    { concurrency: 1, output_throughput: 27, mean_tpot_ms: 37 },
    { concurrency: 128, output_throughput: 2216 },
  ],
};

export const SGLANG_GRAPHS_RUN: SeedRun = {
  name: "SGLang TP8, CUDA graphs on",
  engine: "sglang",
  command: SGLANG_GRAPHS_COMMAND,
  results: [
    { concurrency: 1, output_throughput: 63.6, mean_tpot_ms: 15.7 },
    { concurrency: 128, output_throughput: 2370 },
  ],
};

export const SEED_RUNS: readonly SeedRun[] = [VLLM_RUN, SGLANG_NO_GRAPHS_RUN, SGLANG_GRAPHS_RUN];

export function seedDocument(run: SeedRun): Record<string, unknown> {
  return {
    format: "servebench/v1",
    name: run.name,
    engine: run.engine,
    model: SEED_MODEL,
    hardware: SEED_HARDWARE,
    command: run.command,
    workload: SEED_WORKLOAD,
    tags: ["demo", "blackwell", "tp8", "kimi-k2.5"],
    results: run.results,
  };
}
