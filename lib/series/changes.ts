/**
 * Storing the changes a judgement found (judging.ts).
 *
 * Portable to PostgreSQL with several app instances: rows are found by unique keys and moved between states
 * with conditional updates (a regression is announced by the one judgement whose update flipped it), never
 * by reading, deciding and writing back.
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import type { ChangeRow } from "./change-summary";
import type { DetectedChange } from "./detect";
import { type ChangeWithRuns, readChangesAt } from "./judging-sqlite";
import { newSeriesId } from "./key";
import type { SeriesMetric } from "./metrics";

export interface StoredChangeResult {
  id: string;
  /** This judgement made it a regression (created as one, or flipped from suspicious). */
  newlyRegression: boolean;
}

export interface FoundChange {
  metric: SeriesMetric;
  change: DetectedChange;
}

const changeKey = (metric: string, startGroup: string) => `${metric}\n${startGroup}`;

/**
 * Store the changes one judgement found. The stored rows and their run links are read in two queries for all of
 * them; a change is written only where it differs from its row (most of an upload's changes are the ones the
 * previous upload stored, unchanged), and the writes of different changes go out together.
 */
export async function storeChanges(
  seriesId: string,
  found: readonly FoundChange[],
  now: Date,
): Promise<StoredChangeResult[]> {
  if (found.length === 0) return [];
  const startGroups = [...new Set(found.map(({ change }) => change.startGroup))];
  const existing = (await readChangesAt(seriesId, startGroups)) ?? (await readChangesWithPrisma(seriesId, startGroups));
  const rows = new Map(existing.map((row) => [changeKey(row.metric, row.startGroup), row]));
  const links = new Map<string, Set<string>>(
    existing.map((row) => [row.id, new Set(row.runs.map((link) => link.runId))]),
  );
  // Figures that moved at one change are one alert: a figure confirmed after the others joins their status (an
  // acknowledged alert stays acknowledged when TPOT is confirmed a night after throughput).
  const groupStatus = new Map<string, string>();
  for (const row of existing) if (row.status !== "open") groupStatus.set(row.startGroup, row.status);
  return Promise.all(
    found.map(({ metric, change }) => {
      const row = rows.get(changeKey(metric.key, change.startGroup)) ?? null;
      return storeChange(seriesId, metric, change, now, row, row ? (links.get(row.id) ?? null) : null, {
        status: groupStatus.get(change.startGroup) ?? "open",
      });
    }),
  );
}

/** readChangesAt on PostgreSQL: the rows and their links in two queries for all of them. */
async function readChangesWithPrisma(seriesId: string, startGroups: readonly string[]): Promise<ChangeWithRuns[]> {
  const rows = await db().seriesChange.findMany({ where: { seriesId, startGroup: { in: [...startGroups] } } });
  if (rows.length === 0) return [];
  const linkRows = await db().seriesChangeRun.findMany({
    where: { changeId: { in: rows.map((row) => row.id) } },
    select: { changeId: true, runId: true },
  });
  return rows.map((row) => ({
    ...row,
    runs: linkRows.filter((link) => link.changeId === row.id).map((link) => ({ runId: link.runId })),
  }));
}

/** The figures of a stored change, as a judgement writes them. */
function changeFigures(change: DetectedChange) {
  return {
    startRunId: change.startRunId,
    lastGoodRunId: change.lastGoodRunId,
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
  group: { status: string },
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
          status: group.status,
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
