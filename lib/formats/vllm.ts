/**
 * vLLM's benchmark client: `vllm bench serve --save-result` / `--append-result` (and the older
 * `benchmarks/benchmark_serving.py --save-result`, which writes the same flat object), plus the folders of
 * `vllm bench sweep serve` (`run=N.json` per run, `summary.json` listing them).
 *
 * Field names and definitions follow vllm/benchmarks/serve.py (`calculate_metrics`, `benchmark`, `main_async`)
 * and vllm/benchmarks/sweep/serve.py (`_update_run_data`). See docs/formats/vllm.md.
 */
import type { FlagValue, ResultPoint, Speculative, Workload } from "@/lib/document/schema";
import { asRecord, compactDateToIso, PointBuilder, type PointField, requestRate, toCount, toNumber } from "./common";
import { describeValue, figure, type Json, setFigure, setLoadLevel, type Where } from "./flat-record";
import { REASONS } from "./report";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  type NotImported,
  type RunContext,
  type SourceFile,
} from "./types";

// ---------------------------------------------------------------------------------------------------------
// Signatures

/** Keys only vLLM's benchmark client writes (SGLang's bench_serving writes none of them). */
const VLLM_KEYS = ["total_token_throughput", "tokenizer_id", "burstiness", "endpoint_type", "model_id"] as const;
/** Result keys only SGLang's bench_serving writes: a file with any of them is not vLLM's. */
const SGLANG_RESULT_KEYS = [
  "total_output_tokens_retokenized",
  "mean_e2e_latency_ms",
  "median_e2e_latency_ms",
  "total_throughput",
  "server_info",
] as const;
/** Result figures every version of the payload writes at least one of. */
const RESULT_KEYS = ["completed", "request_throughput", "output_throughput", "duration"] as const;

function isVllmPayload(value: unknown): value is Json {
  const record = asRecord(value);
  if (!record) return false;
  if (!VLLM_KEYS.some((key) => key in record)) return false;
  if (SGLANG_RESULT_KEYS.some((key) => key in record)) return false;
  // The multi-turn mode of vLLM's Rust client writes the same figures over conversations (lib/formats/vllm-bench-rs.ts).
  if (record.mode === "multi_turn" || "multi_turn_concurrency" in record) return false;
  return RESULT_KEYS.filter((key) => key in record).length >= 2;
}

function isSweepPayload(value: unknown): value is Json {
  const record = asRecord(value);
  return record !== undefined && typeof record.run_number === "number" && isVllmPayload(record);
}

function isPlainPayload(value: unknown): value is Json {
  const record = asRecord(value);
  return record !== undefined && !("run_number" in record) && isVllmPayload(record);
}

// ---------------------------------------------------------------------------------------------------------
// Keys of the payload

/** Keys `vllm bench serve` (and benchmark_serving.py before it) writes itself, all versions. */
const PAYLOAD_KEYS = new Set([
  "date",
  "endpoint_type",
  "backend",
  "label",
  "model_id",
  "tokenizer_id",
  "num_prompts",
  "request_rate",
  "burstiness",
  "max_concurrency",
  "ramp_up_strategy",
  "ramp_up_start_rps",
  "ramp_up_end_rps",
  "duration",
  "completed",
  "failed",
  "total_input_tokens",
  "total_output_tokens",
  "total_input_sequences",
  "request_throughput",
  "request_goodput",
  "request_goodput:",
  "input_sequence_throughput",
  "output_throughput",
  "total_token_throughput",
  "input_lens",
  "output_lens",
  "ttfts",
  "itls",
  "latencies",
  "start_times",
  "queue_times",
  "generated_texts",
  "errors",
  "max_output_tokens_per_s",
  "max_concurrent_requests",
  "rtfx",
  "rps_change_events",
  "best_of",
  "use_beam_search",
]);

