/**
 * Alerts: the stored regressions, their statuses and notes; and the changes a run is part of, for its page and the
 * history. The figures that moved together at one change (regressions of one series with the same first bad point)
 * are one alert: one row, one status, one note. Its id is that of its first stored change.
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
  /** Every figure that moved at this change, the alert's own first; acknowledging the alert acknowledges them. */
  figures: ChangeSummary[];
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

/** One alert from the rows of its group, oldest first: the first is the alert, the rest the figures beside it. */
function alertView(group: readonly AlertRow[]): AlertView {
  const row = group[0]!;
  return {
    ...changeSummary(row, row.seriesId),
    figures: group.map((member) => changeSummary(member, member.seriesId)),
    note: row.note,
    series: { id: row.series.id, name: row.series.name, url: `/series/${row.series.id}` },
    last_run_id: row.lastRunId,
    runs: [...new Set(group.flatMap((member) => member.runs.map((link) => link.runId)))],
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    z: row.zScore,
    p: row.pValue,
  };
}

const ALERT_INCLUDE = { series: { select: { id: true, name: true } }, runs: { select: { runId: true } } } as const;
const ALERT_ORDER = [{ detectedAt: "asc" as const }, { id: "asc" as const }];

/** The rows of the alert groups named by (series, first bad point), each group oldest first. */
async function groupsOf(keys: readonly { seriesId: string; startGroup: string }[]): Promise<AlertRow[][]> {
  if (keys.length === 0) return [];
  const rows = await db().seriesChange.findMany({
    where: { kind: "regression", OR: keys.map(({ seriesId, startGroup }) => ({ seriesId, startGroup })) },
    include: ALERT_INCLUDE,
    orderBy: ALERT_ORDER,
  });
  return keys
    .map(({ seriesId, startGroup }) => rows.filter((row) => row.seriesId === seriesId && row.startGroup === startGroup))
    .filter((group) => group.length > 0);
}

export async function listAlerts(
  query: AlertListQuery,
): Promise<{ alerts: AlertView[]; total: number; counts: Record<AlertStatus, number> }> {
  const where: Prisma.SeriesChangeWhereInput = {
    kind: "regression",
    ...(query.status === "all" ? {} : { status: query.status }),
  };
  // One alert per (series, first bad point): the groups are paged, newest first.
  const [page, all, grouped] = await Promise.all([
    db().seriesChange.groupBy({
      by: ["seriesId", "startGroup"],
      where,
      _min: { detectedAt: true },
      orderBy: [{ _min: { detectedAt: "desc" } }, { seriesId: "asc" }, { startGroup: "asc" }],
      skip: (query.page - 1) * query.per_page,
      take: query.per_page,
    }),
    db().seriesChange.groupBy({ by: ["seriesId", "startGroup"], where }),
    db().seriesChange.groupBy({ by: ["status", "seriesId", "startGroup"], where: { kind: "regression" } }),
  ]);
  const counts = Object.fromEntries(ALERT_STATUSES.map((status) => [status, 0])) as Record<AlertStatus, number>;
  for (const row of grouped) if (row.status in counts) counts[row.status as AlertStatus] += 1;
  const groups = await groupsOf(page);
  return { alerts: groups.map(alertView), total: all.length, counts };
}

/**
 * The names and commits of the runs the listed alerts point to (last good and first bad), for a page that names them
 * rather than saying "run": one query for the page.
 */
export async function alertRunNames(
  alerts: readonly AlertView[],
): Promise<Map<string, { name: string; git_commit: string | null }>> {
  const ids = [
    ...new Set(
      alerts.flatMap((alert) => [alert.start_run_id, ...(alert.last_good_run_id ? [alert.last_good_run_id] : [])]),
    ),
  ];
  if (ids.length === 0) return new Map();
  const rows = await db().run.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, gitCommit: true },
  });
  return new Map(rows.map((row) => [row.id, { name: row.name, git_commit: row.gitCommit }]));
}

/** The alert an id names: the group of the change with that id (any of its figures' ids finds it). */
async function alertGroupOf(id: string): Promise<AlertRow[]> {
  const row = await db().seriesChange.findUnique({ where: { id }, select: { seriesId: true, startGroup: true } });
  if (!row) throw notFoundError(`Alert "${id}"`);
  const [group] = await groupsOf([row]);
  if (!group) throw notFoundError(`Alert "${id}"`);
  return group;
}

export async function getAlertOrThrow(id: string): Promise<AlertView> {
  return alertView(await alertGroupOf(id));
}

/**
 * Set an alert's status and note. "expected" restarts the series' baseline at the change's first run (an
 * annotation tied to the change); leaving "expected" removes it. The series is judged again either way.
 */
export async function updateAlertOrThrow(
  id: string,
  patch: { status?: AlertStatus | undefined; note?: string | null | undefined },
): Promise<AlertView> {
  const group = await alertGroupOf(id);
  // The alert is its group's first change: its id is the one the expected annotation and the webhook carry.
  const row = group[0]!;
  const alertId = row.id;
  const data: Prisma.SeriesChangeUpdateManyMutationInput = { updatedAt: new Date() };
  if (patch.status !== undefined) data.status = patch.status;
  if (patch.note !== undefined) data.note = patch.note === null || patch.note.trim() === "" ? null : patch.note;
  await db().seriesChange.updateMany({ where: { id: { in: group.map((member) => member.id) } }, data });
  if (patch.status === "expected") {
    const runExists = await db().run.findUnique({ where: { id: row.startRunId }, select: { id: true } });
    if (runExists) {
      try {
        await db().seriesAnnotation.create({
          data: {
            id: newSeriesId(),
            seriesId: row.seriesId,
            runId: row.startRunId,
            changeId: alertId,
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
    await db().seriesAnnotation.deleteMany({ where: { changeId: { in: group.map((member) => member.id) } } });
  }
  if (patch.status !== undefined) await judgeStoredSeries(row.seriesId);
  return getAlertOrThrow(alertId);
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
