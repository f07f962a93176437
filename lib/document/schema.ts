/**
 * The servebench/v1 run document: the upload format, the API's representation of a run and the
 * download format. Everything else (types, the published JSON Schema, validation messages) is derived
 * from the zod schemas in this file, so there is one definition to keep true.
 */
import { z } from "zod";
import { idSchema } from "@/lib/ids";
import { powerShape, powerSourceSchema } from "./power-fields";

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
  notImported: 5_000,
  notImportedFieldChars: 500,
  /** Repeats of one load level in one run. */
  repeats: 100,
  /** Per-request rows (`requests`) of one load point, and of all points of a run together. */
  requestRowsPerPoint: 10_000,
  requestRowsPerRun: 100_000,
  requestErrorMessages: 100,
  /** Extra percentiles per latency metric (`percentiles`). */
  extraPercentiles: 20,
  maxInt: 2_147_483_647,
  /** Accuracy scores (task × metric × filter) of one run. */
  accuracyScores: 500,
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
 * One set of character rules for every text a write stores (uploads, PATCH, saved comparisons, series notes,
 * restores): no control characters, no bidirectional overrides or isolates ("Trojan Source"), no unpaired
 * surrogates (which storage would turn into U+FFFD). One-line texts (names, tags, keys) also refuse the implicit
 * direction marks (U+200E LRM, U+200F RLM, U+061C ALM: invisible, they make two names that read alike differ, or
 * reorder what follows them) and the line and paragraph separators U+2028 and U+2029 (a line break in disguise).
 * Free text may hold line breaks and tabs, and those marks and separators, which right-to-left prose uses.
 */
const FORBIDDEN_IN_LINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;
const FORBIDDEN_IN_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

/** The kind of a forbidden character, as messages name it. */
function forbiddenKind(code: number): string {
  if (code >= 0xd800 && code <= 0xdfff) return "an unpaired surrogate";
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return "a bidirectional override";
  if (code === 0x061c || code === 0x200e || code === 0x200f) return "a bidirectional mark";
  if (code === 0x2028 || code === 0x2029) return "a line or paragraph separator";
  return "a control character";
}

/** What is wrong with the first forbidden character of a text, with its place; null when there is none. */
export function forbiddenCharacter(value: string, multiline: boolean): string | null {
  const match = (multiline ? FORBIDDEN_IN_TEXT : FORBIDDEN_IN_LINE).exec(value);
  if (!match) return null;
  const code = match[0].charCodeAt(0);
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return `must not contain ${forbiddenKind(code)} (${hex} at character ${match.index + 1})`;
}

/**
 * A character a reader sees: not a space, a control or format character, or one of Unicode's default-ignorable
 * code points (zero-width space U+200B, word joiner U+2060, soft hyphen, variation selectors, the Hangul fillers).
 */
const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}]/u;

export const NOTHING_VISIBLE = "must contain a visible character (it holds only spaces or invisible characters)";

/** Whether a text has at least one character a reader sees: a name of zero-width spaces names nothing. */
export function hasVisibleCharacter(value: string): boolean {
  return VISIBLE_CHARACTER.test(value);
}

