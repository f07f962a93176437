/**
 * The ShareGPT dataset, sampled as vLLM's benchmark samples it (vllm/benchmarks/datasets/sharegpt.py): a
 * JSON array of `{ "conversations": [{ "from": "human", "value": … }, { "from": "gpt", "value": … }, …] }`;
 * entries with fewer than two turns are dropped; the first turn is the prompt and the second the reply,
 * whose length becomes the request's max_tokens (unless an output length is set); pairs with a prompt under
 * 4 tokens, a reply under 4 (when its length is used), a prompt over 1,024 or both over 2,048 are dropped.
 *
 * Two differences, both because no tokenizer of the model is at hand: lengths are estimated at 4 characters
 * a token (the server's own counts are what the results use), and the sample is drawn while the file
 * streams past (the common ShareGPT file is 650 MB, more than one string can hold) with reservoir sampling,
 * seeded: a uniform sample of the valid pairs, in random order, the same for the same seed and file.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { JSONParser, TokenType } from "@streamparser/json";
import { seededUniform, type Uniform } from "@/lib/seeded-random";
import { type Prompt, PromptFileError, type PromptSource } from "./prompts";
import { shuffle } from "./random";

export const SHAREGPT_DATASET = "sharegpt";

/** vLLM's is_valid_sequence bounds. */
const MIN_LEN = 4;
const MAX_PROMPT_LEN = 1_024;
const MAX_TOTAL_LEN = 2_048;

/** Tokens of a text, estimated: about 4 characters a token for English under the common BPE tokenizers. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.round(text.length / 4));
}

export interface ShareGptOptions {
  /** How many pairs to keep: the most requests any level sends (each level starts at the first). */
  count: number;
  seed: number;
  /** A fixed output length (`--output-len`): replaces each reply's length and lifts the reply-length filter. */
  outputLen?: number;
  /** Cap on each request's max_tokens (`--max-tokens` given with ShareGPT). */
  maxTokens?: number;
}

interface Pair {
  prompt: string;
  outputLen: number;
}

export interface ShareGptSummary {
  /** Entries of the array. */
  entries: number;
  /** Entries with at least two turns whose lengths passed the filter. */
  valid: number;
}

/** Keeps a seeded uniform sample of the valid pairs while entries arrive one at a time (Algorithm R). */
export class ShareGptSampler {
  private readonly uniform: Uniform;
  private readonly kept: Pair[] = [];
  readonly summary: ShareGptSummary = { entries: 0, valid: 0 };

  constructor(private readonly options: ShareGptOptions) {
    this.uniform = seededUniform((options.seed ^ 0x2545f491) >>> 0);
  }

  add(entry: unknown): void {
    this.summary.entries += 1;
    const pair = this.pairOf(entry);
    if (!pair) return;
    this.summary.valid += 1;
    if (this.kept.length < this.options.count) {
      this.kept.push(pair);
      return;
    }
    const slot = Math.floor(this.uniform() * this.summary.valid);
    if (slot < this.options.count) this.kept[slot] = pair;
  }

  private pairOf(entry: unknown): Pair | null {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return null;
    const turns = (entry as { conversations?: unknown }).conversations;
    if (!Array.isArray(turns) || turns.length < 2) return null;
    const prompt = turnText(turns[0]);
    const reply = turnText(turns[1]);
    if (prompt === null || reply === null) return null;
    const promptLen = estimateTokens(prompt);
    const fixed = this.options.outputLen;
    const outputLen = fixed ?? estimateTokens(reply);
    if (promptLen < MIN_LEN || promptLen > MAX_PROMPT_LEN || promptLen + outputLen > MAX_TOTAL_LEN) return null;
    if (fixed === undefined && outputLen < MIN_LEN) return null;
    return { prompt, outputLen };
  }

  /** The prompts, in a seeded random order (the reservoir keeps arrival order for its first `count`). */
  source(file: string, sha256: string): PromptSource {
    const name = path.basename(file);
    if (this.kept.length === 0) {
      throw new PromptFileError(
        `${name}: no usable conversation among ${this.summary.entries} entries (each needs two turns with a "value", a prompt of 4 to 1,024 tokens and a reply of at least 4)`,
      );
    }
    const pairs = shuffle([...this.kept], this.uniform);
    const cap = this.options.maxTokens;
    // Text prompts: the chat endpoint sends each as the user's message, the completions endpoint as the prompt.
    const prompts: Prompt[] = pairs.map((pair) => ({
      kind: "text",
      text: pair.prompt,
      maxTokens: cap === undefined ? pair.outputLen : Math.min(cap, pair.outputLen),
    }));
    return {
      dataset: SHAREGPT_DATASET,
      distinct: prompts.length,
      at: (index) => prompts[index % prompts.length]!,
      metadata: {
        dataset_file: name,
        dataset_sha256: sha256,
        dataset_entries: this.summary.entries,
        dataset_valid_pairs: this.summary.valid,
      },
    };
  }
}

function turnText(turn: unknown): string | null {
  if (typeof turn !== "object" || turn === null) return null;
  const value = (turn as { value?: unknown }).value;
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * Stream a ShareGPT file through the sampler. The file's SHA-256 is computed on the way, so the run records
 * exactly which file it sampled.
 */
export async function readShareGpt(file: string, options: ShareGptOptions): Promise<PromptSource> {
  const sampler = new ShareGptSampler(options);
  const hash = createHash("sha256");
  const name = path.basename(file);
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  let rootSeen = false;
  let parseError: Error | null = null;
  parser.onToken = ({ token }) => {
    // The first token says whether the document is an array at all.
    if (!rootSeen) {
      rootSeen = true;
      if (token !== TokenType.LEFT_BRACKET) {
        parseError = new PromptFileError(
          `${name}: a ShareGPT file is a JSON array of conversations; this one does not start with "["`,
        );
      }
    }
  };
  parser.onValue = ({ value }) => sampler.add(value);
  parser.onError = (error) => {
    parseError ??= new PromptFileError(`${name} is not valid JSON: ${error.message}`);
  };
  await new Promise<void>((resolve, reject) => {
    const stream = fs.createReadStream(file);
    stream.on("error", (error) => reject(new PromptFileError(`cannot read ${file}: ${error.message}`)));
    stream.on("data", (chunk) => {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      if (parseError === null) parser.write(bytes);
      if (parseError !== null) stream.destroy();
    });
    stream.on("close", () => resolve());
  });
  if (parseError === null && !parser.isEnded) parser.end();
  if (parseError !== null) throw parseError;
  return sampler.source(file, hash.digest("hex"));
}
