/**
 * The benchmark: ask the server what it is, warm it up, then run every concurrency level as a closed loop
 * (`concurrency` workers, each sending its next request when the last one ends) and aggregate each level.
 * An abort signal (Ctrl-C) stops it between requests and returns what was measured, marked partial.
 */
import { createPool, getJson, type HttpPool, streamRequest } from "./client";
import { aggregateLevel, clip, type LevelResult, levelWarnings, type RequestRecord } from "./metrics";
import type { Prompt, PromptSource } from "./prompts";
import {
  type ExplicitContext,
  parseModelList,
  parseVersion,
  type ResolvedContext,
  resolveContext,
  type ServerProbe,
} from "./server-info";
import type { Endpoint } from "./sse";

export interface BenchConfig {
  /** The OpenAI-compatible API root, e.g. http://host:8000/v1. */
  baseUrl: URL;
  concurrency: number[];
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
  concurrency: number;
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
  | { type: "level-start"; concurrency: number; total: number }
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
}

export const DEFAULT_CONCURRENCY = [1, 4, 8, 16, 32, 64, 128];

/** Enough requests for at least three full waves of the level, and ten at low concurrency. */
export function requestsFor(concurrency: number, requests: number | null): number {
  return requests ?? Math.max(3 * concurrency, 10);
}

/** The server's root (where SGLang and vLLM serve /get_server_info and /version): the API URL without `/v1`. */
export function serverRoot(baseUrl: URL): URL {
  const root = new URL(baseUrl.href);
  root.pathname = root.pathname.replace(/\/+$/, "").replace(/\/v1$/, "") || "/";
  return root;
}

export function apiUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
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
  body.max_tokens = config.maxTokens;
  body.temperature = config.temperature;
  if (config.ignoreEos) body.ignore_eos = true;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return body;
}

const PROBE_TIMEOUT_MS = 10_000;

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

export async function runBenchmark(config: BenchConfig, hooks: BenchHooks = {}): Promise<BenchResult> {
  const { signal } = hooks;
  const emit = hooks.onEvent ?? (() => {});
  const maxConcurrency = Math.max(...config.concurrency);
  const pool = createPool(config.baseUrl, maxConcurrency);
  const chatUrl = apiUrl(config.baseUrl, config.endpoint === "chat" ? "chat/completions" : "completions");
  const headers = authHeaders(config);
  const started_at = new Date();
  try {
    const context = resolveContext(config.explicit, await probeServer(pool, config));
    emit({ type: "context", context });
    const warnings: string[] = [];
    const result: BenchResult = { context, levels: [], warnings, partial: false, started_at };

    let liveChunks = 0;
    const send = async (index: number): Promise<RequestRecord> => {
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

    for (const concurrency of config.concurrency) {
      if (signal?.aborted) break;
      const total = requestsFor(concurrency, config.requests);
      emit({ type: "level-start", concurrency, total });
      const records: RequestRecord[] = [];
      let next = 0;
      let failed = 0;
      liveChunks = 0;
      const begin = performance.now();
      const progress = (): LevelProgress => {
        const elapsed_s = (performance.now() - begin) / 1000;
        const done = records.filter((record) => record.status !== "aborted").length;
        return {
          concurrency,
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
      const worker = async () => {
        while (next < total && !signal?.aborted) {
          // Each level starts at the first prompt, so every level sends the same prompts.
          const record = await send(next++);
          records.push(record);
          if (record.status === "failed") failed += 1;
          if (record.status !== "aborted") emit({ type: "level-progress", progress: progress() });
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
      } finally {
        clearInterval(ticker);
      }
      const level = aggregateLevel(concurrency, records);
      // Requests never sent because of the interruption count as cut off too.
      level.aborted += total - records.length;
      if (level.completed + level.failed > 0) {
        result.levels.push(level);
        if (total < concurrency) {
          warnings.push(
            `C=${concurrency}: only ${total} requests per level, so this level never had ${concurrency} requests in flight`,
          );
        }
        warnings.push(...levelWarnings(level));
        emit({ type: "level-end", level, progress: progress() });
      }
    }
    const complete =
      result.levels.length === config.concurrency.length && result.levels.every((level) => level.aborted === 0);
    if (signal?.aborted && !complete) {
      result.partial = true;
      const measured = result.levels.map((level) => `C=${level.point.concurrency}`).join(", ") || "no level";
      warnings.push(`partial run: interrupted (Ctrl-C) before every level was measured; measured: ${measured}`);
    }
    return result;
  } finally {
    pool.close();
  }
}
