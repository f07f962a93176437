/**
 * What a server says about itself: its model list (`GET /v1/models`), SGLang's `GET /get_server_info` and
 * vLLM's `GET /version`. The run's context is filled from it where the user did not say, and the run records
 * what came from where.
 */
import { engineOfCommand, UNKNOWN_ENGINE } from "@/lib/document/engine-of";
import { canonicalFlagName, parseCommand } from "@/lib/document/flags";
import { LIMITS } from "@/lib/document/schema";

export interface ModelEntry {
  id: string;
  max_model_len?: number;
  /** Who serves it: vLLM says "vllm", SGLang "sglang", TensorRT-LLM "tensorrt_llm", llama.cpp "llamacpp". */
  owned_by?: string;
}

/** What the probes found; null where an endpoint did not answer with what was expected. */
export interface ServerProbe {
  models: ModelEntry[] | null;
  /** Why the model list is missing, for messages. */
  models_error?: string;
  sglang_info: Record<string, unknown> | null;
  vllm_version: string | null;
}

export interface ExplicitContext {
  model?: string;
  engine?: string;
  engine_version?: string;
  command?: string;
}

export type ServerFlagValue = string | number | true | (string | number)[];

export interface ResolvedContext {
  model: string;
  engine: string;
  engine_version?: string;
  /** Launch flags the server reported, minus those the user's `--command` already sets. */
  flags: Record<string, ServerFlagValue>;
  max_model_len?: number;
  /** What was filled in from where, e.g. "sglang /get_server_info: engine, engine_version, flags". */
  filled: string[];
  /** Lines to print, saying what the server told. */
  lines: string[];
}

/** The context cannot be settled: the user must say more (a usage error). */
export class ContextError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{"data": [{"id": …, "max_model_len": …}]}` → the models; null when the body is not a model list. */
export function parseModelList(body: unknown): ModelEntry[] | null {
  if (!isRecord(body) || !Array.isArray(body.data)) return null;
  const models: ModelEntry[] = [];
  for (const item of body.data) {
    if (!isRecord(item) || typeof item.id !== "string" || item.id === "") continue;
    const entry: ModelEntry = { id: item.id };
    if (typeof item.owned_by === "string" && item.owned_by !== "") entry.owned_by = item.owned_by;
    if (typeof item.max_model_len === "number" && Number.isInteger(item.max_model_len) && item.max_model_len > 0) {
      entry.max_model_len = item.max_model_len;
    }
    models.push(entry);
  }
  return models;
}

/** `{"version": "0.11.0"}` → "0.11.0". */
export function parseVersion(body: unknown): string | null {
  if (!isRecord(body) || typeof body.version !== "string" || body.version.trim() === "") return null;
  return body.version.trim();
}

/** SGLang's /get_server_info mixes its server arguments with scheduler state; these keys are not arguments. */
const SGLANG_NON_ARGUMENTS = new Set([
  "version",
  "internal_states",
  "status",
  "max_total_num_tokens",
  "max_req_input_len",
  "last_gen_throughput",
]);

/** A name that holds a credential (`api_key`, `hf_token`, `ssl_keyfile_password`): its value is never recorded. */
const SECRET_NAME = /(^|[-_])(api[-_]?key|token|secret|password|passwd|credentials?)($|[-_])/i;

/**
 * SGLang's server arguments as launch flags (`tp_size: 8` → `"--tp-size": 8`). Unset (null), off (false),
 * empty and nested values are skipped, and so are credentials.
 */
export function sglangFlags(info: Record<string, unknown>): Record<string, ServerFlagValue> {
  const flags: Record<string, ServerFlagValue> = {};
  for (const [key, value] of Object.entries(info)) {
    if (SGLANG_NON_ARGUMENTS.has(key) || SECRET_NAME.test(key)) continue;
    if (Object.keys(flags).length >= LIMITS.flags) break;
    const name = canonicalFlagName(key);
    if (name.length > 200) continue;
    if (value === true) flags[name] = true;
    else if (typeof value === "number" && Number.isFinite(value)) flags[name] = value;
    else if (typeof value === "string" && value !== "" && value.length <= LIMITS.commandChars) flags[name] = value;
    else if (
      Array.isArray(value) &&
      value.length > 0 &&
      value.length <= 100 &&
      value.every(
        (item) =>
          (typeof item === "number" && Number.isFinite(item)) ||
          (typeof item === "string" && item.length <= LIMITS.commandChars),
      )
    ) {
      flags[name] = value as (string | number)[];
    }
  }
  return flags;
}

/**
 * The engine a model list's `owned_by` names, for the values servers are known to write about themselves (each
 * server's own source): vLLM "vllm" (vllm/entrypoints/openai/protocol.py, ModelCard), SGLang "sglang"
 * (sglang/srt/entrypoints/openai/protocol.py), TensorRT-LLM "tensorrt_llm" (tensorrt_llm/serve/openai_protocol.py),
 * llama.cpp "llamacpp" (tools/server). Anything else ("openai", "system", an organisation) says nothing.
 */
const OWNER_ENGINES: Record<string, string> = {
  vllm: "vllm",
  sglang: "sglang",
  tensorrt_llm: "tensorrt-llm",
  llamacpp: "llama.cpp",
};

function ownerEngine(owner: string): string | undefined {
  return Object.hasOwn(OWNER_ENGINES, owner) ? OWNER_ENGINES[owner] : undefined;
}

interface Detected {
  engine: string;
  version?: string;
  flags: Record<string, ServerFlagValue>;
  source: string;
}

function detectEngine(probe: ServerProbe, lines: string[]): Detected | null {
  if (probe.sglang_info) {
    const version = parseVersion(probe.sglang_info) ?? undefined;
    return { engine: "sglang", version, flags: sglangFlags(probe.sglang_info), source: "sglang /get_server_info" };
  }
  if (probe.vllm_version) {
    // Other servers answer /version too; vLLM's model list says it owns its models.
    const owner = probe.models?.find((entry) => entry.owned_by !== undefined)?.owned_by;
    if (owner === undefined || owner === "vllm")
      return { engine: "vllm", version: probe.vllm_version, flags: {}, source: "vllm /version" };
    lines.push(
      `note: the server answers /version (${probe.vllm_version}) but /v1/models says its models are owned by "${owner}": it is not taken for vLLM's version`,
    );
  }
  return null;
}

