/**
 * The requests of the series and alerts API: query parameters and bodies, read by parseQuery/parseBody
 * (lib/http/request.ts) so the routes stay four lines and the OpenAPI document is generated from the same schemas.
 */
import { z } from "zod";
import { freeText } from "@/lib/document/schema";
import { decimalInteger } from "@/lib/http/query";
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
 * A note on an alert or an annotation: free text under the rules of a run's notes (lib/document/schema.ts): line
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
