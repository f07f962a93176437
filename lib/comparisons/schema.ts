/**
 * What a saved comparison is made of, as the API accepts it: the runs in order, the baseline and the rest
 * of the view, a title and notes. Whether the runs exist is checked against the database (lib/comparisons/save.ts).
 */
import { z } from "zod";
import { COMPARE_STATS, type CompareStat } from "@/lib/analysis/lines";
import { CDF_METRICS, type CdfMetric, DEFAULT_CDF_METRIC, isLevelKey } from "@/lib/analysis/request-cdf";
import { DEFAULT_SLO_STAT } from "@/lib/analysis/slo";
import { tiersProblem } from "@/lib/analysis/slo-tiers";
import { freeText, lineText } from "@/lib/document/schema";
import { decimalInteger, isOwnKey } from "@/lib/http/query";
import { ID_PATTERN, idSchema } from "@/lib/ids";
import {
  type CapacityKey,
  type CapacityParams,
  capacityParams,
  capacityProblem,
  parseCapacityView,
  storedCapacityParams,
} from "./capacity-view";
import { MAX_COMPARED_RUNS, MAX_TITLE_LENGTH } from "./limits";
import { parsePrices, priceProblem, pricesQuery } from "./view";

export const MAX_NOTES_LENGTH = 20_000;
/** Listing pages of saved comparisons. */
export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

/**
 * A saved comparison's slug as an export line may carry it: the one id rule of documents (lib/ids.ts). New slugs are
 * 8 characters (newSlug).
 */
export const SLUG_PATTERN = ID_PATTERN;

// The character rules of every write (lib/document/schema.ts): no control characters, bidi overrides or unpaired
// surrogates in ids, titles and notes. Run ids follow the one id rule.
const runId = z.string().trim().pipe(idSchema());

/** A capacity parameter as the page's URL writes it (a number may come as one), refused with the page's reason. */
function capacityField(key: CapacityKey) {
  return z
    .union([z.string().max(2_000), z.number()])
    .superRefine((item, context) => {
      const text = String(item);
      const problem = key === "tiers" ? tiersProblem(text) : capacityProblem(key, text);
      if (problem) context.addIssue({ code: "custom", message: problem });
    })
    .optional();
}

export const SaveComparisonSchema = z
  .strictObject({
    runs: z
      .array(runId, { error: (issue) => (issue.input === undefined ? "is required" : "must be an array of run ids") })
      .min(1, "must name at least one run")
      .max(MAX_COMPARED_RUNS, `a comparison holds at most ${MAX_COMPARED_RUNS} runs`),
    baseline: runId.optional(),
    title: z
      .string()
      .trim()
      .min(1, "must not be empty (leave it out to use the comparison's own title)")
      .pipe(lineText(MAX_TITLE_LENGTH))
      .optional(),
    notes: freeText(MAX_NOTES_LENGTH).nullable().optional(),
    // null (what an export writes for a comparison that set none): the page's default, from the repeats or ±3%.
    noise: z.number().min(0, "must be between 0 and 100").max(100, "must be between 0 and 100").nullable().optional(),
    hide: z.array(runId).max(MAX_COMPARED_RUNS).optional(),
    stat: z.enum(COMPARE_STATS, { error: `must be one of ${COMPARE_STATS.join(", ")}` }).optional(),
    log_y: z.boolean().optional(),
    slo: z
      .strictObject({
        ttft_ms: z.number().positive("must be a positive number of ms").max(3_600_000).nullable().optional(),
        tpot_ms: z.number().positive("must be a positive number of ms").max(3_600_000).nullable().optional(),
        stat: z.enum(COMPARE_STATS, { error: `must be one of ${COMPARE_STATS.join(", ")}` }).optional(),
      })
      .optional(),
    price: z
      .string()
      .max(2_000)
      .superRefine((value, context) => {
        const problem = priceProblem(value);
        if (problem) context.addIssue({ code: "custom", message: problem });
      })
      .optional()
      .describe("As the page's `price` parameter: `2.5`, or `H100:3.1,RTX PRO 6000 Blackwell:2.5`."),
    at_user: z.number().positive().max(1_000_000).nullable().optional(),
    cdf_level: z
      .string()
      .max(40)
      .refine(isLevelKey, "must be a load level key: c:<concurrency>, r:<requests per second> or r:inf")
      .nullable()
      .optional()
      .describe("The load level of the latency distributions, as the page's `cdf_level` (`c:8`); null picks one."),
    cdf_metric: z.enum(CDF_METRICS, { error: `must be one of ${CDF_METRICS.join(", ")}` }).optional(),
    capacity: z
      .strictObject({
        tiers: capacityField("tiers"),
        tier: capacityField("tier"),
        demand: capacityField("demand"),
        gpus_per_node: capacityField("gpus_per_node"),
        max_cost: capacityField("max_cost"),
        gpu_budget: capacityField("gpu_budget"),
        power_budget_kw: capacityField("power_budget_kw"),
        bucket: capacityField("bucket"),
      })
      .optional()
      .describe(
        "SLO tiers and the capacity planner, as the page's parameters: `tiers`, `tier`, `demand`, `gpus_per_node`, `max_cost`, `gpu_budget`, `power_budget_kw`, `bucket`.",
      ),
  })
  .superRefine((value, context) => {
    const seen = new Set<string>();
    value.runs.forEach((id, index) => {
      if (seen.has(id)) context.addIssue({ code: "custom", path: ["runs", index], message: `"${id}" is listed twice` });
      seen.add(id);
    });
    if (value.baseline !== undefined && !seen.has(value.baseline)) {
      context.addIssue({ code: "custom", path: ["baseline"], message: "must be one of the compared runs" });
    }
    value.hide?.forEach((id, index) => {
      if (!seen.has(id))
        context.addIssue({ code: "custom", path: ["hide", index], message: "must be one of the compared runs" });
    });
  });

