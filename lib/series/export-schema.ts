/**
 * The series line of an export (format servebench/series-v1), validated on its own like every restore line. Kept
 * apart from the database code (export.ts) because the upload worker reads restore lines.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { issuesFromZod } from "@/lib/runs/normalize";
import { LIMITS } from "@/lib/runs/schema";
import { ALERT_STATUSES, NoteSchema } from "./schema";
import { SeriesSettingsPatchSchema } from "./settings";

/** The format of an export's series lines. */
export const SERIES_FORMAT = "servebench/series-v1" as const;

const SERIES_ID = /^[A-Za-z0-9_-]{10}$/;
const RUN_ID = /^[A-Za-z0-9_-]{6,64}$/;
/** At most this many annotations and changes per series line (and runs per change). */
const MAX_ENTRIES = 10_000;

const seriesId = z.string().regex(SERIES_ID, "must be 10 URL-safe characters");
const runId = z.string().regex(RUN_ID, "must be a run id");

const isoDate = z
  .string()
  .refine((value) => !Number.isNaN(new Date(value).getTime()), "must be an ISO 8601 date")
  .transform((value) => new Date(value).toISOString());

export const ExportedSeriesSchema = z
  .strictObject({
    format: z.literal(SERIES_FORMAT),
    id: seriesId,
    key: z
      .string()
      .max(LIMITS.nameChars + 5)
      .regex(/^(name:.+|config:[0-9a-f]{64})$/s, 'must be "name:<series>" or "config:<sha256 hex>"'),
    name: z.string().min(1).max(2_000),
    explicit: z.boolean(),
    created_at: isoDate,
    settings: SeriesSettingsPatchSchema,
    annotations: z
      .array(
        z.strictObject({
          id: seriesId,
          run_id: runId,
          note: NoteSchema.nullable(),
          /** Set when the annotation is the mark of a change made "expected". */
          change_id: seriesId.nullable(),
          created_at: isoDate,
        }),
      )
      .max(MAX_ENTRIES),
    changes: z
      .array(
        z.strictObject({
          id: seriesId,
          metric: z.string().min(1).max(200),
          start_group: z.string().min(1).max(200),
          start_run_id: runId,
          last_run_id: runId,
          kind: z.enum(["suspicious", "regression", "improvement"]),
          direction: z.enum(["worse", "better"]),
          status: z.enum(ALERT_STATUSES),
          note: NoteSchema.nullable(),
          before: z.number(),
          after: z.number(),
          change_pct: z.number(),
          z_score: z.number().nullable(),
          p_value: z.number().min(0).max(1).nullable(),
          violations: z.number().int().min(1).max(1_000_000),
          active: z.boolean(),
          detected_at: isoDate,
          confirmed_at: isoDate.nullable(),
          updated_at: isoDate,
          runs: z.array(runId).max(MAX_ENTRIES),
        }),
      )
      .max(MAX_ENTRIES),
  })
  .describe(
    "A series in an export: its id, detection settings, annotations (expected changes) and detected changes with their alert status and note.",
  );
export type ExportedSeries = z.output<typeof ExportedSeriesSchema>;

/** An export line's series, validated; a 422-style AppError naming the first problem otherwise. */
export function exportedSeriesOf(raw: Record<string, unknown>): ExportedSeries {
  const parsed = ExportedSeriesSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = issuesFromZod(parsed.error);
  const first = issues[0];
  throw new AppError(
    "validation_failed",
    `The series is invalid. ${first ? `${first.path || "(line)"}: ${first.message}` : ""}`.trim(),
    issues,
  );
}
