/**
 * A series read from the store, for judging and for its page: its newest runs with their figures at its level, and
 * those figures judged one by one. Pure logic lives beside this file (detect.ts, metrics.ts, repeats.ts).
 */
import { db } from "@/lib/db/client";
import type { AccuracyScore, ResultPoint } from "@/lib/document/schema";
import { notFoundError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { type DetectedChange, judgeSeries, type PointJudgement } from "./detect";
import { judgeAccuracySeries } from "./detect-accuracy";
import {
  type LevelCountRow,
  type LevelFilter,
  readLevelCounts,
  readPointsAt,
  readSeriesTail,
  type SeriesTail,
} from "./judging-sqlite";
import {
  accuracyMetricKey,
  accuracySeriesMetric,
  DEFAULT_JUDGED_FIGURES,
  HEADLINE_FIGURES,
  LEVEL_FIGURES,
  levelFromKey,
  type SeriesMetric,
  seriesMetric,
} from "./metrics";
import { type RepeatableRun, repeatGroupKey, repeatValues } from "./repeats";
import { mergeSettings, resolveSettings, type SeriesSettings } from "./settings";

export type SeriesStatus = "ok" | "suspicious" | "regression" | "insufficient";

/** A stored JSON column; absent when null. */
export function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

export const RUN_SELECT = {
  id: true,
  name: true,
  engine: true,
  engineVersion: true,
  model: true,
  gpu: true,
  gpuCount: true,
  gpuMemoryMib: true,
  flagsJson: true,
  envJson: true,
  workloadJson: true,
  speculativeJson: true,
  gitCommit: true,
  gitBranch: true,
  ciUrl: true,
  sortAt: true,
  createdAt: true,
  singleStreamTokS: true,
  peakTokS: true,
  accuracyJson: true,
} satisfies Prisma.RunSelect;
export type RunRow = Prisma.RunGetPayload<{ select: typeof RUN_SELECT }>;
export type SeriesRow = Prisma.SeriesGetPayload<object>;

export interface SeriesRun extends RepeatableRun {
  name: string;
  at: Date;
  engine_version: string | null;
  git_branch: string | null;
  ci_url: string | null;
  row: RunRow;
}

/** The columns of a point the series reads at its level, quoted for SQL (names from a constant list). */
const POINT_COLUMNS_TEXT = LEVEL_FIGURES.map((figure) => `p."${figure}"`).join(", ");

/** The condition that picks a load level's points (`p` is ResultPoint); null for a key that is not a level. */
function levelCondition(levelKey: string): LevelFilter | null {
  const level = levelFromKey(levelKey);
  if (!level) return null;
  if (level.concurrency !== null) return { sql: `p."concurrency" = ?`, parameters: [level.concurrency] };
  if (level.request_rate === "inf")
    return { sql: `p."concurrency" IS NULL AND p."request_rate_infinite" = TRUE`, parameters: [] };
  return { sql: `p."concurrency" IS NULL AND p."request_rate" = ?`, parameters: [level.request_rate] };
}

/** The same condition for Prisma's raw queries (either database). */
function prismaCondition(level: LevelFilter): Prisma.Sql {
  const parts = level.sql.split("?");
  return Prisma.sql(parts, ...level.parameters);
}

function levelKeyOfRow(row: {
  concurrency: number | null;
  request_rate: number | null;
  request_rate_infinite: boolean;
}) {
  if (row.concurrency !== null) return `c:${row.concurrency}`;
  return row.request_rate_infinite ? "r:inf" : `r:${row.request_rate}`;
}

/**
 * Run ids per statement. A series page reads up to 2,000 runs; SQLite binds up to 32,766 parameters in one
 * statement and PostgreSQL 65,535, so a page is one statement. Prisma's own query builder stops at 999 on
 * SQLite (its groupBy over a page of 1,000 runs fails outright; its findMany splits the list, at ~10 ms for a
 * page), so the points of a series are read with raw SQL, in the subset both databases share.
 */
const IDS_PER_QUERY = 2_000;

function inChunks<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += IDS_PER_QUERY)
    chunks.push(items.slice(start, start + IDS_PER_QUERY));
  return chunks;
}

