/**
 * What the benchmark sends: the built-in prompts, a prompts file (one prompt per line, or JSONL of chat
 * messages), random prompts of a given length (with a length range and a shared prefix, as vLLM's random
 * dataset), or conversations sampled from a ShareGPT file (sharegpt.ts).
 */
import type { Workload } from "@/lib/document/schema";
import { seededUniform } from "@/lib/seeded-random";
import { integerBetween } from "./random";

export interface ChatMessage {
  role: string;
  content: string;
}

export type Prompt = ({ kind: "text"; text: string } | { kind: "chat"; messages: ChatMessage[] }) & {
  /** This request's own max_tokens (a dataset that sets each request's output length); else the run's. */
  maxTokens?: number;
};

export interface PromptSource {
  /** The workload's `dataset`. */
  dataset: string;
  /** Distinct prompts, or null when every request gets a new one (synthetic). */
  distinct: number | null;
  /** The prompt of the run's `index`-th request; sources cycle through their prompts. */
  at(index: number): Prompt;
  /** What the source adds to the run's workload beyond `dataset` (lengths, prefix, range). */
  workload?: Partial<Workload>;
  /** What the run's metadata should say about the source (its file and checksum). */
  metadata?: Record<string, string | number>;
}

export const BUILTIN_DATASET = "servebench built-in prompts";
export const SYNTHETIC_DATASET = "random synthetic";

/**
 * Varied tasks of similar length (explanation, code, analysis, writing), so a level's requests are not one
 * prompt served from the prefix cache. The first three and the fourth are the hand-written script's.
 */
export const BUILTIN_PROMPTS: readonly string[] = [
  "Explain the theory of general relativity in detail.",
  "Write a Python function to implement merge sort with detailed comments.",
  "What are the main causes and effects of climate change?",
  "Explain quantum computing in detail, including qubits, superposition and entanglement.",
  "Describe how a modern CPU executes instructions, from fetch to retirement.",
  "Write a short story about a lighthouse keeper who finds a message in a bottle.",
  "Compare the economic systems of capitalism and socialism, with historical examples.",
  "Explain how the TCP three-way handshake works and why it is needed.",
  "Write a JavaScript function that debounces another function, and explain how it works.",
  "What were the main causes of the First World War? Discuss the political alliances involved.",
  "Explain the difference between supervised, unsupervised and reinforcement learning.",
  "Describe the process of photosynthesis and its importance for life on Earth.",
  "Write a SQL query that finds the top five customers by total order value, and explain it.",
  "Explain how vaccines train the immune system, step by step.",
  "Summarize the plot and themes of Shakespeare's Hamlet.",
  "Explain how public-key cryptography works, using RSA as an example.",
  "Write a bash script that backs up a directory to a dated archive and removes archives older than a week.",
  "Describe the water cycle and how it is affected by a warming climate.",
  "Explain the CAP theorem and its consequences for designing distributed databases.",
  "What are the health benefits and risks of intermittent fasting? Cite the evidence.",
  "Explain how a transformer neural network processes a sentence, from tokens to output.",
  "Write a Rust function that parses a CSV line with quoted fields, and explain the edge cases.",
  "Describe the history of the printing press and its effects on European society.",
  "Explain how interest rates set by a central bank influence inflation and employment.",
];

export function builtinPrompts(): PromptSource {
  return {
    dataset: BUILTIN_DATASET,
    distinct: BUILTIN_PROMPTS.length,
    at: (index) => ({ kind: "text", text: BUILTIN_PROMPTS[index % BUILTIN_PROMPTS.length]! }),
  };
}

export class PromptFileError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSONL line as chat messages: `[{"role", "content"}…]` or `{"messages": […]}`; null when it is not one. */
function chatMessagesOf(line: string): ChatMessage[] | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("[") && !trimmed.startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return null;
  }
  const list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed.messages : undefined;
  if (!Array.isArray(list) || list.length === 0) return null;
  const messages: ChatMessage[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.role !== "string" || typeof item.content !== "string") return null;
    messages.push({ role: item.role, content: item.content });
  }
  return messages;
}

/**
 * A prompts file: JSONL of chat messages when its first line is one (then every line must be), else one
 * plain-text prompt per line. Empty lines are skipped.
 */
export function parsePromptFile(text: string, dataset: string): PromptSource {
  const lines = text
    .split(/\r?\n/)
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== "");
  const first = lines[0];
  if (!first) throw new PromptFileError(`${dataset} has no prompts`);
  let prompts: Prompt[];
  if (chatMessagesOf(first.line)) {
    prompts = lines.map(({ line, number }) => {
      const messages = chatMessagesOf(line);
      if (!messages) {
        throw new PromptFileError(
          `${dataset}:${number}: expected a JSON array of {"role", "content"} messages (or {"messages": [...]}) like line ${first.number}`,
        );
      }
      return { kind: "chat", messages };
    });
  } else {
    prompts = lines.map(({ line }) => ({ kind: "text", text: line }));
  }
  return { dataset, distinct: prompts.length, at: (index) => prompts[index % prompts.length]! };
}

