/**
 * How a run's configuration reads in words: automatic run names, the suffix that tells apart the runs of one
 * upload, and the upload's conflict messages all speak through these functions, so a configuration is
 * called the same everywhere: `SGLang 0.4.3 · Llama-3.3-70B-Instruct · random 1024→1024`, `--max-num-seqs 4`,
 * `8× H100`. Never JSON.
 */

import { ownValue } from "@/lib/own-value";
import type { FlagValue, Hardware, Workload } from "./schema";

const ENGINE_NAMES: Record<string, string> = {
  vllm: "vLLM",
  sglang: "SGLang",
  "tensorrt-llm": "TensorRT-LLM",
  trtllm: "TensorRT-LLM",
  "llama.cpp": "llama.cpp",
  "llama-cpp": "llama.cpp",
  tgi: "TGI",
  "text-generation-inference": "TGI",
  lmdeploy: "LMDeploy",
  ollama: "Ollama",
};

/**
 * The engine of a run that nothing stated: not the files, not the launch command, not the person. Stored as
 * this word (the document's `engine` stays a required string, so every stored run, export and restore keeps one
 * shape) and shown as "engine not stated"; editing the run names it.
 */
export const UNKNOWN_ENGINE = "unknown";

export function isUnknownEngine(engine: string | undefined | null): boolean {
  return engine === undefined || engine === null || engine.trim().toLowerCase() === UNKNOWN_ENGINE;
}

/** `sglang` → `SGLang`; an engine we do not know reads as it was given; the unknown engine as "engine not stated". */
export function engineDisplayName(engine: string): string {
  if (isUnknownEngine(engine)) return "engine not stated";
  return ownValue(ENGINE_NAMES, engine.trim().toLowerCase()) ?? engine.trim();
}

/**
 * The model without its hub organisation or local directory: `meta-llama/Llama-3.3-70B-Instruct` →
 * `Llama-3.3-70B-Instruct`, `/models/Qwen3-8B/` → `Qwen3-8B`. A name with spaces is a person's own wording
 * and is kept whole (`Kimi-K2.5 INT4`).
 */
export function shortModelName(model: string): string {
  const trimmed = model.trim();
  if (/\s/.test(trimmed) || !trimmed.includes("/")) return trimmed;
  const parts = trimmed.split("/").filter(Boolean);
  return parts[parts.length - 1] ?? trimmed;
}

/** `random 1024→1024`, `sharegpt`, `1024→128`, `fixed chat prompt, 256 out`; empty when nothing is stated. */
export function workloadText(workload: Workload | undefined): string {
  if (!workload) return "";
  const { dataset, input_len: input, output_len: output } = workload;
  const lengths =
    input !== undefined && output !== undefined
      ? `${input}→${output}`
      : input !== undefined
        ? `${input} in`
        : output !== undefined
          ? `${output} out`
          : "";
  if (dataset && lengths)
    return input !== undefined && output !== undefined ? `${dataset} ${lengths}` : `${dataset}, ${lengths}`;
  return dataset ?? lengths;
}

/** `8× H100`, `H100`, `8 GPUs`; empty when nothing is stated. */
export function hardwareText(hardware: Hardware | undefined): string {
  if (!hardware) return "";
  if (hardware.gpu && hardware.gpu_count) return `${hardware.gpu_count}× ${hardware.gpu}`;
  if (hardware.gpu) return hardware.gpu;
  if (hardware.gpu_count) return `${hardware.gpu_count} GPU${hardware.gpu_count === 1 ? "" : "s"}`;
  return "";
}

/** A flag as it would be typed: `--disable-cuda-graph`, `--max-num-seqs 4`; `no --x` when it is absent. */
export function flagText(name: string, value: FlagValue | string | number | undefined | null): string {
  if (value === undefined || value === null) return `no ${name}`;
  if (value === true) return name;
  if (value === false) return `${name} off`;
  return `${name} ${Array.isArray(value) ? value.join(" ") : String(value)}`;
}

/**
 * The automatic name of a run: engine and version · model · workload, the parts that are known. An engine nothing
 * stated is left out rather than named "unknown", so the name stays true once the run is edited to say it.
 */
export function defaultRunName(
  engine: string,
  engineVersion: string | undefined,
  model: string,
  workload?: Workload,
): string {
  const head = isUnknownEngine(engine)
    ? engineVersion?.trim()
      ? `version ${engineVersion.trim()}`
      : ""
    : [engineDisplayName(engine), engineVersion?.trim()].filter(Boolean).join(" ");
  return [head, shortModelName(model), workloadText(workload)].filter(Boolean).join(" · ");
}
