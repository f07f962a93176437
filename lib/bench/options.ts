/** The options of `servebench bench`, parsed and checked before anything is sent. */
import { parseArgs } from "node:util";
import type { RunContextInput } from "./document";
import { DEFAULT_CONCURRENCY } from "./runner";
import type { Endpoint } from "./sse";

export const BENCH_USAGE = `servebench bench --base-url URL [options]

Measures an OpenAI-compatible server (vLLM, SGLang, TensorRT-LLM, llama.cpp…) at each concurrency level
and writes a servebench/v1 run (docs/bench.md).

  --base-url URL        the server's OpenAI API, e.g. http://host:8000/v1 (required)
  --model NAME          the model to request (default: the first one /v1/models lists)
  --concurrency LIST    concurrency levels (default: ${DEFAULT_CONCURRENCY.join(",")})
  --requests N          requests per level (default: max(3 × concurrency, 10): three full waves or more)
  --max-tokens N        max_tokens of every request (default: 256)
  --temperature T       sampling temperature (default: 0)
  --prompts FILE        one prompt per line, or JSONL of chat messages (default: built-in varied prompts)
  --input-len N         synthetic prompts of about N tokens, a new one for every request
  --output-len N        exactly N output tokens: max_tokens N and ignore_eos (vLLM, SGLang)
  --endpoint E          chat (/v1/chat/completions, default) or completions (/v1/completions)
  --api-key-env NAME    the environment variable holding the API key (default: OPENAI_API_KEY)
  --timeout S           seconds a request may take before it counts as failed (default: 600)
  --warmup N            requests sent before measuring, not counted (default: 1)
  --out FILE            where to write the run (default: servebench-bench-<time>.json)
  --upload URL          also send the run to this servebench server and print its link
  --token TOKEN         write token for --upload, sent as Authorization: Bearer TOKEN (default:
                        $SERVEBENCH_TOKEN); needed when the server sets SERVEBENCH_WRITE_TOKEN

  The run's context (what the server does not tell):
  --name TEXT           run name
  --engine NAME         vllm, sglang, tensorrt-llm, llama.cpp… (default: what the server tells)
  --engine-version V    its version (default: what the server tells)
  --command TEXT        the server's launch command (parsed into flags)
  --gpu NAME            GPU model
  --gpu-count N         number of GPUs
  --tag TAG             a tag; repeat for more
  --env KEY=VALUE       an environment variable of the server; repeat for more
  --notes TEXT          free text`;

const OPTIONS = {
  "base-url": { type: "string" },
  model: { type: "string" },
  concurrency: { type: "string" },
  requests: { type: "string" },
  "max-tokens": { type: "string" },
  temperature: { type: "string" },
  prompts: { type: "string" },
  "input-len": { type: "string" },
  "output-len": { type: "string" },
  endpoint: { type: "string" },
  "api-key-env": { type: "string" },
  timeout: { type: "string" },
  warmup: { type: "string" },
  out: { type: "string" },
  upload: { type: "string" },
  token: { type: "string" },
  name: { type: "string" },
  engine: { type: "string" },
  "engine-version": { type: "string" },
  command: { type: "string" },
  gpu: { type: "string" },
  "gpu-count": { type: "string" },
  tag: { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  notes: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export class BenchUsageError extends Error {}

export interface BenchOptions {
  help: boolean;
  baseUrl: URL;
  /** Set when the URL was completed (a bare host gets /v1). */
  baseUrlNote?: string;
  model?: string;
  concurrency: number[];
  requests: number | null;
  maxTokens: number;
  temperature: number;
  ignoreEos: boolean;
  endpoint: Endpoint;
  promptsFile?: string;
  inputLen?: number;
  apiKeyEnv: string;
  /** True when --api-key-env was given: then the variable must be set. */
  apiKeyEnvGiven: boolean;
  timeoutMs: number;
  warmup: number;
  out?: string;
  upload?: string;
  /** The write token for --upload (else $SERVEBENCH_TOKEN is used): never printed. */
  token?: string;
  engine?: string;
  engineVersion?: string;
  run: RunContextInput;
}

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min)
    throw new BenchUsageError(`--${name} must be a whole number ≥ ${min}, not "${text}"`);
  return Number(text);
}

function decimal(name: string, text: string | undefined, min: number, exclusive = false): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < min || (exclusive && value === min)) {
    throw new BenchUsageError(`--${name} must be a number ${exclusive ? ">" : "≥"} ${min}, not "${text}"`);
  }
  return value;
}

/** "1,4,8" → [1, 4, 8], ascending and without repeats (a run has one point per level). */
export function parseConcurrencyList(text: string): number[] {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) throw new BenchUsageError("--concurrency needs at least one level, e.g. 1,4,8");
  const levels = parts.map((part) => {
    if (!/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 100_000) {
      throw new BenchUsageError(`--concurrency: "${part}" is not a whole number between 1 and 100000`);
    }
    return Number(part);
  });
  return [...new Set(levels)].sort((a, b) => a - b);
}

