/**
 * Alerts: the stored regressions, their statuses and notes; and the changes a run is part of, for its page and the
 * history.
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { notFoundError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { type ChangeSummary, changeSummary, type RunChanges } from "./change-summary";
import { judgeStoredSeries } from "./judging";
import { newSeriesId } from "./key";
import { ALERT_STATUSES, type AlertStatus } from "./schema";

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
export async function changesOfRun(runId: string): Promise<RunChanges> {
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
