/**
 * SGLang's benchmark clients:
 * - `python -m sglang.bench_serving --output-file F`: one JSON line per run, appended to F
 *   (python/sglang/bench_serving.py, `benchmark()` and `calculate_metrics()`);
 * - `python -m sglang.bench_one_batch_server --result-filename F`: one JSON line per batch size × input length ×
 *   output length (python/sglang/bench_one_batch_server.py, later python/sglang/test/bench_one_batch_server_internal.py,
 *   `run_one_case()` / `BenchOneCaseResult.dump_to_jsonl()`).
 *
 * See docs/formats/sglang.md for the field mapping and the definitions the source uses.
 */
import type { FlagValue, Speculative, Workload } from "@/lib/document/schema";
import { asRecord, PointBuilder, type PointField, toConcurrency, toCount, toNumber } from "./common";
import { describeValue, figure, type Json, setFigure, setLoadLevel, type Where } from "./flat-record";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

type Metadata = Record<string, string | number | boolean>;

// ---------------------------------------------------------------------------------------------------------
// Signatures

/** Keys only SGLang's bench_serving writes (vLLM's client never does). */
const SGLANG_SERVING_KEYS = [
  "total_output_tokens_retokenized",
  "mean_e2e_latency_ms",
  "median_e2e_latency_ms",
  "server_info",
  "random_input_len",
  "sharegpt_output_len",
] as const;
/** Keys only vLLM's bench serve / sweep writes: a line with any of them is not SGLang's. */
const VLLM_KEYS = [
  "total_token_throughput",
  "tokenizer_id",
  "burstiness",
  "endpoint_type",
  "model_id",
  "run_number",
  "mean_e2el_ms",
  "median_e2el_ms",
] as const;
const SERVING_RESULT_KEYS = ["completed", "output_throughput", "duration", "total_output_tokens"] as const;

function isServingLine(value: unknown): value is Json {
  const record = asRecord(value);
  if (!record) return false;
  if (!SGLANG_SERVING_KEYS.some((key) => key in record)) return false;
  if (VLLM_KEYS.some((key) => key in record)) return false;
  return SERVING_RESULT_KEYS.filter((key) => key in record).length >= 2;
}

/** Keys every version of bench_one_batch_server's result line has. */
const ONE_BATCH_KEYS = ["batch_size", "input_len", "output_len", "latency", "overall_throughput"] as const;

function isOneBatchLine(value: unknown): value is Json {
  const record = asRecord(value);
  if (!record) return false;
  if (!ONE_BATCH_KEYS.every((key) => key in record)) return false;
  // bench_serving and vLLM lines count completed requests; a one-batch line never does.
  return !("completed" in record) && !VLLM_KEYS.some((key) => key in record);
}