/** "KEY=VALUE" pairs → an object; the name follows the run format's rule for environment variables. */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!match)
      throw new BenchUsageError(`--env takes KEY=VALUE with a variable name of letters, digits and _, not "${pair}"`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

/** The API URL: http(s) only; a bare host (no path) gets `/v1`, as every OpenAI-compatible server serves it there. */
export function parseBaseUrl(text: string): { url: URL; note?: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BenchUsageError(`--base-url is not a URL: "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new BenchUsageError(`--base-url must be http:// or https://, not "${text}"`);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path === "" ? "/v1" : path;
  return path === "" ? { url, note: `--base-url has no path: using ${url.href}` } : { url };
}

function parseOptionValues(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
}

export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const values = parseOptionValues(argv);
  const defaults: BenchOptions = {
    help: values.help ?? false,
    baseUrl: new URL("http://localhost:8000/v1"),
    concurrency: DEFAULT_CONCURRENCY,
    requests: null,
    maxTokens: 256,
    temperature: 0,
    ignoreEos: false,
    endpoint: "chat",
    apiKeyEnv: "OPENAI_API_KEY",
    apiKeyEnvGiven: false,
    timeoutMs: 600_000,
    warmup: 1,
    run: {},
  };
  if (values.help) return defaults;
  if (values["base-url"] === undefined)
    throw new BenchUsageError("--base-url is required, e.g. --base-url http://localhost:8000/v1");
  const base = parseBaseUrl(values["base-url"]);
  const options: BenchOptions = { ...defaults, baseUrl: base.url };
  if (base.note) options.baseUrlNote = base.note;
  if (values.model !== undefined) options.model = values.model;
  if (values.concurrency !== undefined) options.concurrency = parseConcurrencyList(values.concurrency);
  options.requests = integer("requests", values.requests, 1) ?? null;

  const maxTokens = integer("max-tokens", values["max-tokens"], 1);
  const outputLen = integer("output-len", values["output-len"], 1);
  if (maxTokens !== undefined && outputLen !== undefined && maxTokens !== outputLen) {
    throw new BenchUsageError(
      `--output-len ${outputLen} and --max-tokens ${maxTokens} disagree: --output-len sets max_tokens`,
    );
  }
  options.maxTokens = outputLen ?? maxTokens ?? 256;
  options.ignoreEos = outputLen !== undefined;
  options.temperature = decimal("temperature", values.temperature, 0) ?? 0;

  if (values.prompts !== undefined && values["input-len"] !== undefined) {
    throw new BenchUsageError(
      "--prompts and --input-len exclude each other: the prompts come from the file or are synthetic",
    );
  }
  if (values.prompts !== undefined) options.promptsFile = values.prompts;
  const inputLen = integer("input-len", values["input-len"], 1);
  if (inputLen !== undefined) options.inputLen = inputLen;

  const endpoint = values.endpoint ?? "chat";
  if (endpoint !== "chat" && endpoint !== "completions")
    throw new BenchUsageError(`--endpoint is chat or completions, not "${endpoint}"`);
  options.endpoint = endpoint;
  if (values["api-key-env"] !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(values["api-key-env"]))
      throw new BenchUsageError(`--api-key-env takes a variable name, not "${values["api-key-env"]}"`);
    options.apiKeyEnv = values["api-key-env"];
    options.apiKeyEnvGiven = true;
  }
  const timeout = decimal("timeout", values.timeout, 0, true);
  if (timeout !== undefined) options.timeoutMs = timeout * 1000;
  options.warmup = integer("warmup", values.warmup, 0) ?? 1;
  if (values.out !== undefined) options.out = values.out;
  if (values.upload !== undefined) {
    try {
      const url = new URL(values.upload);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
    } catch {
      throw new BenchUsageError(`--upload must be the http(s) URL of a servebench server, not "${values.upload}"`);
    }
    options.upload = values.upload.replace(/\/+$/, "");
  }
  if (values.token !== undefined) options.token = values.token;
  if (values.engine !== undefined) options.engine = values.engine;
  if (values["engine-version"] !== undefined) options.engineVersion = values["engine-version"];

  const run: RunContextInput = {};
  if (values.name !== undefined) run.name = values.name;
  if (values.command !== undefined) run.command = values.command;
  if (values.gpu !== undefined) run.gpu = values.gpu;
  const gpuCount = integer("gpu-count", values["gpu-count"], 1);
  if (gpuCount !== undefined) run.gpu_count = gpuCount;
  if (values.tag !== undefined) run.tags = values.tag;
  if (values.env !== undefined) run.env = parseEnvPairs(values.env);
  if (values.notes !== undefined) run.notes = values.notes;
  options.run = run;
  return options;
}