/**
 * The run's model, engine, version and flags: what the user passed, then what the server told. The server
 * never overrides the user: an explicit `--engine` of another engine keeps the server's version and flags
 * out, and flags the user's `--command` sets keep their values.
 */
export function resolveContext(explicit: ExplicitContext, probe: ServerProbe): ResolvedContext {
  const filled: string[] = [];
  const lines: string[] = [];
  const served = probe.models ?? [];

  let model = explicit.model;
  const fromModels: string[] = [];
  if (model === undefined) {
    const first = served[0];
    if (!first) {
      const why =
        probe.models === null
          ? `GET /v1/models did not answer with a model list${probe.models_error ? ` (${probe.models_error})` : ""}`
          : "GET /v1/models lists no model";
      throw new ContextError(`pass --model: ${why}`);
    }
    model = first.id;
    fromModels.push("model");
    lines.push(
      `model: ${model} (${served.length === 1 ? "the one" : `the first of ${served.length}`} the server lists in /v1/models)`,
    );
  } else if (served.length > 0 && !served.some((entry) => entry.id === model)) {
    throw new ContextError(
      `the server does not serve model "${model}"; /v1/models lists: ${served.map((entry) => entry.id).join(", ")}`,
    );
  }
  const max_model_len = served.find((entry) => entry.id === model)?.max_model_len;
  if (max_model_len !== undefined) {
    fromModels.push("max_model_len");
    lines.push(`max_model_len: ${max_model_len} (/v1/models)`);
  }
  if (fromModels.length > 0) filled.push(`/v1/models: ${fromModels.join(", ")}`);

  const detected = detectEngine(probe, lines);
  let engine = explicit.engine ?? detected?.engine;
  if (engine === undefined) {
    const owner = served.find((entry) => entry.id === model)?.owned_by ?? served[0]?.owned_by;
    const fromOwner = owner === undefined ? undefined : ownerEngine(owner);
    const fromCommand = engineOfCommand(explicit.command);
    if (fromOwner !== undefined) {
      engine = fromOwner;
      filled.push("/v1/models: engine");
      lines.push(`engine: ${engine} (/v1/models says its models are owned by "${owner}")`);
    } else if (fromCommand) {
      engine = fromCommand.engine;
      filled.push("--command: engine");
      lines.push(`engine: ${engine} (the --command program: ${fromCommand.evidence})`);
    } else {
      // Measuring needs no engine: the run is stored as engine unknown rather than not measured at all.
      engine = UNKNOWN_ENGINE;
      lines.push(
        `engine: not told by the server (no SGLang /get_server_info, no vLLM /version${owner === undefined ? "" : `, /v1/models owner "${owner}"`}); stored as "unknown" (pass --engine NAME to name it)`,
      );
    }
  }
  const result: ResolvedContext = { model, engine, flags: {}, filled, lines };
  if (max_model_len !== undefined) result.max_model_len = max_model_len;
  if (explicit.engine_version !== undefined) result.engine_version = explicit.engine_version;

  if (detected) {
    if (detected.engine !== engine.toLowerCase()) {
      lines.push(
        `note: --engine ${engine} was given, but the server answers like ${detected.engine} (${detected.source}); its version and flags are not used`,
      );
    } else {
      const fromServer: string[] = [];
      if (explicit.engine === undefined) fromServer.push("engine");
      if (explicit.engine_version === undefined && detected.version !== undefined) {
        result.engine_version = detected.version;
        fromServer.push("engine_version");
      }
      const commandFlags = explicit.command ? parseCommand(explicit.command).flags : {};
      for (const [name, value] of Object.entries(detected.flags)) {
        if (commandFlags[name] === undefined) result.flags[name] = value;
      }
      const flagCount = Object.keys(result.flags).length;
      if (flagCount > 0) fromServer.push("flags");
      if (fromServer.length > 0) {
        filled.push(`${detected.source}: ${fromServer.join(", ")}`);
        const told = [
          fromServer.includes("engine") ? `engine ${detected.engine}` : null,
          fromServer.includes("engine_version") ? `version ${detected.version}` : null,
          flagCount > 0 ? `${flagCount} launch flag${flagCount === 1 ? "" : "s"}` : null,
        ].filter(Boolean);
        lines.push(`from the server (${detected.source}): ${told.join(", ")}`);
      }
    }
  }
  return result;
}
