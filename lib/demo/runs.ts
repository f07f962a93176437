/**
 * The demo runs: a real tuning campaign (Kimi-K2.5 INT4 on 8× RTX PRO 6000 Blackwell, vLLM against SGLang,
 * with and without CUDA graphs). Only the figures the engineer measured are here: single stream (C=1) and
 * C=128. Intermediate load levels were not recorded and are not invented.
 */
import type { RunDocumentInput } from "@/lib/document/schema";

export const DEMO_TAG = "demo";

const hardware = { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 };
// The campaign's script: the same prompt at every level, 256 max tokens, temperature 0 (greedy).
const workload = { dataset: "fixed chat prompt", output_len: 256, temperature: 0 };
const model = "Kimi-K2.5 INT4";
const sglangCommand =
  "python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --attention-backend triton";

export const DEMO_RUNS: RunDocumentInput[] = [
  {
    format: "servebench/v1",
    name: "vLLM TP8 baseline",
    engine: "vllm",
    model,
    hardware,
    command: "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8",
    workload,
    tags: [DEMO_TAG, "blackwell", "tp8", "kimi-k2.5"],
    notes:
      "Example data. Defaults, so CUDA graphs on; NCCL environment variables tuned (their values were not recorded). " +
      "Profiling showed AllReduce taking 51.5% of decode time.",
    results: [
      { concurrency: 1, output_throughput: 82.5, mean_tpot_ms: 12.1 },
      { concurrency: 128, output_throughput: 1536 },
    ],
  },
  {
    format: "servebench/v1",
    name: "SGLang TP8, --disable-cuda-graph",
    engine: "sglang",
    model,
    hardware,
    command: `${sglangCommand} --disable-cuda-graph`,
    workload,
    server_startup_s: 313,
    tags: [DEMO_TAG, "blackwell", "tp8", "kimi-k2.5"],
    notes:
      "Example data. First SGLang try: --disable-cuda-graph was left over from debugging a suspected hang. " +
      "3× slower than vLLM for one user, yet 44% faster at 128 users. Loading and dequantizing the weights took 313 s.",
    results: [
      { concurrency: 1, output_throughput: 27, mean_tpot_ms: 37 },
      { concurrency: 128, output_throughput: 2216 },
    ],
  },
  {
    format: "servebench/v1",
    name: "SGLang TP8, CUDA graphs on",
    engine: "sglang",
    model,
    hardware,
    command: sglangCommand,
    workload,
    tags: [DEMO_TAG, "blackwell", "tp8", "kimi-k2.5"],
    notes:
      "Example data. The same launch with --disable-cuda-graph removed: every decode step no longer launches " +
      "hundreds of kernels one by one.",
    results: [
      { concurrency: 1, output_throughput: 63.6, mean_tpot_ms: 15.7 },
      { concurrency: 128, output_throughput: 2370 },
    ],
  },
];
