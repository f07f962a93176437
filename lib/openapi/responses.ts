/**
 * The shapes of the API's responses as zod schemas, for the OpenAPI document (and the tests that hold real
 * responses to it). Request shapes are the schemas the routes validate with; these describe what comes back.
 */
import { z } from "zod";
import { COMPARE_STATS } from "@/lib/analysis/lines";
import { CDF_METRICS } from "@/lib/analysis/request-cdf";
import { RequestRateSchema } from "@/lib/document/schema";

const nullableNumber = z.number().nullable();

export const ErrorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum([
        "invalid_json",
        "bad_request",
        "unauthorized",
        "not_found",
        "payload_too_large",
        "unsupported_media_type",
        "validation_failed",
        "unsupported_format",
        "not_a_run_document",
        "conflicting_files",
        "no_results",
        "internal_error",
      ]),
      message: z.string(),
      issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .describe("Every error has this one shape.");

const HeadlineSchema = {
  single_stream: z.strictObject({ output_tok_s: z.number(), derived: z.boolean() }).nullable(),
  peak: z
    .strictObject({
      output_tok_s: z.number(),
      concurrency: z.number().int().nullable(),
      request_rate: RequestRateSchema.nullable(),
    })
    .nullable(),
};

export const RunSummarySchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  engine: z.string(),
  engine_version: z.string().nullable(),
  model: z.string(),
  hardware: z.strictObject({ gpu: z.string().nullable(), gpu_count: z.number().int().nullable() }),
  tags: z.array(z.string()),
  measured_at: z.string().nullable(),
  created_at: z.string(),
  point_count: z.number().int(),
  source_format: z.string(),
  series_id: z.string().nullable(),
  ...HeadlineSchema,
});

export const RunListSchema = z.strictObject({
  runs: z.array(RunSummarySchema),
  total: z.number().int().describe("Runs that match; a lower bound when `total_exact` is false."),
  total_exact: z
    .boolean()
    .describe('False when a filtered list has more matches than were counted: the total reads "more than".'),
  search_complete: z
    .literal(false)
    .optional()
    .describe(
      "Present (false) only when the text search read its budget of runs run by run and stopped: the runs listed match, runs after `runs_searched` in the page's order were not searched.",
    ),
  runs_searched: z.number().int().optional().describe("With `search_complete`: how many runs the search read."),
});

const MetricVerdictSchema = z.strictObject({
  key: z.string(),
  label: z.string(),
  unit: z.string(),
  better: z.enum(["higher", "lower"]),
  value: nullableNumber,
  baseline_mean: nullableNumber,
  baseline_points: z.number().int().nullable().describe("Points in the baseline, outliers left out."),
  baseline_sigma: nullableNumber.describe("The noise σ of one point against that baseline, as judged."),
  short_baseline: z
    .boolean()
    .describe("Fewer baseline points than min_samples: judged by the noise model for short baselines."),
  change_pct: nullableNumber,
  z: nullableNumber,
  p: nullableNumber,
  test: z.enum(["z", "t"]).nullable(),
  status: z.enum(["insufficient", "ok", "worse", "better", "missing"]),
});

export const ChangeSummarySchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  metric: z.string(),
  label: z.string(),
  unit: z.string(),
  kind: z.enum(["suspicious", "regression", "improvement"]),
  status: z.enum(["open", "acknowledged", "expected"]),
  direction: z.enum(["worse", "better"]),
  before: z.number(),
  after: z.number(),
  change_pct: z.number(),
  violations: z.number().int(),
  active: z.boolean(),
  start_run_id: z.string().describe("The first bad run."),
  last_good_run_id: z.string().nullable().describe("The last good run before the change."),
  detected_at: z.string(),
});

const CulpritRunSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  git_commit: z.string().nullable(),
});

