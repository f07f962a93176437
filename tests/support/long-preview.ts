/**
 * The longest texts a comparison's link preview can be asked to draw: run names and a saved title at the
 * schema's limits (200 characters), in Latin, Chinese, Arabic and emoji, and two runs that differ in model, GPU,
 * workload and many launch flags, so the verdict opens with its longest caveat ("Not like for like (…) — … vs …
 * (+N more changes): …").
 */

const LIMIT = 200;

/** `pattern` repeated and cut to `LIMIT` UTF-16 units (what the schema counts), never inside a character. */
function toLimit(pattern: string): string {
  let text = "";
  for (const char of Array.from(pattern.repeat(Math.ceil((LIMIT * 2) / pattern.length)))) {
    if (text.length + char.length > LIMIT) break;
    text += char;
  }
  return text.trim();
}

export const LONG_TITLE = toLimit(
  "Kimi-K2.5 推理服务 on eight Blackwells — مقارنة الأداء 🚀 speculative decoding, chunked prefill and CUDA graphs compared ",
);

export const LONG_NAMES = [
  toLimit("vLLM TP8 speculative-decoding baseline 混合专家 with a launch command nobody can remember 🔥 "),
  toLimit("SGLang TP8 تجربة طويلة جدا with --enable-torch-compile, --disable-cuda-graph and friends 🧪 "),
] as const;

const LEVELS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** Two run documents as uploaded: every text at its longest, everything that can differ differing. */
export function longestPreviewDocuments(): Record<string, unknown>[] {
  return [
    {
      format: "servebench/v1",
      name: LONG_NAMES[0],
      engine: "vllm",
      model: "moonshotai/Kimi-K2.5-Instruct-INT4-with-an-unusually-long-checkpoint-name",
      hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8 },
      command:
        "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 --max-num-seqs 512 --max-model-len 32768 " +
        "--enable-chunked-prefill --enable-prefix-caching --gpu-memory-utilization 0.95 --kv-cache-dtype fp8",
      workload: { dataset: "sharegpt", input_len: 4096, output_len: 1024, temperature: 0 },
      results: LEVELS.map((concurrency) => ({
        concurrency,
        output_throughput: Math.round(81.7 * concurrency ** 0.8 * 1000) / 1000,
        mean_tpot_ms: 12.1 + concurrency / 20,
      })),
    },
    {
      format: "servebench/v1",
      name: LONG_NAMES[1],
      engine: "sglang",
      model: "Qwen/Qwen3-235B-A22B-Instruct-FP8-also-with-a-long-name",
      hardware: { gpu: "H100 80GB HBM3", gpu_count: 4 },
      command:
        "python -m sglang.launch_server --model-path Qwen/Qwen3-235B --tp 4 --attention-backend triton " +
        "--disable-cuda-graph --enable-torch-compile --chunked-prefill-size 8192 --mem-fraction-static 0.88 " +
        "--schedule-policy lpm --max-running-requests 256",
      workload: { dataset: "random", input_len: 1024, output_len: 256, temperature: 0.7 },
      results: LEVELS.map((concurrency) => ({
        concurrency,
        output_throughput: Math.round(99_863.3 * (1 - Math.exp(-concurrency / 90)) * 1000) / 1000 + 27,
        mean_tpot_ms: 9.5 + concurrency / 30,
      })),
    },
  ];
}
