/**
 * Which engine a run's launch command starts, read from the program it runs: `vllm serve`, `python3 -m
 * sglang.launch_server`, `trtllm-serve`, `./build/bin/llama-server`, a Docker image such as `vllm/vllm-openai`,
 * through `VAR=value` prefixes and wrappers (`uv run`, `docker run …`). And the stored value of a run whose
 * engine nothing states.
 */
import { tokenizeCommand } from "./flags";

export { isUnknownEngine, UNKNOWN_ENGINE } from "./names";

/** Other spellings of one engine, so a file's "trtllm" and a command's `trtllm-serve` agree. */
const ENGINE_ALIASES: Record<string, string> = {
  trtllm: "tensorrt-llm",
  tensorrtllm: "tensorrt-llm",
  tensorrt_llm: "tensorrt-llm",
  "llama-cpp": "llama.cpp",
  llamacpp: "llama.cpp",
  "text-generation-inference": "tgi",
};

/** The one spelling of an engine's name: lower-case, aliases resolved. */
export function canonicalEngine(engine: string): string {
  const lower = engine.trim().toLowerCase();
  return Object.hasOwn(ENGINE_ALIASES, lower) ? ENGINE_ALIASES[lower]! : lower;
}

export interface CommandEngine {
  engine: string;
  /** The words of the command that say it, as typed: "vllm serve", "-m sglang.launch_server", "vllm/vllm-openai:v0.11.0". */
  evidence: string;
}

/** `python -m MODULE` → engine, by the module's first names. */
const MODULES: [RegExp, string][] = [
  [/^vllm(\.|$)/, "vllm"],
  [/^sglang(\.|$)/, "sglang"],
  [/^tensorrt_llm(\.|$)/, "tensorrt-llm"],
  [/^lmdeploy(\.|$)/, "lmdeploy"],
  [/^text_generation_server(\.|$)/, "tgi"],
];

/** A Docker image (registry and tag optional) → engine: the images each project publishes its server in. */
const IMAGES: [RegExp, string][] = [
  [/(^|\/)vllm\/vllm-openai(:|@|$)/, "vllm"],
  [/(^|\/)lmsysorg\/sglang(:|@|$)/, "sglang"],
  [/(^|\/)nvidia\/tensorrt-llm\//, "tensorrt-llm"],
  [/(^|\/)(ggml-org|ggerganov)\/llama\.cpp:server/, "llama.cpp"],
  [/(^|\/)huggingface\/text-generation-inference(:|@|$)/, "tgi"],
  [/(^|\/)openmmlab\/lmdeploy(:|@|$)/, "lmdeploy"],
];

function baseName(token: string): string {
  return token.split("/").pop() ?? token;
}

/**
 * The engine the command starts, and the words that say so; null when no word of it names a server program. The
 * first such word wins, so `docker run … lmsysorg/sglang python3 -m sglang.launch_server` says SGLang once. Flags
 * and their values are skipped, except Python's `-m MODULE`.
 */
export function engineOfCommand(command: string | undefined): CommandEngine | null {
  if (!command || command.trim() === "") return null;
  const tokens = tokenizeCommand(command);
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? "";
    const next = tokens[index + 1] ?? "";
    if (token === "-m") {
      const found = MODULES.find(([pattern]) => pattern.test(next));
      if (found) return { engine: found[1], evidence: `-m ${next}` };
      continue;
    }
    if (token.startsWith("-")) continue;
    const name = baseName(token);
    if (name === "vllm" && next === "serve") return { engine: "vllm", evidence: `${token} serve` };
    if (name === "sglang" && next === "serve") return { engine: "sglang", evidence: `${token} serve` };
    if (name === "lmdeploy" && next === "serve") return { engine: "lmdeploy", evidence: `${token} serve` };
    if (name === "trtllm-serve") return { engine: "tensorrt-llm", evidence: token };
    if (name === "llama-server") return { engine: "llama.cpp", evidence: token };
    if (name === "text-generation-launcher") return { engine: "tgi", evidence: token };
    const image = IMAGES.find(([pattern]) => pattern.test(token));
    if (image) return { engine: image[1], evidence: token };
  }
  return null;
}
