/** The options of `servebench bench`, parsed and checked before anything is sent. */
import { parseArgs } from "node:util";
import type { RequestRate } from "@/lib/document/schema";
import type { RunContextInput } from "./document";
import type { GoodputTargets } from "./metrics";
import { DEFAULT_POWER_INTERVAL_MS, POWER_MODES, type PowerConfig, type PowerMode } from "./power";
import { DEFAULT_CONCURRENCY, OPEN_LOOP_SECONDS } from "./runner";
import type { Endpoint } from "./sse";

export const BENCH_USAGE = `servebench bench --base-url URL [options]

Measures an OpenAI-compatible server (vLLM, SGLang, TensorRT-LLM, llama.cpp…) at each load level and
writes a servebench/v1 run (docs/bench.md).

  --base-url URL        the server's OpenAI API, e.g. http://host:8000/v1 (required)
  --model NAME          the model to request (default: the first one /v1/models lists)

  Load (closed loop by concurrency, or open loop by request rate):
  --concurrency LIST    concurrency levels (default: ${DEFAULT_CONCURRENCY.join(",")})
  --request-rate LIST   open loop instead: requests per second per level, e.g. 1,2,4,8,inf
  --burstiness B        open loop: gamma shape of the times between arrivals (default: 1, Poisson)
  --max-concurrency N   open loop: at most N requests in flight; later arrivals wait
  --seed N              seed of arrival times and sampled prompts (default: 0)
  --requests N          requests per level (default: max(3 × concurrency, 10); open loop: ${OPEN_LOOP_SECONDS} s of
                        arrivals, max(${OPEN_LOOP_SECONDS} × rate, 10), and at rate inf 3 × --max-concurrency or 100)

  What is sent:
  --dataset NAME        builtin (default), random, or sharegpt FILE (a ShareGPT JSON file)
  --prompts FILE        one prompt per line, or JSONL of chat messages
  --input-len N         random prompts of about N tokens, a new one for every request
  --prefix-len N        random: a prefix of N tokens shared by every prompt, before its own
  --range-ratio R       random: lengths drawn from [len × (1 − R), len × (1 + R)] (0 ≤ R < 1; default 0)
  --output-len N        exactly N output tokens: max_tokens N and ignore_eos (vLLM, SGLang)
  --max-tokens N        max_tokens of every request (default: 256; with sharegpt a cap on the reply's length)
  --temperature T       sampling temperature (default: 0)
  --endpoint E          chat (/v1/chat/completions, default) or completions (/v1/completions)

  What is kept:
  --goodput SLOS        targets in ms, e.g. ttft:500 tpot:50 e2el:4000: stores request goodput per level
  --percentiles LIST    percentiles to report, e.g. 50,90,95,99,99.9 (default: 99)
  --save-detailed       keep every request's TTFT, TPOT, e2e, tokens and error in the run
  --metrics-url URL     the server's Prometheus metrics (default: /metrics beside the API, when it answers)
  --metrics-interval MS how often to scrape them while a level runs (default: 250)
  --no-metrics          do not read the server's metrics
  --power MODE          the GPUs' power per level: auto (default), dcgm, nvidia-smi, amd-smi or off
  --power-metrics URL   a DCGM exporter's metrics (DCGM_FI_DEV_POWER_USAGE, …_TOTAL_ENERGY_CONSUMPTION)
  --power-interval MS   how often power is read while a level runs (default: 500)
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
  "request-rate": { type: "string" },
  burstiness: { type: "string" },
  "max-concurrency": { type: "string" },
  seed: { type: "string" },
  requests: { type: "string" },
  dataset: { type: "string" },
  "dataset-path": { type: "string" },
  "prefix-len": { type: "string" },
  "range-ratio": { type: "string" },
  goodput: { type: "string", multiple: true },
  percentiles: { type: "string" },
  "save-detailed": { type: "boolean" },
  "metrics-url": { type: "string" },
  "metrics-interval": { type: "string" },
  "no-metrics": { type: "boolean" },
  power: { type: "string" },
  "power-metrics": { type: "string" },
  "power-interval": { type: "string" },
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
  /** Open loop: the request rates; null for a closed loop. */
  requestRates: RequestRate[] | null;
  burstiness: number;
  maxConcurrency?: number;
  seed: number;
  requests: number | null;
  dataset: "builtin" | "random" | "sharegpt" | "prompts";
  /** The ShareGPT file of `--dataset sharegpt FILE`. */
  datasetPath?: string;
  prefixLen?: number;
  rangeRatio?: number;
  /** `--output-len`, when given. */
  outputLen?: number;
  /** True when --max-tokens was given (ShareGPT then caps each reply's length with it). */
  maxTokensGiven: boolean;
  goodput?: GoodputTargets;
  percentiles: number[];
  saveDetailed: boolean;
  /** null: --no-metrics. */
  metrics: { url?: URL; intervalMs: number } | null;
  /** `--power`, `--power-metrics`, `--power-interval`. */
  power: PowerConfig;
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

/**
 * "1,2,4,inf" → [1, 2, 4, "inf"]: ascending, "inf" (or "infinity") last, without repeats. Rates may be
 * fractions (0.5 req/s).
 */
export function parseRequestRates(text: string): RequestRate[] {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) throw new BenchUsageError("--request-rate needs at least one rate, e.g. 1,2,4,inf");
  const rates: RequestRate[] = parts.map((part) => {
    if (/^(inf|infinity)$/i.test(part)) return "inf";
    const value = Number(part);
    if (!/^(\d+(\.\d+)?|\.\d+)$/.test(part) || !(value > 0) || value > 1_000_000) {
      throw new BenchUsageError(`--request-rate: "${part}" is not a rate above 0 (requests per second) or inf`);
    }
    return value;
  });
  const finite = [...new Set(rates.filter((rate): rate is number => rate !== "inf"))].sort((a, b) => a - b);
  return rates.includes("inf") ? [...finite, "inf"] : finite;
}

const GOODPUT_METRICS = ["ttft", "tpot", "e2el"] as const;

/** vLLM's `--goodput` pairs, "ttft:500", in ms; a metric named twice keeps its last target. */
export function parseGoodput(pairs: readonly string[]): GoodputTargets {
  const targets: GoodputTargets = {};
  const items = pairs.flatMap((pair) => pair.split(/[\s,]+/)).filter((item) => item !== "");
  if (items.length === 0) throw new BenchUsageError("--goodput needs targets, e.g. --goodput ttft:500 tpot:50");
  for (const item of items) {
    const match = /^([a-z0-9_]+):(.+)$/i.exec(item);
    const metric = match?.[1]?.toLowerCase();
    if (!match || !GOODPUT_METRICS.includes(metric as (typeof GOODPUT_METRICS)[number])) {
      throw new BenchUsageError(
        `--goodput takes METRIC:MS pairs with METRIC one of ttft, tpot, e2el (e.g. ttft:500), not "${item}"`,
      );
    }
    const value = Number(match[2]);
    if (match[2]!.trim() === "" || !Number.isFinite(value) || value < 0) {
      throw new BenchUsageError(`--goodput ${metric}: the target is a number of ms ≥ 0, not "${match[2]}"`);
    }
    targets[metric as (typeof GOODPUT_METRICS)[number]] = value;
  }
  return targets;
}

/** "50,90,99.9" → [50, 90, 99.9]: each from 0 to 100, ascending, without repeats. */
export function parsePercentiles(text: string): number[] {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) throw new BenchUsageError("--percentiles needs at least one, e.g. 50,90,99");
  const values = parts.map((part) => {
    const value = Number(part);
    if (!/^\d+(\.\d{1,3})?$/.test(part) || value > 100) {
      throw new BenchUsageError(`--percentiles: "${part}" is not a percentile from 0 to 100 (up to three decimals)`);
    }
    return value;
  });
  const unique = [...new Set(values)].sort((a, b) => a - b);
  if (unique.length > 20) throw new BenchUsageError("--percentiles: at most 20");
  return unique;
}

/**
 * vLLM's spellings, taken as they are: `--goodput ttft:500 tpot:50` (several values after one option) and
 * `--dataset sharegpt FILE` (the file right after the dataset's name).
 */
export function expandArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    out.push(arg);
    if (arg === "--goodput") {
      out.push(argv[index + 1] ?? "");
      index += 1;
      while (index + 1 < argv.length && /^[a-z0-9_]+:/i.test(argv[index + 1]!)) {
        out.push("--goodput", argv[index + 1]!);
        index += 1;
      }
    } else if (arg === "--dataset" && argv[index + 1] === "sharegpt") {
      out.push("sharegpt");
      index += 1;
      const next = argv[index + 1];
      if (next !== undefined && !next.startsWith("--")) {
        out.push("--dataset-path", next);
        index += 1;
      }
    }
  }
  return out;
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
  const path = url.pathname.replace(/(?<!\/)\/+$/, "");
  url.pathname = path === "" ? "/v1" : path;
  return path === "" ? { url, note: `--base-url has no path: using ${url.href}` } : { url };
}

function parseOptionValues(argv: readonly string[]) {
  try {
    return parseArgs({ args: expandArgv(argv), options: OPTIONS, allowPositionals: false, strict: true }).values;
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
    requestRates: null,
    burstiness: 1,
    seed: 0,
    requests: null,
    dataset: "builtin",
    maxTokensGiven: false,
    percentiles: [99],
    saveDetailed: false,
    metrics: { intervalMs: 250 },
    power: { mode: "auto", intervalMs: DEFAULT_POWER_INTERVAL_MS },
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
  if (values.concurrency !== undefined && values["request-rate"] !== undefined) {
    throw new BenchUsageError(
      "--concurrency and --request-rate exclude each other: a closed loop keeps N requests in flight, an open loop sends them at a rate (cap it with --max-concurrency)",
    );
  }
  if (values.concurrency !== undefined) options.concurrency = parseConcurrencyList(values.concurrency);
  if (values["request-rate"] !== undefined) options.requestRates = parseRequestRates(values["request-rate"]);
  const openOnly = (name: string) => {
    if (options.requestRates === null)
      throw new BenchUsageError(`--${name} shapes an open loop: give --request-rate too (e.g. --request-rate 1,2,4)`);
  };
  if (values.burstiness !== undefined) {
    openOnly("burstiness");
    const text = values.burstiness.trim();
    const value = /^(inf|infinity)$/i.test(text) ? Number.POSITIVE_INFINITY : Number(text);
    if (text === "" || !(value > 0))
      throw new BenchUsageError(`--burstiness must be a number > 0 or inf, not "${text}"`);
    options.burstiness = value;
  }
  const maxConcurrency = integer("max-concurrency", values["max-concurrency"], 1);
  if (maxConcurrency !== undefined) {
    openOnly("max-concurrency");
    options.maxConcurrency = maxConcurrency;
  }
  const seed = integer("seed", values.seed, 0);
  if (seed !== undefined) {
    if (seed > 2_147_483_647) throw new BenchUsageError(`--seed must be at most 2147483647, not "${values.seed}"`);
    options.seed = seed;
  }
  options.requests = integer("requests", values.requests, 1) ?? null;

  const maxTokens = integer("max-tokens", values["max-tokens"], 1);
  const outputLen = integer("output-len", values["output-len"], 1);
  if (maxTokens !== undefined && outputLen !== undefined && maxTokens !== outputLen) {
    throw new BenchUsageError(
      `--output-len ${outputLen} and --max-tokens ${maxTokens} disagree: --output-len sets max_tokens`,
    );
  }
  options.maxTokens = outputLen ?? maxTokens ?? 256;
  options.maxTokensGiven = maxTokens !== undefined;
  options.ignoreEos = outputLen !== undefined;
  if (outputLen !== undefined) options.outputLen = outputLen;
  options.temperature = decimal("temperature", values.temperature, 0) ?? 0;

  const dataset =
    values.dataset ??
    (values.prompts !== undefined ? "prompts" : values["input-len"] !== undefined ? "random" : "builtin");
  if (!["builtin", "random", "sharegpt", "prompts"].includes(dataset)) {
    throw new BenchUsageError(`--dataset is builtin, random or sharegpt FILE, not "${dataset}"`);
  }
  options.dataset = dataset as BenchOptions["dataset"];
  if (values.prompts !== undefined && options.dataset !== "prompts") {
    throw new BenchUsageError(
      `--prompts and --dataset ${options.dataset} exclude each other: the prompts come from one source`,
    );
  }
  if (values["dataset-path"] !== undefined && options.dataset !== "sharegpt")
    throw new BenchUsageError("--dataset-path goes with --dataset sharegpt");
  if (options.dataset === "sharegpt") {
    if (values["dataset-path"] === undefined)
      throw new BenchUsageError(
        "--dataset sharegpt needs the file: --dataset sharegpt ShareGPT_V3_unfiltered_cleaned_split.json",
      );
    options.datasetPath = values["dataset-path"];
  }
  if (values.prompts !== undefined) options.promptsFile = values.prompts;
  const inputLen = integer("input-len", values["input-len"], 1);
  const prefixLen = integer("prefix-len", values["prefix-len"], 0);
  const rangeRatio = decimal("range-ratio", values["range-ratio"], 0);
  if (rangeRatio !== undefined && rangeRatio >= 1)
    throw new BenchUsageError(`--range-ratio must be below 1 (lengths stay above 0), not "${values["range-ratio"]}"`);
  if (options.dataset === "random") {
    if (inputLen === undefined)
      throw new BenchUsageError("--dataset random needs --input-len N (the prompt length in tokens)");
  } else {
    const stray = [
      inputLen !== undefined ? "--input-len" : null,
      prefixLen !== undefined ? "--prefix-len" : null,
      rangeRatio !== undefined ? "--range-ratio" : null,
    ].filter((name): name is string => name !== null);
    if (stray.length > 0) {
      const source = options.dataset === "prompts" ? "--prompts" : `--dataset ${options.dataset}`;
      throw new BenchUsageError(
        `${stray.join(", ")} shape${stray.length === 1 ? "s" : ""} random prompts and exclude${stray.length === 1 ? "s" : ""} ${source}: the prompts come from one source`,
      );
    }
  }
  if (inputLen !== undefined) options.inputLen = inputLen;
  if (prefixLen !== undefined && prefixLen > 0) options.prefixLen = prefixLen;
  if (rangeRatio !== undefined && rangeRatio > 0) options.rangeRatio = rangeRatio;

  if (values.goodput !== undefined) options.goodput = parseGoodput(values.goodput);
  if (values.percentiles !== undefined) options.percentiles = parsePercentiles(values.percentiles);
  options.saveDetailed = values["save-detailed"] ?? false;
  if (values["no-metrics"] && (values["metrics-url"] !== undefined || values["metrics-interval"] !== undefined))
    throw new BenchUsageError("--no-metrics excludes --metrics-url and --metrics-interval");
  if (values["no-metrics"]) options.metrics = null;
  else {
    const intervalMs = integer("metrics-interval", values["metrics-interval"], 50) ?? 250;
    options.metrics = { intervalMs };
    if (values["metrics-url"] !== undefined) {
      let url: URL;
      try {
        url = new URL(values["metrics-url"]);
      } catch {
        throw new BenchUsageError(`--metrics-url is not a URL: "${values["metrics-url"]}"`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new BenchUsageError(`--metrics-url must be http:// or https://, not "${values["metrics-url"]}"`);
      options.metrics.url = url;
    }
  }

  if (values.power !== undefined) {
    const mode = values.power.trim().toLowerCase();
    if (!POWER_MODES.includes(mode as PowerMode))
      throw new BenchUsageError(`--power is ${POWER_MODES.join(", ")}, not "${values.power}"`);
    options.power.mode = mode as PowerMode;
  }
  options.power.intervalMs = integer("power-interval", values["power-interval"], 100) ?? DEFAULT_POWER_INTERVAL_MS;
  if (values["power-metrics"] !== undefined) {
    if (options.power.mode !== "auto" && options.power.mode !== "dcgm")
      throw new BenchUsageError(`--power-metrics names a DCGM exporter and excludes --power ${options.power.mode}`);
    let url: URL;
    try {
      url = new URL(values["power-metrics"]);
    } catch {
      throw new BenchUsageError(`--power-metrics is not a URL: "${values["power-metrics"]}"`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new BenchUsageError(`--power-metrics must be http:// or https://, not "${values["power-metrics"]}"`);
    options.power.mode = "dcgm";
    options.power.metricsUrl = url;
  }
  if (options.power.mode === "off" && values["power-interval"] !== undefined)
    throw new BenchUsageError("--power off excludes --power-interval");

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
    options.upload = values.upload.replace(/(?<!\/)\/+$/, "");
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
