/**
 * The benchmark: ask the server what it is, warm it up, then measure every load level and aggregate it.
 * A closed-loop level has `concurrency` workers, each sending its next request when the last one ends; an
 * open-loop level sends its requests at arrival times drawn for a request rate (Poisson, or gamma with a
 * burstiness, as vLLM does), optionally no more than `maxConcurrency` at once. While a level runs, the
 * server's Prometheus /metrics is scraped for its own view of it. An abort signal (Ctrl-C) stops it between
 * requests and returns what was measured, marked partial.
 */
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import path from "node:path";
import type { RequestRate } from "@/lib/document/schema";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import { createPool, getJson, getText, type HttpPool, streamRequest } from "./client";
import {
  type AggregateOptions,
  aggregateLevel,
  clip,
  type GoodputTargets,
  type LevelResult,
  type LoadLevel,
  levelWarnings,
  type RequestRecord,
} from "./metrics";
import {
  CommandReader,
  DcgmReader,
  hasDcgmPower,
  type LevelPowerResult,
  type PowerConfig,
  type PowerReader,
  PowerWatcher,
} from "./power";
import { hasEngineMetrics } from "./prometheus";
import type { Prompt, PromptSource } from "./prompts";
import { arrivalTimesMs } from "./random";
import {
  ContextError,
  type ExplicitContext,
  parseModelList,
  parseVersion,
  type ResolvedContext,
  resolveContext,
  type ServerProbe,
} from "./server-info";
import { type LevelWatchResult, ServerMetricsWatcher } from "./server-metrics";
import type { Endpoint } from "./sse";

export interface MetricsConfig {
  /** `--metrics-url`; unset: `/metrics` at the server's root, used when it answers. */
  url?: URL;
  intervalMs: number;
}

export interface BenchConfig {
  /** The OpenAI-compatible API root, e.g. http://host:8000/v1. */
  baseUrl: URL;
  /** Closed-loop levels; ignored when `requestRates` is set. */
  concurrency: number[];
  /** Open-loop levels: requests per second, "inf" for all at once. */
  requestRates?: RequestRate[];
  /** Gamma shape of the times between arrivals (1: Poisson; Infinity: evenly spaced). */
  burstiness?: number;
  /** Open loop: at most this many requests in flight; later arrivals wait in the client. */
  maxConcurrency?: number;
  /** Seeds the arrival times (and, through the prompt source, the prompts). */
  seed?: number;
  goodput?: GoodputTargets;
  /** Percentiles to report beyond the fixed fields. */
  percentiles?: number[];
  /** Keep per-request results on each point. */
  saveDetailed?: boolean;
  /** Rows of per-request results a point keeps at most (default: the run format's limit). */
  detailLimit?: number;
  /** Scrape the server's /metrics; null: never. */
  metrics?: MetricsConfig | null;
  /** Read the GPUs' power while each level runs (`--power`, `--power-metrics`); unset or null: never. */
  power?: PowerConfig | null;
  /** Requests per level; null for the default, max(3 × concurrency, 10). */
  requests: number | null;
  maxTokens: number;
  temperature: number;
  /** Ask the server to ignore end-of-sequence so every request generates exactly maxTokens (`--output-len`). */
  ignoreEos: boolean;
  endpoint: Endpoint;
  prompts: PromptSource;
  /** The prompt length asked for, with synthetic prompts. */
  inputLen?: number;
  /** The API key's value: sent as a bearer token, never printed or stored. */
  apiKey?: string;
  timeoutMs: number;
  warmup: number;
  /** What the user said about the server; the server's own answers fill the rest. */
  explicit: ExplicitContext;
}

export interface LevelProgress {
  level: LoadLevel;
  done: number;
  failed: number;
  total: number;
  elapsed_s: number;
  /** Text chunks per second so far: about the output tok/s, before the server's exact counts arrive. */
  live_output_tok_s: number;
}