export function isPayloadKey(key: string): boolean {
  return (
    PAYLOAD_KEYS.has(key) ||
    /^(mean|median|std|p\d+(\.\d+)?)_[a-z0-9_]+_ms$/.test(key) ||
    /^(spec_decode|diffusion|probe)_/.test(key)
  );
}

/**
 * `vllm bench serve` arguments a sweep's bench overrides can add to a run file (`--bench-params`). Anything
 * else a run file adds besides `run_number` is a `vllm serve` override (`--serve-params`).
 */
const BENCH_ARGS = new Set([
  "_benchmark_name",
  "backend",
  "base_url",
  "host",
  "port",
  "endpoint",
  "model",
  "served_model_name",
  "tokenizer",
  "tokenizer_mode",
  "dataset_name",
  "dataset_path",
  "input_len",
  "output_len",
  "seed",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "ignore_eos",
  "logprobs",
  "percentile_metrics",
  "metric_percentiles",
  "goodput",
  "num_warmups",
  "lora_modules",
  "lora_assignment",
  "extra_body",
  "header",
  "metadata",
  "save_result",
  "save_detailed",
  "append_result",
  "result_dir",
  "result_filename",
  "disable_tqdm",
  "profile",
  "request_id_prefix",
  "ready_check_timeout_sec",
  "skip_tokenizer_init",
  "insecure",
  "trust_remote_code",
  "use_beam_search",
]);

function isBenchArg(key: string): boolean {
  return (
    BENCH_ARGS.has(key) ||
    /^(random|sharegpt|sonnet|hf|custom|prefix_repetition|spec_bench|blazedit|burstgpt|random_mm|ramp_up)_/.test(key)
  );
}

// ---------------------------------------------------------------------------------------------------------
// Figures

const STAT_KEY = /^(mean|median|std|p(\d+(?:\.\d+)?))_(ttft|tpot|itl|e2el)(_ms)?$/;

/**
 * Every `{mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms` key. Each percentile vLLM wrote (`--metric-percentiles`,
 * p99.9 in some versions' defaults) is kept: p50 as the median when the median is absent, p90, p95 and p99 in their
 * fields, the others in `percentiles`.
 */
function setLatencies(builder: PointBuilder, warnings: string[], record: Json, where: Where): void {
  const inSeconds: string[] = [];
  for (const key of Object.keys(record)) {
    const match = STAT_KEY.exec(key);
    if (!match) continue;
    const [, statWord, percentile, metricWord, ms] = match;
    const metric = metricWord as "ttft" | "tpot" | "itl" | "e2el";
    // Without `_ms` the key is a look-alike's: a modified benchmark_serving.py (SemiAnalysis InferenceX's
    // benchmark_serving_random.py) writes median_ttft, p99_tpot… in seconds, and prints them as "(s)". When the
    // same statistic is also written with `_ms`, that one is taken and the look-alike is reported.
    if (ms === undefined && `${key}_ms` in record) {
      const stated = toNumber(record[key]);
      if (stated !== null)
        builder.refused.push({
          source: key,
          value: stated,
          reason: `the same statistic as ${key}_ms, which the point keeps (files that write it without _ms state it in seconds)`,
        });
      continue;
    }
    const unit = ms === undefined ? "s" : "ms";
    if (percentile !== undefined) {
      const value = figure(record, key, where, warnings);
      const before = builder.percentileCount();
      builder.percentile(metric, Number(percentile), value, key, unit);
      if (ms === undefined && builder.percentileCount() > before) inSeconds.push(key);
      continue;
    }
    setFigure(builder, warnings, `${statWord}_${metric}_ms` as PointField, record, key, where, unit);
    if (ms === undefined && builder.has(`${statWord}_${metric}_ms` as PointField)) inSeconds.push(key);
  }
  if (inSeconds.length > 0) {
    warnings.push(
      `${where.label}: ${inSeconds.join(", ")} ${inSeconds.length === 1 ? "has" : "have"} no _ms in the name: read as seconds (the modified benchmark_serving.py that writes such keys states them in s) and stored in ms.`,
    );
  }
}