const CulpritSchema = z.strictObject({
  alert_id: z.string(),
  url: z.string(),
  kind: z.enum(["suspicious", "regression", "improvement"]),
  status: z.enum(["open", "acknowledged", "expected"]),
  figures: z.array(
    z.strictObject({
      key: z.string(),
      label: z.string(),
      unit: z.string(),
      better: z.enum(["higher", "lower"]),
      before: z.number(),
      after: z.number(),
      change_pct: z.number(),
    }),
  ),
  culprit: z.strictObject({
    last_good: CulpritRunSchema.nullable(),
    first_bad: CulpritRunSchema,
    what_changed: z.array(z.string()),
    bisect: z.string().nullable(),
    compare_url: z.string().nullable(),
  }),
});

export const RunVerdictSchema = z
  .strictObject({
    run_id: z.string(),
    series: z.strictObject({
      id: z.string(),
      name: z.string(),
      url: z.string(),
      status: z.enum(["ok", "suspicious", "regression", "insufficient"]),
    }),
    verdict: z.enum(["regression", "suspicious", "improvement", "ok", "insufficient"]),
    level: z.string().nullable(),
    metrics: z.array(MetricVerdictSchema),
    changes: z.array(ChangeSummarySchema),
    previous_run: z.strictObject({ id: z.string(), url: z.string(), name: z.string() }).nullable(),
    what_changed: z.array(z.string()),
    change_points: z
      .array(
        z.strictObject({
          metric: z.string(),
          first_bad_run_id: z.string(),
          last_good_run_id: z.string(),
          before: z.number(),
          after: z.number(),
          change_pct: z.number(),
          direction: z.enum(["worse", "better"]),
          p: z.number(),
        }),
      )
      .describe("E-divisive change points of the judged figures, significant after Benjamini–Hochberg."),
    culprits: z
      .array(CulpritSchema)
      .describe("The changes the run is part of, one per first bad run, with the last good run and what changed."),
  })
  .describe("How the run was judged against its series (docs/series.md).");

const ENGINE_ANSWER = z
  .string()
  .describe('The stored run\'s engine; "unknown" when neither the files, the launch command nor the form said it.');

const UploadedRunSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  engine: ENGINE_ANSWER,
  duplicate: z.boolean(),
  series: RunVerdictSchema.optional(),
});

export const UploadResultSchema = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    engine: ENGINE_ANSWER,
    duplicate: z.literal(true).optional(),
    series: RunVerdictSchema.optional(),
    runs: z.array(UploadedRunSchema).optional(),
  })
  .describe("The stored run (or, for an upload of several, the first, with `runs` listing all).");

export const UploadPreviewSchema = z
  .looseObject({
    runs: z.array(
      z.looseObject({
        document: z.record(z.string(), z.unknown()),
        valid: z.boolean(),
        issues: z.array(z.unknown()),
        missing: z.array(z.string()),
        engine_from: z
          .enum(["person", "command", "file", "not_stated"])
          .nullable()
          .describe(
            'Where the engine came from: typed, the launch command\'s program, the file, or nothing (stored as "unknown"); null for a servebench/v1 document.',
          ),
      }),
    ),
    fragments: z.array(z.looseObject({ index: z.number().int(), file: z.string() })),
    skipped: z.array(z.unknown()),
    duplicates: z.array(z.unknown()),
    conflicts: z.array(z.string()),
    split: z.boolean(),
  })
  .describe("POST /api/runs?dry_run=1: what would be stored. Nothing is written.");

export const SavedComparisonSchema = z.strictObject({
  slug: z.string(),
  url: z.string(),
  title: z.string(),
  notes: z.string().nullable(),
  runs: z.array(z.string()),
  baseline: z.string().nullable(),
  noise: z.number().nullable().describe("The noise threshold in percent; null: from the runs' repeats, or 3."),
  hide: z.array(z.string()),
  stat: z.enum(COMPARE_STATS),
  log_y: z.boolean(),
  slo: z.strictObject({
    ttft_ms: z.number().nullable(),
    tpot_ms: z.number().nullable(),
    stat: z.enum(COMPARE_STATS),
  }),
  price: z
    .string()
    .describe(
      '$/GPU-hour as the compare page\'s `price` parameter writes it ("2.5", "H100:3.1,L40S:1.2"); empty for none.',
    ),
  at_user: z.number().nullable().describe("The interactivity (tok/s per user) the efficiency comparison is read at."),
  cdf_level: z
    .string()
    .nullable()
    .describe("The load level the latency distributions are drawn at (`c:8`); null: picked from the runs."),
  cdf_metric: z.enum(CDF_METRICS).describe("The latency the distributions are of."),
  capacity: z
    .record(z.string(), z.string())
    .describe(
      "The capacity parameters that differ from their defaults, as the compare page's URL writes them (`tiers`, `tier`, `demand`, `gpus_per_node`, `max_cost`, `gpu_budget`, `power_budget_kw`, `bucket`).",
    ),
  created_at: z.string(),
});