/** A number as either database's driver returns it (SQLite counts may come back as bigint). */
function numberOf(value: unknown): number | null {
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" ? value : null;
}

/** The load levels of these runs, most common first; on a tie the higher concurrency (or rate) first. */
async function levelsOf(runIds: readonly string[]): Promise<{ key: string; runs: number }[]> {
  if (runIds.length === 0) return [];
  const parts: LevelCountRow[] =
    (await readLevelCounts(runIds)) ??
    (
      await Promise.all(
        inChunks(runIds).map(
          (chunk) => db().$queryRaw<LevelCountRow[]>`
          SELECT p."concurrency", p."request_rate", p."request_rate_infinite", count(*) AS "points"
          FROM "ResultPoint" p
          WHERE p."runId" IN (${Prisma.join(chunk)})
          GROUP BY p."concurrency", p."request_rate", p."request_rate_infinite"`,
        ),
      )
    ).flat();
  const byKey = new Map<string, { key: string; runs: number; order: number }>();
  for (const raw of parts) {
    const row = {
      concurrency: numberOf(raw.concurrency),
      request_rate: numberOf(raw.request_rate),
      request_rate_infinite: raw.request_rate_infinite === true || Number(raw.request_rate_infinite) === 1,
    };
    const key = levelKeyOfRow(row);
    const order =
      row.concurrency !== null ? row.concurrency : row.request_rate_infinite ? Infinity : (row.request_rate ?? 0);
    const level = byKey.get(key) ?? { key, runs: 0, order };
    level.runs += numberOf(raw.points) ?? 0;
    byKey.set(key, level);
  }
  return [...byKey.values()]
    .sort((a, b) => b.runs - a.runs || b.order - a.order)
    .map(({ key, runs }) => ({ key, runs }));
}

/** Each run's figures at one load level (the point stored last, where a run has several there). */
async function pointsAt(runIds: readonly string[], levelKey: string): Promise<Map<string, Partial<ResultPoint>>> {
  const condition = levelCondition(levelKey);
  const byRun = new Map<string, Partial<ResultPoint>>();
  if (!condition || runIds.length === 0) return byRun;
  const parts: (Record<string, unknown> & { runId: string })[] =
    (await readPointsAt(runIds, POINT_COLUMNS_TEXT, condition)) ??
    (
      await Promise.all(
        inChunks(runIds).map(
          (chunk) => db().$queryRaw<(Record<string, unknown> & { runId: string })[]>`
          SELECT p."runId", ${Prisma.raw(POINT_COLUMNS_TEXT)}
          FROM "ResultPoint" p
          WHERE p."runId" IN (${Prisma.join(chunk)}) AND ${prismaCondition(condition)}
          ORDER BY p."runId", p."position"`,
        ),
      )
    ).flat();
  for (const point of parts) {
    const figures: Partial<ResultPoint> = {};
    for (const figure of LEVEL_FIGURES) {
      const value = numberOf(point[figure]);
      if (value !== null) figures[figure] = value;
    }
    byRun.set(point.runId, figures);
  }
  return byRun;
}

export interface LoadedSeries {
  row: SeriesRow;
  settings: SeriesSettings;
  /** In time order: the runs read as the baseline of the first shown, then the runs shown. */
  runs: SeriesRun[];
  /** How many of `runs`, from the start, are read only as a baseline (not shown). */
  context: number;
  level: string | null;
  levels: { key: string; runs: number }[];
  resetRunIds: Set<string>;
  /** The accuracy scores the runs state, one metric each (at most MAX_ACCURACY_METRICS), in key order. */
  accuracyMetrics: SeriesMetric[];
}

/** Accuracy scores a series follows: a results file of a whole suite states hundreds, and a page shows each. */
export const MAX_ACCURACY_METRICS = 40;

/**
 * Each run's accuracy scores keyed by series metric, and those metrics: scaled to percentages (value and stderr ×100)
 * when every run's score is a fraction where higher is better, as the compare page shows them; lower is better when
 * the evaluator says so.
 */