/**
 * A level whose completed requests streamed tokens but whose token counts are all 0: the server sent no usage (and
 * the client counted nothing), so output tokens, output throughput and TPOT are 0 by construction, not measured.
 * Those figures are refused (reported, stored as no data) with a warning; latencies and request counts stand.
 */
function refuseUncountedTokens(
  record: Json,
  point: ResultPoint,
  where: Where,
  warnings: string[],
  report: NotImported[],
  file: string,
): void {
  if (!point.completed || point.total_output_tokens !== 0) return;
  const itls = Array.isArray(record.itls) ? record.itls : [];
  const gaps = itls.reduce<number>((sum, list) => sum + (Array.isArray(list) ? list.length : 0), 0);
  const streamed =
    gaps > 0 || (point.mean_itl_ms ?? 0) > 0 || (point.mean_e2el_ms ?? 0) > (point.mean_ttft_ms ?? 0) * 1.5;
  if (!streamed) return;
  const refused = Object.keys(point).filter(
    (key) =>
      key === "total_output_tokens" ||
      key === "output_throughput" ||
      key === "total_token_throughput" ||
      key.endsWith("_tpot_ms"),
  ) as PointField[];
  const prefix = where.path.replace(/\.$/, "");
  for (const field of refused) {
    const source = point.sources?.[field] ?? field;
    report.push({
      file,
      field: prefix ? `${prefix}.${source}` : source,
      value: (point[field] as number | undefined) ?? 0,
      reason: "0 output tokens were counted although the requests streamed tokens: not a measurement",
    });
    delete point[field];
    if (point.sources) delete point.sources[field];
  }
  const tpot = point.percentiles?.tpot;
  if (point.percentiles && tpot) {
    for (const [key, value] of Object.entries(tpot)) {
      const source = point.sources?.[`percentiles.tpot.${key}`] ?? `percentiles.tpot.${key}`;
      report.push({
        file,
        field: prefix ? `${prefix}.${source}` : source,
        value: toNumber(record[source]) ?? value,
        reason: "0 output tokens were counted although the requests streamed tokens: not a measurement",
      });
      if (point.sources) delete point.sources[`percentiles.tpot.${key}`];
    }
    delete point.percentiles.tpot;
    if (Object.keys(point.percentiles).length === 0) delete point.percentiles;
  }
  const perRequest =
    itls.length > 0 ? ` (${Math.round(gaps / itls.length)} inter-token gaps per request on average)` : "";
  warnings.push(
    `${where.label}: ${point.completed} requests completed and streamed tokens${perRequest}, yet 0 output tokens were counted: the server sent no usage. Output tokens, output throughput, total token throughput and TPOT are not measurements and are stored as no data; TTFT, ITL and end-to-end latency are kept.`,
  );
}

/**
 * One load point from one payload. The level is `max_concurrency` / `request_rate` unless `setLevel` sets it from
 * another configured value (the Rust client's `multi_turn_concurrency`).
 */
