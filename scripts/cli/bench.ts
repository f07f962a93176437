/**
 * `servebench bench --base-url URL [options]`: measure an OpenAI-compatible server at each load level,
 * write the servebench/v1 run to a file and, with --upload, store it and print its link. Exits 2 on bad
 * usage, 1 when nothing completed or the upload was rejected, 130 after Ctrl-C (the partial run is written).
 */
import fs from "node:fs";
import path from "node:path";
import { buildRunDocument, publicUrl } from "../../lib/bench/document";
import {
  type BenchOptions,
  BenchUsageError,
  BENCH_USAGE as MEASUREMENT_USAGE,
  parseBenchArgs,
} from "../../lib/bench/options";
import {
  builtinPrompts,
  PromptFileError,
  type PromptSource,
  parsePromptFile,
  randomPrompts,
} from "../../lib/bench/prompts";
import { headlineLine, levelLine, progressLine, summaryTable } from "../../lib/bench/report";
import { benchCommandLine } from "../../lib/bench/reproduce";
import {
  type BenchConfig,
  type BenchEvent,
  type BenchResult,
  loadLevels,
  requestsFor,
  runBenchmark,
} from "../../lib/bench/runner";
import { ContextError } from "../../lib/bench/server-info";
import { readShareGpt } from "../../lib/bench/sharegpt";
import { LIMITS } from "../../lib/document/schema";
import { formatLoadLevel } from "../../lib/format";
import {
  requestServer,
  ServerRequestError,
  TimeoutOptionError,
  timeoutMsFrom,
  UPLOAD_ANSWER_MAX_BYTES,
  UPLOAD_TIMEOUT_MS,
} from "./server-request";
import { terminalSafe } from "./server-text";

/**
 * `--timeout` already bounds each request to the server under test (lib/bench/options.ts), so the time the
 * upload to servebench may take has an option of its own, read here before the rest.
 */
const UPLOAD_TIMEOUT_OPTION = "--upload-timeout";

export const BENCH_USAGE = `${MEASUREMENT_USAGE}

  Sending the run (--upload):
  ${UPLOAD_TIMEOUT_OPTION} S    seconds the upload may take, from connecting to servebench's last byte (default: ${UPLOAD_TIMEOUT_MS / 1000})`;

/**
 * argv without --upload-timeout and its value, and that value. No other option's value can be the word
 * "--upload-timeout": the option parser refuses a separate value that begins with a dash.
 */
export function takeUploadTimeout(argv: readonly string[]): { rest: string[]; given?: string } {
  const rest: string[] = [];
  let given: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === UPLOAD_TIMEOUT_OPTION) {
      given = argv[index + 1] ?? "";
      index += 1;
    } else if (word.startsWith(`${UPLOAD_TIMEOUT_OPTION}=`)) {
      given = word.slice(UPLOAD_TIMEOUT_OPTION.length + 1);
    } else rest.push(word);
  }
  return given === undefined ? { rest } : { rest, given };
}

const EXIT_INTERRUPTED = 130;

// What is printed passes through terminalSafe: much of it is text of the servers (the one measured, which
// names its model, engine and errors, and servebench).
function print(line = ""): void {
  process.stdout.write(`${terminalSafe(line)}\n`);
}

function fail(message: string): void {
  process.stderr.write(`${terminalSafe(`servebench bench: ${message}`)}\n`);
}

/** The most requests one level sends: a sampled dataset needs that many prompts (every level starts at the first). */
function promptsNeeded(options: BenchOptions): number {
  const levels = loadLevels({ concurrency: options.concurrency, requestRates: options.requestRates ?? undefined });
  return Math.max(...levels.map((level) => requestsFor(level, options.requests, options.maxConcurrency)));
}

