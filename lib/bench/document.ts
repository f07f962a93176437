/** A benchmark's result as a servebench/v1 run document, ready to write to a file or POST to /api/runs. */
import { RUN_FORMAT, type RunDocumentInput } from "@/lib/document/schema";
import type { BenchConfig, BenchResult } from "./runner";
import { apiUrl, loadLevels, requestsFor } from "./runner";

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
  return copy.href.replace(/(?<!\/)\/+$/, "");
}

export function buildRunDocument(
  config: Pick<
    BenchConfig,
    | "baseUrl"
    | "concurrency"
    | "requestRates"
    | "burstiness"
    | "maxConcurrency"
    | "seed"
    | "goodput"
    | "percentiles"
    | "saveDetailed"
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
    requests_per_level:
      config.requests ??
      (config.requestRates && config.requestRates.length > 0
        ? "max(30 × rate, 10); at rate inf 3 × max_concurrency or 100"
        : "max(3 × concurrency, 10)"),
    warmup_requests: config.warmup,
    timeout_s: config.timeoutMs / 1000,
  };
  if (config.prompts.distinct !== null) metadata.distinct_prompts = config.prompts.distinct;
  Object.assign(metadata, config.prompts.metadata ?? {});
  if (config.goodput && Object.keys(config.goodput).length > 0) {
    // vLLM's --goodput spelling, targets in ms.
    metadata.goodput = Object.entries(config.goodput)
      .map(([metric, ms]) => `${metric}:${ms}`)
      .join(" ");
  }
  if (config.percentiles?.some((p) => ![50, 90, 95, 99].includes(p)))
    metadata.percentiles = config.percentiles.join(",");
  if (config.saveDetailed) metadata.per_request_results = true;
  if (result.metrics_url !== undefined) metadata.server_metrics = publicUrl(new URL(result.metrics_url));
  // A DCGM exporter's URL (stored without credentials or query) or the vendor command power was read with.
  if (result.power_from !== undefined)
    metadata.power_metrics = URL.canParse(result.power_from)
      ? publicUrl(new URL(result.power_from))
      : result.power_from;
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
  // Read by the client-path validity check (docs/metrics.md#validity-checks).
  if (result.client_path !== undefined) metadata.client_path = result.client_path;
  if (result.client_rtt_ms !== undefined) metadata.client_rtt_ms = Math.round(result.client_rtt_ms * 1000) / 1000;

  const counts = new Set(loadLevels(config).map((level) => requestsFor(level, config.requests, config.maxConcurrency)));
  const workload: NonNullable<RunDocumentInput["workload"]> = {
    dataset: config.prompts.dataset,
    ...(config.prompts.workload ?? {}),
  };
  // A dataset that sets each request's length (ShareGPT's replies, a range ratio) has no one output length,
  // unless --output-len fixed it.
  const perRequestLength = config.prompts.at(0).maxTokens !== undefined;
  if (!perRequestLength || config.ignoreEos) workload.output_len = config.maxTokens;
  if (counts.size === 1) workload.num_prompts = [...counts][0]!;
  workload.temperature = config.temperature;
  if (config.requestRates && config.requestRates.length > 0) {
    const burstiness = config.burstiness ?? 1;
    workload.burstiness = Number.isFinite(burstiness) ? burstiness : "inf";
    if (config.maxConcurrency !== undefined) workload.max_concurrency = config.maxConcurrency;
  }
  const sampled = config.prompts.distinct === null || config.prompts.metadata?.dataset_file !== undefined;
  if (sampled || (config.requestRates && config.requestRates.length > 0)) workload.seed = config.seed ?? 0;

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