export function buildPoint(
  record: Json,
  where: Where,
  warnings: string[],
  report: NotImported[] = [],
  file = "",
  setLevel?: (builder: PointBuilder) => void,
) {
  const builder = new PointBuilder(where.label);
  const concurrency = record.max_concurrency;
  if (setLevel) setLevel(builder);
  else setLoadLevel(builder, record, where);
  if (!builder.has("concurrency") && !builder.has("request_rate")) {
    throw new FormatError(
      `${where.path}request_rate`,
      `no load level: max_concurrency is ${describeValue(concurrency ?? null)} and request_rate is ${describeValue(record.request_rate ?? null)}`,
    );
  }
  if (typeof record.ramp_up_strategy === "string") {
    warnings.push(
      `${where.label}: the request rate ramped ${record.ramp_up_strategy}ly from ${String(record.ramp_up_start_rps)} to ${String(record.ramp_up_end_rps)} req/s; the point is filed under request_rate as written (${String(record.request_rate)}).`,
    );
  }
  setFigure(builder, warnings, "completed", record, "completed", where);
  setFigure(builder, warnings, "failed", record, "failed", where);
  setFigure(builder, warnings, "duration_s", record, "duration", where, "s");
  setFigure(builder, warnings, "total_input_tokens", record, "total_input_tokens", where);
  setFigure(builder, warnings, "total_output_tokens", record, "total_output_tokens", where);
  setFigure(builder, warnings, "request_throughput", record, "request_throughput", where);
  setFigure(builder, warnings, "output_throughput", record, "output_throughput", where);
  setFigure(builder, warnings, "total_token_throughput", record, "total_token_throughput", where);
  // Requests per second that met the --goodput SLO; benchmark_serving.py once wrote the key as "request_goodput:".
  const goodputKey = "request_goodput" in record ? "request_goodput" : "request_goodput:";
  setFigure(builder, warnings, "request_goodput", record, goodputKey, where);
  setLatencies(builder, warnings, record, where);
  const point = builder.build();
  warnings.push(...builder.warnings);
  report.push(...builder.notImported(file, where.path.replace(/\.$/, "")));
  refuseUncountedTokens(record, point, where, warnings, report, file);
  return point;
}

// ---------------------------------------------------------------------------------------------------------
// Context

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function addMetadata(metadata: Record<string, string | number | boolean>, key: string, value: unknown): void {
  if (typeof value === "string" && value.trim() !== "") metadata[key] = value.slice(0, 2_000);
  else if (typeof value === "number" && Number.isFinite(value)) metadata[key] = value;
  else if (typeof value === "boolean") metadata[key] = value;
}

/** What the payload itself says about the run (shared by plain and sweep files). */
export function payloadContext(record: Json, extraStrings: boolean): RunContext {
  const context: RunContext = {};
  const model = text(record.model_id);
  if (model) context.model = model;
  const label = text(record.label);
  if (label) context.name = label.slice(0, 200);
  const measured = compactDateToIso(record.date);
  if (measured) context.measured_at = measured;
  const prompts = toCount(record.num_prompts);
  if (prompts !== null) context.workload = { num_prompts: prompts };

  const metadata: Record<string, string | number | boolean> = {};
  addMetadata(metadata, "backend", record.backend);
  const tokenizer = text(record.tokenizer_id);
  if (tokenizer && tokenizer !== model) metadata.tokenizer_id = tokenizer;
  // Burstiness shapes the arrival times only at a finite rate; 1 (Poisson) is the default.
  const burstiness = toNumber(record.burstiness);
  if (burstiness !== null && burstiness !== 1 && typeof requestRate(record.request_rate) === "number")
    metadata.burstiness = burstiness;
  addMetadata(metadata, "max_concurrent_requests", toNumber(record.max_concurrent_requests) ?? undefined);
  addMetadata(metadata, "max_output_tokens_per_s", toNumber(record.max_output_tokens_per_s) ?? undefined);
  addMetadata(
    metadata,
    "spec_decode_acceptance_rate_percent",
    toNumber(record.spec_decode_acceptance_rate) ?? undefined,
  );
  addMetadata(metadata, "spec_decode_acceptance_length", toNumber(record.spec_decode_acceptance_length) ?? undefined);
  if (typeof record.ramp_up_strategy === "string") {
    addMetadata(metadata, "ramp_up_strategy", record.ramp_up_strategy);
    addMetadata(metadata, "ramp_up_start_rps", toNumber(record.ramp_up_start_rps) ?? undefined);
    addMetadata(metadata, "ramp_up_end_rps", toNumber(record.ramp_up_end_rps) ?? undefined);
  }
  if (extraStrings) {
    // `--metadata KEY=VALUE` lands at the top level as a string.
    let extra = 0;
    for (const [key, value] of Object.entries(record)) {
      if (isPayloadKey(key) || typeof value !== "string" || key in metadata || extra >= 50) continue;
      addMetadata(metadata, key.slice(0, 200), value);
      extra += 1;
    }
  }
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return context;
}

