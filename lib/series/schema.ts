/**
 * The requests of the series and alerts API: query parameters and bodies, validated here so the routes stay
 * four lines and the OpenAPI document is generated from the same schemas.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { decimalInteger, isOwnKey } from "@/lib/http/query";
import { zodIssues } from "@/lib/runs/normalize";
import { freeText } from "@/lib/runs/schema";
import { SeriesSettingsChangeSchema } from "./settings";

export const ALERT_STATUSES = ["open", "acknowledged", "expected"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

const flag = z
  .enum(["0", "1", "true", "false"])
  .transform((value) => value === "1" || value === "true")
  .optional();

export const SeriesListQuerySchema = z.strictObject({
  all: flag.describe("1: include series of a single run (hidden by default)."),
  page: decimalInteger(1, 1_000_000).default(1),
  per_page: decimalInteger(1, 100).default(50),
});

export const SeriesViewQuerySchema = z.strictObject({
  level: z
    .string()
    .regex(/^(c:\d+|r:(inf|\d+(\.\d+)?))$/, 'must be a load level such as "c:64", "r:10" or "r:inf"')
    .optional()
    .describe("Show the figures at this load level instead of the series' own (nothing is stored)."),
});

export const AlertListQuerySchema = z.strictObject({
  status: z.enum([...ALERT_STATUSES, "all"]).default("open"),
  page: decimalInteger(1, 1_000_000).default(1),
  per_page: decimalInteger(1, 100).default(50),
});

/**
 * A note on an alert or an annotation: free text under the rules of a run's notes (lib/runs/schema.ts): line
 * breaks and tabs, but no other control character, no bidi override and no unpaired surrogate.
 */
export const NoteSchema = freeText(2_000);

export const AlertPatchSchema = z
  .strictObject({
    status: z.enum(ALERT_STATUSES).optional(),
    note: NoteSchema.nullable().optional(),
  })
  .refine((patch) => patch.status !== undefined || patch.note !== undefined, {
    message: "send status, note or both",
    path: ["status"],
  })
  .describe(
    "Set an alert's status (open, acknowledged, expected) and note. Expected restarts the baseline at its first run.",
  );

export const SeriesPatchSchema = z
  .strictObject({ settings: SeriesSettingsChangeSchema })
  .describe("Change a series' detection settings; the series is judged again.");

export const AnnotationCreateSchema = z
  .strictObject({
    run_id: z
      .string()
      .min(1)
      .max(64)
      .describe("The run where the baseline restarts (it and the runs after it form the new baseline)."),
    note: NoteSchema.nullable().optional(),
  })
  .describe("Mark an expected change (an intended upgrade, a new machine): the baseline restarts at this run.");

type RawParams = Record<string, string | string[] | undefined>;

/**
 * The first non-blank value of each parameter the schema knows, in an object with no prototype: a parameter named
 * `constructor`, `toString` or `__proto__` is unknown like any other (as on GET /api/runs) and ignored.
 */
function knownValues(shape: object, params: RawParams): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(params)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first.trim() !== "" && isOwnKey(shape, key)) out[key] = first;
  }
  return out;
}

/**
 * Strict parse of query parameters (`queryParams(request)`, lib/http/query.ts): unknown ones are ignored, invalid
 * ones a 400 naming them. Numbers are decimal digits only, as on GET /api/runs.
 */
export function parseQuery<T extends z.ZodObject>(schema: T, params: RawParams): z.output<T> {
  const known = knownValues(schema.shape, params);
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("bad_request", `Invalid query parameter ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  return parsed.data;
}

/** Parse a JSON body: a 422 naming every violated field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError("validation_failed", `${what}: expected a JSON object.`, [
      { path: "", message: "expected a JSON object" },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("validation_failed", `${what}. ${issues[0]?.path || "body"}: ${issues[0]?.message}`, issues);
  }
  return parsed.data;
}