export type BenchEvent =
  | { type: "context"; context: ResolvedContext }
  | { type: "warmup-start"; requests: number }
  | { type: "warmup-end"; requests: number; failed: number; duration_s: number; errors: string[] }
  | { type: "metrics"; line: string }
  | { type: "level-start"; level: LoadLevel; total: number }
  | { type: "level-progress"; progress: LevelProgress }
  | { type: "level-end"; level: LevelResult; progress: LevelProgress };

export interface BenchHooks {
  signal?: AbortSignal;
  onEvent?: (event: BenchEvent) => void;
  /** How often a running level reports its progress. */
  progressIntervalMs?: number;
}

export interface BenchResult {
  context: ResolvedContext;
  levels: LevelResult[];
  warnings: string[];
  /** True when interrupted: `levels` holds what was measured before. */
  partial: boolean;
  started_at: Date;
  /** The /metrics the server figures were scraped from, when they were. */
  metrics_url?: string;
  /** Where the GPUs' power was read (a URL or a command), when it was. */
  power_from?: string;
  /** How the client reached the server: "localhost" for a loopback address, else "network". */
  client_path?: ClientPath;
  /** Median round trip of RTT_SAMPLES GET /v1/models before the sweep, in ms; absent when it did not answer. */
  client_rtt_ms?: number;
}

export const DEFAULT_CONCURRENCY = [1, 4, 8, 16, 32, 64, 128];

/** Seconds of arrivals an open-loop level lasts by default. */
export const OPEN_LOOP_SECONDS = 30;

/**
 * Requests a level sends. Closed loop: at least three full waves of the level, and ten at low concurrency.
 * Open loop: 30 s of arrivals at the rate, at least ten; at an unbounded rate, three waves of the cap, or 100.
 */
export function requestsFor(level: number | LoadLevel, requests: number | null, maxConcurrency?: number): number {
  if (requests !== null) return requests;
  const load: LoadLevel = typeof level === "number" ? { concurrency: level } : level;
  if ("concurrency" in load) return Math.max(3 * load.concurrency, 10);
  if (load.request_rate === "inf") return maxConcurrency !== undefined ? Math.max(3 * maxConcurrency, 10) : 100;
  return Math.max(10, Math.ceil(OPEN_LOOP_SECONDS * load.request_rate));
}

/** The levels a run measures, in order. */
export function loadLevels(config: Pick<BenchConfig, "concurrency" | "requestRates">): LoadLevel[] {
  if (config.requestRates && config.requestRates.length > 0)
    return config.requestRates.map((rate) => ({ request_rate: rate }));
  return config.concurrency.map((concurrency) => ({ concurrency }));
}

/** The server's root (where SGLang and vLLM serve /get_server_info and /version): the API URL without `/v1`. */
export function serverRoot(baseUrl: URL): URL {
  const root = new URL(baseUrl.href);
  root.pathname = root.pathname.replace(/(?<!\/)\/+$/, "").replace(/\/v1$/, "") || "/";
  return root;
}