function flagValue(value: unknown): FlagValue | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value
      .filter((item) => item !== null && item !== undefined)
      .map((item) => (typeof item === "object" ? JSON.stringify(item) : String(item)));
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return undefined;
}

/** `max_num_seqs` → `--max-num-seqs`; `compilation_config.mode` → `--compilation-config.mode`. */
function flagName(key: string): string {
  return `--${key.replace(/^-+/, "").replace(/_/g, "-")}`;
}

/** `--speculative-config` as a sweep override (an object, or its JSON text): method, draft model, tokens. */
function speculativeOf(value: unknown): Speculative | undefined {
  let config = asRecord(value);
  if (!config && typeof value === "string") {
    try {
      config = asRecord(JSON.parse(value));
    } catch {
      config = undefined;
    }
  }
  if (!config) return undefined;
  const speculative: Speculative = {};
  const method = text(config.method);
  if (method) speculative.method = method.toLowerCase();
  const draft = text(config.model);
  if (draft) speculative.draft_model = draft;
  const tokens = toCount(config.num_speculative_tokens);
  if (tokens !== null && tokens >= 1 && tokens <= 1_000) speculative.num_speculative_tokens = tokens;
  return Object.keys(speculative).length > 0 ? speculative : undefined;
}

/** A sweep run: the payload's context plus the serve overrides as flags and the bench overrides as workload. */
function sweepContext(record: Json): RunContext {
  const context: RunContext = { engine: "vllm", ...payloadContext(record, false) };
  const flags: Record<string, FlagValue> = {};
  const workload: Workload = { ...(context.workload ?? {}) };
  const metadata: Record<string, string | number | boolean> = { ...(context.metadata ?? {}) };
  let speculative: Speculative | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (key === "run_number" || isPayloadKey(key)) continue;
    if (isBenchArg(key)) {
      if (key === "dataset_name" && text(value)) workload.dataset = text(value);
      else if ((key === "input_len" || key === "random_input_len") && toCount(value) !== null)
        workload.input_len = toCount(value) ?? undefined;
      else if (["output_len", "random_output_len", "sharegpt_output_len"].includes(key) && toCount(value) !== null)
        workload.output_len = toCount(value) ?? undefined;
      else if (key === "temperature" && toNumber(value) !== null) workload.temperature = toNumber(value) ?? undefined;
      else if (key === "_benchmark_name") addMetadata(metadata, "benchmark_name", value);
      else addMetadata(metadata, `bench_${key}`, value);
      continue;
    }
    const flag = flagValue(value);
    if (flag !== undefined) flags[flagName(key)] = flag;
    if (key === "speculative_config") speculative = speculativeOf(value);
  }
  const ordered: RunContext = {};
  if (context.engine) ordered.engine = context.engine;
  if (context.model) ordered.model = context.model;
  if (context.name) ordered.name = context.name;
  if (Object.keys(flags).length > 0) ordered.flags = flags;
  const cleanWorkload = Object.fromEntries(Object.entries(workload).filter(([, v]) => v !== undefined)) as Workload;
  if (Object.keys(cleanWorkload).length > 0) ordered.workload = cleanWorkload;
  if (speculative) ordered.speculative = speculative;
  if (context.measured_at) ordered.measured_at = context.measured_at;
  if (Object.keys(metadata).length > 0) ordered.metadata = metadata;
  return ordered;
}

// ---------------------------------------------------------------------------------------------------------
// Parsers

function whereOf(file: SourceFile, kind: "line" | "index" | "single", index: number): Where {
  if (kind === "single") return { path: "", label: file.name };
  if (kind === "line") return { path: `line ${index + 1}.`, label: `${file.name} (line ${index + 1})` };
  return { path: `[${index}].`, label: `${file.name} (item ${index + 1})` };
}

