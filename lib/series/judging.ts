/**
 * Judging a series: its newest runs are judged figure by figure, what changed is stored (changes.ts), its summary
 * refreshed and the regressions it declared announced (lib/webhooks); the runs just uploaded get their verdicts.
 * A series is judged again whenever what its judgement reads changes: an upload, its settings, an annotation, an
 * alert's status, a deleted run.
 */
import { db } from "@/lib/db/client";
import { sqliteRead } from "@/lib/db/sqlite-writes";
import { enqueueDeliveries } from "@/lib/webhooks/deliveries";
import { type CulpritRange, type MovedFigure, type WebhookPayload, webhookPayload } from "@/lib/webhooks/payload";
import { type FigureChangePoint, seriesChangePoints } from "./change-points";
import { type ChangeRow, type ChangeSummary, changeSummary } from "./change-summary";
import { type FoundChange, storeChanges } from "./changes";
import { culpritRange } from "./culprit";
import type { PointJudgement } from "./detect";
import { readChangesOfRuns, writeSeriesSummary } from "./judging-sqlite";
import {
  judgedMetrics,
  judgeLoaded,
  type LoadedSeries,
  loadSeries,
  type MetricJudgement,
  type SeriesRun,
  type SeriesStatus,
  seriesStatusOf,
  shownMetrics,
} from "./load";
import { leadingMetric, type SeriesMetric } from "./metrics";
import { repeatValues } from "./repeats";
import { whatChanged } from "./what-changed";

/** Judging reads the newest runs of a series, this many: far more than a baseline window needs. */
export const JUDGE_TAIL_RUNS = 200;

export type Verdict = "regression" | "suspicious" | "improvement" | "ok" | "insufficient";

export interface MetricVerdict {
  key: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  value: number | null;
  baseline_mean: number | null;
  /** Points in the baseline (after outliers were left out); null when not judged. */
  baseline_points: number | null;
  /** The baseline's noise σ as judged (for a short baseline, the noise model's): the interval the summary shows. */
  baseline_sigma: number | null;
  /**
   * True when the baseline was short (fewer than `min_samples` points): judged by the noise model for short
   * baselines (docs/series.md), so only large moves count and a verdict is less certain.
   */
  short_baseline: boolean;
  change_pct: number | null;
  z: number | null;
  p: number | null;
  test: "z" | "t" | null;
  status: PointJudgement["status"] | "missing";
}