async function loadPrompts(options: BenchOptions): Promise<PromptSource> {
  if (options.promptsFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(options.promptsFile, "utf8");
    } catch (error) {
      throw new BenchUsageError(
        `cannot read --prompts ${options.promptsFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const source = parsePromptFile(text, path.basename(options.promptsFile));
    if (options.endpoint === "completions" && source.at(0).kind === "chat") {
      throw new BenchUsageError(
        `${options.promptsFile} holds chat messages: use --endpoint chat, or a file of plain-text prompts`,
      );
    }
    return source;
  }
  if (options.dataset === "sharegpt" && options.datasetPath !== undefined) {
    const shareGpt: Parameters<typeof readShareGpt>[1] = { count: promptsNeeded(options), seed: options.seed };
    if (options.outputLen !== undefined) shareGpt.outputLen = options.outputLen;
    else if (options.maxTokensGiven) shareGpt.maxTokens = options.maxTokens;
    return readShareGpt(options.datasetPath, shareGpt);
  }
  if (options.dataset === "random" && options.inputLen !== undefined) {
    const random: Parameters<typeof randomPrompts>[0] = { inputLen: options.inputLen, seed: options.seed };
    if (options.prefixLen !== undefined) random.prefixLen = options.prefixLen;
    if (options.rangeRatio !== undefined) random.rangeRatio = options.rangeRatio;
    if (options.outputLen !== undefined) random.outputLen = options.outputLen;
    return randomPrompts(random);
  }
  return builtinPrompts();
}

function defaultOutFile(started: Date): string {
  const stamp = started.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return `servebench-bench-${stamp}.json`;
}

/** Live progress rewrites one line of the terminal; a finished level leaves its line on stdout. */
function eventPrinter(): (event: BenchEvent) => void {
  const live = process.stderr.isTTY === true;
  const clearLive = () => {
    if (live) process.stderr.write("\r\x1b[K");
  };
  return (event) => {
    switch (event.type) {
      case "context": {
        const { context } = event;
        print(
          `model ${context.model} · engine ${context.engine}${context.engine_version ? ` ${context.engine_version}` : ""}`,
        );
        for (const line of context.lines) print(`  ${line}`);
        break;
      }
      case "warmup-start":
        print(`warm-up: ${event.requests} request${event.requests === 1 ? "" : "s"} (not measured)`);
        break;
      case "warmup-end":
        if (event.failed > 0)
          print(`  warm-up: ${event.failed} of ${event.requests} failed: ${event.errors.join("; ")}`);
        break;
      case "metrics":
        print(event.line);
        break;
      case "level-start":
        if (live) process.stderr.write(terminalSafe(`${formatLoadLevel(event.level)}  0/${event.total} requests`));
        break;
      case "level-progress":
        if (live) process.stderr.write(`\r\x1b[K${terminalSafe(progressLine(event.progress))}`);
        break;
      case "level-end":
        clearLive();
        print(levelLine(event.level));
        break;
    }
  };
}

async function upload(base: string, token: string | undefined, timeoutMs: number, doc: unknown): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  // The same write token `servebench upload` sends, for a server that sets SERVEBENCH_WRITE_TOKEN.
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Awaited<ReturnType<typeof requestServer>>;
  try {
    response = await requestServer(
      `${base}/api/runs`,
      { method: "POST", headers, body: JSON.stringify(doc) },
      { base, timeoutMs, timeoutOption: UPLOAD_TIMEOUT_OPTION, maxAnswerBytes: UPLOAD_ANSWER_MAX_BYTES },
    );
  } catch (error) {
    if (error instanceof ServerRequestError) {
      fail(`${error.message}; the run is in the file above`);
      return 1;
    }
    throw error;
  }
  const { text } = response;
  let body: {
    id?: string;
    url?: string;
    error?: { code?: string; message?: string; issues?: { path: string; message: string }[] };
  };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    fail(`${base} answered ${response.status} with something that is not servebench's JSON`);
    return 1;
  }
  if (!response.ok || body.url === undefined) {
    fail(`upload rejected (${response.status} ${body.error?.code ?? "error"}): ${body.error?.message ?? text}`);
    for (const issue of body.error?.issues ?? []) {
      if (body.error?.message?.includes(issue.message)) continue;
      process.stderr.write(`${terminalSafe(`  ${issue.path || "(document)"}: ${issue.message}`)}\n`);
    }
    return 1;
  }
  print(`${base}${body.url}`);
  return 0;
}

export async function runBench(argv: string[]): Promise<number> {
  let options: BenchOptions;
  let prompts: PromptSource;
  let apiKey: string | undefined;
  let uploadTimeoutMs: number;
  try {
    const { rest, given } = takeUploadTimeout(argv);
    options = parseBenchArgs(rest);
    if (options.help) {
      print(BENCH_USAGE);
      return 0;
    }
    try {
      uploadTimeoutMs = timeoutMsFrom(UPLOAD_TIMEOUT_OPTION, given, UPLOAD_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof TimeoutOptionError) throw new BenchUsageError(error.message);
      throw error;
    }
    apiKey = process.env[options.apiKeyEnv] || undefined;
    if (options.apiKeyEnvGiven && apiKey === undefined)
      throw new BenchUsageError(`--api-key-env ${options.apiKeyEnv}: the variable is not set`);
    prompts = await loadPrompts(options);
  } catch (error) {
    if (error instanceof BenchUsageError || error instanceof PromptFileError) {
      fail(`${error.message}\n\n${BENCH_USAGE}`);
      return 2;
    }
    throw error;
  }

  const config: BenchConfig = {
    baseUrl: options.baseUrl,
    concurrency: options.requestRates ? [] : options.concurrency,
    seed: options.seed,
    percentiles: options.percentiles,
    saveDetailed: options.saveDetailed,
    metrics: options.metrics,
    power: options.power,
    requests: options.requests,
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    ignoreEos: options.ignoreEos,
    endpoint: options.endpoint,
    prompts,
    timeoutMs: options.timeoutMs,
    warmup: options.warmup,
    explicit: {},
  };
  if (options.inputLen !== undefined) config.inputLen = options.inputLen;
  if (options.requestRates) {
    config.requestRates = options.requestRates;
    config.burstiness = options.burstiness;
    if (options.maxConcurrency !== undefined) config.maxConcurrency = options.maxConcurrency;
  }
  if (options.goodput) config.goodput = options.goodput;
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (options.model !== undefined) config.explicit.model = options.model;
  if (options.engine !== undefined) config.explicit.engine = options.engine;
  if (options.engineVersion !== undefined) config.explicit.engine_version = options.engineVersion;
  if (options.run.command !== undefined) config.explicit.command = options.run.command;

  if (options.baseUrlNote) print(options.baseUrlNote);
  const rates = options.requestRates;
  const load = rates
    ? `open loop at ${rates.join(",")} req/s · ${options.burstiness === 1 ? "Poisson arrivals" : `gamma arrivals, burstiness ${options.burstiness}`}${options.maxConcurrency !== undefined ? ` · at most ${options.maxConcurrency} in flight` : ""} · seed ${options.seed}`
    : `C=${options.concurrency.join(",")}`;
  const perLevel =
    options.requests !== null ? String(options.requests) : rates ? "max(30 × rate, 10)" : "max(3 × C, 10)";
  const maxTokens =
    prompts.at(0).maxTokens !== undefined ? "max_tokens per request" : `max_tokens ${options.maxTokens}`;
  print(
    `servebench bench ${publicUrl(options.baseUrl)} · ${load} · ${perLevel} requests per level · ` +
      `${maxTokens}${options.ignoreEos ? " (ignore_eos)" : ""} · temperature ${options.temperature} · ${prompts.dataset}`,
  );
  if (options.goodput) {
    print(
      `goodput targets: ${Object.entries(options.goodput)
        .map(([metric, ms]) => `${metric} ≤ ${ms} ms`)
        .join(", ")}`,
    );
  }
  if (apiKey !== undefined) print(`API key: from $${options.apiKeyEnv}`);

  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT_INTERRUPTED);
    process.stderr.write(
      "\ninterrupted: stopping and writing what was measured so far (Ctrl-C again to quit at once)\n",
    );
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let result: BenchResult;
  try {
    result = await runBenchmark(config, { signal: controller.signal, onEvent: eventPrinter() });
  } catch (error) {
    if (error instanceof ContextError) {
      fail(error.message);
      return 2;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
  }

  if (result.levels.length === 0) {
    fail("interrupted before any level was measured: nothing written");
    return EXIT_INTERRUPTED;
  }
  const doc = buildRunDocument(config, options.run, result);
  // How to measure it again, for the run page's reproduce panel (a metadata value holds 2,000 characters).
  const again = benchCommandLine(options, doc.model);
  if (again.length <= LIMITS.metadataValueChars) doc.metadata = { ...doc.metadata, bench_command: again };

  print();
  for (const line of summaryTable(result.levels, options.percentiles)) print(line);
  print(headlineLine(result.levels));
  if (result.warnings.length > 0) {
    print(`warnings (${result.warnings.length}, kept in the run):`);
    for (const warning of result.warnings) print(`  ${warning}`);
  }

  const out = options.out ?? defaultOutFile(result.started_at);
  try {
    fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (error) {
    fail(`cannot write ${out}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  print(`wrote ${out}${result.partial ? " (partial run)" : ""}`);

  const completed = result.levels.reduce((sum, level) => sum + level.completed, 0);
  const failed = result.levels.reduce((sum, level) => sum + level.failed, 0);
  let code = result.partial ? EXIT_INTERRUPTED : 0;
  if (completed === 0) {
    fail(`every request failed (${failed}): see the warnings above${options.upload ? "; not uploaded" : ""}`);
    return result.partial ? EXIT_INTERRUPTED : 1;
  }
  if (options.upload !== undefined) {
    const token = options.token ?? (process.env.SERVEBENCH_TOKEN || undefined);
    const uploaded = await upload(options.upload, token, uploadTimeoutMs, doc);
    if (uploaded !== 0 && code === 0) code = uploaded;
  }
  return code;
}
