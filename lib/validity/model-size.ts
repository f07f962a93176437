/**
 * How many parameters a run's model has (in all, and active per token) and how many bytes each weight takes:
 * what the roofline check needs to know how many bytes every decoded token reads. Each figure comes from the
 * first of: what the run states (`model_size`), llama-bench's own count of the file, the model's name
 * ("Llama-3.3-70B-Instruct", "Qwen3-30B-A3B", "Kimi-K2.5 INT4"), a small table of well-known models whose names
 * state no size, and for the precision the launch flags (`--quantization fp8`), else BF16.
 *
 * Where a name could mean a smaller or a larger figure, the smaller is taken (4-bit for an unnamed quantization,
 * the lowest width a name mentions): fewer bytes per token makes the bound higher, so a doubt never marks a run.
 */
import { ownValue } from "@/lib/own-value";
import { flagObject, flagText, type RunFlags } from "./flags";

/** What a run may state about its model's size (`model_size` in the run document). */
export interface ModelSizeInput {
  total_params_b?: number;
  active_params_b?: number;
  bytes_per_param?: number;
}

export type ParamsSource = "stated" | "llama-bench" | "known model" | "name";
export type PrecisionSource = "stated" | "llama-bench" | "name" | "flags" | "known model" | "assumed";

export interface ModelSize {
  /** All parameters, in billions; null when unknown. */
  total_params_b: number | null;
  /** Parameters one token runs through (all of them for a dense model), in billions; null when unknown. */
  active_params_b: number | null;
  /** True for a mixture of experts (fewer active than total parameters, or a name that says so). */
  mixture_of_experts: boolean;
  params_source: ParamsSource | null;
  /** Bytes per weight: 2 for BF16, 1 for FP8 or INT8, 0.5 for 4-bit. Always set: BF16 when nothing says otherwise. */
  bytes_per_param: number;
  /** The precision in words: "INT4", "FP8", "BF16, assumed", "4.56 bits by llama-bench". */
  precision: string;
  precision_source: PrecisionSource;
  /** The entry of the known-models table the figures came from, with its source. */
  known_model?: { name: string; source_url: string };
}

/** What the model-size reader looks at: the run document's fields, any of which may be absent. */
export interface ModelSizeRun {
  model?: string | null;
  model_size?: ModelSizeInput | null;
  flags?: RunFlags | null;
  metadata?: Readonly<Record<string, string | number | boolean>> | null;
}

interface KnownModel {
  /** The name's words as they appear in a normalized model name ("kimi-k2.5"). */
  match: string;
  name: string;
  total_params_b: number;
  active_params_b: number;
  /** The precision the checkpoint was released in, when the run's name and flags say none. */
  released_bytes_per_param: number;
  released_precision: string;
  source_url: string;
}

/**
 * Mixtures of experts whose names do not state their active parameters, from their model cards. More specific
 * names first ("kimi-k2.5" before "kimi-k2"). A distilled model ("DeepSeek-R1-Distill-Llama-70B") is its
 * student, whose size its name states, so names with "distill" skip this table.
 */