/** A string checked against the character rules (add .trim(), .max() etc. before calling). */
function characters<T extends z.ZodType<string>>(schema: T, multiline: boolean) {
  return schema.superRefine((value, context) => {
    const problem = forbiddenCharacter(value as string, multiline);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}

/** A one-line text that names something must show something: refined after the character rules. */
function visible<T extends z.ZodType<string>>(schema: T) {
  return schema.superRefine((value, context) => {
    const text = value as string;
    if (text !== "" && forbiddenCharacter(text, false) === null && !hasVisibleCharacter(text)) {
      context.addIssue({ code: "custom", message: NOTHING_VISIBLE });
    }
  });
}

/** One line of text: trimmed, 1 to `max` characters with at least one visible, the line rules. */
export const lineText = (max: number) =>
  visible(
    characters(z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`), false),
  );

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

/**
 * What the model server's own Prometheus metrics said during a load point (vLLM's and SGLang's names are
 * read; docs/metrics.md#server-metrics). A figure the server does not expose is absent, never 0.
 */
export const SERVER_METRIC_FIELDS = {
  server_running_requests_mean: "Mean number of requests the server was running (in its batch) during the load point.",
  server_running_requests_max: "Largest number of requests the server was running at one scrape during the load point.",
  server_waiting_requests_mean: "Mean number of requests waiting in the server's queue during the load point.",
  server_waiting_requests_max: "Largest number of requests waiting in the server's queue at one scrape.",
  server_kv_cache_usage_mean: "Mean share of the KV cache in use during the load point, 0–1.",
  server_kv_cache_usage_max: "Largest share of the KV cache in use at one scrape, 0–1.",
  server_preemptions: "Requests the server preempted (SGLang: retracted) during the load point.",
  server_prefix_cache_hit_rate: "Share of prompt tokens served from the prefix cache during the load point, 0–1.",
  server_spec_acceptance_rate: "Share of drafted tokens the target model accepted during the load point, 0–1.",
  server_spec_acceptance_length:
    "Mean tokens produced per speculative verification step: 1 + accepted drafted tokens / drafts (vLLM's acceptance length).",
  server_mean_ttft_ms: "Mean time to first token by the server's own histogram during the load point, in ms.",
  server_mean_tpot_ms:
    "Mean time per output token by the server's own per-request histogram (first token excluded), in ms.",
  server_mean_itl_ms: "Mean interval between output tokens by the server's own per-token histogram, in ms.",
  server_metrics_samples: "Scrapes of the server's /metrics taken during the load point.",
} as const;
export type ServerMetricField = keyof typeof SERVER_METRIC_FIELDS;
export const SERVER_METRIC_KEYS = Object.keys(SERVER_METRIC_FIELDS) as ServerMetricField[];
const SERVER_FRACTION_FIELDS = new Set<ServerMetricField>([
  "server_kv_cache_usage_mean",
  "server_kv_cache_usage_max",
  "server_prefix_cache_hit_rate",
  "server_spec_acceptance_rate",
]);
const SERVER_COUNT_FIELDS = new Set<ServerMetricField>(["server_preemptions", "server_metrics_samples"]);

const serverShape = Object.fromEntries(
  SERVER_METRIC_KEYS.map((key) => {
    const base = SERVER_FRACTION_FIELDS.has(key)
      ? z.number().min(0, "must be a share from 0 to 1").max(1, "must be a share from 0 to 1 (not a percentage)")
      : SERVER_COUNT_FIELDS.has(key)
        ? count()
        : nonNegative();
    return [key, base.optional().describe(SERVER_METRIC_FIELDS[key])];
  }),
) as Record<ServerMetricField, z.ZodOptional<z.ZodNumber>>;

export { POWER_FIELDS, POWER_KEYS, POWER_SOURCES, type PowerField, type PowerSource } from "./power-fields";

const TOO_MANY_ROWS = `at most ${LIMITS.requestRowsPerPoint.toLocaleString("en-US")} requests per load point: keep an evenly spaced sample of them (servebench bench --save-detailed does, and says so)`;
const nullableColumn = <T extends z.ZodTypeAny>(item: T) =>
  z.array(item.nullable()).max(LIMITS.requestRowsPerPoint, TOO_MANY_ROWS);

/**
 * Each request of a load point, stored column by column (one array per figure, one entry per request, in
 * the order they were sent) so that thousands of requests stay small. Failed requests have null figures and
 * an index into `errors`.
 */
export const RequestDetailSchema = z
  .strictObject({
    total: count().describe(
      "Requests of the load point that finished (completed or failed). When the arrays are shorter, they hold an evenly spaced sample of them.",
    ),
    start_ms: z
      .array(nonNegative())
      .max(LIMITS.requestRowsPerPoint, TOO_MANY_ROWS)
      .optional()
      .describe("When each request was sent, in ms after the load point's first request."),
    queue_ms: z
      .array(nonNegative())
      .max(LIMITS.requestRowsPerPoint, TOO_MANY_ROWS)
      .optional()
      .describe(
        "How long each request waited in the client before it was sent (its arrival time to its send time; a cap on concurrency holds it back), in ms.",
      ),
    ttft_ms: nullableColumn(nonNegative()).describe("Time to first token of each request, in ms; null when it failed."),
    tpot_ms: nullableColumn(nonNegative()).describe(
      "Time per output token of each request, in ms; null when it failed or generated one token or none.",
    ),
    e2el_ms: nullableColumn(nonNegative()).describe("End-to-end latency of each request, in ms; null when it failed."),
    input_tokens: nullableColumn(count()).optional().describe("Prompt tokens of each request (the server's count)."),
    output_tokens: nullableColumn(count()).describe("Generated tokens of each request; null when it failed."),
    error: z
      .array(
        z
          .number()
          .int()
          .min(0)
          .max(LIMITS.requestErrorMessages - 1)
          .nullable(),
      )
      .max(LIMITS.requestRowsPerPoint)
      .optional()
      .describe("For each request, the index of its failure reason in `errors`; null when it completed."),
    errors: z
      .array(characters(z.string().trim().min(1).max(1_000), true))
      .max(LIMITS.requestErrorMessages)
      .optional()
      .describe("The distinct failure reasons."),
  })
  .superRefine((detail, ctx) => {
    const rows = detail.ttft_ms.length;
    const columns = ["start_ms", "queue_ms", "tpot_ms", "e2el_ms", "input_tokens", "output_tokens", "error"] as const;
    for (const column of columns) {
      const values = detail[column];
      if (values !== undefined && values.length !== rows) {
        ctx.addIssue({
          code: "custom",
          path: [column],
          message: `has ${values.length} entries but ttft_ms has ${rows}: every column has one entry per request`,
        });
      }
    }
    if (rows > detail.total) {
      ctx.addIssue({ code: "custom", path: ["total"], message: `is ${detail.total}, fewer than the ${rows} rows` });
    }
    const reasons = detail.errors?.length ?? 0;
    detail.error?.forEach((index, row) => {
      if (index !== null && index >= reasons) {
        ctx.addIssue({
          code: "custom",
          path: ["error", row],
          message: `is ${index}, but errors has ${reasons} entr${reasons === 1 ? "y" : "ies"}`,
        });
      }
    });
  })
  .describe(
    `Per-request results of the load point (\`servebench bench --save-detailed\`): at most ${LIMITS.requestRowsPerPoint.toLocaleString("en-US")} rows per point and ${LIMITS.requestRowsPerRun.toLocaleString("en-US")} per run.`,
  );
export type RequestDetail = z.output<typeof RequestDetailSchema>;

/**
 * The metrics a point keeps percentiles of beyond its fixed fields: every latency metric, `e2el_per_token` included
 * (GuideLLM and LLMPerf state its percentiles; it stays apart from TPOT there too).
 */
export const PERCENTILE_METRICS = ["ttft", "tpot", "itl", "e2el", "e2el_per_token"] as const;
export type PercentileMetric = (typeof PERCENTILE_METRICS)[number];
/** "p75", "p99.9": a percentile between 0 and 100 with at most three decimals. */
export const PERCENTILE_KEY = /^p(100|\d{1,2}(\.\d{1,3})?)$/;

export const ExtraPercentilesSchema = z
  .partialRecord(
    z.enum(PERCENTILE_METRICS),
    z
      .record(z.string().regex(PERCENTILE_KEY, 'must be a percentile key such as "p75" or "p99.9"'), nonNegative())
      .refine((record) => Object.keys(record).length <= LIMITS.extraPercentiles, {
        message: `at most ${LIMITS.extraPercentiles} percentiles per metric`,
      }),
  )
  .describe(
    'Percentiles beyond the median, p90, p95 and p99 fields, in ms, per metric (`ttft`, `tpot`, `itl`, `e2el`, `e2el_per_token`, each as its fixed fields define it): those `servebench bench --percentiles` was asked for, or those an imported file states. `{ "ttft": { "p75": 130.2, "p99.9": 410 } }`.',
  );

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
    repeat: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.repeats)
      .optional()
      .describe(
        "Which repeat of its load level this point is (1, 2, …) when the run measured the level more than once. " +
          "A point without it is repeat 1. The run's headline figures and comparisons use the mean over a level's repeats.",
      ),
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
    decode_throughput: nonNegative()
      .optional()
      .describe(
        "Generated tokens per second while decoding only, prefill time left out (tok/s): what SGLang's " +
          "bench_one_batch_server calls output_throughput. Higher than output_throughput; never shown as it.",
      ),
    ...latencyShape,
    percentiles: ExtraPercentilesSchema.optional(),
    ...serverShape,
    ...powerShape,
    power_source: powerSourceSchema,
    requests: RequestDetailSchema.optional(),
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
    prefix_len: count()
      .optional()
      .describe(
        "Tokens of a prefix shared by every prompt, before the `input_len` tokens of its own (random dataset).",
      ),
    range_ratio: z
      .number()
      .min(0)
      .max(0.999)
      .optional()
      .describe(
        "Prompt and output lengths are drawn uniformly from [len × (1 − r), len × (1 + r)] around input_len and output_len.",
      ),
    burstiness: z
      .union([z.number().positive().max(1_000_000), z.literal("inf")])
      .optional()
      .describe(
        'Open loop: the shape of the gamma distribution of the times between arrivals; 1 is a Poisson process, lower is burstier, "inf" evenly spaced.',
      ),
    max_concurrency: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe("Open loop: at most this many requests in flight; later arrivals wait in the client."),
    seed: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.maxInt)
      .optional()
      .describe("Seed of the arrival times and prompt sampling: the same seed sends the same workload."),
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

export const ModelSizeSchema = z
  .strictObject({
    total_params_b: z
      .number()
      .positive()
      .max(100_000)
      .optional()
      .describe("All parameters of the model, in billions (1000 for a 1T model)."),
    active_params_b: z
      .number()
      .positive()
      .max(100_000)
      .optional()
      .describe(
        "Parameters each token runs through, in billions: all of them for a dense model, fewer for a mixture of experts.",
      ),
    bytes_per_param: z
      .number()
      .positive()
      .max(8)
      .optional()
      .describe("Bytes per weight as served: 2 for BF16, 1 for FP8 or INT8, 0.5 for 4-bit (INT4, AWQ, NVFP4)."),
  })
  .describe(
    "The model's size, when its name does not say it (the validity checks read it from the name otherwise: docs/metrics.md#validity-checks).",
  );

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
    visible(
      characters(
        z
          .string()
          .trim()
          .min(1, "must not be empty")
          .max(LIMITS.tagChars, `must be at most ${LIMITS.tagChars} characters`)
          .regex(/^[^,]+$/, "must not contain a comma"),
        false,
      ),
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

/**
 * One accuracy score measured on the served model (lm-evaluation-harness, lighteval…): a task's metric under a filter,
 * with the standard error the evaluator states. Scores are kept as the evaluator reports them (lm-eval's 0–1
 * fractions stay fractions); docs/metrics.md#accuracy says how two runs' scores are compared.
 */
export const AccuracyScoreSchema = z
  .strictObject({
    evaluator: lowerLine(64).describe('The tool that measured it: "lm-eval", "lighteval"… Stored lower-case.'),
    evaluator_version: lineText(64).optional().describe('The tool\'s version, e.g. "0.4.9".'),
    task: lineText(LIMITS.shortTextChars).describe('The task (benchmark) as the tool names it, e.g. "gsm8k".'),
    metric: lineText(LIMITS.shortTextChars).describe('The metric, e.g. "exact_match", "acc_norm".'),
    filter: lineText(LIMITS.shortTextChars)
      .optional()
      .describe('The answer filter the score is under, e.g. lm-eval\'s "strict-match"; absent when the tool has none.'),
    value: z.number().min(-MAX_FIGURE).max(MAX_FIGURE).describe("The score as the tool reports it."),
    stderr: nonNegative()
      .optional()
      .describe("Its standard error, as the tool reports it (absent when it states none)."),
    higher_is_better: z.boolean().optional().describe("Whether a higher score is better; true when absent."),
    num_fewshot: count().optional().describe("Few-shot examples in each prompt."),
    samples: count().optional().describe("Samples (questions) the score was computed over."),
    limit: nonNegative().optional().describe("The sample limit the evaluation ran with (`--limit`), when it had one."),
    generation: z
      .record(keyText(200), z.union([freeText(LIMITS.metadataValueChars), z.number(), z.boolean()]))
      .optional()
      .describe("Generation settings of the task (temperature, max tokens, stop…), as the tool states them."),
  })
  .describe("One accuracy score of the served model.");
export type AccuracyScore = z.output<typeof AccuracyScoreSchema>;

/** Keys the server sets on the documents it returns; an upload may carry them and they are ignored. */
export const SERVER_KEYS = ["id", "created_at"] as const;

const documentShape = {
  format: z.literal(RUN_FORMAT).describe(`Always "${RUN_FORMAT}".`),
  name: lineText(LIMITS.nameChars).optional().describe("A short title. Defaults to engine, version and model."),
  engine: lowerLine(64).describe(
    'The serving engine: "vllm", "sglang", "tensorrt-llm", "llama.cpp"…; "unknown" when nothing stated it (shown as "engine not stated"). Stored lower-case.',
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
  model_size: ModelSizeSchema.optional(),
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
  not_imported: z
    .array(
      z.strictObject({
        file: characters(z.string().max(LIMITS.notImportedFieldChars), false).describe(
          "The file (and part of it) that states the number.",
        ),
        field: characters(z.string().min(1).max(LIMITS.notImportedFieldChars), false).describe(
          "Its field: a path inside the file.",
        ),
        value: z
          .union([z.number(), characters(z.string().max(200), false)])
          .describe("The number as stated, or a description of a list of them."),
        reason: characters(z.string().min(1).max(500), true).describe("Why it is not imported."),
      }),
    )
    .max(LIMITS.notImported)
    .optional()
    .describe(
      "The import report: each number the imported files state that the run does not keep, with the reason. " +
        "Every other stated number is in a point, the context or `metadata`. Shown on the run's page.",
    ),
  series: lineText(LIMITS.nameChars)
    .optional()
    .describe(
      'The series this run belongs to (e.g. "nightly-h100-llama-8b"): runs naming the same series form one trend ' +
        "line. Without it, runs of the same configuration (engine, model, hardware, workload, launch flags) do.",
    ),
  series_override: z
    .literal(true, { error: "must be true (or left out)" })
    .optional()
    .describe(
      "Store the run in its named series although its model, GPU, GPU count or workload differs from the series' " +
        "runs (without it such a run is refused). The run is marked and never judged with the series.",
    ),
  git_commit: z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{7,64}$/, "must be a git commit hash: 7 to 64 hexadecimal digits")
    .optional()
    .describe("The commit the benchmark measured (of the engine, or of the repository CI ran). Stored lower-case."),
  git_branch: lineText(LIMITS.shortTextChars).optional().describe('The branch CI ran on, e.g. "main".'),
  ci_url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2_000)
    .optional()
    .describe("A link to the CI job that produced the run."),
  measured_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("When the benchmark ran (ISO 8601). Defaults to the upload time in listings."),
  metadata: z
    .record(keyText(200), scalar)
    .optional()
    .describe("Anything else, as string, number or boolean values. Unknown top-level keys are kept here."),
  results: z.array(ResultPointSchema).min(1, "needs at least one result point").max(LIMITS.points),
  accuracy: z
    .array(AccuracyScoreSchema)
    .max(LIMITS.accuracyScores)
    .optional()
    .describe(
      "Accuracy scores of the served model measured with the run (lm-eval, lighteval…), compared with their " +
        "standard errors (docs/metrics.md#accuracy).",
    ),
  id: idSchema()
    .optional()
    .describe(
      "Set by the server on documents it returns (1–64 letters, digits, - and _); a restore or an upload keeps it when no run has it yet.",
    ),
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
    // One point per load level and repeat: `repeat` absent counts as repeat 1.
    const seen = new Map<string, number>();
    doc.results.forEach((point, index) => {
      const level =
        point.concurrency !== undefined
          ? { field: "concurrency", text: `concurrency ${point.concurrency}` }
          : point.request_rate !== undefined
            ? { field: "request_rate", text: `request_rate ${String(point.request_rate)}` }
            : null;
      if (level === null) return;
      const repeat = point.repeat ?? 1;
      const key = `${level.text}#${repeat}`;
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, index);
        return;
      }
      const which = point.repeat === undefined ? "" : ` repeat ${repeat}`;
      ctx.addIssue({
        code: "custom",
        path: ["results", index, point.repeat === undefined ? level.field : "repeat"],
        message:
          `${level.text}${which} appears twice (also at results.${first}); a run has one point per load level ` +
          "and repeat (number repeats with `repeat`: 1, 2, …)",
      });
    });
    const scores = new Map<string, number>();
    doc.accuracy?.forEach((score, index) => {
      const key = JSON.stringify([score.evaluator.toLowerCase(), score.task, score.metric, score.filter ?? null]);
      const first = scores.get(key);
      if (first === undefined) {
        scores.set(key, index);
        return;
      }
      ctx.addIssue({
        code: "custom",
        path: ["accuracy", index, "task"],
        message: `${score.task} ${score.metric}${score.filter ? ` (${score.filter})` : ""} appears twice (also at accuracy.${first})`,
      });
    });
    const requestRows = doc.results.reduce((sum, point) => sum + (point.requests?.ttft_ms.length ?? 0), 0);
    if (requestRows > LIMITS.requestRowsPerRun) {
      ctx.addIssue({
        code: "custom",
        path: ["results"],
        message: `holds ${requestRows} per-request rows (\`requests\`); at most ${LIMITS.requestRowsPerRun} per run: keep a sample of each point's requests`,
      });
    }
    if (doc.flags && !Array.isArray(doc.flags) && Object.keys(doc.flags).length > LIMITS.flags) {
      ctx.addIssue({ code: "custom", path: ["flags"], message: `at most ${LIMITS.flags} flags` });
    }
    if (doc.env && Object.keys(doc.env).length > LIMITS.envVars) {
      ctx.addIssue({ code: "custom", path: ["env"], message: `at most ${LIMITS.envVars} environment variables` });
    }
    // Own keys of the shape only: a field named "toString" or "valueOf" is an extra field like any other.
    const extraKeys = Object.keys(doc).filter((key) => !Object.hasOwn(documentShape, key));
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
export type ModelSize = z.output<typeof ModelSizeSchema>;
export type RequestRate = z.output<typeof RequestRateSchema>;
export type NotImportedEntry = NonNullable<ParsedRunDocument["not_imported"]>[number];

/** A flag's value after normalization: `true` for a switch, `false` for `--no-x`, strings otherwise. */
export type FlagValue = string | boolean | string[];
export type Flags = Record<string, FlagValue>;

export const DOCUMENT_KEYS = new Set(Object.keys(documentShape));

/**
 * Where a run document keeps a JSON number beyond ±2^53 as the string of its digits rather than refusing it (JSON.parse
 * would round it: `"build": 9007199254740993` read as …992): the values of `metadata` and of extra top-level fields
 * (kept as metadata), of `flags` and `env` (stored as strings anyway) and the `value` of an import report entry (the
 * number as stated). Everywhere else (figures, counts, workload) such a number is refused, naming its field.
 */
export function keepsExactDigits(path: readonly (string | number)[]): boolean {
  const [field] = path;
  if (typeof field !== "string") return false;
  if (field === "metadata" || field === "flags" || field === "env") return path.length >= 2;
  if (field === "not_imported") return path.length === 3 && path[2] === "value";
  return path.length === 1 && !DOCUMENT_KEYS.has(field);
}

/** The published JSON Schema of what may be uploaded. */
export function runDocumentJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunDocumentSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  // Refinements are not expressible by zod's converter; state the one that JSON Schema can express.
  const results = (schema.properties as Record<string, { items?: Record<string, unknown>; description?: string }>)
    .results;
  if (results?.items) {
    results.items.anyOf = [{ required: ["concurrency"] }, { required: ["request_rate"] }];
    results.description =
      "One point per load level and repeat: no two points share a concurrency (or, without one, a request rate) " +
      "and a `repeat` number (absent = 1).";
  }
  return {
    $id: "servebench/v1",
    title: "servebench/v1 run document",
    ...schema,
  };
}
