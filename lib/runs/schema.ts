/**
 * The servebench/v1 run document: the upload format, the API's representation of a run and the
 * download format. Everything else (types, the published JSON Schema, validation messages) is derived
 * from the zod schemas in this file, so there is one definition to keep true.
 */
import { z } from "zod";

export const RUN_FORMAT = "servebench/v1" as const;

/** Field limits. They keep one upload bounded; they are documented in docs/run-format.md. */
export const LIMITS = {
  nameChars: 200,
  shortTextChars: 200,
  commandChars: 20_000,
  notesChars: 20_000,
  tagChars: 40,
  tags: 32,
  flags: 500,
  envVars: 500,
  metadataKeys: 200,
  metadataValueChars: 2_000,
  points: 1_000,
  maxInt: 2_147_483_647,
} as const;

export const LATENCY_METRICS = ["ttft", "tpot", "itl", "e2el", "e2el_per_token"] as const;
export const LATENCY_STATS = ["mean", "median", "std", "p90", "p95", "p99"] as const;
export type LatencyMetric = (typeof LATENCY_METRICS)[number];
export type LatencyStat = (typeof LATENCY_STATS)[number];
export type LatencyKey = `${LatencyStat}_${LatencyMetric}_ms`;

export const LATENCY_KEYS: readonly LatencyKey[] = LATENCY_STATS.flatMap((stat) =>
  LATENCY_METRICS.map((metric) => `${stat}_${metric}_ms` as LatencyKey),
);

const LATENCY_LABELS: Record<LatencyMetric, string> = {
  ttft: "time to first token",
  tpot: "time per output token, excluding the first: (e2e latency − TTFT) / (output tokens − 1)",
  itl: "inter-token latency: gaps between streamed chunks",
  e2el: "end-to-end request latency",
  e2el_per_token:
    "end-to-end latency divided by output tokens, first token included (what GuideLLM and LLMPerf call TPOT or inter-token latency; not TPOT here)",
};
const STAT_LABELS: Record<LatencyStat, string> = {
  mean: "Mean",
  median: "Median",
  std: "Standard deviation of",
  p90: "90th percentile of",
  p95: "95th percentile of",
  p99: "99th percentile of",
};

/** `p99_e2el_per_token_ms` → ["p99", "e2el_per_token"]. */
export function splitLatencyKey(key: LatencyKey): [LatencyStat, LatencyMetric] {
  const stat = key.slice(0, key.indexOf("_")) as LatencyStat;
  const metric = key.slice(stat.length + 1, -"_ms".length) as LatencyMetric;
  return [stat, metric];
}

// No benchmark figure comes near this; a larger one is a broken or hostile file (and would read as nonsense).
const MAX_FIGURE = 1e12;
const nonNegative = () => z.number().nonnegative().max(MAX_FIGURE);
const count = () => z.number().int().nonnegative().max(LIMITS.maxInt);

/**
 * One set of character rules for every text a write stores (uploads, PATCH, saved comparisons, restores):
 * no control characters, no bidirectional overrides ("Trojan Source"), no unpaired surrogates (which
 * storage would turn into U+FFFD). Free text may also hold line breaks and tabs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const FORBIDDEN_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;
const FORBIDDEN_IN_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

/** What is wrong with the first forbidden character of a text, with its place; null when there is none. */
export function forbiddenCharacter(value: string, multiline: boolean): string | null {
  const match = (multiline ? FORBIDDEN_IN_TEXT : FORBIDDEN_IN_LINE).exec(value);
  if (!match) return null;
  const code = match[0].charCodeAt(0);
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const kind =
    code >= 0xd800 && code <= 0xdfff
      ? "an unpaired surrogate"
      : (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)
        ? "a bidirectional override"
        : "a control character";
  return `must not contain ${kind} (${hex} at character ${match.index + 1})`;
}

