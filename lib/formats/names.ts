/** How each source format is named on screen. Kept apart from the parsers so pages can use it cheaply. */
import type { FormatId } from "./types";

export const FORMAT_NAMES: Record<FormatId, string> = {
  "servebench/v1": "servebench/v1",
  "vllm-bench-serve": "vLLM bench serve",
  "vllm-sweep": "vLLM bench sweep serve",
  "sglang-bench-serving": "SGLang bench_serving",
  "sglang-bench-one-batch-server": "SGLang bench_one_batch_server",
  "sglang-bench-one-batch": "SGLang bench_one_batch",
  guidellm: "GuideLLM",
  aiperf: "AIPerf / GenAI-Perf",
  llmperf: "LLMPerf",
  "inference-perf": "inference-perf",
  "trtllm-bench": "TensorRT-LLM trtllm-bench",
  "llama-bench": "llama.cpp llama-bench",
  "llm-d-benchmark-report": "llm-d benchmark report",
  "vllm-benchmark-suite": "vLLM performance benchmark suite",
  "vllm-bench-rs": "vLLM vllm-bench (Rust) multi-turn",
  "genai-bench": "SGLang genai-bench",
  evalscope: "EvalScope perf",
  "mlperf-inference": "MLPerf Inference LoadGen",
  "llm-load-test": "llm-load-test",
};

export function formatName(id: string): string {
  return (FORMAT_NAMES as Record<string, string>)[id] ?? id;
}