export const ComparisonListSchema = z.strictObject({
  comparisons: z.array(
    SavedComparisonSchema.pick({ slug: true, url: true, title: true, notes: true, runs: true, created_at: true }),
  ),
  total: z.number().int(),
});

export const ComparisonCreatedSchema = z.strictObject({ slug: z.string(), url: z.string() });

const SeriesSettingsSchema = z.strictObject({
  threshold_pct: z.number(),
  z_threshold: z.number(),
  t_test_alpha: z.number(),
  window: z.number().int(),
  min_samples: z.number().int(),
  consecutive: z.number().int(),
  rolling: z.number().int(),
  outlier_mad: z.number(),
  noise_prior_pct: z.number(),
  level: z.string().nullable(),
  figures: z.array(z.string()).nullable(),
});

export const SeriesListSchema = z.strictObject({
  series: z.array(
    z.strictObject({
      id: z.string(),
      url: z.string(),
      name: z.string(),
      explicit: z.boolean(),
      status: z.string(),
      run_count: z.number().int(),
      last_run_at: z.string().nullable(),
      last_value: nullableNumber,
      last_metric: z.strictObject({ key: z.string(), label: z.string(), unit: z.string() }).nullable(),
      trend: z.array(nullableNumber),
      open_alerts: z.number().int(),
    }),
  ),
  total: z.number().int(),
  hidden: z.number().int().describe("Series of a single run left out (ask with all=1)."),
});