/** One change the run is part of, with every figure that moved at it and where it came in. */
export interface RunCulprit {
  /** The alert's id (its first stored change) and where it is shown. */
  alert_id: string;
  url: string;
  kind: string;
  status: string;
  figures: MovedFigure[];
  culprit: CulpritRange;
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
  /**
   * The changes the run is part of (not marked expected), one per first bad point with every figure that moved
   * there: the last good and first bad run, what changed between them, where to bisect.
   */
  culprits: RunCulprit[];
  /**
   * Change points over the series' newest points (E-divisive means, permutation p-values, Benjamini–Hochberg across
   * the judged figures), recomputed at every upload beside the window rule: where the level moved, whatever the
   * window rule declared.
   */
  change_points: FigureChangePoint[];
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

/**
 * A judgement queued behind another of the same series waits this many times as long as the one before it took,
 * then starts, with every upload that arrived meanwhile. Under a stream of uploads into one series the judgements
 * otherwise run back to back, each starting as the last ends, and take most of the server's thread: 32 connections
 * uploading spent 4.6–5.4 ms of the thread an upload, 3.3–3.4 ms with judgements paced at 2 (docs/benchmarks.md,
 * "Ingest"). With 2, judging takes at most a third of the time a stream of uploads leaves it, and a verdict comes at
 * most two judgements' time later. A lone upload never waits: nothing was running when it asked.
 */
export const JUDGE_PACE = 2;
/** The longest a paced judgement waits, whatever the one before it took. */
export const JUDGE_PACE_MAX_WAIT_MS = 500;

interface JudgingState {
  /** Series with a judgement running now. */
  running: Set<string>;
  /** How long the last judgement of a series took, in ms, while another is queued behind it. */
  lastMs: Map<string, number>;
  judgementsStarted: number;
}
const stateHolder = globalThis as unknown as { servebenchJudgingState?: JudgingState };
function judgingState(): JudgingState {
  stateHolder.servebenchJudgingState ??= { running: new Set(), lastMs: new Map(), judgementsStarted: 0 };
  return stateHolder.servebenchJudgingState;
}

/** What this process's judging is doing: a series' judgement running, the last one's duration, how many started. */
export function judgingActivity(seriesId: string): { running: boolean; lastMs: number | null; started: number } {
  const state = judgingState();
  return {
    running: state.running.has(seriesId),
    lastMs: state.lastMs.get(seriesId) ?? null,
    started: state.judgementsStarted,
  };
}

/** A judgement of a series waiting for the one before it to end: later requests join it instead of queueing. */
interface QueuedJudgement {
  uploaded: Set<string>;
  baseUrl: string | undefined;
  result: Promise<Map<string, RunVerdict>>;
}
const queuedHolder = globalThis as unknown as { servebenchQueuedJudgements?: Map<string, QueuedJudgement> };

/**
 * Judge a series from its newest runs, store what changed, refresh its summary, queue announcements.
 *
 * Judgements of one series run one at a time, and while one runs, every request to judge the series again joins
 * the one queued behind it: 32 uploads into one series at once are judged in two or three judgements, not 32, each
 * reading every run stored before it started. The answer holds the verdicts of every run the joined requests
 * uploaded (each caller takes its own), as a judgement made after the last of them was stored gives them. The one
 * queued behind a running judgement is paced (JUDGE_PACE): it starts a while after that one ends.
 */
export function judgeStoredSeries(seriesId: string, options: JudgeOptions = {}): Promise<Map<string, RunVerdict>> {
  queuedHolder.servebenchQueuedJudgements ??= new Map();
  const queued = queuedHolder.servebenchQueuedJudgements;
  const waiting = queued.get(seriesId);
  const uploaded = options.uploadedRunIds ?? [];
  // Announcements link to the base URL: only requests with the same one (or nothing to announce) share a judgement.
  if (waiting && (uploaded.length === 0 || waiting.baseUrl === options.baseUrl)) {
    for (const runId of uploaded) waiting.uploaded.add(runId);
    return waiting.result;
  }
  const entry: QueuedJudgement = {
    uploaded: new Set(uploaded),
    baseUrl: options.baseUrl,
    result: Promise.resolve(new Map()),
  };
  queued.set(seriesId, entry);
  const state = judgingState();
  const behindAnother = state.running.has(seriesId);
  entry.result = serially(seriesId, async () => {
    if (behindAnother) {
      const waitMs = Math.min((state.lastMs.get(seriesId) ?? 0) * JUDGE_PACE, JUDGE_PACE_MAX_WAIT_MS);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    // Started: requests from now on queue the next judgement, which will read what they stored.
    if (queued.get(seriesId) === entry) queued.delete(seriesId);
    const started = performance.now();
    state.running.add(seriesId);
    state.judgementsStarted += 1;
    try {
      return await judgeNow(seriesId, {
        uploadedRunIds: [...entry.uploaded],
        ...(entry.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
      });
    } finally {
      state.running.delete(seriesId);
      // Kept only while a judgement waits behind this one: it is what that one is paced by.
      if (queued.has(seriesId)) state.lastMs.set(seriesId, performance.now() - started);
      else state.lastMs.delete(seriesId);
    }
  });
  return entry.result;
}

/** One judgement of a series: the runs it read, their judged figures, and when it was made. */
interface SeriesJudging {
  seriesId: string;
  loaded: LoadedSeries;
  /** The figures the series shows; its summary's trend is of the leading one (leadingMetric). */
  shown: SeriesMetric[];
  judgements: MetricJudgement[];
  /** The significant change points of the judged figures, after BH (change-points.ts). */
  changePoints: FigureChangePoint[];
  now: Date;
  /** The runs just uploaded. */
  uploaded: Set<string>;
  /** The runs judged: the newest of the series. */
  inTail: Set<string>;
  /** The absolute base of the links in announcements, without a trailing slash. */
  base: string;
}

async function judgeNow(seriesId: string, options: JudgeOptions): Promise<Map<string, RunVerdict>> {
  const loaded = await loadSeries(seriesId, JUDGE_TAIL_RUNS);
  const shown = shownMetrics(loaded);
  const judgements = await judgeLoaded(loaded, judgedMetrics(loaded, shown));
  const judging: SeriesJudging = {
    seriesId,
    loaded,
    shown,
    judgements,
    changePoints: seriesChangePoints(
      judgements.map((judgement) => ({
        key: judgement.metric.key,
        better: judgement.metric.better,
        points: judgement.points,
      })),
      seriesId,
    ),
    now: new Date(),
    uploaded: new Set(options.uploadedRunIds ?? []),
    inTail: new Set(loaded.runs.map((run) => run.id)),
    base: (options.baseUrl ?? "").replace(/(?<!\/)\/+$/, ""),
  };
  const storedIds = await storeAndAnnounceChanges(judging);
  const status = await storeSummary(judging, storedIds);
  return verdictsOfUploaded(judging, status);
}

/**
 * Store the changes the judgement found, and queue the announcement of each regression it declared that is still
 * active and holds a run just uploaded. Returns the ids of the stored changes.
 */
async function storeAndAnnounceChanges(judging: SeriesJudging): Promise<Set<string>> {
  const found = judging.judgements.flatMap((judgement) =>
    judgement.changes.map((change) => ({ metric: judgement.metric, change })),
  );
  const stored = await storeChanges(judging.seriesId, found, judging.now);
  const storedIds = new Set(stored.map((result) => result.id));
  const runsById = new Map(judging.loaded.runs.map((run) => [run.id, run]));
  // One announcement per change, however many figures moved at it: grouped by their first bad point.
  const announced = new Set<string>();
  for (const [index, { change }] of found.entries()) {
    const { newlyRegression } = stored[index]!;
    const announce = newlyRegression && change.active && change.runIds.some((runId) => judging.uploaded.has(runId));
    if (!announce || announced.has(change.startGroup)) continue;
    announced.add(change.startGroup);
    const group = await db().seriesChange.findMany({
      where: { seriesId: judging.seriesId, startGroup: change.startGroup, kind: "regression" },
      select: { id: true, _count: { select: { deliveries: true } } },
      orderBy: [{ detectedAt: "asc" }, { id: "asc" }],
    });
    // A figure confirmed after the others joins their alert, which was announced when it was declared.
    if (group.length === 0 || group.some((row) => row._count.deliveries > 0)) continue;
    const moved = found.filter(
      (other) => other.change.startGroup === change.startGroup && other.change.kind === "regression",
    );
    await enqueueDeliveries(group[0]!.id, announcement(judging, moved, group[0]!.id, runsById));
  }
  return storedIds;
}

function movedFigure({ metric, change }: FoundChange): MovedFigure {
  return {
    key: metric.key,
    label: metric.label,
    unit: metric.unit,
    better: metric.better,
    before: change.before,
    after: change.after,
    change_pct: change.change_pct,
  };
}

/** The webhook body that announces a regression with every figure that moved at it, its links absolute. */
function announcement(
  judging: SeriesJudging,
  moved: readonly FoundChange[],
  changeId: string,
  runsById: ReadonlyMap<string, SeriesRun>,
): WebhookPayload {
  const { base, seriesId } = judging;
  const seriesUrl = `/series/${seriesId}`;
  const { metric, change } = moved[0]!;
  const runIds = [...new Set(moved.flatMap((found) => found.change.runIds))];
  return webhookPayload({
    alert_id: changeId,
    series: { id: seriesId, name: judging.loaded.row.name, url: `${base}${seriesUrl}` },
    metric: { key: metric.key, label: metric.label, unit: metric.unit, better: metric.better },
    before: change.before,
    after: change.after,
    change_pct: change.change_pct,
    figures: moved.map(movedFigure),
    culprit: culpritRange(judging.loaded.runs, change.lastGoodRunId, change.startRunId, base) ?? {
      last_good: null,
      first_bad: {
        id: change.startRunId,
        url: `${base}/runs/${change.startRunId}`,
        name: change.startRunId,
        git_commit: null,
      },
      what_changed: [],
      bisect: null,
      compare_url: null,
    },
    runs: runIds.map((runId) => ({
      id: runId,
      url: `${base}/runs/${runId}`,
      name: runsById.get(runId)?.name ?? runId,
      git_commit: runsById.get(runId)?.git_commit ?? null,
    })),
    url: `${base}${seriesUrl}#change-${changeId}`,
    detected_at: judging.now.toISOString(),
  });
}

/**
 * Refresh the series' summary (its status, the trend of its leading figure) and retire the stored changes the
 * judgement did not find again. Returns the status.
 */
async function storeSummary(judging: SeriesJudging, storedIds: ReadonlySet<string>): Promise<SeriesStatus> {
  const { seriesId, loaded, now } = judging;
  const status = seriesStatusOf(judging.judgements);
  const primary = leadingMetric(judging.shown, loaded.settings.figures);
  const trend = primary
    ? loaded.runs.slice(-30).map((run) => {
        const values = repeatValues(run, primary);
        return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
      })
    : [];
  const trendJson = JSON.stringify(trend);
  const lastValue = trend.at(-1) ?? null;
  const lastMetric = primary?.key ?? null;
  const written = await writeSeriesSummary({
    seriesId,
    status,
    trendJson,
    lastValue,
    lastMetric,
    now,
    judgedRunIds: [...judging.inTail],
    keptChangeIds: [...storedIds],
  });
  if (written) return status;
  // Two writes to different rows, sent together.
  await Promise.all([
    // Stored changes that start inside the judged runs but were not found again (an expected change restarted
    // the baseline, the settings changed, a run was deleted) are no longer current.
    db().seriesChange.updateMany({
      where: { seriesId, active: true, startRunId: { in: [...judging.inTail] }, id: { notIn: [...storedIds] } },
      data: { active: false, updatedAt: now },
    }),
    db().series.update({
      where: { id: seriesId },
      data: {
        status,
        trendJson,
        lastValue,
        lastMetric,
        judgedAt: now,
      },
    }),
  ]);
  return status;
}

/** The verdicts of the runs just uploaded (those among the judged runs), each with the stored changes it is in. */
async function verdictsOfUploaded(judging: SeriesJudging, status: SeriesStatus): Promise<Map<string, RunVerdict>> {
  const verdicts = new Map<string, RunVerdict>();
  const wanted = [...judging.uploaded].filter((runId) => judging.inTail.has(runId));
  if (wanted.length === 0) return verdicts;
  const changeRows =
    (await readChangesOfRuns(judging.seriesId, wanted)) ??
    (await db().seriesChange.findMany({
      where: { seriesId: judging.seriesId, runs: { some: { runId: { in: wanted } } } },
      include: { runs: { select: { runId: true } } },
      orderBy: { detectedAt: "asc" },
    }));
  for (const runId of wanted) {
    const rows = changeRows.filter((row) => row.runs.some((link) => link.runId === runId));
    const changes = rows.map((row) => changeSummary(row, judging.seriesId));
    verdicts.set(runId, runVerdict(judging, runId, changes, status, culpritsOf(judging, rows)));
  }
  return verdicts;
}

function figureOrder(judging: SeriesJudging, metricKey: string): number {
  const index = judging.judgements.findIndex((judgement) => judgement.metric.key === metricKey);
  return index < 0 ? judging.judgements.length : index;
}

/** The changes a run is part of, one per first bad point (oldest stored change first), with their culprit range. */
function culpritsOf(judging: SeriesJudging, rows: readonly ChangeRow[]): RunCulprit[] {
  const byStart = new Map<string, ChangeRow[]>();
  for (const row of rows) {
    if (row.status === "expected") continue;
    byStart.set(row.startGroup, [...(byStart.get(row.startGroup) ?? []), row]);
  }
  const culprits: RunCulprit[] = [];
  for (const group of byStart.values()) {
    group.sort((a, b) => a.detectedAt.getTime() - b.detectedAt.getTime() || a.id.localeCompare(b.id));
    const first = group[0]!;
    const range = culpritRange(judging.loaded.runs, first.lastGoodRunId, first.startRunId);
    if (!range) continue;
    const kind = group.some((row) => row.kind === "regression") ? "regression" : first.kind;
    culprits.push({
      alert_id: first.id,
      url: `/series/${judging.seriesId}#change-${first.id}`,
      kind,
      status: first.status,
      // In the order the series judges its figures (single stream first), not the order they were stored in.
      figures: [...group]
        .sort((a, b) => figureOrder(judging, a.metric) - figureOrder(judging, b.metric))
        .map((row) => {
          const summary = changeSummary(row, judging.seriesId);
          const metric = judging.judgements.find((judgement) => judgement.metric.key === row.metric)?.metric;
          return {
            key: row.metric,
            label: summary.label,
            unit: summary.unit,
            better: metric?.better ?? "higher",
            before: row.before,
            after: row.after,
            change_pct: row.changePct,
          };
        }),
      culprit: range,
    });
  }
  return culprits;
}

/** One uploaded run's verdict: its figures against their baselines, and the stored changes it is part of. */
function runVerdict(
  judging: SeriesJudging,
  runId: string,
  changes: ChangeSummary[],
  status: SeriesStatus,
  culprits: RunCulprit[],
): RunVerdict {
  const { seriesId, loaded } = judging;
  const index = loaded.runs.findIndex((run) => run.id === runId);
  const run = loaded.runs[index]!;
  const previous = index > 0 ? loaded.runs[index - 1]! : null;
  const metrics = judging.judgements.map((judgement) => metricVerdict(judgement, run));
  return {
    run_id: runId,
    series: { id: seriesId, name: loaded.row.name, url: `/series/${seriesId}`, status },
    verdict: verdictOf(metrics, changes),
    level: loaded.level,
    metrics,
    changes,
    previous_run: previous ? { id: previous.id, url: `/runs/${previous.id}`, name: previous.name } : null,
    what_changed: previous ? whatChanged(previous.row, run.row) : [],
    culprits,
    change_points: judging.changePoints,
  };
}

/** A run's figure against its baseline, as the judgement found it. */
function metricVerdict(judgement: MetricJudgement, run: SeriesRun): MetricVerdict {
  const point = judgement.points.find((candidate) => candidate.runIds.includes(run.id));
  const values = repeatValues(run, judgement.metric);
  return {
    key: judgement.metric.key,
    label: judgement.metric.label,
    unit: judgement.metric.unit,
    better: judgement.metric.better,
    value: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length,
    baseline_mean: point?.baseline?.mean ?? null,
    baseline_points: point?.baseline?.n ?? null,
    baseline_sigma: point?.baseline?.sigma ?? null,
    short_baseline: point?.baseline?.short ?? false,
    change_pct: point?.change_pct ?? null,
    z: point?.z !== undefined && point.z !== null && Number.isFinite(point.z) ? point.z : null,
    p: point?.p ?? null,
    test: point?.test ?? null,
    status: point?.status ?? "missing",
  };
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
    // Read on every upload: straight from the connection on SQLite (a Prisma query is a millisecond or two).
    const rows =
      (await sqliteRead<{ id: string; seriesId: string | null }>(
        `SELECT "id", "seriesId" FROM "Run" WHERE "id" IN (SELECT value FROM json_each(?))`,
        [JSON.stringify(runIds)],
      )) ?? (await db().run.findMany({ where: { id: { in: [...runIds] } }, select: { id: true, seriesId: true } }));
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

/** After a run is deleted: judge its series again so its summary and changes follow. */
export async function rejudgeSeriesOf(seriesId: string | null): Promise<void> {
  if (!seriesId) return;
  const exists = await db().series.findUnique({ where: { id: seriesId }, select: { id: true } });
  if (exists)
    await judgeStoredSeries(seriesId).catch((error: unknown) => console.error("[servebench] rejudging failed", error));
}
