/**
 * Detection settings: the defaults, and what a series may override. Why each default is what it is:
 * docs/series.md.
 */
import { z } from "zod";
import { type HeadlineFigure, type LevelFigure, levelFromKey, SERIES_FIGURES } from "./metrics";

export const DEFAULT_SETTINGS = {
  /** A change smaller than this, in percent of the baseline, is never a violation (0 turns the check off). */
  threshold_pct: 5,
  /** |z| at or above this is beyond the noise (0 turns the check off). */
  z_threshold: 2.5,
  /** Welch's t-test, used where the new point has repeats: a one-sided p below this is significant. */
  t_test_alpha: 0.05,
  /** The baseline: at most this many earlier points (after the last reset). */
  window: 30,
  /**
   * A baseline of fewer points than this is short: its σ is blended with the noise prior and its critical value is
   * Student's t (docs/series.md, "Short baselines"). Judging itself starts from the third run.
   */
  min_samples: 5,
  /** A regression needs this many consecutive violating points; fewer is "suspicious". */
  consecutive: 2,
  /** The residuals whose σ is the noise are taken from a rolling mean over this many earlier points. */
  rolling: 5,
  /** Baseline points whose modified z-score (median and MAD) exceeds this are left out as outliers. */
  outlier_mad: 3.5,
  /**
   * The noise, in percent of the level, assumed before a series has shown its own: blended into the σ of a short
   * baseline, and the floor of the MAD the outlier filter divides by (a point within 3.5 × this of the median is
   * never an outlier).
   */
  noise_prior_pct: 2,
} as const;

export type NumericSettings = { -readonly [K in keyof typeof DEFAULT_SETTINGS]: number };

export interface SeriesSettings extends NumericSettings {
  /** The load level the level figures are read at (`c:64`, `r:10`, `r:inf`); null: the series' most common. */
  level: string | null;
  /** The figures judged; null: DEFAULT_JUDGED_FIGURES. */
  figures: (HeadlineFigure | LevelFigure)[] | null;
}

/**
 * What judging may be asked to do per point and figure, and no more. A series page judges every point it shows
 * (up to SERIES_VIEW_RUNS) for every judged figure, each against up to `window` earlier points, with `rolling` of
 * them per residual: window × rolling per point and figure. At these bounds a page of 2,000 points and all 11
 * figures is judged in ~50 ms on one core; at the former bounds (500 and 100) it took 5 s and held the server's
 * one event loop all that time (docs/series.md).
 */
export const SETTINGS_BOUNDS = {
  window: 100,
  min_samples: 100,
  rolling: 30,
} as const;

const figureName = z.enum(SERIES_FIGURES as [HeadlineFigure | LevelFigure, ...(HeadlineFigure | LevelFigure)[]], {
  error: `must be one of ${SERIES_FIGURES.join(", ")}`,
});

const level = z
  .string()
  .refine((value) => levelFromKey(value) !== null, 'must be a load level such as "c:64", "r:10" or "r:inf"');

/**
 * Settings as they may be stored and exported: the ranges older versions took (window and min_samples up to 500,
 * rolling up to 100), so an export made by one of them still restores. Judging reads them through
 * resolveSettings, which holds them to SETTINGS_BOUNDS.
 */
export const SeriesSettingsPatchSchema = z
  .strictObject({
    threshold_pct: z.number().min(0).max(100).nullable().optional(),
    z_threshold: z.number().min(0).max(100).nullable().optional(),
    t_test_alpha: z.number().min(0).max(0.5).nullable().optional(),
    window: z.number().int().min(2).max(500).nullable().optional(),
    min_samples: z.number().int().min(2).max(500).nullable().optional(),
    consecutive: z.number().int().min(1).max(50).nullable().optional(),
    rolling: z.number().int().min(1).max(100).nullable().optional(),
    outlier_mad: z.number().min(0).max(100).nullable().optional(),
    noise_prior_pct: z.number().min(0).max(100).nullable().optional(),
    level: level.nullable().optional(),
    figures: z.array(figureName).min(1).max(20).nullable().optional(),
  })
  .describe("Detection settings of a series; a field left out keeps its value, null restores the default.");

/**
 * Settings as PATCH /api/series/{id} takes them: within SETTINGS_BOUNDS, and each figure once (11 at most). A value
 * beyond a bound is a 422 naming it (`settings.window`), like any other value out of range.
 */
export const SeriesSettingsChangeSchema = SeriesSettingsPatchSchema.extend({
  window: z.number().int().min(2).max(SETTINGS_BOUNDS.window).nullable().optional(),
  min_samples: z.number().int().min(2).max(SETTINGS_BOUNDS.min_samples).nullable().optional(),
  rolling: z.number().int().min(1).max(SETTINGS_BOUNDS.rolling).nullable().optional(),
  figures: z
    .array(figureName)
    .min(1)
    .max(SERIES_FIGURES.length)
    .superRefine((figures, context) => {
      figures.forEach((figure, index) => {
        if (figures.indexOf(figure) !== index)
          context.addIssue({ code: "custom", path: [index], message: `names ${figure} a second time` });
      });
    })
    .nullable()
    .optional(),
}).describe(
  `Detection settings of a series; a field left out keeps its value, null restores the default. window and min_samples are at most ${SETTINGS_BOUNDS.window}, rolling at most ${SETTINGS_BOUNDS.rolling}, and figures names each figure once.`,
);

export type SeriesSettingsPatch = z.infer<typeof SeriesSettingsPatchSchema>;

/** Stored overrides (a JSON object) over the defaults; unknown or invalid stored values are ignored. */
export function resolveSettings(stored: string | null | undefined): SeriesSettings {
  let overrides: SeriesSettingsPatch = {};
  try {
    const parsed = SeriesSettingsPatchSchema.safeParse(JSON.parse(stored ?? "{}"));
    if (parsed.success) overrides = parsed.data;
  } catch {
    // A damaged value falls back to the defaults rather than stopping every upload to the series.
  }
  const settings: SeriesSettings = { ...DEFAULT_SETTINGS, level: null, figures: null };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined || value === null) continue;
    (settings as unknown as Record<string, unknown>)[key] = value;
  }
  // A value stored before the bounds (or restored from an export of then) is judged at the bound: a window of 500
  // asked for "as long as it may be", and the longest cheap one is the nearest to that.
  for (const [key, bound] of Object.entries(SETTINGS_BOUNDS) as [keyof typeof SETTINGS_BOUNDS, number][]) {
    settings[key] = Math.min(settings[key], bound);
  }
  if (settings.figures) settings.figures = [...new Set(settings.figures)];
  return settings;
}

/** Apply a patch to the stored overrides: undefined keeps, null removes. */
export function mergeSettings(stored: string | null | undefined, patch: SeriesSettingsPatch): string {
  let current: Record<string, unknown> = {};
  try {
    const parsed = SeriesSettingsPatchSchema.safeParse(JSON.parse(stored ?? "{}"));
    if (parsed.success) current = parsed.data;
  } catch {
    current = {};
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete current[key];
    else current[key] = value;
  }
  return JSON.stringify(current);
}