function accuracyOfRuns(runRows: readonly RunRow[]): {
  byRun: Map<string, Map<string, { value: number; stderr: number | null }>>;
  metrics: SeriesMetric[];
} {
  const found = new Map<string, { score: AccuracyScore; fraction: boolean; lower: boolean }>();
  const scoresByRun = new Map<string, Map<string, AccuracyScore>>();
  for (const run of runRows) {
    const scores = parseJson<AccuracyScore[]>(run.accuracyJson) ?? [];
    const own = new Map<string, AccuracyScore>();
    for (const score of scores) {
      const key = accuracyMetricKey({ ...score, filter: score.filter ?? null });
      own.set(key, score);
      const seen = found.get(key);
      const fraction = score.value >= 0 && score.value <= 1;
      if (!seen) found.set(key, { score, fraction, lower: score.higher_is_better === false });
      else {
        seen.fraction &&= fraction;
        seen.lower ||= score.higher_is_better === false;
      }
    }
    if (own.size > 0) scoresByRun.set(run.id, own);
  }
  const keys = [...found.keys()].sort().slice(0, MAX_ACCURACY_METRICS);
  const metrics = keys.map((key) => {
    const { score, fraction, lower } = found.get(key)!;
    const scale = fraction && !lower ? 100 : 1;
    return accuracySeriesMetric({ ...score, filter: score.filter ?? null }, lower ? "lower" : "higher", scale);
  });
  const byRun = new Map<string, Map<string, { value: number; stderr: number | null }>>();
  for (const [runId, own] of scoresByRun) {
    const values = new Map<string, { value: number; stderr: number | null }>();
    for (const metric of metrics) {
      const score = own.get(metric.key);
      if (!score) continue;
      const scale = metric.unit === "%" ? 100 : 1;
      values.set(metric.key, {
        value: score.value * scale,
        stderr: score.stderr === undefined ? null : score.stderr * scale,
      });
    }
    byRun.set(runId, values);
  }
  return { byRun, metrics };
}

