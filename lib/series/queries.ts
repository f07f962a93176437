/**
 * Series for their pages and the API: the list, one series as its page shows it, its settings; and the series of
 * runs stored before series existed. Judging is judging.ts, annotations annotations.ts, alerts alerts.ts; the pure
 * logic lives beside them (detect.ts, metrics.ts, repeats.ts).
 *
 * Portable to PostgreSQL with several app instances: a series is found by its unique key and a run joins one with
 * a conditional update, never by reading, deciding and writing back.
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation, skipWhenWriteRefused } from "@/lib/db/errors";
import type { RunDocument } from "@/lib/document/normalize";
import type { Flags } from "@/lib/document/schema";
import { notFoundError } from "@/lib/errors";
import { annotationView, type SeriesAnnotationView } from "./annotations";
import { type ChangeSummary, changeSummary } from "./change-summary";
import { judgeStoredSeries } from "./judging";
import { newSeriesId, seriesIdentity } from "./key";
import {
  judgedMetrics,
  judgeLoaded,
  type LoadedSeries,
  loadSeries,
  parseJson,
  seriesStatusOf,
  shownMetrics,
  yieldToEventLoop,
} from "./load";
import { leadingMetric, parseMetricKey, type SeriesMetric } from "./metrics";
import { repeatGroupKey, repeatValues } from "./repeats";
import {
  mergeSettings,
  resolveSettings,
  SETTINGS_BOUNDS,
  type SeriesSettings,
  type SeriesSettingsPatch,
} from "./settings";
import { whatChanged } from "./what-changed";

/**
 * The series page and GET /api/series/{id} show at most this many runs (the newest), each point judged for every
 * judged figure: what a request costs follows this and the settings' bounds (SETTINGS_BOUNDS), never the length of
 * the series. 1,000 runs are three years of nightly runs; at 2,000 a page's answer was 4–7 MB and took 1–5 s.
 */
export const SERIES_VIEW_RUNS = 1_000;

// ---------------------------------------------------------------------------------------------------------
// Runs stored before series existed

let unassignedChecked = false;

/** Give every run without a series its series (runs stored before series existed, or by an older restore). */
export async function assignUnassignedRuns(): Promise<number> {
  if (unassignedChecked) return 0;
  let assigned = 0;
  for (;;) {
    const rows = await db().run.findMany({
      where: { seriesId: null },
      select: {
        id: true,
        engine: true,
        model: true,
        gpu: true,
        gpuCount: true,
        flagsJson: true,
        workloadJson: true,
        speculativeJson: true,
        seriesName: true,
        createdAt: true,
      },
      take: 200,
    });
    if (rows.length === 0) break;
    for (const row of rows) {
      const doc: Pick<RunDocument, "series" | "engine" | "model" | "hardware" | "flags" | "workload" | "speculative"> =
        {
          engine: row.engine,
          model: row.model,
          flags: parseJson<Flags>(row.flagsJson) ?? {},
        };
      if (row.seriesName !== null) doc.series = row.seriesName;
      if (row.gpu !== null || row.gpuCount !== null) {
        doc.hardware = {};
        if (row.gpu !== null) doc.hardware.gpu = row.gpu;
        if (row.gpuCount !== null) doc.hardware.gpu_count = row.gpuCount;
      }
      const workload = parseJson<RunDocument["workload"]>(row.workloadJson);
      if (workload) doc.workload = workload;
      const speculative = parseJson<RunDocument["speculative"]>(row.speculativeJson);
      if (speculative) doc.speculative = speculative;
      const identity = seriesIdentity(doc);
      const series = await upsertSeries(identity, row.createdAt);
      const updated = await db().run.updateMany({ where: { id: row.id, seriesId: null }, data: { seriesId: series } });
      assigned += updated.count;
    }
  }
  unassignedChecked = true;
  return assigned;
}

