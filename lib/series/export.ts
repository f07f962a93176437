/**
 * A series in an export (GET /api/export) and its restore (POST /api/restore): what a team set and decided
 * about a series and that its runs alone cannot give back. The runs rebuild the series itself (its key comes
 * from them); the line carries its id (so `/series/<id>` links keep working), its detection settings, its
 * expected-change annotations, and its detected changes as they were found (each alert's id, status and note;
 * a change found at an upload stays even when later settings or annotations would not find it again).
 *
 * Restoring runs in two steps around the runs: `createRestoredSeries` before them (so the restored runs join the
 * series under its old id), `applyRestoredSeriesState` after them (changes and annotations point at runs).
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { type ExportedSeries, SERIES_FORMAT } from "./export-schema";
import { newSeriesId } from "./key";
import { judgeStoredSeries } from "./queries";
import { SeriesSettingsPatchSchema } from "./settings";

/**
 * Every series worth a line: those with settings, annotations or detected changes, and every series of two runs
 * or more (its page is worth a link). A series of one run with nothing set comes back from its run alone, under
 * a new id: writing those too would double the lines of a history of one-off runs.
 */
export async function* allSeriesExports(pageSize = 200): AsyncGenerator<ExportedSeries> {
  let cursor: string | undefined;
  for (;;) {
    const rows = await db().series.findMany({
      orderBy: { id: "asc" },
      take: pageSize,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      include: {
        annotations: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
        changes: { orderBy: [{ detectedAt: "asc" }, { id: "asc" }], include: { runs: { select: { runId: true } } } },
        _count: { select: { runs: true } },
      },
    });
    if (rows.length === 0) return;
    for (const row of rows) {
      const settings = SeriesSettingsPatchSchema.safeParse(safeJson(row.settingsJson));
      const chosen = settings.success ? settings.data : {};
      const worthALine =
        Object.keys(chosen).length > 0 || row.annotations.length > 0 || row.changes.length > 0 || row._count.runs > 1;
      if (!worthALine) continue;
      yield {
        format: SERIES_FORMAT,
        id: row.id,
        key: row.key,
        name: row.name,
        explicit: row.explicit,
        created_at: row.createdAt.toISOString(),
        settings: chosen,
        annotations: row.annotations.map((annotation) => ({
          id: annotation.id,
          run_id: annotation.runId,
          note: annotation.note,
          change_id: annotation.changeId,
          created_at: annotation.createdAt.toISOString(),
        })),
        changes: row.changes.map((change) => ({
          id: change.id,
          metric: change.metric,
          start_group: change.startGroup,
          start_run_id: change.startRunId,
          last_run_id: change.lastRunId,
          kind: change.kind as ExportedSeries["changes"][number]["kind"],
          direction: change.direction as ExportedSeries["changes"][number]["direction"],
          status: change.status as ExportedSeries["changes"][number]["status"],
          note: change.note,
          before: change.before,
          after: change.after,
          change_pct: change.changePct,
          z_score: change.zScore,
          p_value: change.pValue,
          violations: change.violations,
          active: change.active,
          detected_at: change.detectedAt.toISOString(),
          confirmed_at: change.confirmedAt?.toISOString() ?? null,
          updated_at: change.updatedAt.toISOString(),
          runs: change.runs.map((link) => link.runId).sort(),
        })),
      };
    }
    cursor = rows[rows.length - 1]!.id;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

export interface SeriesToRestore {
  line: number;
  series: ExportedSeries;
}

export interface RestoredSeries {
  line: number;
  id: string;
  status: "stored" | "already_present" | "refused";
  error?: { code: string; message: string };
  /** What of the line could not be kept (an annotation whose run is not here, an alert not found again). */
  notes?: string[];
}

/**
 * Step one, before the runs: each series line whose series is not here yet becomes a series row under its id and
 * key, with its settings, so the restored runs that compute that key join it. A series already here (by key or
 * id) is left as it is.
 */
export async function createRestoredSeries(entries: readonly SeriesToRestore[]): Promise<RestoredSeries[]> {
  const results: RestoredSeries[] = [];
  for (const { line, series } of entries) {
    const existing = await db().series.findFirst({
      where: { OR: [{ id: series.id }, { key: series.key }] },
      select: { id: true, key: true },
    });
    if (existing) {
      results.push(
        existing.id === series.id && existing.key === series.key
          ? { line, id: series.id, status: "already_present" }
          : existing.key === series.key
            ? {
                line,
                id: existing.id,
                status: "already_present",
                notes: [`this series is here already as /series/${existing.id}; its settings here were kept`],
              }
            : {
                line,
                id: series.id,
                status: "refused",
                error: {
                  code: "id_taken",
                  message: `Another series already has the id "${series.id}" here; the runs form their series under a new id.`,
                },
              },
      );
      continue;
    }
    try {
      await db().series.create({
        data: {
          id: series.id,
          key: series.key,
          name: series.name,
          explicit: series.explicit,
          createdAt: new Date(series.created_at),
          settingsJson: JSON.stringify(series.settings),
        },
      });
      results.push({ line, id: series.id, status: "stored" });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      results.push({
        line,
        id: series.id,
        status: "refused",
        error: { code: "id_taken", message: `Another series took the id "${series.id}" while restoring.` },
      });
    }
  }
  return results;
}

/**
 * Step two, after the runs: a stored series gets its detected changes back as they were (ids, so /alerts/<id>
 * links work; statuses, notes, when they were detected) and its annotations, then it is judged, which refreshes
 * its summary and brings any change up to date with the restored runs; every other series of two runs or more
 * that a restored run joined is judged too, so the series list and the alerts are current. A stored series that no restored run joined is
 * removed again (its key matched none of the export's runs) and its line refused. Judging never announces: these
 * regressions are old news.
 */
export async function applyRestoredSeriesState(
  entries: readonly SeriesToRestore[],
  created: RestoredSeries[],
  restoredRunIds: readonly string[],
): Promise<void> {
  const byLine = new Map(entries.map((entry) => [entry.line, entry.series]));
  const judged = new Set<string>();
  for (const result of created) {
    if (result.status !== "stored") continue;
    const series = byLine.get(result.line)!;
    const members = new Set(
      (await db().run.findMany({ where: { seriesId: result.id }, select: { id: true } })).map((run) => run.id),
    );
    if (members.size === 0) {
      await db().series.deleteMany({ where: { id: result.id } });
      result.status = "refused";
      result.error = {
        code: "no_runs",
        message: "No run of this series is here: its key matches none of the restored runs, so it was not kept.",
      };
      continue;
    }
    const notes: string[] = [];
    /** Exported change id → the id it has here. */
    const changeIds = new Map<string, string>();
    for (const change of series.changes) {
      if (!members.has(change.start_run_id)) {
        notes.push(
          `the ${change.kind} on ${change.metric} from run ${change.start_run_id} was not kept: that run is not in this series here`,
        );
        continue;
      }
      const data = {
        seriesId: result.id,
        metric: change.metric,
        startGroup: change.start_group,
        startRunId: change.start_run_id,
        lastRunId: change.last_run_id,
        kind: change.kind,
        direction: change.direction,
        status: change.status,
        note: change.note,
        before: change.before,
        after: change.after,
        changePct: change.change_pct,
        zScore: change.z_score,
        pValue: change.p_value,
        violations: change.violations,
        active: change.active,
        detectedAt: new Date(change.detected_at),
        confirmedAt: change.confirmed_at === null ? null : new Date(change.confirmed_at),
        updatedAt: new Date(change.updated_at),
      };
      const id = await createKeepingId(change.id, (candidate) =>
        db().seriesChange.create({ data: { id: candidate, ...data }, select: { id: true } }),
      );
      if (id === null) {
        notes.push(`the ${change.kind} on ${change.metric} from run ${change.start_run_id} is in the line twice`);
        continue;
      }
      changeIds.set(change.id, id);
      const linked = [...new Set(change.runs)].filter((runId) => members.has(runId));
      if (linked.length > 0) {
        await db().seriesChangeRun.createMany({ data: linked.map((runId) => ({ changeId: id, runId })) });
      }
    }
    for (const annotation of series.annotations) {
      if (!members.has(annotation.run_id)) {
        notes.push(`the annotation at run ${annotation.run_id} was not kept: that run is not in this series here`);
        continue;
      }
      const changeId = annotation.change_id === null ? null : (changeIds.get(annotation.change_id) ?? null);
      const data = {
        seriesId: result.id,
        runId: annotation.run_id,
        note: annotation.note,
        changeId,
        createdAt: new Date(annotation.created_at),
      };
      const id = await createKeepingId(annotation.id, (candidate) =>
        db().seriesAnnotation.create({ data: { id: candidate, ...data }, select: { id: true } }),
      );
      if (id === null) notes.push(`the annotation at run ${annotation.run_id} marks a change another one marks`);
    }
    await judgeStoredSeries(result.id);
    judged.add(result.id);
    if (notes.length > 0) result.notes = notes;
  }
  const joined = new Set<string>();
  // In slices: SQLite binds at most 32,766 parameters, and an export may hold a whole history.
  for (let start = 0; start < restoredRunIds.length; start += 500) {
    const rows = await db().run.findMany({
      where: { id: { in: restoredRunIds.slice(start, start + 500) }, seriesId: { not: null } },
      select: { seriesId: true },
      distinct: ["seriesId"],
    });
    for (const { seriesId } of rows) if (seriesId !== null) joined.add(seriesId);
  }
  // A series of one run has nothing to judge (its status stays "insufficient", the default) and a restored
  // history holds many: judging only the series of two runs or more keeps a restore of 100,000 one-off runs
  // from spending minutes on them.
  const pending = [...joined].filter((seriesId) => !judged.has(seriesId));
  for (let start = 0; start < pending.length; start += 500) {
    const counts = await db().run.groupBy({
      by: ["seriesId"],
      where: { seriesId: { in: pending.slice(start, start + 500) } },
      _count: { _all: true },
    });
    for (const row of counts) {
      if (row.seriesId === null || row._count._all < 2) continue;
      judged.add(row.seriesId);
      await judgeStoredSeries(row.seriesId);
    }
  }
}

/**
 * Create a row under its exported id, or under a new one when another row has that id here. Null when the row
 * itself is refused as a duplicate (the same series, metric and start twice; one annotation per change).
 */
async function createKeepingId(
  id: string,
  create: (candidate: string) => Promise<{ id: string }>,
): Promise<string | null> {
  const taken = async (candidate: string) => {
    try {
      return (await create(candidate)).id;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return undefined;
    }
  };
  const kept = await taken(id);
  if (kept !== undefined) return kept;
  // The id is taken, or the row's own unique key is: a fresh id tells which.
  return (await taken(newSeriesId())) ?? null;
}