/** A string checked against the character rules (add .trim(), .max() etc. before calling). */
function characters<T extends z.ZodType<string>>(schema: T, multiline: boolean) {
  return schema.superRefine((value, context) => {
    const problem = forbiddenCharacter(value as string, multiline);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}

/** One line of text: trimmed, 1 to `max` characters, the line rules. */
export const lineText = (max: number) =>
  characters(z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`), false);

/** Free text: up to `max` characters, line breaks and tabs allowed. */
export const freeText = (max: number) =>
  characters(z.string().max(max, `must be at most ${max.toLocaleString("en-US")} characters`), true);

/** A key of a record (metadata, flags, sources): 1 to `max` characters, the line rules. */
const keyText = (max: number) =>
  characters(z.string().min(1, "must not be empty").max(max, `must be at most ${max} characters`), false);

/**
 * One line stored lower-case, its length checked after lower-casing too: "İ" lower-cases to two characters, so
 * 40 of them make an 80-character tag that the server's own document would then fail to re-upload.
 */
const lowerLine = (max: number) =>
  lineText(max)
    .transform((value) => value.toLowerCase())
    .pipe(z.string().max(max, `must be at most ${max} characters once lower-cased`));

const latencyShape = Object.fromEntries(
  LATENCY_KEYS.map((key) => {
    const [stat, metric] = splitLatencyKey(key);
    return [key, nonNegative().optional().describe(`${STAT_LABELS[stat]} ${LATENCY_LABELS[metric]}, in ms.`)];
  }),
) as Record<LatencyKey, z.ZodOptional<z.ZodNumber>>;

export const RequestRateSchema = z
  .union([z.number().positive(), z.literal("inf")], {
    error: 'must be a positive number of requests per second, or "inf"',
  })
  .describe('Requests per second the load generator aimed at; "inf" sends every request at once.');

export const ResultPointSchema = z
  .strictObject({
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe("Maximum number of requests in flight at this load point."),
    request_rate: RequestRateSchema.optional(),
    completed: count().optional().describe("Requests that completed successfully."),
    failed: count().optional().describe("Requests that failed."),
    duration_s: nonNegative().optional().describe("Wall-clock duration of this load point, in seconds."),
    total_input_tokens: count().optional().describe("Prompt tokens over all completed requests."),
    total_output_tokens: count().optional().describe("Generated tokens over all completed requests."),
    request_throughput: nonNegative().optional().describe("Completed requests per second."),
    request_goodput: nonNegative()
      .optional()
      .describe(
        "Completed requests per second that met every latency target of the benchmark's SLO (vLLM's `--goodput`).",
      ),
    output_throughput: nonNegative()
      .optional()
      .describe("Generated tokens per second over all requests together (tok/s)."),
    total_token_throughput: nonNegative()
      .optional()
      .describe("Prompt plus generated tokens per second over all requests together (tok/s)."),
    ...latencyShape,
    sources: z
      .record(keyText(64), characters(z.string().max(300), false))
      .optional()
      .describe(
        "Where each figure came from, for imported files: point field → the source file's field name " +
          '(e.g. `"mean_tpot_ms": "metrics.inter_token_latency_ms.successful.mean"`).',
      ),
  })
  .refine((point) => point.concurrency !== undefined || point.request_rate !== undefined, {
    message: "a result point needs `concurrency` or `request_rate`",
    path: ["concurrency"],
  })
  .describe("Figures measured at one load level. Field names follow vLLM's `bench serve` on purpose.");

export const HardwareSchema = z
  .strictObject({
    gpu: lineText(LIMITS.shortTextChars).optional().describe('GPU model, e.g. "RTX PRO 6000 Blackwell".'),
    gpu_count: z.number().int().min(1).max(100_000).optional().describe("Number of GPUs serving the model."),
    gpu_memory_mib: z.number().int().min(1).max(LIMITS.maxInt).optional().describe("Memory per GPU, in MiB."),
  })
  .describe("The machine the server ran on.");

export const WorkloadSchema = z
  .strictObject({
    dataset: lineText(LIMITS.shortTextChars).optional().describe('Prompt source, e.g. "random" or "sharegpt".'),
    input_len: count().optional().describe("Prompt length in tokens."),
    output_len: count().optional().describe("Requested output length in tokens (max_tokens)."),
    num_prompts: count().optional().describe("Requests sent per load point."),
    temperature: z.number().min(0).max(100).optional().describe("Sampling temperature."),
  })
  .describe("What the load generator sent. Runs are comparable only when their workloads match.");

export const SpeculativeSchema = z
  .strictObject({
    method: lineText(LIMITS.shortTextChars).optional().describe('Speculative decoding method, e.g. "eagle3", "ngram".'),
    draft_model: lineText(LIMITS.shortTextChars).optional().describe("The drafter model."),
    num_speculative_tokens: z.number().int().min(1).max(1_000).optional().describe("Tokens drafted per step."),
    acceptance_rate: z.number().min(0).max(1).optional().describe("Measured share of drafted tokens accepted, 0–1."),
  })
  .describe("Speculative decoding settings, when the server used it.");

const scalar = z.union([freeText(LIMITS.metadataValueChars), z.number(), z.boolean()]);

export const FlagValueSchema = z.union([
  freeText(LIMITS.commandChars),
  z.number(),
  z.boolean(),
  z.array(z.union([freeText(LIMITS.commandChars), z.number()])).max(100),
]);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A run's tags, as uploads and PATCH take them: each stored lower-case, so checked once lower-cased. */
export const TagsSchema = z
  .array(
    characters(
      z
        .string()
        .trim()
        .min(1, "must not be empty")
        .max(LIMITS.tagChars, `must be at most ${LIMITS.tagChars} characters`)
        .regex(/^[^,]+$/, "must not contain a comma"),
      false,
    )
      .transform((value) => value.toLowerCase())
      .pipe(z.string().max(LIMITS.tagChars, `must be at most ${LIMITS.tagChars} characters once lower-cased`)),
  )
  .max(LIMITS.tags);

/** PATCH /api/runs/{id}: the fields a person may edit, with the rules an upload applies to them. */
export const RunPatchSchema = z.strictObject({
  name: lineText(LIMITS.nameChars).optional(),
  tags: TagsSchema.optional(),
  notes: freeText(LIMITS.notesChars).nullable().optional(),
});
export type RunPatchInput = z.infer<typeof RunPatchSchema>;

/** Keys the server sets on the documents it returns; an upload may carry them and they are ignored. */
export const SERVER_KEYS = ["id", "created_at"] as const;

const documentShape = {
  format: z.literal(RUN_FORMAT).describe(`Always "${RUN_FORMAT}".`),
  name: lineText(LIMITS.nameChars).optional().describe("A short title. Defaults to engine, version and model."),
  engine: lowerLine(64).describe(
    'The serving engine: "vllm", "sglang", "tensorrt-llm", "llama.cpp"… Stored lower-case.',
  ),
  engine_version: lineText(64).optional().describe('Engine version, e.g. "0.5.8".'),
  model: lineText(LIMITS.shortTextChars).describe("The model served, as you name it (include the quantization)."),
  hardware: HardwareSchema.optional(),
  command: freeText(LIMITS.commandChars)
    .refine((value) => value.trim() !== "", "must not be empty")
    .transform((value) => value.trim())
    .optional()
    .describe("The server launch command as typed. Parsed into `flags` (and leading VAR=value into `env`)."),
  flags: z
    .union([
      z.record(keyText(200), FlagValueSchema),
      z.array(z.union([freeText(LIMITS.commandChars), z.number()])).max(LIMITS.flags * 2),
    ])
    .optional()
    .describe(
      'Launch flags as an object flag → value (`{"--tp": 8, "--disable-cuda-graph": true}`) or as an array of ' +
        "command-line tokens. Merged over the flags parsed from `command`; returned as an object.",
    ),
  env: z
    .record(
      z.string().regex(ENV_NAME, "must be an environment variable name (letters, digits, _)").max(200),
      z.union([freeText(LIMITS.metadataValueChars), z.number(), z.boolean()]),
    )
    .optional()
    .describe("Environment variables of the server process. Values are stored as strings."),
  workload: WorkloadSchema.optional(),
  speculative: SpeculativeSchema.optional(),
  server_startup_s: nonNegative()
    .optional()
    .describe("Seconds from launch until the server accepted requests (weight loading plus graph capture)."),
  tags: TagsSchema.optional().describe("Labels to filter by. Stored lower-case, without duplicates."),
  notes: freeText(LIMITS.notesChars).optional().describe("Free text."),
  warnings: z
    .array(characters(z.string().trim().min(1).max(1_000), true))
    .max(100)
    .optional()
    .describe("Problems found while importing (e.g. a load level whose requests all failed), shown on the run's page."),
  measured_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("When the benchmark ran (ISO 8601). Defaults to the upload time in listings."),
  metadata: z
    .record(keyText(200), scalar)
    .optional()
    .describe("Anything else, as string, number or boolean values. Unknown top-level keys are kept here."),
  results: z.array(ResultPointSchema).min(1, "needs at least one result point").max(LIMITS.points),
  id: z
    .string()
    .max(200)
    .optional()
    .describe("Set by the server on documents it returns; kept when a document is restored, ignored otherwise."),
  created_at: z
    .string()
    .max(100)
    .optional()
    .describe("Set by the server on documents it returns; kept when a document is restored, ignored otherwise."),
  source_format: lineText(64)
    .optional()
    .describe('The tool format the run was imported from, e.g. "vllm-bench-serve". Defaults to "servebench/v1".'),
};

/**
 * The document as uploaded. Unknown top-level keys are allowed when their value is a string, number or
 * boolean: they are moved into `metadata` by the normalizer.
 */
export const RunDocumentSchema = z
  .object(documentShape)
  .catchall(scalar)
  .superRefine((doc, ctx) => {
    const seenConcurrency = new Map<number, number>();
    const seenRate = new Map<string, number>();
    doc.results.forEach((point, index) => {
      if (point.concurrency !== undefined) {
        const first = seenConcurrency.get(point.concurrency);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["results", index, "concurrency"],
            message: `concurrency ${point.concurrency} appears twice (also at results.${first}); a run has one point per load level`,
          });
        } else {
          seenConcurrency.set(point.concurrency, index);
        }
      } else if (point.request_rate !== undefined) {
        const key = String(point.request_rate);
        const first = seenRate.get(key);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["results", index, "request_rate"],
            message: `request_rate ${key} appears twice (also at results.${first}); a run has one point per load level`,
          });
        } else {
          seenRate.set(key, index);
        }
      }
    });
    if (doc.flags && !Array.isArray(doc.flags) && Object.keys(doc.flags).length > LIMITS.flags) {
      ctx.addIssue({ code: "custom", path: ["flags"], message: `at most ${LIMITS.flags} flags` });
    }
    if (doc.env && Object.keys(doc.env).length > LIMITS.envVars) {
      ctx.addIssue({ code: "custom", path: ["env"], message: `at most ${LIMITS.envVars} environment variables` });
    }
    const extraKeys = Object.keys(doc).filter((key) => !(key in documentShape));
    for (const key of extraKeys) {
      const problem = key === "" ? "must not be empty" : forbiddenCharacter(key, false);
      if (problem) ctx.addIssue({ code: "custom", path: [key], message: `the field's name ${problem}` });
    }
    const metadataCount = Object.keys(doc.metadata ?? {}).length + extraKeys.length;
    if (metadataCount > LIMITS.metadataKeys) {
      ctx.addIssue({ code: "custom", path: ["metadata"], message: `at most ${LIMITS.metadataKeys} metadata keys` });
    }
  })
  .describe("servebench/v1: one benchmark run of an inference server, measured at one or more load levels.");

