/**
 * What the benchmark sends: the built-in prompts, a prompts file (one prompt per line, or JSONL of chat
 * messages), or synthetic prompts of a given length.
 */

export interface ChatMessage {
  role: string;
  content: string;
}

export type Prompt = { kind: "text"; text: string } | { kind: "chat"; messages: ChatMessage[] };

export interface PromptSource {
  /** The workload's `dataset`. */
  dataset: string;
  /** Distinct prompts, or null when every request gets a new one (synthetic). */
  distinct: number | null;
  /** The prompt of the run's `index`-th request; sources cycle through their prompts. */
  at(index: number): Prompt;
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

/** mulberry32: a small seeded generator, so synthetic prompts are the same on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A prompt of `inputLen` random common words: about `inputLen` tokens, plus what the chat template adds. */
export function syntheticPrompt(inputLen: number, index: number): string {
  const next = generator(index + 1);
  const words: string[] = [];
  for (let i = 0; i < inputLen; i += 1) words.push(WORDS[Math.floor(next() * WORDS.length)]!);
  return words.join(" ");
}

/** A different prompt for every request, so no request is served from another's prefix cache. */
export function syntheticPrompts(inputLen: number): PromptSource {
  return {
    dataset: SYNTHETIC_DATASET,
    distinct: null,
    at: (index) => ({ kind: "text", text: syntheticPrompt(inputLen, index) }),
  };
}