/** Common words that most tokenizers encode as one token each (with their leading space). */
const WORDS = (
  "time people year way day man thing woman life child world school state family student group country " +
  "problem hand part place case week company system program question work government number night point " +
  "home water room mother area money story fact month lot right study book eye job word business issue side " +
  "kind head house service friend father power hour game line end member law car city community name team " +
  "minute idea body information back parent face level office door health person art war history party " +
  "result change morning reason research girl moment air teacher force education river music light market"
).split(" ");

/** The words of a prompt, drawn from `uniform`. */
function words(count: number, uniform: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) out.push(WORDS[Math.floor(uniform() * WORDS.length)]!);
  return out;
}

/**
 * The generator of the `index`-th random prompt: its own stream, so a prompt does not depend on which others
 * were drawn before it. Seed 0 gives the prompts servebench has always sent.
 */
function promptUniform(seed: number, index: number): () => number {
  return seededUniform((Math.imul(seed, 0x9e3779b1) + index + 1) >>> 0);
}

/** A prompt of `inputLen` random common words: about `inputLen` tokens, plus what the chat template adds. */
export function syntheticPrompt(inputLen: number, index: number, seed = 0): string {
  return words(inputLen, promptUniform(seed, index)).join(" ");
}

export interface RandomDatasetOptions {
  /** Tokens (words) of each prompt's own part. */
  inputLen: number;
  /** Words of a prefix every prompt starts with (0: none). */
  prefixLen?: number;
  /** Lengths are drawn uniformly from [floor(len × (1 − r)), ceil(len × (1 + r))]; 0 keeps them fixed. */
  rangeRatio?: number;
  /** The output length around which each request's max_tokens is drawn (with the range ratio); unset: the run's. */
  outputLen?: number;
  seed?: number;
}

/** The inclusive length range vLLM's random dataset draws from: floor(len × (1 − r)) … ceil(len × (1 + r)). */
export function lengthRange(length: number, rangeRatio: number, min = 0): [number, number] {
  const low = Math.max(min, Math.floor(length * (1 - rangeRatio)));
  const high = Math.max(low, Math.ceil(length * (1 + rangeRatio)));
  return [low, high];
}

/**
 * Random prompts as vLLM's random dataset defines them: each request's input length (and, with an output
 * length, its max_tokens) drawn uniformly from the length range, after a prefix of `prefixLen` words shared
 * by every prompt (so a prefix cache can serve it). A different prompt for every request, so no request is
 * served from another's cache beyond the shared prefix.
 */
export function randomPrompts(options: RandomDatasetOptions): PromptSource {
  const { inputLen, prefixLen = 0, rangeRatio = 0, outputLen, seed = 0 } = options;
  const prefix = prefixLen > 0 ? words(prefixLen, seededUniform((seed ^ 0x5bd1e995) >>> 0)).join(" ") : "";
  // A prompt is never empty: without a prefix, its own part has at least one word.
  const inputRange = lengthRange(inputLen, rangeRatio, prefixLen > 0 ? 0 : 1);
  const outputRange = outputLen === undefined ? null : lengthRange(outputLen, rangeRatio, 1);
  const workload: Partial<Workload> = { input_len: inputLen };
  if (prefixLen > 0) workload.prefix_len = prefixLen;
  if (rangeRatio > 0) workload.range_ratio = rangeRatio;
  return {
    dataset: SYNTHETIC_DATASET,
    distinct: null,
    workload,
    at: (index) => {
      const uniform = promptUniform(seed, index);
      // Drawn only when there is a range, so a fixed length sends the same words as before.
      const length = rangeRatio > 0 ? integerBetween(uniform, inputRange[0], inputRange[1]) : inputLen;
      const own = words(length, uniform).join(" ");
      const text = prefix === "" ? own : own === "" ? prefix : `${prefix} ${own}`;
      const prompt: Prompt = { kind: "text", text };
      if (outputRange && rangeRatio > 0) prompt.maxTokens = integerBetween(uniform, outputRange[0], outputRange[1]);
      return prompt;
    },
  };
}

/** A different prompt of `inputLen` words for every request (`--input-len` alone). */
export function syntheticPrompts(inputLen: number, seed = 0): PromptSource {
  return randomPrompts({ inputLen, seed });
}