export function apiUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/(?<!\/)\/+$/, "")}/${path}`;
  return url;
}

function authHeaders(config: BenchConfig): Record<string, string> {
  return config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
}

/** The request body: streaming, with the usage chunk asked for so one request gives timings and exact counts. */
export function requestBody(
  config: Pick<BenchConfig, "endpoint" | "maxTokens" | "temperature" | "ignoreEos">,
  model: string,
  prompt: Prompt,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model };
  if (config.endpoint === "chat") {
    body.messages = prompt.kind === "chat" ? prompt.messages : [{ role: "user", content: prompt.text }];
  } else {
    if (prompt.kind !== "text") throw new Error("the completions endpoint takes text prompts");
    body.prompt = prompt.text;
  }
  body.max_tokens = prompt.maxTokens ?? config.maxTokens;
  body.temperature = config.temperature;
  if (config.ignoreEos) body.ignore_eos = true;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return body;
}

const PROBE_TIMEOUT_MS = 10_000;

export type ClientPath = "localhost" | "network";

/**
 * "localhost" when the URL names a loopback address, else "network". A port-forward listens on localhost too:
 * its round trip, not its address, tells it apart (a loopback answers in well under a millisecond).
 */
export function clientPathOf(url: URL): ClientPath {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const loopback =
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "::1" ||
    host === "0:0:0:0:0:0:0:1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return loopback ? "localhost" : "network";
}

/** Round trips timed before the sweep: the median of five is not moved by one slow answer. */
export const RTT_SAMPLES = 5;

/**
 * The client's round trip to the server: the median time of RTT_SAMPLES GET /v1/models, one after another on the
 * kept-alive connection the probe opened (so no connection set-up is timed). It includes the server's time to
 * answer a model list, so it bounds the network's share from above. Null when the server does not answer it.
 */
export async function measureRoundTrip(pool: HttpPool, config: BenchConfig): Promise<number | null> {
  const url = apiUrl(config.baseUrl, "models");
  const headers = authHeaders(config);
  const times_ms: number[] = [];
  for (let sample = 0; sample < RTT_SAMPLES; sample += 1) {
    const begin = performance.now();
    const answer = await getText(pool, url, headers, PROBE_TIMEOUT_MS);
    if (!answer.ok) return null;
    times_ms.push(performance.now() - begin);
  }
  times_ms.sort((a, b) => a - b);
  return times_ms[Math.floor(times_ms.length / 2)]!;
}

/** Asks the server what it serves and what it is. Every probe is best-effort. */
export async function probeServer(pool: HttpPool, config: BenchConfig): Promise<ServerProbe> {
  const root = serverRoot(config.baseUrl);
  const headers = authHeaders(config);
  const [models, sglang, version] = await Promise.all([
    getJson(pool, apiUrl(config.baseUrl, "models"), headers, PROBE_TIMEOUT_MS),
    getJson(pool, apiUrl(root, "get_server_info"), headers, PROBE_TIMEOUT_MS),
    getJson(pool, apiUrl(root, "version"), headers, PROBE_TIMEOUT_MS),
  ]);
  const probe: ServerProbe = { models: null, sglang_info: null, vllm_version: null };
  if (models.ok) probe.models = parseModelList(models.body);
  else probe.models_error = models.error;
  if (models.ok && probe.models === null) probe.models_error = "not a model list";
  // /get_server_info answers with the server arguments; its model_path tells it apart from other JSON.
  if (sglang.ok && typeof sglang.body === "object" && sglang.body !== null && !Array.isArray(sglang.body)) {
    const info = sglang.body as Record<string, unknown>;
    if ("model_path" in info || "tp_size" in info) probe.sglang_info = info;
  }
  if (version.ok) probe.vllm_version = parseVersion(version.body);
  return probe;
}

function redact(text: string | undefined, secret: string | undefined): string | undefined {
  if (text === undefined || !secret) return text;
  return text.split(secret).join("(redacted)");
}

/** The metrics endpoint: the explicit one, or /metrics beside the API. */
export function metricsUrlOf(config: Pick<BenchConfig, "baseUrl" | "metrics">): URL | null {
  if (config.metrics === null || config.metrics === undefined) return null;
  return config.metrics.url ?? apiUrl(serverRoot(config.baseUrl), "metrics");
}

/**
 * Finds out whether the server's metrics can be read, before measuring. A --metrics-url that does not answer
 * with vLLM or SGLang metrics stops the run (the user asked for it); a /metrics that is merely absent is a note.
 */
async function openMetrics(
  config: BenchConfig,
  pool: HttpPool,
  emit: (event: BenchEvent) => void,
): Promise<ServerMetricsWatcher | null> {
  const url = metricsUrlOf(config);
  if (!url || !config.metrics) return null;
  const explicit = config.metrics.url !== undefined;
  // The API key goes only to the API's own host: a --metrics-url elsewhere must not receive it.
  const headers = url.origin === config.baseUrl.origin ? authHeaders(config) : {};
  const answer = await getText(pool, url, headers, PROBE_TIMEOUT_MS, 16_000_000, "text/plain, */*;q=0.1");
  const shown = url.href;
  let problem: string | null = null;
  if (!answer.ok) problem = answer.error;
  else if (!hasEngineMetrics(answer.text)) problem = "it answers, but with no vLLM or SGLang metric (vllm:…, sglang:…)";
  if (problem !== null) {
    if (explicit) throw new ContextError(`--metrics-url ${shown}: ${problem}`);
    emit({
      type: "metrics",
      line: `server metrics: not collected (${shown}: ${problem}; SGLang serves them with --enable-metrics; --metrics-url names another address)`,
    });
    return null;
  }
  emit({ type: "metrics", line: `server metrics: ${shown} every ${config.metrics.intervalMs} ms` });
  return new ServerMetricsWatcher(url, headers, config.metrics.intervalMs);
}

/** The words that tell a level's warnings about its server figures from those about its power figures. */
interface FiguresWords {
  /** What was read, e.g. "scrapes of URL". */
  readings: string;
  /** What a level all of whose readings failed has none of, e.g. "server figures". */
  figures: string;
  /** What a note of the fold is about, e.g. "server metrics". */
  notes: string;
}

/** What a level's server or power figures add to its point, and the warnings they bring. */
function applyLevelFigures(
  level: LevelResult,
  watch: LevelWatchResult | LevelPowerResult,
  words: FiguresWords,
): string[] {
  const warnings: string[] = [];
  const label = formatLoadLevel(level.point);
  Object.assign(level.point, watch.figures);
  const sources = Object.entries(watch.sources);
  if (sources.length > 0) level.point.sources = { ...(level.point.sources ?? {}), ...Object.fromEntries(sources) };
  if (watch.failed > 0) {
    warnings.push(
      clip(
        `${label}: ${watch.failed} of ${watch.attempts} ${words.readings} failed${watch.failed === watch.attempts ? `, so the level has no ${words.figures}` : ""}: ${watch.firstError ?? "unknown error"}`,
      ),
    );
  }
  for (const note of watch.notes) warnings.push(clip(`${label}: ${words.notes}: ${note}`));
  return warnings;
}

/** True when an executable of this name is in a directory of PATH: a tool that is not there is never spawned. */
export function onPath(name: string, pathValue = process.env.PATH ?? ""): boolean {
  const extensions = process.platform === "win32" ? ["", ".exe", ".cmd"] : [""];
  return pathValue
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) =>
      extensions.some((extension) => {
        try {
          fs.accessSync(path.join(dir, name + extension), fs.constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
    );
}

/**
 * Chooses where the GPUs' power is read, before measuring (docs/bench.md#power). `--power-metrics URL`: that DCGM
 * exporter, and one that does not answer with DCGM_FI_DEV_POWER_USAGE stops the run (the user asked for it).
 * `auto`: the server's own /metrics when it has DCGM's names; else, when the server is on this machine, nvidia-smi
 * or amd-smi if on PATH; else nothing. A named tool that is missing or fails is said once and measured without.
 */
async function openPower(
  config: BenchConfig,
  pool: HttpPool,
  emit: (event: BenchEvent) => void,
): Promise<PowerWatcher | null> {
  const power = config.power;
  if (!power || power.mode === "off") return null;
  const say = (line: string) => emit({ type: "metrics", line });
  const tryReader = async (reader: PowerReader): Promise<string | null> => {
    const answer = await reader.read();
    if (answer.ok) return null;
    reader.close();
    return answer.error;
  };
  const use = (reader: PowerReader) => {
    say(`power: ${reader.label} every ${power.intervalMs} ms (${reader.source})`);
    return new PowerWatcher(reader, power.intervalMs);
  };

  if (power.metricsUrl) {
    const headers = power.metricsUrl.origin === config.baseUrl.origin ? authHeaders(config) : {};
    const reader = new DcgmReader(power.metricsUrl, headers);
    const problem = await tryReader(reader);
    if (problem !== null) throw new ContextError(`--power-metrics ${power.metricsUrl.href}: ${problem}`);
    return use(reader);
  }
  if (power.mode === "nvidia-smi" || power.mode === "amd-smi") {
    const reader = new CommandReader(power.mode);
    const problem = await tryReader(reader);
    if (problem === null) return use(reader);
    say(`power: not measured (${problem})`);
    return null;
  }
  // auto or dcgm: the server's own /metrics, when it re-exports DCGM's power gauge.
  const serverMetrics = config.metrics ? metricsUrlOf(config) : null;
  if (serverMetrics) {
    const headers = serverMetrics.origin === config.baseUrl.origin ? authHeaders(config) : {};
    const answer = await getText(pool, serverMetrics, headers, PROBE_TIMEOUT_MS, 16_000_000, "text/plain, */*;q=0.1");
    if (answer.ok && hasDcgmPower(answer.text)) {
      const reader = new DcgmReader(serverMetrics, headers);
      if ((await tryReader(reader)) === null) return use(reader);
    }
  }
  if (power.mode === "dcgm") {
    say(
      `power: not measured (${serverMetrics ? `${serverMetrics.href} has no DCGM_FI_DEV_POWER_USAGE` : "no metrics URL"}; --power-metrics names a DCGM exporter)`,
    );
    return null;
  }
  // A vendor tool reads the GPUs of the machine servebench runs on: only those of a server on this machine.
  if (clientPathOf(config.baseUrl) === "localhost") {
    for (const tool of ["nvidia-smi", "amd-smi"] as const) {
      if (!onPath(tool)) continue;
      const reader = new CommandReader(tool);
      if ((await tryReader(reader)) === null) return use(reader);
    }
  }
  say(
    "power: not measured (no --power-metrics, no DCGM_FI_DEV_POWER_USAGE in the server's metrics, no nvidia-smi or amd-smi for a server on this machine)",
  );
  return null;
}

/** A counting semaphore: open-loop arrivals beyond the cap wait their turn, first come first served. */
function semaphore(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (active < limit) {
        active += 1;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    },
    /** Let every waiter go without a slot (an interruption). */
    drain(): void {
      for (const next of waiting.splice(0)) next();
    },
  };
}

function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  const delay = at - performance.now();
  if (delay <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, delay);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * An open-loop level's warning when requests went out slower than the rate: the cap held them back, or the
 * client itself could not keep up. Measured over the sends, as inference-perf's achieved rate is.
 */
function openLoopWarning(
  level: LevelResult,
  records: readonly RequestRecord[],
  maxConcurrency?: number,
): string | null {
  const rate = (level.point as { request_rate?: RequestRate }).request_rate;
  if (typeof rate !== "number" || records.length < 3) return null;
  const sends = records.map((record) => record.start_ms).sort((a, b) => a - b);
  const arrivals = records.map((record) => record.arrival_ms ?? record.start_ms).sort((a, b) => a - b);
  const span = (times: number[]) => (times[times.length - 1]! - times[0]!) / 1000;
  const achieved = span(sends) > 0 ? (sends.length - 1) / span(sends) : Number.POSITIVE_INFINITY;
  const planned = span(arrivals) > 0 ? (arrivals.length - 1) / span(arrivals) : Number.POSITIVE_INFINITY;
  if (achieved >= 0.9 * planned) return null;
  const waits = records.map((record) => record.start_ms - (record.arrival_ms ?? record.start_ms));
  const held = waits.filter((wait) => wait > 5).length;
  const meanWait = waits.reduce((sum, wait) => sum + wait, 0) / waits.length;
  const why =
    maxConcurrency !== undefined && held > 0
      ? `--max-concurrency ${maxConcurrency} held ${held} of ${records.length} requests back (mean wait ${formatNumber(meanWait)} ms)`
      : "the client could not send them on time";
  return `${formatLoadLevel(level.point)}: requests went out at ${formatNumber(achieved)} req/s where their arrival times called for ${formatNumber(planned)} req/s: ${why}`;
}

export async function runBenchmark(config: BenchConfig, hooks: BenchHooks = {}): Promise<BenchResult> {
  const { signal } = hooks;
  // Every request in flight listens for the interruption: hundreds at once are expected, not a leak.
  if (signal) setMaxListeners(0, signal);
  const emit = hooks.onEvent ?? (() => {});
  const levels = loadLevels(config);
  const open = levels.some((level) => "request_rate" in level);
  const totals = levels.map((level) => requestsFor(level, config.requests, config.maxConcurrency));
  // Closed loop: as many connections as the highest level. Open loop: as many as may be in flight, the cap
  // or every request of a level; an agent that queued requests would add its wait to their TTFT.
  const connections = open
    ? (config.maxConcurrency ?? Math.max(...totals))
    : Math.max(...levels.map((level) => ("concurrency" in level ? level.concurrency : 1)));
  const pool = createPool(config.baseUrl, connections);
  const chatUrl = apiUrl(config.baseUrl, config.endpoint === "chat" ? "chat/completions" : "completions");
  const headers = authHeaders(config);
  const started_at = new Date();
  let watcher: ServerMetricsWatcher | null = null;
  let powerWatcher: PowerWatcher | null = null;
  const aggregate: AggregateOptions = {};
  if (config.goodput) aggregate.goodput = config.goodput;
  if (config.percentiles) aggregate.percentiles = config.percentiles;
  if (config.saveDetailed) aggregate.detail = true;
  if (config.detailLimit !== undefined) aggregate.detailLimit = config.detailLimit;
  try {
    const context = resolveContext(config.explicit, await probeServer(pool, config));
    emit({ type: "context", context });
    // Before any load, so the round trip is the path's own and not a busy server's.
    const client_rtt_ms = signal?.aborted ? null : await measureRoundTrip(pool, config);
    watcher = await openMetrics(config, pool, emit);
    powerWatcher = await openPower(config, pool, emit);
    const warnings: string[] = [];
    const result: BenchResult = {
      context,
      levels: [],
      warnings,
      partial: false,
      started_at,
      client_path: clientPathOf(config.baseUrl),
    };
    if (client_rtt_ms !== null) result.client_rtt_ms = client_rtt_ms;
    if (watcher) result.metrics_url = watcher.url.href;
    if (powerWatcher) result.power_from = powerWatcher.reader.label;
    // The same for every level: what its warnings about server and power figures say they are about.
    const serverWords: FiguresWords | null = watcher && {
      readings: `scrapes of ${watcher.url.href}`,
      figures: "server figures",
      notes: "server metrics",
    };
    const powerWords: FiguresWords | null = powerWatcher && {
      readings: `power readings (${powerWatcher.reader.label})`,
      figures: "power figures",
      notes: "power",
    };

    let liveChunks = 0;
    const send = async (index: number, arrival_ms?: number): Promise<RequestRecord> => {
      const body = JSON.stringify(requestBody(config, context.model, config.prompts.at(index)));
      const record = await streamRequest(pool, {
        url: chatUrl,
        endpoint: config.endpoint,
        body,
        headers,
        timeoutMs: config.timeoutMs,
        signal,
        onText: () => {
          liveChunks += 1;
        },
      });
      if (arrival_ms !== undefined) record.arrival_ms = arrival_ms;
      const error = redact(record.error, config.apiKey);
      if (error !== undefined) record.error = error;
      return record;
    };

    if (config.warmup > 0 && !signal?.aborted) {
      emit({ type: "warmup-start", requests: config.warmup });
      const begin = performance.now();
      const errors: string[] = [];
      let failed = 0;
      for (let index = 0; index < config.warmup && !signal?.aborted; index += 1) {
        const record = await send(index);
        if (record.status === "failed") {
          failed += 1;
          if (errors.length < 3) errors.push(record.error ?? "unknown error");
        }
      }
      emit({
        type: "warmup-end",
        requests: config.warmup,
        failed,
        duration_s: (performance.now() - begin) / 1000,
        errors,
      });
      if (failed > 0)
        warnings.push(clip(`warm-up: ${failed} of ${config.warmup} requests failed: ${errors.join("; ")}`));
    }

    for (const [levelIndex, load] of levels.entries()) {
      if (signal?.aborted) break;
      const total = totals[levelIndex]!;
      emit({ type: "level-start", level: load, total });
      const records: RequestRecord[] = [];
      let failed = 0;
      liveChunks = 0;
      const watch = watcher ? await watcher.beginLevel() : null;
      // Last before the level and first after it: the energy counters' window hugs the level.
      const powerWatch = powerWatcher ? await powerWatcher.beginLevel() : null;
      const begin = performance.now();
      const progress = (): LevelProgress => {
        const elapsed_s = (performance.now() - begin) / 1000;
        const done = records.filter((record) => record.status !== "aborted").length;
        return {
          level: load,
          done,
          failed,
          total,
          elapsed_s,
          live_output_tok_s: elapsed_s > 0 ? liveChunks / elapsed_s : 0,
        };
      };
      const ticker = setInterval(
        () => emit({ type: "level-progress", progress: progress() }),
        hooks.progressIntervalMs ?? 500,
      );
      ticker.unref();
      const finish = (record: RequestRecord) => {
        records.push(record);
        if (record.status === "failed") failed += 1;
        if (record.status !== "aborted") emit({ type: "level-progress", progress: progress() });
      };
      let sent = 0;
      try {
        if ("concurrency" in load) {
          const worker = async () => {
            while (sent < total && !signal?.aborted) {
              // Each level starts at the first prompt, so every level sends the same prompts.
              finish(await send(sent++));
            }
          };
          await Promise.all(Array.from({ length: Math.min(load.concurrency, total) }, worker));
        } else {
          const rate = load.request_rate === "inf" ? Number.POSITIVE_INFINITY : load.request_rate;
          const arrivals = arrivalTimesMs(total, rate, config.burstiness ?? 1, config.seed ?? 0);
          const gate = config.maxConcurrency !== undefined ? semaphore(config.maxConcurrency) : null;
          const onAbort = () => gate?.drain();
          signal?.addEventListener("abort", onAbort, { once: true });
          const tasks: Promise<void>[] = [];
          try {
            for (let index = 0; index < total; index += 1) {
              const due = begin + arrivals[index]!;
              await sleepUntil(due, signal);
              if (signal?.aborted) break;
              sent += 1;
              tasks.push(
                (async () => {
                  if (gate) await gate.acquire();
                  try {
                    finish(await send(index, due));
                  } finally {
                    gate?.release();
                  }
                })(),
              );
            }
            await Promise.all(tasks);
          } finally {
            signal?.removeEventListener("abort", onAbort);
          }
        }
      } finally {
        clearInterval(ticker);
      }
      const powerView = powerWatch ? await powerWatch.stop() : null;
      const serverView = watch ? await watch.stop() : null;
      const level = aggregateLevel(load, records, aggregate);
      // Requests never sent because of the interruption count as cut off too.
      level.aborted += total - records.length;
      if (level.completed + level.failed > 0) {
        if (serverView && serverWords) warnings.push(...applyLevelFigures(level, serverView, serverWords));
        if (powerView && powerWords) warnings.push(...applyLevelFigures(level, powerView, powerWords));
        result.levels.push(level);
        if ("concurrency" in load && total < load.concurrency) {
          warnings.push(
            `C=${load.concurrency}: only ${total} requests per level, so this level never had ${load.concurrency} requests in flight`,
          );
        }
        const late = "request_rate" in load ? openLoopWarning(level, records, config.maxConcurrency) : null;
        if (late) warnings.push(late);
        warnings.push(...levelWarnings(level));
        emit({ type: "level-end", level, progress: progress() });
      }
    }
    const complete = result.levels.length === levels.length && result.levels.every((level) => level.aborted === 0);
    if (signal?.aborted && !complete) {
      result.partial = true;
      const measured = result.levels.map((level) => formatLoadLevel(level.point)).join(", ") || "no level";
      warnings.push(`partial run: interrupted (Ctrl-C) before every level was measured; measured: ${measured}`);
    }
    return result;
  } finally {
    watcher?.close();
    powerWatcher?.close();
    pool.close();
  }
}
