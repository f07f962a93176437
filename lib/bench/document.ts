/** A benchmark's result as a servebench/v1 run document, ready to write to a file or POST to /api/runs. */
import { RUN_FORMAT, type RunDocumentInput } from "@/lib/runs/schema";
import { SYNTHETIC_DATASET } from "./prompts";
import type { BenchConfig, BenchResult } from "./runner";
import { apiUrl, requestsFor } from "./runner";

/** What the user said about the run beyond the server: the run-context options. */
export interface RunContextInput {
  name?: string;
  command?: string;
  gpu?: string;
  gpu_count?: number;
  tags?: string[];
  env?: Record<string, string>;
  notes?: string;
}

export const BENCH_CLIENT = "servebench bench";

/** The URL as it may be stored: no user name, password, query or fragment. */
export function publicUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  copy.search = "";
  copy.hash = "";
  return copy.href.replace(/\/+$/, "");
}

export function buildRunDocument(
  config: Pick<
    BenchConfig,
    | "baseUrl"
    | "concurrency"
    | "requests"
    | "maxTokens"
    | "temperature"
    | "ignoreEos"
    | "endpoint"
    | "prompts"
    | "inputLen"
    | "timeoutMs"
    | "warmup"
  >,
  run: RunContextInput,
  result: BenchResult,
): RunDocumentInput {
  if (result.levels.length === 0) throw new Error("nothing was measured: a run needs at least one load level");
  const { context } = result;

  const metadata: Record<string, string | number | boolean> = {
    client: BENCH_CLIENT,
    base_url: publicUrl(config.baseUrl),
    endpoint: apiUrl(config.baseUrl, config.endpoint === "chat" ? "chat/completions" : "completions").pathname,
    requests_per_level: config.requests ?? "max(3 × concurrency, 10)",
    warmup_requests: config.warmup,
    timeout_s: config.timeoutMs / 1000,
  };
  if (config.prompts.distinct !== null) metadata.distinct_prompts = config.prompts.distinct;
  if (config.ignoreEos) metadata.ignore_eos = true;
  if (context.max_model_len !== undefined) metadata.max_model_len = context.max_model_len;
  if (context.filled.length > 0) metadata.context_from_server = context.filled.join("; ");
  const completed = result.levels.reduce((sum, level) => sum + level.completed, 0);
  const approximate = result.levels.reduce((sum, level) => sum + level.approximate_requests, 0);
  if (completed > 0) {
    metadata.output_tokens_counted =
      approximate === 0
        ? "server usage (exact)"
        : approximate === completed
          ? "streamed text chunks (approximate: the server sent no usage)"
          : `server usage, and streamed text chunks for ${approximate} of ${completed} requests (approximate)`;
  }
  if (result.partial) metadata.partial = true;

  const counts = new Set(config.concurrency.map((concurrency) => requestsFor(concurrency, config.requests)));
  const workload: NonNullable<RunDocumentInput["workload"]> = { dataset: config.prompts.dataset };
  if (config.prompts.dataset === SYNTHETIC_DATASET && config.inputLen !== undefined)
    workload.input_len = config.inputLen;
  workload.output_len = config.maxTokens;
  if (counts.size === 1) workload.num_prompts = [...counts][0]!;
  workload.temperature = config.temperature;

  const doc: RunDocumentInput = {
    format: RUN_FORMAT,
    source_format: RUN_FORMAT,
    engine: context.engine,
    model: context.model,
    workload,
    measured_at: result.started_at.toISOString(),
    metadata,
    results: result.levels.map((level) => level.point),
  };
  if (run.name !== undefined) doc.name = run.name;
  if (context.engine_version !== undefined) doc.engine_version = context.engine_version;
  if (run.gpu !== undefined || run.gpu_count !== undefined) {
    doc.hardware = {};
    if (run.gpu !== undefined) doc.hardware.gpu = run.gpu;
    if (run.gpu_count !== undefined) doc.hardware.gpu_count = run.gpu_count;
  }
  if (run.command !== undefined) doc.command = run.command;
  if (Object.keys(context.flags).length > 0) doc.flags = context.flags;
  if (run.env && Object.keys(run.env).length > 0) doc.env = run.env;
  if (run.tags && run.tags.length > 0) doc.tags = run.tags;
  if (run.notes !== undefined) doc.notes = run.notes;
  if (result.warnings.length > 0) doc.warnings = result.warnings.slice(0, 100);
  return doc;
}