function detectLines(file: SourceFile, test: (value: unknown) => boolean): boolean {
  try {
    if (file.kind === "json") return test(file.data);
    if (file.kind === "jsonl") return Array.isArray(file.data) && file.data.length > 0 && file.data.every(test);
    return false;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Lines and figures

function lines(file: SourceFile): { record: Json; where: Where; part: string }[] {
  if (Array.isArray(file.data)) {
    return file.data.map((item, index) => {
      const where = { path: `line ${index + 1}.`, label: `${file.name} (line ${index + 1})` };
      const record = asRecord(item);
      if (!record) throw new FormatError(`line ${index + 1}`, "each line must be a JSON object");
      return { record, where, part: `line ${index + 1}` };
    });
  }
  const record = asRecord(file.data);
  if (!record) throw new FormatError("", "the file must hold a JSON object per line");
  return [{ record, where: { path: "", label: file.name }, part: "" }];
}

/** The record's path in the file, for the import report: "line 3" (a whole-file record: ""). */
function rootOf(where: Where): string {
  return where.path.replace(/\.$/, "");
}

const STAT_KEY = /^(mean|median|std|p(\d+(?:\.\d+)?))_(ttft|tpot|itl|e2e_latency)_ms$/;

/**
 * `{mean,median,std,pNN}_{ttft,tpot,itl,e2e_latency}_ms`. Every percentile is kept: p50 as the median when the median
 * is absent, p90, p95 and p99 in their fields, any other in `percentiles`.
 */
function setLatencies(builder: PointBuilder, warnings: string[], record: Json, where: Where): void {
  for (const key of Object.keys(record)) {
    const match = STAT_KEY.exec(key);
    if (!match) continue;
    const [, statWord, percentile, sourceMetric] = match;
    const metric = sourceMetric === "e2e_latency" ? "e2el" : (sourceMetric as "ttft" | "tpot" | "itl");
    if (percentile !== undefined) {
      builder.percentile(metric, Number(percentile), figure(record, key, where, warnings), key);
      continue;
    }
    setFigure(builder, warnings, `${statWord}_${metric}_ms` as PointField, record, key, where);
  }
}

function addMetadata(metadata: Metadata, key: string, value: unknown): void {
  if (typeof value === "string" && value.trim() !== "") metadata[key] = value.slice(0, 2_000);
  else if (typeof value === "number" && Number.isFinite(value)) metadata[key] = value;
  else if (typeof value === "boolean") metadata[key] = value;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// server_info: the server's arguments (GET /get_server_info)

/** Keys of /get_server_info that are not launch arguments (scheduler info, runtime state, version). */
const NOT_FLAGS = new Set([
  "internal_states",
  "version",
  "status",
  "max_total_num_tokens",
  "max_req_input_len",
  "prefill",
  "decode",
]);
const SECRET = /(^|_)(api_key|key|token|secret|password)$/;
const MAX_FLAGS = 400;

function flagName(key: string): string {
  return `--${key.replace(/^-+/, "").replace(/_/g, "-")}`;
}

/**
 * A server argument as a flag value, or undefined when the argument is not set: null, false (a switch left
 * off), an empty string or list, or a nested object. Numbers become strings, as on a command line.
 */
function serverFlagValue(value: unknown): FlagValue | undefined {
  if (value === true) return true;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (Array.isArray(value)) {
    const items = value.filter((item) => typeof item === "string" || typeof item === "number").map(String);
    return items.length > 0 && items.length === value.length ? items : undefined;
  }
  return undefined;
}

/** A server's GPUs: tp × pp × dp, where DP attention runs its data-parallel ranks inside the tensor-parallel group. */
function serverGpus(args: Json): number | null {
  const tp = toConcurrency(args.tp_size);
  if (tp === null) return null;
  const pp = toConcurrency(args.pp_size) ?? 1;
  const dp = args.enable_dp_attention === true ? 1 : (toConcurrency(args.dp_size) ?? 1);
  return tp * pp * dp;
}

/** The servers of one role of a PD-disaggregated router's answer (`prefill: [...]`, `decode: [...]`). */
function roleServers(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(asRecord).filter((server): server is Json => server !== undefined) : [];
}

/** The versions a role's servers state, distinct, in order: usually one. */
function roleVersions(servers: readonly Json[], info: Json): string[] {
  return [
    ...new Set(servers.map((server) => text(server.version) ?? text(info.version)).filter((v) => v !== undefined)),
  ];
}

interface Disaggregation {
  prefill: Json[];
  decode: Json[];
}

/**
 * A PD-disaggregated router (SGLang's mini load balancer and sgl-router) answers /get_server_info with each role's
 * servers: `{ prefill: [info, …], decode: [info, …] }`. The launch flags are the first decode server's (the
 * decode servers set TPOT, the figure most runs are tuned for); the version is each role's, and the GPUs are all
 * of them.
 */
function disaggregatedContext(info: Json, roles: Disaggregation, context: RunContext, metadata: Metadata): void {
  const prefill = roleVersions(roles.prefill, info);
  const decode = roleVersions(roles.decode, info);
  const all = [...new Set([...prefill, ...decode])];
  if (all.length === 1) context.engine_version = all[0];
  else if (all.length > 1)
    // Both roles' versions in the version itself, so no page shows one role's as the run's: a flag default looked
    // up for "0.5.1 (prefill) / 0.5.2 (decode)" is then unknown, as it truly is for the run as a whole.
    context.engine_version = `${prefill.join(", ") || "unstated"} (prefill) / ${decode.join(", ") || "unstated"} (decode)`;
  metadata.pd_disaggregation = true;
  if (prefill.length > 0) metadata.prefill_engine_version = prefill.join(", ");
  if (decode.length > 0) metadata.decode_engine_version = decode.join(", ");
  metadata.prefill_servers = roles.prefill.length;
  metadata.decode_servers = roles.decode.length;
  const prefillGpus = roles.prefill.map(serverGpus);
  const decodeGpus = roles.decode.map(serverGpus);
  const every = [...prefillGpus, ...decodeGpus];
  if (every.length > 0 && every.every((gpus) => gpus !== null)) {
    const sum = (counts: (number | null)[]) => counts.reduce<number>((total, gpus) => total + (gpus ?? 0), 0);
    metadata.prefill_gpus = sum(prefillGpus);
    metadata.decode_gpus = sum(decodeGpus);
    context.hardware = { gpu_count: sum(every) };
  }
}

/** Context from `server_info`, which newer versions write when the server answers GET /get_server_info (SGLang does). */
function serverContext(info: Json): RunContext {
  const roles: Disaggregation | undefined =
    roleServers(info.decode).length > 0
      ? { prefill: roleServers(info.prefill), decode: roleServers(info.decode) }
      : undefined;
  const args = roles?.decode[0] ?? info;
  const context: RunContext = { engine: "sglang" };
  const metadata: Metadata = {};
  if (roles) disaggregatedContext(info, roles, context, metadata);
  else {
    const version = text(args.version);
    if (version) context.engine_version = version;
    const gpus = serverGpus(args);
    if (gpus !== null) context.hardware = { gpu_count: gpus };
  }
  const model = text(args.served_model_name) ?? text(args.model_path);
  if (model) context.model = model;

  const flags: Record<string, FlagValue> = {};
  let count = 0;
  for (const [key, value] of Object.entries(args)) {
    if (NOT_FLAGS.has(key) || SECRET.test(key) || count >= MAX_FLAGS) continue;
    const flag = serverFlagValue(value);
    if (flag === undefined) continue;
    flags[flagName(key)] = flag;
    count += 1;
  }
  if (count > 0) context.flags = flags;

  const method = text(args.speculative_algorithm);
  if (method) {
    const speculative: Speculative = { method: method.toLowerCase() };
    const draft = text(args.speculative_draft_model_path);
    if (draft) speculative.draft_model = draft;
    const tokens = toConcurrency(args.speculative_num_draft_tokens);
    if (tokens !== null && tokens <= 1_000) speculative.num_speculative_tokens = tokens;
    context.speculative = speculative;
  }

  addMetadata(metadata, "max_total_num_tokens", toNumber(args.max_total_num_tokens) ?? undefined);
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return context;
}

// ---------------------------------------------------------------------------------------------------------
// bench_serving

function servingWorkload(record: Json): Workload | undefined {
  const workload: Workload = {};
  const dataset = text(record.dataset_name);
  if (dataset) workload.dataset = dataset;
  if (dataset !== undefined && /^(random|image)/.test(dataset)) {
    // random_input_len / random_output_len drive the random and image datasets only; other datasets still
    // write them (the defaults, 1024/1024), so they are read only here.
    const input = toCount(record.random_input_len);
    const output = toCount(record.random_output_len);
    if (input !== null) workload.input_len = input;
    if (output !== null) workload.output_len = output;
  } else if (dataset === "sharegpt") {
    const output = toCount(record.sharegpt_output_len) ?? toCount(record.fixed_output_len);
    if (output !== null) workload.output_len = output;
  }
  return Object.keys(workload).length > 0 ? workload : undefined;
}

/**
 * The engine bench_serving's `--backend` names by the endpoint it speaks, where only one engine serves that
 * endpoint: "sglang" and "sglang-native" post to SGLang's own /generate, "trt" to the Triton TensorRT-LLM
 * ensemble's generate_stream (ASYNC_REQUEST_FUNCS in python/sglang/bench_serving.py). The other backends
 * ("sglang-oai", "vllm", "lmdeploy"…) speak the OpenAI API that every engine serves: the client's API style,
 * not the engine, so they say nothing about the server.
 */
function engineOfBackend(backend: unknown): string | undefined {
  if (backend === "sglang" || backend === "sglang-native") return "sglang";
  if (backend === "trt") return "tensorrt-llm";
  return undefined;
}

function servingContext(record: Json): RunContext {
  const info = asRecord(record.server_info);
  const server = info ? serverContext(info) : {};
  const context: RunContext = {};
  const engine = server.engine ?? engineOfBackend(record.backend);
  if (engine) context.engine = engine;
  if (server.engine_version) context.engine_version = server.engine_version;
  const model = text(record.model_id) ?? text(record.model) ?? server.model;
  if (model) context.model = model;
  if (server.hardware) context.hardware = server.hardware;
  if (server.flags) context.flags = server.flags;
  const workload = servingWorkload(record);
  if (workload) context.workload = workload;
  if (server.speculative) context.speculative = server.speculative;

  const metadata: Metadata = {};
  addMetadata(metadata, "backend", record.backend);
  addMetadata(metadata, "tag", record.tag);
  const dataset = text(record.dataset_name);
  if (dataset !== undefined && /^(random|image)/.test(dataset))
    addMetadata(metadata, "random_range_ratio", toNumber(record.random_range_ratio) ?? undefined);
  // `concurrency` is the measured average number of requests in flight (sum of e2e latencies / duration).
  addMetadata(metadata, "measured_concurrency", toNumber(record.concurrency) ?? undefined);
  addMetadata(metadata, "max_concurrent_requests", toNumber(record.max_concurrent_requests) ?? undefined);
  addMetadata(metadata, "max_output_tokens_per_s", toNumber(record.max_output_tokens_per_s) ?? undefined);
  addMetadata(metadata, "input_throughput", toNumber(record.input_throughput) ?? undefined);
  addMetadata(metadata, "accept_length", toNumber(record.accept_length) ?? undefined);
  Object.assign(metadata, server.metadata ?? {});
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return context;
}

function servingFragment(file: SourceFile, record: Json, where: Where, part: string): Fragment {
  const warnings: string[] = [];
  const builder = new PointBuilder(where.label);
  const concurrency = record.max_concurrency;
  setLoadLevel(builder, record, where);
  const context = servingContext(record);
  if (!builder.has("concurrency") && !builder.has("request_rate")) {
    if (record.request_rate === "trace") {
      warnings.push(
        `${where.label}: requests followed the trace's timestamps (request_rate "trace") without max_concurrency; the run has no load level to file it under and is not imported.`,
      );
      return {
        format: "sglang-bench-serving",
        file: file.name,
        part,
        context,
        points: [],
        warnings,
        root: rootOf(where),
      };
    }
    throw new FormatError(
      `${where.path}request_rate`,
      `no load level: max_concurrency is ${describeValue(concurrency ?? null)} and request_rate is ${describeValue(record.request_rate ?? null)}`,
    );
  }
  setFigure(builder, warnings, "completed", record, "completed", where);
  setFigure(builder, warnings, "duration_s", record, "duration", where, "s");
  setFigure(builder, warnings, "total_input_tokens", record, "total_input_tokens", where);
  setFigure(builder, warnings, "total_output_tokens", record, "total_output_tokens", where);
  setFigure(builder, warnings, "request_throughput", record, "request_throughput", where);
  setFigure(builder, warnings, "output_throughput", record, "output_throughput", where);
  setFigure(builder, warnings, "total_token_throughput", record, "total_throughput", where);
  setLatencies(builder, warnings, record, where);
  const point = builder.build();
  warnings.push(...builder.warnings);
  const root = rootOf(where);
  return {
    format: "sglang-bench-serving",
    file: file.name,
    part,
    context,
    points: [point],
    warnings,
    // The paths in the point's sources are relative to its line.
    root,
    notImported: builder.notImported(file.name, root),
  };
}

export const sglangBenchServingParser: FormatParser = {
  id: "sglang-bench-serving",
  label: "SGLang bench_serving --output-file",
  signature:
    "JSON lines with completed/output_throughput/duration/total_output_tokens and at least one of " +
    "total_output_tokens_retokenized, mean_e2e_latency_ms, median_e2e_latency_ms, server_info, random_input_len, " +
    "sharegpt_output_len; none of vLLM's total_token_throughput, tokenizer_id, burstiness, endpoint_type, model_id, run_number",
  detect: (file) => detectLines(file, isServingLine),
  parse: (file) => lines(file).map(({ record, where, part }) => servingFragment(file, record, where, part)),
};

// ---------------------------------------------------------------------------------------------------------
// bench_one_batch_server

function oneBatchFragment(file: SourceFile, record: Json, where: Where, part: string): Fragment {
  const warnings: string[] = [];
  const builder = new PointBuilder(where.label);
  const batch = toConcurrency(record.batch_size);
  if (batch === null) {
    throw new FormatError(
      `${where.path}batch_size`,
      `batch_size must be a whole number of at least 1, found ${describeValue(record.batch_size)}`,
    );
  }
  builder.concurrency(batch, "batch_size");
  setFigure(builder, warnings, "duration_s", record, "latency", where, "s");
  // servebench's output_throughput is generated tokens over wall time: batch × output_len / latency, all in the line.
  // The tool's own output_throughput is that in its first revision only; since it streams (the revisions that write
  // last_gen_throughput, ttft or last_ttft) it is batch × output_len / (latency − ttft): decode only, prefill left
  // out. That figure is kept as decode_throughput. Which one a line holds is also told by its value: a figure that is
  // not batch × output_len / latency (within the file's rounding) is the decode-only one.
  const latency = toNumber(figure(record, "latency", where, warnings));
  const outputLen = toCount(record.output_len);
  const stated = toNumber(figure(record, "output_throughput", where, warnings));
  const wall = latency !== null && latency > 0 && outputLen !== null ? (batch * outputLen) / latency : null;
  const streamingRevision = ["last_gen_throughput", "ttft", "last_ttft"].some((key) => key in record);
  const decodeOnly =
    stated !== null && (streamingRevision || (wall !== null && Math.abs(stated - wall) > Math.max(0.01, wall * 0.005)));
  if (decodeOnly) {
    if (wall !== null) builder.set("output_throughput", wall, "batch_size × output_len / latency");
    builder.set("decode_throughput", stated, "output_throughput");
  } else setFigure(builder, warnings, "output_throughput", record, "output_throughput", where);
  setFigure(builder, warnings, "total_token_throughput", record, "overall_throughput", where);
  const point = builder.build();
  warnings.push(...builder.warnings);

  const context: RunContext = {};
  const workload: Workload = {};
  const input = toCount(figure(record, "input_len", where, warnings));
  const output = toCount(figure(record, "output_len", where, warnings));
  if (input !== null) workload.input_len = input;
  if (output !== null) workload.output_len = output;
  if (Object.keys(workload).length > 0) context.workload = workload;

  const metadata: Metadata = {};
  addMetadata(metadata, "run_name", record.run_name);
  // Seconds from sending the batch until its last request produced its first token.
  addMetadata(metadata, "last_ttft_s", toNumber(record.last_ttft ?? record.ttft) ?? undefined);
  addMetadata(metadata, "input_throughput", toNumber(record.input_throughput) ?? undefined);
  // -1 means "not available" for these two.
  const lastGen = toNumber(record.last_gen_throughput);
  if (lastGen !== null && lastGen >= 0) metadata.last_gen_throughput = lastGen;
  const accept = toNumber(record.spec_accept_length ?? record.acc_length);
  if (accept !== null && accept > 0) metadata.accept_length = accept;
  addMetadata(metadata, "spec_accept_rate", toNumber(record.spec_accept_rate) ?? undefined);
  addMetadata(metadata, "cache_hit_rate", toNumber(record.cache_hit_rate) ?? undefined);
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  const root = rootOf(where);
  // A wall-time figure identical to the computed one is the same number; it is that point's output_throughput.
  const used = ["input_len", "output_len"];
  return {
    format: "sglang-bench-one-batch-server",
    file: file.name,
    part,
    context,
    points: [point],
    warnings,
    root,
    used,
  };
}

/** Why a one-batch figure is not imported. */
function oneBatchReason(path: string): string | undefined {
  const key = path.slice(path.lastIndexOf(".") + 1);
  if (key === "acc_length" || key === "spec_accept_length" || key === "last_gen_throughput")
    return "-1 (or 0) means the tool had no value for it";
  if (key === "prefill_latency")
    return "the batch's prefill step, timed inside the process; TTFT fields are statistics over requests sent to a server";
  if (key === "prefill_throughput")
    return "prefill tokens per second (batch × input_len / prefill_latency); no servebench field";
  if (key === "median_decode_latency")
    return "the median time of one decode step of the batch; TPOT fields are statistics over requests sent to a server";
  return undefined;
}

export const sglangOneBatchServerParser: FormatParser = {
  notImportedReason: oneBatchReason,
  id: "sglang-bench-one-batch-server",
  label: "SGLang bench_one_batch_server --result-filename",
  signature:
    "JSON lines with batch_size, input_len, output_len, latency and overall_throughput (usually run_name), and no completed",
  detect: (file) => detectLines(file, isOneBatchLine),
  parse: (file) => lines(file).map(({ record, where, part }) => oneBatchFragment(file, record, where, part)),
};

// ---------------------------------------------------------------------------------------------------------
// bench_one_batch (offline: no server, the model runner driven in-process)

/** Keys of `python -m sglang.bench_one_batch --result-filename` lines (latency_test_run_once's measurement_results). */
const OFFLINE_KEYS = [
  "batch_size",
  "input_len",
  "output_len",
  "prefill_latency",
  "total_latency",
  "overall_throughput",
];

function isOfflineOneBatchLine(value: unknown): value is Json {
  const record = asRecord(value);
  return record !== undefined && OFFLINE_KEYS.every((key) => key in record) && !("latency" in record);
}

/**
 * One line per batch size × input length × output length. The whole batch is prefilled in one step, then decoded
 * step by step (output_len − 1 steps); total_latency spans both. So output tokens over wall time is
 * batch × output_len / total_latency; overall_throughput is batch × (input_len + output_len) / total_latency; and
 * median_decode_throughput, batch / the median decode step's time, is a decode-only rate.
 */
function offlineFragment(file: SourceFile, record: Json, where: Where, part: string): Fragment {
  const warnings: string[] = [];
  const builder = new PointBuilder(where.label);
  const batch = toConcurrency(record.batch_size);
  if (batch === null) {
    throw new FormatError(
      `${where.path}batch_size`,
      `batch_size must be a whole number of at least 1, found ${describeValue(record.batch_size)}`,
    );
  }
  builder.concurrency(batch, "batch_size");
  setFigure(builder, warnings, "duration_s", record, "total_latency", where, "s");
  const latency = toNumber(figure(record, "total_latency", where, warnings));
  const outputLen = toCount(record.output_len);
  if (latency !== null && latency > 0 && outputLen !== null)
    builder.set("output_throughput", (batch * outputLen) / latency, "batch_size × output_len / total_latency");
  setFigure(builder, warnings, "total_token_throughput", record, "overall_throughput", where);
  setFigure(builder, warnings, "decode_throughput", record, "median_decode_throughput", where);
  const point = builder.build();
  warnings.push(...builder.warnings);
  const context: RunContext = { engine: "sglang" };
  const workload: Workload = {};
  const input = toCount(record.input_len);
  if (input !== null) workload.input_len = input;
  if (outputLen !== null) workload.output_len = outputLen;
  if (Object.keys(workload).length > 0) context.workload = workload;
  const metadata: Metadata = {};
  addMetadata(metadata, "run_name", record.run_name);
  if (Object.keys(metadata).length > 0) context.metadata = metadata;
  return {
    format: "sglang-bench-one-batch",
    file: file.name,
    part,
    context,
    points: [point],
    warnings,
    root: where.path.replace(/\.$/, ""),
    used: ["input_len", "output_len"],
  };
}

export const sglangOneBatchParser: FormatParser = {
  id: "sglang-bench-one-batch",
  label: "SGLang bench_one_batch --result-filename (offline, no server)",
  signature:
    "JSON lines with batch_size, input_len, output_len, prefill_latency, total_latency and overall_throughput (no latency)",
  notImportedReason: oneBatchReason,
  detect: (file) => detectLines(file, isOfflineOneBatchLine),
  parse: (file) => lines(file).map(({ record, where, part }) => offlineFragment(file, record, where, part)),
};

export const sglangParsers: readonly FormatParser[] = [
  sglangBenchServingParser,
  sglangOneBatchServerParser,
  sglangOneBatchParser,
];