/** The payloads of a file: one object, or the lines of a JSONL file, or the items of a JSON list. */
function payloads(file: SourceFile): { record: Json; where: Where; part: string }[] {
  const data = file.data;
  if (Array.isArray(data)) {
    const kind = file.kind === "jsonl" ? "line" : "index";
    return data.map((item, index) => {
      const record = asRecord(item);
      const where = whereOf(file, kind, index);
      if (!record) throw new FormatError(where.path.replace(/\.$/, ""), "each entry must be a JSON object");
      return { record, where, part: kind === "line" ? `line ${index + 1}` : `item ${index + 1}` };
    });
  }
  const record = asRecord(data);
  if (!record) throw new FormatError("", "the file must hold a JSON object");
  return [{ record, where: whereOf(file, "single", 0), part: "" }];
}

/** Why a figure of a vLLM payload is not imported. */
export function vllmReason(path: string): string | undefined {
  const key = path.slice(path.lastIndexOf(".") + 1);
  if (/^p\d+(\.\d+)?_/.test(key)) return REASONS.percentile;
  if (["input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times"].includes(key))
    return "per-request values (--save-detailed); the point keeps the statistics computed from them";
  if (key === "run_number") return "the sweep's run number: which repeat the point is, not a figure";
  return undefined;
}

export const vllmBenchServeParser: FormatParser = {
  notImportedReason: vllmReason,
  id: "vllm-bench-serve",
  label: "vLLM bench serve --save-result",
  signature:
    "a flat JSON object (or JSON lines of them) with completed/request_throughput/output_throughput/duration and at least one of " +
    "total_token_throughput, tokenizer_id, burstiness, endpoint_type, model_id; no run_number and none of SGLang's " +
    "total_output_tokens_retokenized, *_e2e_latency_ms, total_throughput, server_info",
  detect(file) {
    try {
      if (file.kind === "json") return isPlainPayload(file.data);
      if (file.kind === "jsonl")
        return Array.isArray(file.data) && file.data.length > 0 && file.data.every(isPlainPayload);
      return false;
    } catch {
      return false;
    }
  },
  parse(file) {
    return payloads(file).map(({ record, where, part }): Fragment => {
      const warnings: string[] = [];
      const notImported: NotImported[] = [];
      const point = buildPoint(record, where, warnings, notImported, file.name);
      return {
        format: "vllm-bench-serve",
        file: file.name,
        part,
        context: payloadContext(record, true),
        points: [point],
        warnings,
        root: where.path.replace(/\.$/, ""),
        notImported,
      };
    });
  },
};

export const vllmSweepParser: FormatParser = {
  notImportedReason: vllmReason,
  id: "vllm-sweep",
  label: "vLLM bench sweep serve (run=N.json, summary.json)",
  signature:
    "a vLLM bench serve payload with run_number (run=N.json), or a JSON list of them (summary.json); the keys besides " +
    "the payload's are the sweep's serve and bench overrides",
  detect(file) {
    try {
      if (file.kind !== "json" && file.kind !== "jsonl") return false;
      if (Array.isArray(file.data)) return file.data.length > 0 && file.data.every(isSweepPayload);
      return file.kind === "json" && isSweepPayload(file.data);
    } catch {
      return false;
    }
  },
  parse(file) {
    return payloads(file).map(({ record, where }): Fragment => {
      const run = toCount(record.run_number);
      if (run === null)
        throw new FormatError(
          `${where.path}run_number`,
          `run_number must be a whole number, found ${describeValue(record.run_number)}`,
        );
      const warnings: string[] = [];
      const notImported: NotImported[] = [];
      const point = buildPoint(
        record,
        { ...where, label: `${file.name} (run ${run})` },
        warnings,
        notImported,
        file.name,
      );
      return {
        format: "vllm-sweep",
        file: file.name,
        part: `run ${run}`,
        context: sweepContext(record),
        points: [point],
        warnings,
        root: where.path.replace(/\.$/, ""),
        notImported,
      };
    });
  },
};

export const vllmParsers: readonly FormatParser[] = [vllmBenchServeParser, vllmSweepParser];