const KNOWN_MODELS: readonly KnownModel[] = [
  {
    match: "kimi-k2.5",
    name: "Kimi-K2.5",
    total_params_b: 1_000,
    active_params_b: 32,
    released_bytes_per_param: 0.5,
    released_precision: "INT4, as released",
    source_url: "https://huggingface.co/moonshotai/Kimi-K2.5",
  },
  {
    match: "kimi-k2-thinking",
    name: "Kimi-K2-Thinking",
    total_params_b: 1_000,
    active_params_b: 32,
    released_bytes_per_param: 0.5,
    released_precision: "INT4, as released",
    source_url: "https://huggingface.co/moonshotai/Kimi-K2-Thinking",
  },
  {
    match: "kimi-k2",
    name: "Kimi-K2",
    total_params_b: 1_000,
    active_params_b: 32,
    released_bytes_per_param: 1,
    released_precision: "FP8, as released",
    source_url: "https://huggingface.co/moonshotai/Kimi-K2-Instruct",
  },
  {
    match: "deepseek-v3",
    name: "DeepSeek-V3",
    total_params_b: 671,
    active_params_b: 37,
    released_bytes_per_param: 1,
    released_precision: "FP8, as released",
    source_url: "https://huggingface.co/deepseek-ai/DeepSeek-V3",
  },
  {
    match: "deepseek-r1",
    name: "DeepSeek-R1",
    total_params_b: 671,
    active_params_b: 37,
    released_bytes_per_param: 1,
    released_precision: "FP8, as released",
    source_url: "https://huggingface.co/deepseek-ai/DeepSeek-R1",
  },
  {
    match: "deepseek-v2-lite",
    name: "DeepSeek-V2-Lite",
    total_params_b: 15.7,
    active_params_b: 2.4,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite",
  },
  {
    match: "deepseek-v2",
    name: "DeepSeek-V2",
    total_params_b: 236,
    active_params_b: 21,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/deepseek-ai/DeepSeek-V2",
  },
  {
    match: "gpt-oss-120b",
    name: "gpt-oss-120b",
    total_params_b: 117,
    active_params_b: 5.1,
    released_bytes_per_param: 0.5,
    released_precision: "MXFP4, as released",
    source_url: "https://huggingface.co/openai/gpt-oss-120b",
  },
  {
    match: "gpt-oss-20b",
    name: "gpt-oss-20b",
    total_params_b: 21,
    active_params_b: 3.6,
    released_bytes_per_param: 0.5,
    released_precision: "MXFP4, as released",
    source_url: "https://huggingface.co/openai/gpt-oss-20b",
  },
  {
    match: "llama-4-scout",
    name: "Llama-4-Scout",
    total_params_b: 109,
    active_params_b: 17,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct",
  },
  {
    match: "llama-4-maverick",
    name: "Llama-4-Maverick",
    total_params_b: 400,
    active_params_b: 17,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct",
  },
  {
    match: "mixtral-8x7b",
    name: "Mixtral-8x7B",
    total_params_b: 46.7,
    active_params_b: 12.9,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://mistral.ai/news/mixtral-of-experts",
  },
  {
    match: "mixtral-8x22b",
    name: "Mixtral-8x22B",
    total_params_b: 141,
    active_params_b: 39,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://mistral.ai/news/mixtral-8x22b",
  },
  {
    match: "glm-4.5-air",
    name: "GLM-4.5-Air",
    total_params_b: 106,
    active_params_b: 12,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/zai-org/GLM-4.5-Air",
  },
  {
    match: "glm-4.5",
    name: "GLM-4.5",
    total_params_b: 355,
    active_params_b: 32,
    released_bytes_per_param: 2,
    released_precision: "BF16, as released",
    source_url: "https://huggingface.co/zai-org/GLM-4.5",
  },
  {
    match: "minimax-m2",
    name: "MiniMax-M2",
    total_params_b: 230,
    active_params_b: 10,
    released_bytes_per_param: 1,
    released_precision: "FP8, as released",
    source_url: "https://huggingface.co/MiniMaxAI/MiniMax-M2",
  },
];

