/**
 * The series line of an export (format servebench/series-v1), validated on its own like every restore line. Kept
 * apart from the database code (export.ts) because the upload worker reads restore lines.
 */
import { z } from "zod";
import { forbiddenCharacter, freeText, hasVisibleCharacter, LIMITS, NOTHING_VISIBLE } from "@/lib/document/schema";
import { AppError } from "@/lib/errors";
import { idSchema } from "@/lib/ids";
import { zodIssues } from "@/lib/zod-issues";
import { parseMetricKey } from "./metrics";
import { ALERT_STATUSES, NoteSchema } from "./schema";
import { SeriesSettingsPatchSchema } from "./settings";

/** The format of an export's series lines. */
export const SERIES_FORMAT = "servebench/series-v1" as const;

/** At most this many annotations and changes per series line (and runs per change). */
const MAX_ENTRIES = 10_000;

// Series, change (alert), annotation and run ids all follow the one id rule of documents (lib/ids.ts).
const seriesId = idSchema();
const runId = idSchema();

/** A text of one line under the character rules of what is stored (a change's group: a run id or a commit). */
const lineCharacters = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((value, context) => {
      const problem = forbiddenCharacter(value, false);
      if (problem) context.addIssue({ code: "custom", message: problem });
    });

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
      .regex(/^(name:.+|config:[0-9a-f]{64})$/s, 'must be "name:<series>" or "config:<sha256 hex>"')
      .superRefine((value, context) => {
        // A named series' key holds its name: a run's `series`, one line of text.
        const problem = value.startsWith("name:") ? forbiddenCharacter(value.slice("name:".length), false) : null;
        if (problem) context.addIssue({ code: "custom", message: problem });
      }),
    // A series named by its configuration carries its launch flags' values, which may hold line breaks: the rules of
    // free text, and something to read.
    name: freeText(2_000)
      .refine((value) => value.trim() !== "", "must not be empty")
      .refine((value) => value.trim() === "" || hasVisibleCharacter(value), NOTHING_VISIBLE),
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
          metric: z
            .string()
            .min(1)
            .max(200)
            .refine((value) => parseMetricKey(value) !== null, "must be a series metric key such as mean_tpot_ms@c:64"),
          start_group: lineCharacters(200),
          start_run_id: runId,
          // Absent in exports made before changes named their last good run: judging fills it in.
          last_good_run_id: runId.nullable().optional(),
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
  const issues = zodIssues(parsed.error);
  const first = issues[0];
  throw new AppError(
    "validation_failed",
    `The series is invalid. ${first ? `${first.path || "(line)"}: ${first.message}` : ""}`.trim(),
    issues,
  );
}