/** readSeriesTail on PostgreSQL: the series, its runs and its annotations together, one round trip instead of two. */
async function readSeriesTailWithPrisma(seriesId: string, count: number): Promise<SeriesTail> {
  const [row, runRows, annotations] = await Promise.all([
    db().series.findUnique({ where: { id: seriesId } }),
    // A run stored in the series by override has another configuration: it is never judged with the series.
    db().run.findMany({
      where: { seriesId, seriesOverride: false },
      select: RUN_SELECT,
      orderBy: [{ sortAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
      take: count,
    }),
    db().seriesAnnotation.findMany({ where: { seriesId }, select: { runId: true } }),
  ]);
  return { row, runRows, annotatedRunIds: annotations.map((annotation) => annotation.runId) };
}

/**
 * The newest `take` runs of a series with their figures at its level, or at `viewLevel` when one is asked for, and
 * `context` runs before them: the baseline of the first of them, so its judgement is what it would be in a longer
 * read (read, judged and not shown).
 */
export async function loadSeries(
  seriesId: string,
  take: number,
  viewLevel?: string,
  context = 0,
): Promise<LoadedSeries> {
  const { row, runRows, annotatedRunIds } =
    (await readSeriesTail(seriesId, take + context)) ?? (await readSeriesTailWithPrisma(seriesId, take + context));
  if (!row) throw notFoundError(`Series "${seriesId}"`);
  const own = resolveSettings(row.settingsJson);
  runRows.reverse();
  const ids = runRows.map((run) => run.id);
  // On SQLite each query runs on this thread: a turn for other requests between the reads of a page of 1,000 runs.
  await yieldToEventLoop();
  const levels = await levelsOf(ids);
  await yieldToEventLoop();
  const ownLevel = own.level ?? levels[0]?.key ?? null;
  // A level chosen for viewing only: judged with the series' settings at that level, nothing stored.
  const viewing = viewLevel !== undefined && levelFromKey(viewLevel) !== null && viewLevel !== ownLevel;
  const settings = viewing ? resolveSettings(mergeSettings(row.settingsJson, { level: viewLevel })) : own;
  const level = viewing ? viewLevel : ownLevel;
  const pointByRun = level ? await pointsAt(ids, level) : new Map<string, Partial<ResultPoint>>();
  const accuracy = accuracyOfRuns(runRows);
  const runs = runRows.map(
    (run): SeriesRun => ({
      id: run.id,
      name: run.name,
      at: run.sortAt,
      engine_version: run.engineVersion,
      git_commit: run.gitCommit,
      git_branch: run.gitBranch,
      ci_url: run.ciUrl,
      single_stream_tok_s: run.singleStreamTokS,
      peak_tok_s: run.peakTokS,
      points: level && pointByRun.has(run.id) ? new Map([[level, pointByRun.get(run.id)!]]) : new Map(),
      accuracy: accuracy.byRun.get(run.id) ?? new Map(),
      row: run,
    }),
  );
  return {
    row,
    settings,
    runs,
    context: Math.max(0, runs.length - take),
    level,
    levels,
    resetRunIds: new Set(annotatedRunIds),
    accuracyMetrics: accuracy.metrics,
  };
}

/** The metrics a series shows: headline figures, then figures at its level, those that any run has. */
export function shownMetrics(loaded: LoadedSeries): SeriesMetric[] {
  const candidates = [
    ...HEADLINE_FIGURES.map((figure) => seriesMetric(figure, null)),
    ...(loaded.level ? LEVEL_FIGURES.map((figure) => seriesMetric(figure, loaded.level)) : []),
  ];
  return [
    ...candidates.filter((metric) => loaded.runs.some((run) => repeatValues(run, metric).length > 0)),
    ...loaded.accuracyMetrics,
  ];
}

/** The speed figures the settings name (or the default ones), and every accuracy score: a drop in accuracy is always judged. */
export function judgedMetrics(loaded: LoadedSeries, shown: readonly SeriesMetric[]): SeriesMetric[] {
  const figures = loaded.settings.figures ?? DEFAULT_JUDGED_FIGURES;
  return shown.filter(
    (metric) => metric.figure === "accuracy" || (figures as readonly string[]).includes(metric.figure),
  );
}

export interface MetricJudgement {
  metric: SeriesMetric;
  points: PointJudgement[];
  changes: DetectedChange[];
}

/** Lets whatever else waits on this process's one event loop (another request, /api/health) go first. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Judge each figure, one at a time with the event loop let go in between: a page of 11 judged figures holds it for
 * one figure's judging at a time (~10 ms at the bounds), not all of them.
 */
export async function judgeLoaded(loaded: LoadedSeries, metrics: readonly SeriesMetric[]): Promise<MetricJudgement[]> {
  const judgements: MetricJudgement[] = [];
  for (const metric of metrics) {
    await yieldToEventLoop();
    const samples = loaded.runs.map((run) => ({
      runId: run.id,
      group: repeatGroupKey(run),
      values: repeatValues(run, metric),
    }));
    const judged =
      metric.figure === "accuracy"
        ? judgeAccuracySeries(
            loaded.runs.map((run) => {
              const score = run.accuracy?.get(metric.key);
              return {
                runId: run.id,
                group: repeatGroupKey(run),
                values: score ? [score] : [],
                reset: loaded.resetRunIds.has(run.id),
              };
            }),
            { better: metric.better, settings: loaded.settings },
          )
        : judgeSeries(samples, {
            better: metric.better,
            settings: loaded.settings,
            resetRunIds: loaded.resetRunIds,
          });
    judgements.push({ metric, ...judged });
  }
  return judgements;
}

/** A series' status: an active regression of any judged figure, else what its newest points say. */
export function seriesStatusOf(judgements: readonly MetricJudgement[]): SeriesStatus {
  if (judgements.some((j) => j.changes.some((change) => change.active && change.kind === "regression"))) {
    return "regression";
  }
  const newest = judgements.map((j) => j.points.at(-1)).filter((point) => point !== undefined);
  if (newest.some((point) => point.status === "worse")) return "suspicious";
  if (newest.length === 0 || newest.every((point) => point.status === "insufficient")) return "insufficient";
  return "ok";
}