/** A model name lower-cased with every run of separators one "-": "Kimi-K2.5 INT4" → "kimi-k2.5-int4". */
function normalizedName(model: string): string {
  return model
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** Whether `name` holds `part` starting at a word boundary and ending at one (or at a "." of a version). */
function holdsName(name: string, part: string): boolean {
  let from = name.indexOf(part);
  while (from !== -1) {
    const before = from === 0 ? "-" : name[from - 1]!;
    const after = name[from + part.length] ?? "-";
    if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return true;
    from = name.indexOf(part, from + 1);
  }
  return false;
}

export function knownModel(model: string): KnownModel | null {
  const name = normalizedName(model);
  if (name.includes("distill")) return null;
  return KNOWN_MODELS.find((entry) => holdsName(name, entry.match)) ?? null;
}

/** A size word in billions: "70b" → 70, "0.6b" → 0.6, "135m" → 0.135; null for any other word. */
function sizeOfWord(word: string, allowMillions: boolean): number | null {
  const match = /^(\d{1,4}(?:\.\d{1,3})?)([bm])$/.exec(word);
  if (!match) return null;
  const value = Number(match[1]);
  if (match[2] === "m") return allowMillions ? value / 1000 : null;
  return value;
}

/** The words of a model name, split at every separator (a "." between digits stays: "3.3", "0.6b"). */
function nameWords(model: string): string[] {
  return model
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, " ")
    .replace(/\.(?![0-9])|(?<![0-9])\./g, " ")
    .split(" ")
    .filter((word) => word !== "");
}

interface ParamsFromName {
  total_params_b: number | null;
  active_params_b: number | null;
  mixture_of_experts: boolean;
}

/**
 * Parameters from a name's size words: "70B" alone is a dense 70B; "30B-A3B" 30B of which 3B active ("A800M":
 * 0.8B); "8x7B", "16E" or "MoE" mark a mixture of experts whose active share the name does not give. Two total
 * sizes ("1B-7B") say nothing for sure; a size in millions counts only when no word gives billions ("Qwen2.5-7B-
 * Instruct-1M" is 7B with a million-token context).
 */
function paramsFromName(model: string): ParamsFromName | null {
  const words = nameWords(model);
  let active: number | null = null;
  let moe = words.some((word) => word === "moe" || word.endsWith("moe") || /^\d{1,3}e$/.test(word));
  const totals: number[] = [];
  const millions: number[] = [];
  for (const word of words) {
    if (/^\d{1,3}x\d/.test(word)) moe = true;
    if (word.startsWith("a") && word.length > 1) {
      const size = sizeOfWord(word.slice(1), true);
      if (size !== null) {
        active = size;
        moe = true;
        continue;
      }
    }
    const billions = sizeOfWord(word, false);
    if (billions !== null) totals.push(billions);
    else {
      const small = sizeOfWord(word, true);
      if (small !== null) millions.push(small);
    }
  }
  const candidates = totals.length > 0 ? totals : millions;
  const total = candidates.length === 1 ? candidates[0]! : null;
  if (total === null && active === null) return null;
  if (moe) return { total_params_b: total, active_params_b: active, mixture_of_experts: true };
  return { total_params_b: total, active_params_b: total, mixture_of_experts: false };
}

interface Precision {
  bytes_per_param: number;
  label: string;
}

/** Words that state a weight width outright. */
const WIDTH_WORDS: Readonly<Record<string, Precision>> = {
  int4: { bytes_per_param: 0.5, label: "INT4" },
  uint4: { bytes_per_param: 0.5, label: "INT4" },
  w4a16: { bytes_per_param: 0.5, label: "W4A16" },
  w4a8: { bytes_per_param: 0.5, label: "W4A8" },
  w4afp8: { bytes_per_param: 0.5, label: "W4AFP8" },
  nvfp4: { bytes_per_param: 0.5, label: "NVFP4" },
  mxfp4: { bytes_per_param: 0.5, label: "MXFP4" },
  fp4: { bytes_per_param: 0.5, label: "FP4" },
  "4bit": { bytes_per_param: 0.5, label: "4-bit" },
  int8: { bytes_per_param: 1, label: "INT8" },
  w8a8: { bytes_per_param: 1, label: "W8A8" },
  w8a16: { bytes_per_param: 1, label: "W8A16" },
  fp8: { bytes_per_param: 1, label: "FP8" },
  mxfp8: { bytes_per_param: 1, label: "MXFP8" },
  "8bit": { bytes_per_param: 1, label: "8-bit" },
  bf16: { bytes_per_param: 2, label: "BF16" },
  bfloat16: { bytes_per_param: 2, label: "BF16" },
  fp16: { bytes_per_param: 2, label: "FP16" },
  f16: { bytes_per_param: 2, label: "FP16" },
  float16: { bytes_per_param: 2, label: "FP16" },
  half: { bytes_per_param: 2, label: "FP16" },
  fp32: { bytes_per_param: 4, label: "FP32" },
  f32: { bytes_per_param: 4, label: "FP32" },
  float32: { bytes_per_param: 4, label: "FP32" },
};