export type SaveComparisonInput = z.infer<typeof SaveComparisonSchema>;

/** What a saved comparison stores of its view, defaults filled in: the same for a save and for a restore. */
export interface StoredComparisonView {
  notes: string | null;
  runs: string[];
  baseline: string | null;
  /** Null: the page's default (from the repeats' spread, else ±3%). */
  noise: number | null;
  hide: string[];
  stat: CompareStat;
  log_y: boolean;
  slo: { ttft_ms: number | null; tpot_ms: number | null; stat: CompareStat };
  /** `$/GPU-hour` prices as the page's `price` parameter writes them; empty for none. */
  price: string;
  at_user: number | null;
  /** The latency distributions' load level (`c:8`; null: picked from the runs) and latency. */
  cdf_level: string | null;
  cdf_metric: CdfMetric;
  /** The capacity parameters that differ from their defaults, as the URL writes them. */
  capacity: CapacityParams;
}

export function storedComparisonView(input: SaveComparisonInput): StoredComparisonView {
  return {
    notes: input.notes === undefined || input.notes === null || input.notes.trim() === "" ? null : input.notes,
    runs: input.runs,
    baseline: input.baseline ?? null,
    noise: input.noise ?? null,
    hide: input.hide ?? [],
    stat: input.stat ?? "mean",
    log_y: input.log_y ?? false,
    slo: {
      ttft_ms: input.slo?.ttft_ms ?? null,
      tpot_ms: input.slo?.tpot_ms ?? null,
      stat: input.slo?.stat ?? DEFAULT_SLO_STAT,
    },
    price: pricesQuery(parsePrices(input.price)),
    at_user: input.at_user ?? null,
    cdf_level: input.cdf_level ?? null,
    cdf_metric: input.cdf_metric ?? DEFAULT_CDF_METRIC,
    // Read and written back through the page's own grammar: the stored form is the canonical one.
    capacity: capacityParams(parseCapacityView(storedCapacityParams(input.capacity))),
  };
}

export const ComparisonListQuerySchema = z.strictObject({
  page: decimalInteger(1, 1_000_000).default(1),
  per_page: decimalInteger(1, MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});

export type ComparisonListQuery = z.infer<typeof ComparisonListQuerySchema>;

type RawParams = Record<string, string | string[] | undefined>;

function firstValues(params: RawParams): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(params)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first.trim() !== "" && isOwnKey(ComparisonListQuerySchema.shape, key)) out[key] = first;
  }
  return out;
}

/** Strict parse for the API (a bad value is a 400); unknown parameters are ignored. */
export function parseComparisonListQuery(params: RawParams) {
  return ComparisonListQuerySchema.safeParse(firstValues(params));
}

/** Lenient parse for the page: an invalid value falls back to its default. */
export function parseComparisonListQueryLenient(params: RawParams): ComparisonListQuery {
  const values = firstValues(params);
  const page = ComparisonListQuerySchema.shape.page.safeParse(values.page);
  const perPage = ComparisonListQuerySchema.shape.per_page.safeParse(values.per_page);
  return { page: page.success ? page.data : 1, per_page: perPage.success ? perPage.data : DEFAULT_PER_PAGE };
}