/** The known fields of an upload (extra scalar keys are allowed too, see RunDocumentSchema). */
export type RunDocumentInput = z.input<z.ZodObject<typeof documentShape>>;
export type ParsedRunDocument = z.output<typeof RunDocumentSchema>;
export type ResultPoint = z.output<typeof ResultPointSchema>;
export type Hardware = z.output<typeof HardwareSchema>;
export type Workload = z.output<typeof WorkloadSchema>;
export type Speculative = z.output<typeof SpeculativeSchema>;
export type RequestRate = z.output<typeof RequestRateSchema>;

/** A flag's value after normalization: `true` for a switch, `false` for `--no-x`, strings otherwise. */
export type FlagValue = string | boolean | string[];
export type Flags = Record<string, FlagValue>;

export const DOCUMENT_KEYS = new Set(Object.keys(documentShape));

/** The published JSON Schema of what may be uploaded. */
export function runDocumentJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunDocumentSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  // Refinements are not expressible by zod's converter; state the one that JSON Schema can express.
  const results = (schema.properties as Record<string, { items?: Record<string, unknown>; description?: string }>)
    .results;
  if (results?.items) {
    results.items.anyOf = [{ required: ["concurrency"] }, { required: ["request_rate"] }];
    results.description =
      "One point per load level: no two points share a concurrency (or, without one, a request rate).";
  }
  return {
    $id: "servebench/v1",
    title: "servebench/v1 run document",
    ...schema,
  };
}
