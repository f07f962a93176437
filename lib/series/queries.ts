/**
 * Every database access for series, changes (alerts) and annotations, and the judging of a series after an
 * upload. Pure logic lives beside this file (detect.ts, metrics.ts, repeats.ts, view.ts); this file loads,
 * calls it and stores what it found.
 *
 * Portable to PostgreSQL with several app instances: rows are found by unique keys and moved between states
 * with conditional updates (a regression is announced by the one judgement whose update flipped it), never
 * by reading, deciding and writing back.
 */
import { type ConfigChange, diffConfigs } from "@/lib/analysis/config-diff";
import { db } from "@/lib/db/client";
import { isUniqueViolation, skipWhenWriteRefused } from "@/lib/db/errors";
import type { RunDocument } from "@/lib/document/normalize";
import type { Flags, ResultPoint } from "@/lib/document/schema";
import { AppError, notFoundError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { enqueueDeliveries } from "@/lib/webhooks/deliveries";
import { webhookPayload } from "@/lib/webhooks/payload";
import { type DetectedChange, judgeSeries, type PointJudgement } from "./detect";
import { newSeriesId, seriesIdentity } from "./key";
import {
  DEFAULT_JUDGED_FIGURES,
  HEADLINE_FIGURES,
  LEVEL_FIGURES,
  levelFromKey,
  parseMetricKey,
  type SeriesMetric,
  seriesMetric,
} from "./metrics";
import { type RepeatableRun, repeatGroupKey, repeatValues } from "./repeats";
import { ALERT_STATUSES, type AlertStatus } from "./schema";
import {
  mergeSettings,
  resolveSettings,
  SETTINGS_BOUNDS,
  type SeriesSettings,
  type SeriesSettingsPatch,
} from "./settings";

/** Judging reads the newest runs of a series, this many: far more than a baseline window needs. */
export const JUDGE_TAIL_RUNS = 200;
/**
 * The series page and GET /api/series/{id} show at most this many runs (the newest), each point judged for every
 * judged figure: what a request costs follows this and the settings' bounds (SETTINGS_BOUNDS), never the length of
 * the series. 1,000 runs are three years of nightly runs; at 2,000 a page's answer was 4–7 MB and took 1–5 s.
 */
export const SERIES_VIEW_RUNS = 1_000;

export type SeriesStatus = "ok" | "suspicious" | "regression" | "insufficient";
export type Verdict = "regression" | "suspicious" | "improvement" | "ok" | "insufficient";

function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

// ---------------------------------------------------------------------------------------------------------
// Loading a series

const RUN_SELECT = {
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
} satisfies Prisma.RunSelect;
type RunRow = Prisma.RunGetPayload<{ select: typeof RUN_SELECT }>;

export interface SeriesRun extends RepeatableRun {
  name: string;
  at: Date;
  engine_version: string | null;
  git_branch: string | null;
  ci_url: string | null;
  row: RunRow;
}

/** The columns of a point the series reads at its level, quoted for SQL (names from a constant list). */
const POINT_COLUMNS_SQL = Prisma.raw(LEVEL_FIGURES.map((figure) => `p."${figure}"`).join(", "));

/** The condition that picks a load level's points (`p` is ResultPoint); null for a key that is not a level. */
function levelCondition(levelKey: string): Prisma.Sql | null {
  const level = levelFromKey(levelKey);
  if (!level) return null;
  if (level.concurrency !== null) return Prisma.sql`p."concurrency" = ${level.concurrency}`;
  if (level.request_rate === "inf") return Prisma.sql`p."concurrency" IS NULL AND p."request_rate_infinite" = TRUE`;
  return Prisma.sql`p."concurrency" IS NULL AND p."request_rate" = ${level.request_rate}`;
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

interface LevelCountRow {
  concurrency: number | bigint | null;
  request_rate: number | null;
  /** A boolean on PostgreSQL, 0 or 1 on SQLite. */
  request_rate_infinite: boolean | number | bigint;
  points: number | bigint;
}

/** The load levels of these runs, most common first; on a tie the higher concurrency (or rate) first. */
async function levelsOf(runIds: readonly string[]): Promise<{ key: string; runs: number }[]> {
  if (runIds.length === 0) return [];
  const parts = await Promise.all(
    inChunks(runIds).map(
      (chunk) => db().$queryRaw<LevelCountRow[]>`
        SELECT p."concurrency", p."request_rate", p."request_rate_infinite", count(*) AS "points"
        FROM "ResultPoint" p
        WHERE p."runId" IN (${Prisma.join(chunk)})
        GROUP BY p."concurrency", p."request_rate", p."request_rate_infinite"`,
    ),
  );
  const byKey = new Map<string, { key: string; runs: number; order: number }>();
  for (const raw of parts.flat()) {
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
  const parts = await Promise.all(
    inChunks(runIds).map(
      (chunk) => db().$queryRaw<(Record<string, unknown> & { runId: string })[]>`
        SELECT p."runId", ${POINT_COLUMNS_SQL}
        FROM "ResultPoint" p
        WHERE p."runId" IN (${Prisma.join(chunk)}) AND ${condition}
        ORDER BY p."runId", p."position"`,
    ),
  );
  for (const point of parts.flat()) {
    const figures: Partial<ResultPoint> = {};
    for (const figure of LEVEL_FIGURES) {
      const value = numberOf(point[figure]);
      if (value !== null) figures[figure] = value;
    }
    byRun.set(point.runId, figures);
  }
  return byRun;
}

interface LoadedSeries {
  row: Prisma.SeriesGetPayload<object>;
  settings: SeriesSettings;
  /** In time order: the runs read as the baseline of the first shown, then the runs shown. */
  runs: SeriesRun[];
  /** How many of `runs`, from the start, are read only as a baseline (not shown). */
  context: number;
  level: string | null;
  levels: { key: string; runs: number }[];
  resetRunIds: Set<string>;
}

/**
 * The newest `take` runs of a series with their figures at its level, or at `viewLevel` when one is asked for, and
 * `context` runs before them: the baseline of the first of them, so its judgement is what it would be in a longer
 * read (read, judged and not shown).
 */
async function loadSeries(seriesId: string, take: number, viewLevel?: string, context = 0): Promise<LoadedSeries> {
  // The series, its runs and its annotations together: one round trip to the database instead of two.
  const [row, runRows, annotations] = await Promise.all([
    db().series.findUnique({ where: { id: seriesId } }),
    db().run.findMany({
      where: { seriesId },
      select: RUN_SELECT,
      orderBy: [{ sortAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
      take: take + context,
    }),
    db().seriesAnnotation.findMany({ where: { seriesId }, select: { runId: true } }),
  ]);
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
    resetRunIds: new Set(annotations.map((a) => a.runId)),
  };
}

/** The metrics a series shows: headline figures, then figures at its level, those that any run has. */
function shownMetrics(loaded: LoadedSeries): SeriesMetric[] {
  const candidates = [
    ...HEADLINE_FIGURES.map((figure) => seriesMetric(figure, null)),
    ...(loaded.level ? LEVEL_FIGURES.map((figure) => seriesMetric(figure, loaded.level)) : []),
  ];
  return candidates.filter((metric) => loaded.runs.some((run) => repeatValues(run, metric).length > 0));
}

function judgedMetrics(loaded: LoadedSeries, shown: readonly SeriesMetric[]): SeriesMetric[] {
  const figures = loaded.settings.figures ?? DEFAULT_JUDGED_FIGURES;
  return shown.filter((metric) => (figures as readonly string[]).includes(metric.figure));
}

interface MetricJudgement {
  metric: SeriesMetric;
  points: PointJudgement[];
  changes: DetectedChange[];
}

/** Lets whatever else waits on this process's one event loop (another request, /api/health) go first. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Judge each figure, one at a time with the event loop let go in between: a page of 11 judged figures holds it for
 * one figure's judging at a time (~10 ms at the bounds), not all of them.
 */
async function judgeLoaded(loaded: LoadedSeries, metrics: readonly SeriesMetric[]): Promise<MetricJudgement[]> {
  const judgements: MetricJudgement[] = [];
  for (const metric of metrics) {
    await yieldToEventLoop();
    const samples = loaded.runs.map((run) => ({
      runId: run.id,
      group: repeatGroupKey(run),
      values: repeatValues(run, metric),
    }));
    const judged = judgeSeries(samples, {
      better: metric.better,
      settings: loaded.settings,
      resetRunIds: loaded.resetRunIds,
    });
    judgements.push({ metric, ...judged });
  }
  return judgements;
}

// ---------------------------------------------------------------------------------------------------------
// Judging after an upload

export interface MetricVerdict {
  key: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  value: number | null;
  baseline_mean: number | null;
  change_pct: number | null;
  z: number | null;
  p: number | null;
  test: "z" | "t" | null;
  status: PointJudgement["status"] | "missing";
}

export interface ChangeSummary {
  id: string;
  url: string;
  metric: string;
  label: string;
  unit: string;
  kind: string;
  status: string;
  direction: string;
  before: number;
  after: number;
  change_pct: number;
  violations: number;
  active: boolean;
  start_run_id: string;
  detected_at: string;
}

export interface RunVerdict {
  run_id: string;
  series: { id: string; name: string; url: string; status: SeriesStatus };
  verdict: Verdict;
  level: string | null;
  metrics: MetricVerdict[];
  /** Stored changes this run is part of. */
  changes: ChangeSummary[];
  previous_run: { id: string; url: string; name: string } | null;
  /** What changed from the previous run of the series. */
  what_changed: string[];
}

type ChangeRow = Prisma.SeriesChangeGetPayload<object>;

function changeSummary(row: ChangeRow, seriesId: string): ChangeSummary {
  const metric = parseMetricKey(row.metric);
  return {
    id: row.id,
    url: `/series/${seriesId}#change-${row.id}`,
    metric: row.metric,
    label: metric?.label ?? row.metric,
    unit: metric?.unit ?? "",
    kind: row.kind,
    status: row.status,
    direction: row.direction,
    before: row.before,
    after: row.after,
    change_pct: row.changePct,
    violations: row.violations,
    active: row.active,
    start_run_id: row.startRunId,
    detected_at: row.detectedAt.toISOString(),
  };
}

type RunConfig = Parameters<typeof diffConfigs>[0];

/**
 * Each run's configuration parsed once: "what changed" compares every run with the one before it, so a series
 * page of 1,000 runs would otherwise parse each run's JSON twice.
 */
const configs = new WeakMap<RunRow, RunConfig>();

function configOf(row: RunRow): RunConfig {
  let config = configs.get(row);
  if (!config) {
    config = parseConfig(row);
    configs.set(row, config);
  }
  return config;
}

function parseConfig(row: RunRow): RunConfig {
  return {
    engine: row.engine,
    engine_version: row.engineVersion ?? undefined,
    model: row.model,
    hardware: {
      gpu: row.gpu ?? undefined,
      gpu_count: row.gpuCount ?? undefined,
      gpu_memory_mib: row.gpuMemoryMib ?? undefined,
    },
    flags: parseJson<Flags>(row.flagsJson) ?? {},
    env: parseJson<Record<string, string>>(row.envJson) ?? {},
    workload: parseJson<Record<string, string | number | undefined>>(row.workloadJson),
    speculative: parseJson<Record<string, string | number | undefined>>(row.speculativeJson),
  };
}

/** The columns a run's configuration is read from: runs whose columns are equal have no configuration change. */
const CONFIG_COLUMNS = [
  "engine",
  "engineVersion",
  "model",
  "gpu",
  "gpuCount",
  "gpuMemoryMib",
  "flagsJson",
  "envJson",
  "workloadJson",
  "speculativeJson",
] as const satisfies readonly (keyof RunRow)[];

/** "What changed" from one run of a series to the next: configuration, then commit and branch. */
export function whatChanged(previous: RunRow, next: RunRow): string[] {
  // Most nights run the configuration of the night before: nothing to parse and compare then.
  const sameConfig = CONFIG_COLUMNS.every((column) => previous[column] === next[column]);
  const lines = sameConfig
    ? []
    : diffConfigs(configOf(previous), configOf(next)).map((change: ConfigChange) => change.text);
  if (previous.gitCommit !== next.gitCommit && next.gitCommit) {
    lines.push(`commit: ${previous.gitCommit?.slice(0, 12) ?? "not set"} → ${next.gitCommit.slice(0, 12)}`);
  }
  if (previous.gitBranch !== next.gitBranch && next.gitBranch) {
    lines.push(`branch: ${previous.gitBranch ?? "not set"} → ${next.gitBranch}`);
  }
  return lines;
}

function seriesStatusOf(judgements: readonly MetricJudgement[]): SeriesStatus {
  if (judgements.some((j) => j.changes.some((change) => change.active && change.kind === "regression"))) {
    return "regression";
  }
  const newest = judgements.map((j) => j.points.at(-1)).filter((point) => point !== undefined);
  if (newest.some((point) => point.status === "worse")) return "suspicious";
  if (newest.length === 0 || newest.every((point) => point.status === "insufficient")) return "insufficient";
  return "ok";
}

interface StoredChangeResult {
  id: string;
  /** This judgement made it a regression (created as one, or flipped from suspicious). */
  newlyRegression: boolean;
}

interface FoundChange {
  metric: SeriesMetric;
  change: DetectedChange;
}

const changeKey = (metric: string, startGroup: string) => `${metric}\n${startGroup}`;

/**
 * Store the changes one judgement found. The stored rows and their run links are read in two queries for all of
 * them; a change is written only where it differs from its row (most of an upload's changes are the ones the
 * previous upload stored, unchanged), and the writes of different changes go out together.
 */
async function storeChanges(seriesId: string, found: readonly FoundChange[], now: Date): Promise<StoredChangeResult[]> {
  if (found.length === 0) return [];
  const existing = await db().seriesChange.findMany({
    where: { seriesId, startGroup: { in: [...new Set(found.map(({ change }) => change.startGroup))] } },
  });
  const rows = new Map(existing.map((row) => [changeKey(row.metric, row.startGroup), row]));
  const links = new Map<string, Set<string>>(existing.map((row) => [row.id, new Set()]));
  if (existing.length > 0) {
    const linkRows = await db().seriesChangeRun.findMany({
      where: { changeId: { in: existing.map((row) => row.id) } },
      select: { changeId: true, runId: true },
    });
    for (const link of linkRows) links.get(link.changeId)?.add(link.runId);
  }
  return Promise.all(
    found.map(({ metric, change }) => {
      const row = rows.get(changeKey(metric.key, change.startGroup)) ?? null;
      return storeChange(seriesId, metric, change, now, row, row ? (links.get(row.id) ?? null) : null);
    }),
  );
}

/** The figures of a stored change, as a judgement writes them. */
function changeFigures(change: DetectedChange) {
  return {
    startRunId: change.startRunId,
    lastRunId: change.lastRunId,
    direction: change.direction,
    before: change.before,
    after: change.after,
    changePct: change.change_pct,
    zScore: change.z !== null && Number.isFinite(change.z) ? change.z : null,
    pValue: change.p,
    violations: change.violations,
    active: change.active,
  };
}

function sameFigures(row: ChangeRow, figures: ReturnType<typeof changeFigures>): boolean {
  return (Object.keys(figures) as (keyof typeof figures)[]).every((key) => row[key] === figures[key]);
}

/**
 * Store one change: create its row, or flip it from suspicious to a regression (or improvement), update its figures
 * where they moved, and link exactly its runs. `known` and `knownLinks` are its row and links as read just before
 * (null: not stored yet). `updatedAt` is when the figures last changed.
 */
async function storeChange(
  seriesId: string,
  metric: SeriesMetric,
  change: DetectedChange,
  now: Date,
  known: ChangeRow | null,
  knownLinks: ReadonlySet<string> | null,
): Promise<StoredChangeResult> {
  const where = { seriesId_metric_startGroup: { seriesId, metric: metric.key, startGroup: change.startGroup } };
  const figures = changeFigures(change);
  let newlyRegression = false;
  let row = known;
  let linked = knownLinks;
  if (!row) {
    try {
      row = await db().seriesChange.create({
        data: {
          id: newSeriesId(),
          seriesId,
          metric: metric.key,
          startGroup: change.startGroup,
          kind: change.kind,
          detectedAt: now,
          confirmedAt: change.kind === "suspicious" ? null : now,
          ...figures,
          updatedAt: now,
        },
      });
      newlyRegression = change.kind === "regression";
      linked = new Set();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A concurrent judgement stored it first: its row and links are read now.
      row = await db().seriesChange.findUniqueOrThrow({ where });
      linked = null;
    }
  }
  if (!newlyRegression) {
    if (change.kind !== "suspicious" && row.kind === "suspicious") {
      // The flip from suspicious is the moment a regression is declared: the judgement whose update matched
      // the row announces it; a concurrent one finds nothing left to flip.
      const flipped = await db().seriesChange.updateMany({
        where: { id: row.id, kind: "suspicious" },
        data: { kind: change.kind, confirmedAt: now },
      });
      newlyRegression = flipped.count === 1 && change.kind === "regression";
    }
    if (!sameFigures(row, figures)) {
      await db().seriesChange.update({ where: { id: row.id }, data: { ...figures, updatedAt: now } });
    }
  }
  const changeId = row.id;
  linked ??= new Set(
    (await db().seriesChangeRun.findMany({ where: { changeId }, select: { runId: true } })).map((r) => r.runId),
  );
  const missing = change.runIds.filter((runId) => !linked.has(runId));
  const gone = [...linked].filter((runId) => !change.runIds.includes(runId));
  if (missing.length > 0) {
    try {
      await db().seriesChangeRun.createMany({ data: missing.map((runId) => ({ changeId, runId })) });
    } catch (error) {
      // A concurrent judgement linked them first.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  if (gone.length > 0) await db().seriesChangeRun.deleteMany({ where: { changeId, runId: { in: gone } } });
  return { id: changeId, newlyRegression };
}

// Judgements of one series run one after another in this process, so the series' stored summary is that of
// the last upload; across processes, each writes a summary of what it read (the next upload corrects it).
const holder = globalThis as unknown as { servebenchSeriesLocks?: Map<string, Promise<unknown>> };
function serially<T>(seriesId: string, work: () => Promise<T>): Promise<T> {
  holder.servebenchSeriesLocks ??= new Map();
  const locks = holder.servebenchSeriesLocks;
  const previous = locks.get(seriesId) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  locks.set(seriesId, settled);
  void settled.then(() => {
    if (locks.get(seriesId) === settled) locks.delete(seriesId);
  });
  return next;
}

export interface JudgeOptions {
  /** The runs just uploaded: regressions they are part of, still active, are announced. */
  uploadedRunIds?: readonly string[];
  /** Absolute base of the links in announcements, e.g. https://bench.example.com. */
  baseUrl?: string;
}

/** Judge a series from its newest runs, store what changed, refresh its summary, queue announcements. */
export function judgeStoredSeries(seriesId: string, options: JudgeOptions = {}): Promise<Map<string, RunVerdict>> {
  return serially(seriesId, () => judgeNow(seriesId, options));
}

async function judgeNow(seriesId: string, options: JudgeOptions): Promise<Map<string, RunVerdict>> {
  const loaded = await loadSeries(seriesId, JUDGE_TAIL_RUNS);
  const shown = shownMetrics(loaded);
  const judgements = await judgeLoaded(loaded, judgedMetrics(loaded, shown));
  const now = new Date();
  const uploaded = new Set(options.uploadedRunIds ?? []);
  const inTail = new Set(loaded.runs.map((run) => run.id));
  const base = (options.baseUrl ?? "").replace(/\/+$/, "");
  const seriesUrl = `/series/${seriesId}`;

  const found = judgements.flatMap((judgement) =>
    judgement.changes.map((change) => ({ metric: judgement.metric, change })),
  );
  const stored = await storeChanges(seriesId, found, now);
  const storedIds = new Set(stored.map((result) => result.id));
  const runsById = new Map(loaded.runs.map((run) => [run.id, run]));
  for (const [index, { metric, change }] of found.entries()) {
    const { id: changeId, newlyRegression } = stored[index]!;
    const announce = newlyRegression && change.active && change.runIds.some((runId) => uploaded.has(runId));
    if (!announce) continue;
    await enqueueDeliveries(
      changeId,
      webhookPayload({
        alert_id: changeId,
        series: { id: seriesId, name: loaded.row.name, url: `${base}${seriesUrl}` },
        metric: { key: metric.key, label: metric.label, unit: metric.unit, better: metric.better },
        before: change.before,
        after: change.after,
        change_pct: change.change_pct,
        runs: change.runIds.map((runId) => ({
          id: runId,
          url: `${base}/runs/${runId}`,
          name: runsById.get(runId)?.name ?? runId,
          git_commit: runsById.get(runId)?.git_commit ?? null,
        })),
        url: `${base}${seriesUrl}#change-${changeId}`,
        detected_at: now.toISOString(),
      }),
    );
  }
  const status = seriesStatusOf(judgements);
  const primary = shown[0] ?? null;
  const trend = primary
    ? loaded.runs.slice(-30).map((run) => {
        const values = repeatValues(run, primary);
        return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
      })
    : [];
  // Two writes to different rows, sent together.
  await Promise.all([
    // Stored changes that start inside the judged runs but were not found again (an expected change restarted
    // the baseline, the settings changed, a run was deleted) are no longer current.
    db().seriesChange.updateMany({
      where: { seriesId, active: true, startRunId: { in: [...inTail] }, id: { notIn: [...storedIds] } },
      data: { active: false, updatedAt: now },
    }),
    db().series.update({
      where: { id: seriesId },
      data: {
        status,
        trendJson: JSON.stringify(trend),
        lastValue: trend.at(-1) ?? null,
        lastMetric: primary?.key ?? null,
        judgedAt: now,
      },
    }),
  ]);

  const verdicts = new Map<string, RunVerdict>();
  const wanted = [...uploaded].filter((runId) => inTail.has(runId));
  if (wanted.length === 0) return verdicts;
  const changeRows = await db().seriesChange.findMany({
    where: { seriesId, runs: { some: { runId: { in: wanted } } } },
    include: { runs: { select: { runId: true } } },
    orderBy: { detectedAt: "asc" },
  });
  for (const runId of wanted) {
    const index = loaded.runs.findIndex((run) => run.id === runId);
    const run = loaded.runs[index]!;
    const previous = index > 0 ? loaded.runs[index - 1]! : null;
    const metrics = judgements.map((judgement): MetricVerdict => {
      const point = judgement.points.find((candidate) => candidate.runIds.includes(runId));
      const values = repeatValues(run, judgement.metric);
      return {
        key: judgement.metric.key,
        label: judgement.metric.label,
        unit: judgement.metric.unit,
        better: judgement.metric.better,
        value: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length,
        baseline_mean: point?.baseline?.mean ?? null,
        change_pct: point?.change_pct ?? null,
        z: point?.z !== undefined && point.z !== null && Number.isFinite(point.z) ? point.z : null,
        p: point?.p ?? null,
        test: point?.test ?? null,
        status: point?.status ?? "missing",
      };
    });
    const changes = changeRows
      .filter((row) => row.runs.some((link) => link.runId === runId))
      .map((row) => changeSummary(row, seriesId));
    verdicts.set(runId, {
      run_id: runId,
      series: { id: seriesId, name: loaded.row.name, url: seriesUrl, status },
      verdict: verdictOf(metrics, changes),
      level: loaded.level,
      metrics,
      changes,
      previous_run: previous ? { id: previous.id, url: `/runs/${previous.id}`, name: previous.name } : null,
      what_changed: previous ? whatChanged(previous.row, run.row) : [],
    });
  }
  return verdicts;
}

/** A run's verdict: a regression it is part of (not marked expected) outweighs everything else. */
export function verdictOf(metrics: readonly MetricVerdict[], changes: readonly ChangeSummary[]): Verdict {
  const counted = changes.filter((change) => change.status !== "expected");
  if (counted.some((change) => change.kind === "regression")) return "regression";
  if (metrics.some((metric) => metric.status === "worse")) return "suspicious";
  if (counted.some((change) => change.kind === "improvement") || metrics.some((m) => m.status === "better")) {
    return "improvement";
  }
  if (
    metrics.length === 0 ||
    metrics.every((metric) => metric.status === "insufficient" || metric.status === "missing")
  ) {
    return "insufficient";
  }
  return "ok";
}

/**
 * Judge the series of runs just stored. Never throws: a failure is logged and the runs come back without a
 * verdict, because judging must not fail an upload that was stored.
 */
export async function judgeUploadedRuns(runIds: readonly string[], baseUrl: string): Promise<Map<string, RunVerdict>> {
  const verdicts = new Map<string, RunVerdict>();
  try {
    const rows = await db().run.findMany({ where: { id: { in: [...runIds] } }, select: { id: true, seriesId: true } });
    const bySeries = new Map<string, string[]>();
    for (const row of rows) {
      if (!row.seriesId) continue;
      bySeries.set(row.seriesId, [...(bySeries.get(row.seriesId) ?? []), row.id]);
    }
    for (const [seriesId, ids] of bySeries) {
      const found = await judgeStoredSeries(seriesId, { uploadedRunIds: ids, baseUrl });
      for (const [runId, verdict] of found) verdicts.set(runId, verdict);
    }
  } catch (error) {
    console.error("[servebench] judging the uploaded runs failed; they are stored without a verdict", error);
  }
  return verdicts;
}

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

export interface SeriesAnnotationView {
  id: string;
  run_id: string;
  note: string | null;
  change_id: string | null;
  created_at: string;
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
  const drawn = onlyMetric === undefined ? null : (shown.find((metric) => metric.key === onlyMetric) ?? shown[0]);
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

function annotationView(row: Prisma.SeriesAnnotationGetPayload<object>): SeriesAnnotationView {
  return {
    id: row.id,
    run_id: row.runId,
    note: row.note,
    change_id: row.changeId,
    created_at: row.createdAt.toISOString(),
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

// ---------------------------------------------------------------------------------------------------------
// Annotations: expected changes

export async function addAnnotationOrThrow(
  seriesId: string,
  input: { run_id: string; note?: string | null | undefined },
): Promise<SeriesAnnotationView> {
  const run = await db().run.findUnique({ where: { id: input.run_id }, select: { seriesId: true } });
  if (!run)
    throw new AppError("validation_failed", `Run "${input.run_id}" not found.`, [
      { path: "run_id", message: "no such run" },
    ]);
  if (run.seriesId !== seriesId) {
    throw new AppError("validation_failed", `Run "${input.run_id}" is not in this series.`, [
      { path: "run_id", message: "is not a run of this series" },
    ]);
  }
  const row = await db().seriesAnnotation.create({
    data: { id: newSeriesId(), seriesId, runId: input.run_id, note: input.note?.trim() || null, createdAt: new Date() },
  });
  await judgeStoredSeries(seriesId);
  return annotationView(row);
}

export async function deleteAnnotationOrThrow(seriesId: string, annotationId: string): Promise<void> {
  const row = await db().seriesAnnotation.findFirst({
    where: { id: annotationId, seriesId },
    select: { changeId: true },
  });
  if (!row) throw notFoundError(`Annotation "${annotationId}"`);
  // An annotation made by marking a change expected goes with that mark.
  await db().$transaction([
    db().seriesAnnotation.deleteMany({ where: { id: annotationId } }),
    ...(row.changeId
      ? [db().seriesChange.updateMany({ where: { id: row.changeId, status: "expected" }, data: { status: "open" } })]
      : []),
  ]);
  await judgeStoredSeries(seriesId);
}

// ---------------------------------------------------------------------------------------------------------
// Alerts: the stored regressions

export interface AlertView extends ChangeSummary {
  note: string | null;
  series: { id: string; name: string; url: string };
  last_run_id: string;
  runs: string[];
  confirmed_at: string | null;
  z: number | null;
  p: number | null;
}

export interface AlertListQuery {
  status: AlertStatus | "all";
  page: number;
  per_page: number;
}

type AlertRow = Prisma.SeriesChangeGetPayload<{
  include: { series: { select: { id: true; name: true } }; runs: { select: { runId: true } } };
}>;

function alertView(row: AlertRow): AlertView {
  return {
    ...changeSummary(row, row.seriesId),
    note: row.note,
    series: { id: row.series.id, name: row.series.name, url: `/series/${row.series.id}` },
    last_run_id: row.lastRunId,
    runs: row.runs.map((link) => link.runId),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    z: row.zScore,
    p: row.pValue,
  };
}

const ALERT_INCLUDE = { series: { select: { id: true, name: true } }, runs: { select: { runId: true } } } as const;

export async function listAlerts(
  query: AlertListQuery,
): Promise<{ alerts: AlertView[]; total: number; counts: Record<AlertStatus, number> }> {
  const where: Prisma.SeriesChangeWhereInput = {
    kind: "regression",
    ...(query.status === "all" ? {} : { status: query.status }),
  };
  const [rows, total, grouped] = await Promise.all([
    db().seriesChange.findMany({
      where,
      include: ALERT_INCLUDE,
      orderBy: [{ detectedAt: "desc" }, { id: "asc" }],
      skip: (query.page - 1) * query.per_page,
      take: query.per_page,
    }),
    db().seriesChange.count({ where }),
    db().seriesChange.groupBy({ by: ["status"], where: { kind: "regression" }, _count: { _all: true } }),
  ]);
  const counts = Object.fromEntries(ALERT_STATUSES.map((status) => [status, 0])) as Record<AlertStatus, number>;
  for (const row of grouped) if (row.status in counts) counts[row.status as AlertStatus] = row._count._all;
  return { alerts: rows.map(alertView), total, counts };
}

export async function getAlertOrThrow(id: string): Promise<AlertView> {
  const row = await db().seriesChange.findUnique({ where: { id }, include: ALERT_INCLUDE });
  if (!row) throw notFoundError(`Alert "${id}"`);
  return alertView(row);
}

/**
 * Set an alert's status and note. "expected" restarts the series' baseline at the change's first run (an
 * annotation tied to the change); leaving "expected" removes it. The series is judged again either way.
 */
export async function updateAlertOrThrow(
  id: string,
  patch: { status?: AlertStatus | undefined; note?: string | null | undefined },
): Promise<AlertView> {
  const row = await db().seriesChange.findUnique({ where: { id }, select: { seriesId: true, startRunId: true } });
  if (!row) throw notFoundError(`Alert "${id}"`);
  const data: Prisma.SeriesChangeUpdateInput = { updatedAt: new Date() };
  if (patch.status !== undefined) data.status = patch.status;
  if (patch.note !== undefined) data.note = patch.note === null || patch.note.trim() === "" ? null : patch.note;
  await db().seriesChange.update({ where: { id }, data });
  if (patch.status === "expected") {
    const runExists = await db().run.findUnique({ where: { id: row.startRunId }, select: { id: true } });
    if (runExists) {
      try {
        await db().seriesAnnotation.create({
          data: {
            id: newSeriesId(),
            seriesId: row.seriesId,
            runId: row.startRunId,
            changeId: id,
            note: "expected change",
            createdAt: new Date(),
          },
        });
      } catch (error) {
        // Already marked expected: the unique change id keeps it one annotation.
        if (!isUniqueViolation(error)) throw error;
      }
    }
  } else if (patch.status !== undefined) {
    await db().seriesAnnotation.deleteMany({ where: { changeId: id } });
  }
  if (patch.status !== undefined) await judgeStoredSeries(row.seriesId);
  return getAlertOrThrow(id);
}

/** Changes a run is part of, for its page. */
export async function changesOfRun(
  runId: string,
): Promise<{ series: { id: string; name: string; url: string } | null; changes: ChangeSummary[] }> {
  const run = await db().run.findUnique({
    where: { id: runId },
    select: { series: { select: { id: true, name: true } } },
  });
  const rows = await db().seriesChange.findMany({
    where: { runs: { some: { runId } } },
    orderBy: { detectedAt: "asc" },
  });
  return {
    series: run?.series ? { id: run.series.id, name: run.series.name, url: `/series/${run.series.id}` } : null,
    changes: rows.map((row) => changeSummary(row, row.seriesId)),
  };
}

/** For the history: per run, the kinds of the changes it is part of (regressions not marked expected first). */
export async function changeBadgesOfRuns(
  runIds: readonly string[],
): Promise<Map<string, { kind: string; status: string; url: string }[]>> {
  // A Map, not an object: a run id is data, and "constructor" or "__proto__" is as good an id as any.
  const out = new Map<string, { kind: string; status: string; url: string }[]>();
  if (runIds.length === 0) return out;
  const links = await db().seriesChangeRun.findMany({
    where: { runId: { in: [...runIds] } },
    select: { runId: true, change: { select: { id: true, kind: true, status: true, seriesId: true } } },
  });
  for (const link of links) {
    const badges = out.get(link.runId) ?? [];
    out.set(link.runId, badges);
    badges.push({
      kind: link.change.kind,
      status: link.change.status,
      url: `/series/${link.change.seriesId}#change-${link.change.id}`,
    });
  }
  return out;
}

/** After a run is deleted: judge its series again so its summary and changes follow. */
export async function rejudgeSeriesOf(seriesId: string | null): Promise<void> {
  if (!seriesId) return;
  const exists = await db().series.findUnique({ where: { id: seriesId }, select: { id: true } });
  if (exists)
    await judgeStoredSeries(seriesId).catch((error: unknown) => console.error("[servebench] rejudging failed", error));
}