/** Quantization methods that are 4-bit unless the name says another width (Qwen's "GPTQ-Int8"). */
const FOUR_BIT_METHODS = new Set(["awq", "gptq", "bnb", "bitsandbytes", "marlin", "exl2", "hqq"]);

/**
 * The narrowest width a text names: its width words, and GGUF's quantization types ("Q4_K_M" → 4 bits,
 * "IQ2_XXS" → 2); else a 4-bit method (AWQ, GPTQ). Null when it names none.
 */
export function precisionFromText(text: string): Precision | null {
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const named: Precision[] = [];
  for (const word of words) {
    const width = ownValue(WIDTH_WORDS, word);
    if (width) named.push(width);
    const gguf = /^i?q([1-8])$/.exec(word);
    if (gguf) named.push({ bytes_per_param: Number(gguf[1]) / 8, label: `GGUF ${word.toUpperCase()}` });
  }
  if (named.length > 0) {
    return named.reduce((narrowest, precision) =>
      precision.bytes_per_param < narrowest.bytes_per_param ? precision : narrowest,
    );
  }
  const method = words.find((word) => FOUR_BIT_METHODS.has(word));
  return method ? { bytes_per_param: 0.5, label: `${method.toUpperCase()}, 4-bit` } : null;
}

/**
 * The weights' width from the launch flags: `--quantization` (vLLM, SGLang; `-q`) names the method, else
 * `--dtype` the width of unquantized weights. A method that names no width ("compressed-tensors", "modelopt") is
 * taken as 4-bit, the narrowest common one.
 */
function precisionFromFlags(flags: ModelSizeRun["flags"]): { quantized: Precision | null; dtype: Precision | null } {
  const object = flagObject(flags);
  const method = flagText(object, ["--quantization", "-q"]);
  const dtype = flagText(object, ["--dtype"]);
  const quantized = method
    ? (precisionFromText(method) ?? { bytes_per_param: 0.5, label: `${method}, taken as 4-bit` })
    : null;
  return { quantized, dtype: dtype ? precisionFromText(dtype) : null };
}

/** "3.56 GiB" → bytes, "6.74 B" → parameters: llama-bench's markdown writes its counts with units. */
function countWithUnit(value: string | number | boolean | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== "string") return null;
  const match = /^\s*(\d{1,9}(?:\.\d{1,6})?)\s*([KMGT]i?B?|[KMBT])?\s*$/i.exec(value);
  if (!match) return null;
  const unit = (match[2] ?? "").toUpperCase();
  const scale: Record<string, number> = {
    "": 1,
    K: 1e3,
    M: 1e6,
    B: 1e9,
    G: 1e9,
    T: 1e12,
    KB: 1e3,
    MB: 1e6,
    GB: 1e9,
    TB: 1e12,
    KIB: 1024,
    MIB: 1024 ** 2,
    GIB: 1024 ** 3,
    TIB: 1024 ** 4,
    KI: 1024,
    MI: 1024 ** 2,
    GI: 1024 ** 3,
    TI: 1024 ** 4,
  };
  const factor = ownValue(scale, unit);
  return factor === undefined ? null : Number(match[1]) * factor;
}

