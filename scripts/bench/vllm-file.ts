/**
 * A large, realistic `vllm bench serve --save-result --save-detailed` file: the summary fields of
 * tests/fixtures/vllm/bench_serve_v0.25.1.json (keys sorted, as there) plus the per-request arrays
 * `input_lens`, `output_lens`, `ttfts`, `itls` (one list of gaps per request), `generated_texts` and `errors`,
 * in seconds as vLLM writes them. The summary figures are computed from the arrays, as vLLM computes them.
 */
import fs from "node:fs";
import { seededUniform } from "@/lib/seeded-random";

const WORDS = (
  "the of and to in is that for it as with was on be by this are from or at an which model can have not but " +
  "we all were when there has been their more one will would about if so into other some these its could than " +
  "tokens request latency throughput server batch cache prefill decode attention layer kernel memory GPU " +
  "performance benchmark result value example answer question because however therefore first second"
).split(" ");

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function std(values: readonly number[]): number {
  const average = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)));
}

/** numpy's default (linear) percentile. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

function stats(prefix: string, values: readonly number[]): Record<string, number> {
  const ms = values.map((value) => value * 1000);
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    [`mean_${prefix}_ms`]: mean(ms),
    [`median_${prefix}_ms`]: percentile(sorted, 50),
    [`std_${prefix}_ms`]: std(ms),
    [`p99_${prefix}_ms`]: percentile(sorted, 99),
  };
}

/** JSON as Python's json.dump writes it: ", " and ": " between items (numbers print the same way). */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

export interface VllmFile {
  path: string;
  bytes: number;
  requests: number;
  model: string;
}

/** Write the file; ~3.4 kB per request (10,000 requests ≈ 34 MB). */
export function writeVllmDetailedFile(path: string, requests = 10_000, seed = 7): VllmFile {
  const rand = seededUniform(seed);
  const model = "meta-llama/Llama-3.1-8B-Instruct";
  const concurrency = 64;
  const inputLens: number[] = [];
  const outputLens: number[] = [];
  const ttfts: number[] = [];
  const itls: number[][] = [];
  const texts: string[] = [];
  const errors: string[] = [];
  const latencies: number[] = [];
  const tpots: number[] = [];
  for (let index = 0; index < requests; index += 1) {
    const failed = rand() < 0.002;
    const inputLen = 200 + Math.floor(rand() * 1800);
    inputLens.push(inputLen);
    if (failed) {
      outputLens.push(0);
      ttfts.push(0);
      itls.push([]);
      texts.push("");
      errors.push(
        "Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ServerDisconnectedError: Server disconnected",
      );
      continue;
    }
    const outputLen = 32 + Math.floor(rand() * 192);
    outputLens.push(outputLen);
    const ttft = 0.04 + (inputLen / 2000) * 0.25 * (0.7 + rand() * 0.8);
    ttfts.push(ttft);
    const gaps: number[] = [];
    const base = 0.011 + rand() * 0.004;
    for (let token = 1; token < outputLen; token += 1) {
      // Mostly steady decode steps, now and then a stall behind another request's prefill.
      gaps.push(rand() < 0.02 ? base * (4 + rand() * 8) : base * (0.85 + rand() * 0.3));
    }
    itls.push(gaps);
    const words: string[] = [];
    for (let token = 0; token < outputLen * 0.8; token += 1) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    texts.push(
      words
        .join(" ")
        .replace(/(\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+) (\w+)/g, (match) =>
          rand() < 0.15 ? `${match}.\n\n` : match,
        ),
    );
    errors.push("");
    const latency = ttft + gaps.reduce((sum, gap) => sum + gap, 0);
    latencies.push(latency);
    if (outputLen > 1) tpots.push((latency - ttft) / (outputLen - 1));
  }
  const completed = errors.filter((error) => error === "").length;
  const totalInput = inputLens.reduce((sum, value, index) => sum + (errors[index] === "" ? value : 0), 0);
  const totalOutput = outputLens.reduce((sum, value) => sum + value, 0);
  const duration = latencies.reduce((sum, value) => sum + value, 0) / concurrency;
  const succeededTtfts = ttfts.filter((_, index) => errors[index] === "");
  const summary: Record<string, unknown> = {
    backend: "vllm",
    burstiness: 1.0,
    completed,
    date: "20261128-141502",
    duration,
    endpoint_type: "vllm",
    failed: requests - completed,
    label: null,
    max_concurrency: concurrency,
    max_concurrent_requests: concurrency,
    max_output_tokens_per_s: Math.round((totalOutput / duration) * 1.2),
    model_id: model,
    num_prompts: requests,
    output_throughput: totalOutput / duration,
    request_goodput: null,
    request_rate: "inf",
    request_throughput: completed / duration,
    rtfx: 0.0,
    tokenizer_id: model,
    total_input_tokens: totalInput,
    total_output_tokens: totalOutput,
    total_token_throughput: (totalInput + totalOutput) / duration,
    ...stats("ttft", succeededTtfts),
    ...stats("tpot", tpots),
    ...stats("itl", itls.flat()),
    ...stats("e2el", latencies),
    errors,
    generated_texts: texts,
    input_lens: inputLens,
    itls,
    output_lens: outputLens,
    ttfts,
  };
  const sorted = Object.fromEntries(Object.entries(summary).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = pythonJson(sorted);
  fs.writeFileSync(path, text);
  return { path, bytes: Buffer.byteLength(text), requests, model };
}