export const SeriesViewSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  key: z.string(),
  explicit: z.boolean(),
  status: z.string(),
  created_at: z.string(),
  settings: SeriesSettingsSchema,
  run_count: z.number().int(),
  truncated: z.boolean(),
  level: z.string().nullable(),
  levels: z.array(z.strictObject({ key: z.string(), runs: z.number().int() })),
  metrics: z.array(
    z.strictObject({
      key: z.string(),
      label: z.string(),
      unit: z.string(),
      better: z.enum(["higher", "lower"]),
      judged: z.boolean(),
    }),
  ),
  points: z.array(
    z.strictObject({
      run_id: z.string(),
      name: z.string(),
      at: z.string(),
      engine_version: z.string().nullable(),
      git_commit: z.string().nullable(),
      git_branch: z.string().nullable(),
      ci_url: z.string().nullable(),
      group: z.string(),
      values: z.record(z.string(), nullableNumber),
      what_changed: z.array(z.string()),
    }),
  ),
  judgements: z.record(
    z.string(),
    z.array(
      z.strictObject({
        group: z.string(),
        mean: z.number(),
        min: z.number(),
        max: z.number(),
        status: z.string(),
        baseline_mean: nullableNumber,
        baseline_sigma: nullableNumber,
        change_pct: nullableNumber,
        z: nullableNumber,
        p: nullableNumber,
      }),
    ),
  ),
  changes: z.array(ChangeSummarySchema),
  annotations: z.array(
    z.strictObject({
      id: z.string(),
      run_id: z.string(),
      note: z.string().nullable(),
      change_id: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});

export const SeriesSettingsResultSchema = z.strictObject({ settings: SeriesSettingsSchema });

export const AnnotationSchema = SeriesViewSchema.shape.annotations.element;

export const AlertSchema = ChangeSummarySchema.extend({
  figures: z.array(ChangeSummarySchema).describe("Every figure that moved at this change, the alert's own first."),
  note: z.string().nullable(),
  series: z.strictObject({ id: z.string(), name: z.string(), url: z.string() }),
  last_run_id: z.string(),
  runs: z.array(z.string()),
  confirmed_at: z.string().nullable(),
  z: nullableNumber,
  p: nullableNumber,
});

export const AlertListSchema = z.strictObject({
  alerts: z.array(AlertSchema),
  total: z.number().int(),
  counts: z.strictObject({ open: z.number().int(), acknowledged: z.number().int(), expected: z.number().int() }),
});

export const DeliveryLogSchema = z.strictObject({
  deliveries: z.array(
    z.strictObject({
      id: z.number().int(),
      change_id: z.string(),
      url: z.string().describe("Scheme and host only: a webhook URL's path often holds its secret."),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z.number().int(),
      next_attempt_at: z.string().nullable(),
      delivered_at: z.string().nullable(),
      created_at: z.string(),
      log: z.array(
        z.strictObject({
          at: z.string(),
          http_status: z.number().int().nullable(),
          error: z.string().nullable(),
          duration_ms: z.number().int(),
        }),
      ),
    }),
  ),
});

export const HealthSchema = z.strictObject({ ok: z.literal(true), database: z.literal("ok") });

export const HealthProblemSchema = z.strictObject({
  ok: z.literal(false),
  database: z.enum(["disk_full", "read_only", "unavailable"]),
  error: z.strictObject({ code: z.string(), message: z.string() }),
});

const RestoreErrorSchema = z.strictObject({
  code: z.string(),
  message: z.string(),
  issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
});
const LineCountsSchema = z.strictObject({
  stored: z.number().int(),
  already_present: z.number().int(),
  refused: z.number().int(),
});

export const RestoreReportSchema = z
  .strictObject({
    runs: LineCountsSchema,
    comparisons: LineCountsSchema,
    series: LineCountsSchema,
    unreadable: z.number().int().describe("Lines that are neither a run, a saved comparison nor a series."),
    lines: z.array(
      z.strictObject({
        line: z.number().int(),
        kind: z.enum(["run", "comparison", "series", "unknown"]),
        id: z
          .string()
          .optional()
          .describe("The run's id, the comparison's slug or the series' id, when the line names one."),
        status: z.enum(["stored", "already_present", "refused"]),
        error: RestoreErrorSchema.optional(),
        notes: z
          .array(z.string())
          .optional()
          .describe("What of a stored series line could not be kept (a change or annotation whose run is not here)."),
      }),
    ),
    lines_omitted: z
      .number()
      .int()
      .optional()
      .describe(
        "Entries left out of `lines`, which lists at most 1,000: series, comparison, refused and unreadable lines first.",
      ),
  })
  .describe("POST /api/restore: counts of every line, and an entry per line of the export in order (at most 1,000).");

const RestoreCountsSchema = RestoreReportSchema.pick({ runs: true, comparisons: true, series: true, unreadable: true });

export const RestoreJobSchema = z
  .strictObject({
    id: z.string(),
    status: z
      .enum(["receiving", "queued", "running", "done", "failed"])
      .describe("done: `report` is the restore's answer; failed: `error` says why."),
    phase: z
      .enum(["series", "lines", "finish"])
      .describe("series: creating the export's series; lines: storing it part by part; finish: alerts and judging."),
    url: z.string().describe("This job's address."),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    received: z.strictObject({
      bytes: z.number().int(),
      lines: z.number().int(),
      parts: z.number().int().describe("The body is stored in parts of about 1 MB of whole lines."),
    }),
    progress: z.strictObject({
      parts_done: z.number().int(),
      parts_total: z.number().int(),
      lines_done: z.number().int(),
    }),
    counts: RestoreCountsSchema.describe("Counts so far (the report's, once the job is done)."),
    report: RestoreReportSchema.optional(),
    error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  })
  .describe("A restore job: its status and progress, and its report once done (docs/api.md, Restore jobs).");

export const RestoreJobListSchema = z
  .strictObject({ jobs: z.array(RestoreJobSchema.omit({ report: true })) })
  .describe("The latest 20 restore jobs, newest first, without their reports.");