/** llama-bench states the model file's bytes and parameters: their ratio is the exact average width. */
function fromLlamaBench(metadata: ModelSizeRun["metadata"]): { params: number; bytes: number } | null {
  if (!metadata) return null;
  const bytes = countWithUnit(metadata.model_size);
  const params = countWithUnit(metadata.model_n_params);
  if (bytes === null || params === null || params < 1e6) return null;
  return { params, bytes };
}

const positive = (value: number | undefined | null): number | null =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;

/** The model's parameters and width, each from the first source that gives it (see the top of this file). */
export function modelSizeOf(run: ModelSizeRun): ModelSize {
  const model = run.model ?? "";
  const stated = run.model_size ?? {};
  const llamaBench = fromLlamaBench(run.metadata);
  const known = knownModel(model);
  const fromName = known ? null : paramsFromName(model);
  // The model_type of a llama-bench file ("qwen3moe 30B.A3B Q4_K - Medium") is the better name when present.
  const llamaName = typeof run.metadata?.model_type === "string" ? paramsFromName(run.metadata.model_type) : null;

  let total: number | null = null;
  let active: number | null = null;
  let moe = false;
  let paramsSource: ParamsSource | null = null;
  if (known) {
    total = known.total_params_b;
    active = known.active_params_b;
    moe = true;
    paramsSource = "known model";
  } else if (llamaBench) {
    total = llamaBench.params / 1e9;
    const hint = llamaName ?? fromName;
    moe = hint?.mixture_of_experts ?? false;
    active = moe ? (hint?.active_params_b ?? null) : total;
    paramsSource = "llama-bench";
  } else if (fromName) {
    total = fromName.total_params_b;
    active = fromName.active_params_b;
    moe = fromName.mixture_of_experts;
    paramsSource = "name";
  }
  const statedTotal = positive(stated.total_params_b);
  const statedActive = positive(stated.active_params_b);
  if (statedTotal !== null) total = statedTotal;
  if (statedActive !== null) active = statedActive;
  else if (statedTotal !== null && !moe) active = statedTotal;
  if (statedTotal !== null || statedActive !== null) paramsSource = "stated";
  if (total !== null && active !== null && active < total) moe = true;

  const result: ModelSize = {
    total_params_b: total,
    active_params_b: active,
    mixture_of_experts: moe,
    params_source: paramsSource,
    ...precisionOf(run, model, known, llamaBench),
  };
  if (known) result.known_model = { name: known.name, source_url: known.source_url };
  return result;
}

function precisionOf(
  run: ModelSizeRun,
  model: string,
  known: KnownModel | null,
  llamaBench: { params: number; bytes: number } | null,
): Pick<ModelSize, "bytes_per_param" | "precision" | "precision_source"> {
  const statedBytes = positive(run.model_size?.bytes_per_param);
  if (statedBytes !== null) {
    return { bytes_per_param: statedBytes, precision: `${statedBytes} bytes per weight`, precision_source: "stated" };
  }
  if (llamaBench) {
    const bytes = llamaBench.bytes / llamaBench.params;
    return {
      bytes_per_param: bytes,
      precision: `${(bytes * 8).toFixed(2)} bits by llama-bench`,
      precision_source: "llama-bench",
    };
  }
  const named = precisionFromText(model);
  if (named) return { bytes_per_param: named.bytes_per_param, precision: named.label, precision_source: "name" };
  const flags = precisionFromFlags(run.flags);
  if (flags.quantized) {
    return {
      bytes_per_param: flags.quantized.bytes_per_param,
      precision: flags.quantized.label,
      precision_source: "flags",
    };
  }
  if (known) {
    return {
      bytes_per_param: known.released_bytes_per_param,
      precision: known.released_precision,
      precision_source: "known model",
    };
  }
  if (flags.dtype) {
    return { bytes_per_param: flags.dtype.bytes_per_param, precision: flags.dtype.label, precision_source: "flags" };
  }
  return { bytes_per_param: 2, precision: "BF16, assumed", precision_source: "assumed" };
}