async function upsertSeries(identity: ReturnType<typeof seriesIdentity>, createdAt: Date): Promise<string> {
  const existing = await db().series.findUnique({ where: { key: identity.key }, select: { id: true } });
  if (existing) return existing.id;
  try {
    const created = await db().series.create({
      data: { id: newSeriesId(), key: identity.key, name: identity.name, explicit: identity.explicit, createdAt },
      select: { id: true },
    });
    return created.id;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return (await db().series.findUniqueOrThrow({ where: { key: identity.key }, select: { id: true } })).id;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The series list

export interface SeriesSummary {
  id: string;
  url: string;
  name: string;
  explicit: boolean;
  status: string;
  run_count: number;
  last_run_at: string | null;
  last_value: number | null;
  last_metric: { key: string; label: string; unit: string } | null;
  /** The headline figure of the last runs, oldest first (null where a run lacks it). */
  trend: (number | null)[];
  open_alerts: number;
}

export interface SeriesListQuery {
  /** Include series of a single run (every run is in a series; most one-off runs are alone in theirs). */
  all: boolean;
  page: number;
  per_page: number;
}

export async function listSeries(
  query: SeriesListQuery,
): Promise<{ series: SeriesSummary[]; total: number; hidden: number }> {
  await assignUnassignedRuns().catch(skipWhenWriteRefused);
  const counts = await db().run.groupBy({
    by: ["seriesId"],
    where: { seriesId: { not: null } },
    _count: { _all: true },
    _max: { sortAt: true },
  });
  const eligible = counts
    .filter((row) => row.seriesId !== null && (query.all || row._count._all >= 2))
    .sort(
      (a, b) =>
        (b._max.sortAt?.getTime() ?? 0) - (a._max.sortAt?.getTime() ?? 0) || (a.seriesId! < b.seriesId! ? -1 : 1),
    );
  const hidden = counts.length - eligible.length;
  const pageRows = eligible.slice((query.page - 1) * query.per_page, query.page * query.per_page);
  const ids = pageRows.map((row) => row.seriesId!);
  const [seriesRows, alerts] = await Promise.all([
    db().series.findMany({ where: { id: { in: ids } } }),
    db().seriesChange.groupBy({
      by: ["seriesId"],
      where: { seriesId: { in: ids }, kind: "regression", status: "open" },
      _count: { _all: true },
    }),
  ]);
  const byId = new Map(seriesRows.map((row) => [row.id, row]));
  const alertsById = new Map(alerts.map((row) => [row.seriesId, row._count._all]));
  const series = pageRows.flatMap((count): SeriesSummary[] => {
    const row = byId.get(count.seriesId!);
    if (!row) return [];
    const metric = row.lastMetric ? parseMetricKey(row.lastMetric) : null;
    return [
      {
        id: row.id,
        url: `/series/${row.id}`,
        name: row.name,
        explicit: row.explicit,
        status: row.judgedAt ? row.status : "insufficient",
        run_count: count._count._all,
        last_run_at: count._max.sortAt?.toISOString() ?? null,
        last_value: row.lastValue,
        last_metric: metric ? { key: metric.key, label: metric.label, unit: metric.unit } : null,
        trend: parseJson<(number | null)[]>(row.trendJson) ?? [],
        open_alerts: alertsById.get(row.id) ?? 0,
      },
    ];
  });
  return { series, total: eligible.length, hidden };
}

// ---------------------------------------------------------------------------------------------------------
// One series, for its page and GET /api/series/{id}

export interface SeriesPoint {
  run_id: string;
  name: string;
  at: string;
  engine_version: string | null;
  git_commit: string | null;
  git_branch: string | null;
  ci_url: string | null;
  group: string;
  values: Record<string, number | null>;
  what_changed: string[];
}

export interface SeriesView {
  id: string;
  url: string;
  name: string;
  key: string;
  explicit: boolean;
  status: string;
  created_at: string;
  settings: SeriesSettings;
  run_count: number;
  /** True when the series has more runs than the page draws (the newest are drawn). */
  truncated: boolean;
  level: string | null;
  levels: { key: string; runs: number }[];
  metrics: (Pick<SeriesMetric, "key" | "label" | "unit" | "better"> & { judged: boolean })[];
  points: SeriesPoint[];
  /** Per judged metric, each point's judgement (one per repeat group). */
  judgements: Record<
    string,
    {
      group: string;
      mean: number;
      min: number;
      max: number;
      status: string;
      baseline_mean: number | null;
      baseline_sigma: number | null;
      change_pct: number | null;
      z: number | null;
      p: number | null;
    }[]
  >;
  changes: ChangeSummary[];
  annotations: SeriesAnnotationView[];
}

/** A series' name alone (the page's title): the page's metadata must not load and judge the series a second time. */
export async function seriesNameOf(seriesId: string): Promise<string | null> {
  const row = await db().series.findUnique({ where: { id: seriesId }, select: { name: true } });
  return row?.name ?? null;
}

export interface SeriesViewOptions {
  /** The load level to read the level figures at; the series' own when absent or not a level. */
  level?: string | undefined;
  /**
   * The one figure the caller draws (a metric key; the first shown figure when it is not one of them): only its
   * judgement is computed, and `judgements` holds only it. Absent: every judged figure, as the API answers.
   */
  onlyMetric?: string | undefined;
}

export async function getSeriesViewOrThrow(seriesId: string, options: SeriesViewOptions = {}): Promise<SeriesView> {
  await assignUnassignedRuns().catch(skipWhenWriteRefused);
  // The baseline of the first shown run is read too (at most a window's worth more), never the whole series.
  const loaded = await loadSeries(seriesId, SERIES_VIEW_RUNS, options.level, SETTINGS_BOUNDS.window);
  return buildView(loaded, options.onlyMetric);
}

async function buildView(loaded: LoadedSeries, onlyMetric?: string): Promise<SeriesView> {
  const seriesId = loaded.row.id;
  const shown = shownMetrics(loaded);
  const judged = judgedMetrics(loaded, shown);
  // A page that draws one figure needs that figure's judgement only; a series never judged needs them all for
  // its status.
  const drawn =
    onlyMetric === undefined
      ? null
      : (shown.find((metric) => metric.key === onlyMetric) ?? leadingMetric(shown, loaded.settings.figures));
  const judgements = await judgeLoaded(
    loaded,
    drawn === null || !loaded.row.judgedAt ? judged : judged.filter((metric) => metric.key === drawn?.key),
  );
  const shownRuns = loaded.runs.slice(loaded.context);
  const shownRunIds = new Set(shownRuns.map((run) => run.id));
  await yieldToEventLoop();
  const [runCount, changeRows, annotationRows] = await Promise.all([
    db().run.count({ where: { seriesId } }),
    db().seriesChange.findMany({ where: { seriesId }, orderBy: { detectedAt: "asc" } }),
    db().seriesAnnotation.findMany({ where: { seriesId }, orderBy: { createdAt: "asc" } }),
  ]);
  const points = shownRuns.map((run, index): SeriesPoint => {
    // The run before the first shown one is read as its baseline: its "what changed" is there too.
    const previous = loaded.runs[loaded.context + index - 1] ?? null;
    const values: Record<string, number | null> = {};
    for (const metric of shown) {
      const samples = repeatValues(run, metric);
      values[metric.key] = samples.length === 0 ? null : samples.reduce((a, b) => a + b, 0) / samples.length;
    }
    return {
      run_id: run.id,
      name: run.name,
      at: run.at.toISOString(),
      engine_version: run.engine_version,
      git_commit: run.git_commit,
      git_branch: run.git_branch,
      ci_url: run.ci_url,
      group: repeatGroupKey(run),
      values,
      what_changed: previous ? whatChanged(previous.row, run.row).slice(0, 8) : [],
    };
  });
  return {
    id: seriesId,
    url: `/series/${seriesId}`,
    name: loaded.row.name,
    key: loaded.row.key,
    explicit: loaded.row.explicit,
    status: loaded.row.judgedAt ? loaded.row.status : seriesStatusOf(judgements),
    created_at: loaded.row.createdAt.toISOString(),
    settings: loaded.settings,
    run_count: runCount,
    truncated: runCount > shownRuns.length,
    level: loaded.level,
    levels: loaded.levels,
    metrics: shown.map((metric) => ({
      key: metric.key,
      label: metric.label,
      unit: metric.unit,
      better: metric.better,
      judged: judged.some((candidate) => candidate.key === metric.key),
    })),
    points,
    judgements: Object.fromEntries(
      judgements.map((judgement) => [
        judgement.metric.key,
        // The points of the runs shown; those read only as a baseline are left out.
        judgement.points
          .filter((point) => point.runIds.some((runId) => shownRunIds.has(runId)))
          .map((point) => ({
            group: point.group,
            mean: point.mean,
            min: point.min,
            max: point.max,
            status: point.status,
            baseline_mean: point.baseline?.mean ?? null,
            baseline_sigma: point.baseline?.sigma ?? null,
            change_pct: point.change_pct,
            z: point.z !== null && Number.isFinite(point.z) ? point.z : null,
            p: point.p,
          })),
      ]),
    ),
    changes: changeRows.map((row) => changeSummary(row, seriesId)),
    annotations: annotationRows.map(annotationView),
  };
}

export async function updateSeriesSettingsOrThrow(
  seriesId: string,
  patch: SeriesSettingsPatch,
): Promise<SeriesSettings> {
  const row = await db().series.findUnique({ where: { id: seriesId }, select: { settingsJson: true } });
  if (!row) throw notFoundError(`Series "${seriesId}"`);
  const settingsJson = mergeSettings(row.settingsJson, patch);
  await db().series.update({ where: { id: seriesId }, data: { settingsJson } });
  await judgeStoredSeries(seriesId);
  return resolveSettings(settingsJson);
}
