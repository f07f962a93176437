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
import { db, provider } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { type ExportedSeries, SERIES_FORMAT } from "@/lib/series/export-schema";
import { judgeStoredSeries } from "@/lib/series/judging";
import { newSeriesId } from "@/lib/series/key";
import { SeriesSettingsPatchSchema } from "@/lib/series/settings";

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
          last_good_run_id: change.lastGoodRunId,
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
  /**
   * Whether the line's changes and annotations are to be applied after the runs: a series stored now, and a
   * series this export stored before (a restore resumed after an interruption, a retry, an export restored in
   * parts), whose state may be partly or not at all applied yet. Applying is idempotent. Not in the answer.
   */
  applyState?: boolean;
}

/**
 * Whether a series here holds anything a person decided: settings, annotations, or a change whose status or
 * note someone set. Such a series is never taken over by a restore's line; one that holds only what judging
 * its runs found is the same series the line describes, and the line's state replaces what judging found.
 */
async function holdsDecisions(seriesId: string, settingsJson: string): Promise<boolean> {
  const settings = safeJson(settingsJson);
  if (typeof settings === "object" && settings !== null && Object.keys(settings).length > 0) return true;
  const annotations = await db().seriesAnnotation.count({ where: { seriesId } });
  if (annotations > 0) return true;
  const decided = await db().seriesChange.count({
    where: { seriesId, OR: [{ status: { not: "open" } }, { note: { not: null } }] },
  });
  return decided > 0;
}

/**
 * Step one, before the runs: each series line whose series is not here yet becomes a series row under its id and
 * key, with its settings, so the restored runs that compute that key join it.
 *
 * A series here already under the line's id and key was stored by an earlier restore of this export (one that
 * was interrupted, or a part of it): it is `already_present`, and its changes and annotations are applied again
 * in step two, which adds what is missing and leaves what is there. A series here under the line's key but
 * another id formed from runs restored without their series line (an export restored in parts): when it holds
 * nothing a person decided, it takes the line's id and settings, so `/series/<id>` and `/alerts/<id>` links work
 * as after a restore in one piece. A series a person set or decided something about here is left as it is.
 */
export async function createRestoredSeries(entries: readonly SeriesToRestore[]): Promise<RestoredSeries[]> {
  const results: RestoredSeries[] = [];
  for (const { line, series } of entries) {
    const existing = await db().series.findFirst({
      where: { OR: [{ id: series.id }, { key: series.key }] },
      select: { id: true, key: true, settingsJson: true },
    });
    if (existing && existing.id === series.id && existing.key === series.key) {
      results.push({ line, id: series.id, status: "already_present", applyState: true });
      continue;
    }
    if (existing && existing.key === series.key) {
      const idFree = (await db().series.count({ where: { id: series.id } })) === 0;
      if (idFree && !(await holdsDecisions(existing.id, existing.settingsJson))) {
        // The runs, changes and annotations follow the new id (ON UPDATE CASCADE).
        await db().series.update({
          where: { id: existing.id },
          data: {
            id: series.id,
            name: series.name,
            explicit: series.explicit,
            createdAt: new Date(series.created_at),
            settingsJson: JSON.stringify(series.settings),
          },
        });
        results.push({ line, id: series.id, status: "already_present", applyState: true });
        continue;
      }
      results.push({
        line,
        id: existing.id,
        status: "already_present",
        notes: [`this series is here already as /series/${existing.id}; its settings here were kept`],
      });
      continue;
    }
    if (existing) {
      results.push({
        line,
        id: series.id,
        status: "refused",
        error: {
          code: "id_taken",
          message: `Another series already has the id "${series.id}" here; the runs form their series under a new id.`,
        },
      });
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
      results.push({ line, id: series.id, status: "stored", applyState: true });
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

type ExportedChange = ExportedSeries["changes"][number];
type ExportedAnnotation = ExportedSeries["annotations"][number];

/**
 * One exported change into series `seriesId`, idempotently. Returns the id it has here, or a note saying why it
 * was not kept. Present already under its id (an earlier attempt of this restore stored it, and it may have been
 * handled here since): left as it is. Found by judging the restored runs under another id (same metric and
 * start): replaced by the exported one while nobody here has handled it, since the exported change carries the
 * id, status and note a team set; kept otherwise.
 */
async function restoreChange(
  seriesId: string,
  change: ExportedChange,
  members: ReadonlySet<string>,
): Promise<{ id: string } | { note: string }> {
  const what = `the ${change.kind} on ${change.metric} from run ${change.start_run_id}`;
  if (!members.has(change.start_run_id)) return { note: `${what} was not kept: that run is not in this series here` };
  if (!members.has(change.last_run_id))
    return { note: `${what} was not kept: its last run ${change.last_run_id} is not in this series here` };
  const byId = await db().seriesChange.findUnique({ where: { id: change.id }, select: { seriesId: true } });
  if (byId?.seriesId === seriesId) return { id: change.id };
  const byKey = await db().seriesChange.findUnique({
    where: { seriesId_metric_startGroup: { seriesId, metric: change.metric, startGroup: change.start_group } },
    select: { id: true, status: true, note: true },
  });
  if (byKey) {
    // The exported id is another series' here: an earlier attempt stored this change under a fresh id.
    if (byId) return { id: byKey.id };
    if (byKey.status !== "open" || byKey.note !== null)
      return { note: `${what} was not kept: this series has it already here as /alerts/${byKey.id}, handled here` };
    await db().seriesChange.delete({ where: { id: byKey.id } });
  }
  const data = {
    seriesId,
    metric: change.metric,
    startGroup: change.start_group,
    startRunId: change.start_run_id,
    // The last good run as exported, when it came back with the series: the judgement after the restore then finds
    // the change as it was, and leaves it (and its updated_at) alone.
    lastGoodRunId:
      change.last_good_run_id != null && members.has(change.last_good_run_id) ? change.last_good_run_id : null,
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
  if (id === null) return { note: `${what} is in the line twice` };
  const linked = [...new Set(change.runs)].filter((runId) => members.has(runId));
  if (linked.length > 0) {
    await db().seriesChangeRun.createMany({ data: linked.map((runId) => ({ changeId: id, runId })) });
  }
  return { id };
}

/**
 * One exported annotation into series `seriesId`, idempotently: one already here under its id, on the change it
 * marks, or with the same run, note and time (stored by an earlier attempt under a fresh id) is left as it is.
 */
async function restoreAnnotation(
  seriesId: string,
  annotation: ExportedAnnotation,
  members: ReadonlySet<string>,
  changeIds: ReadonlyMap<string, string>,
): Promise<string | null> {
  if (!members.has(annotation.run_id))
    return `the annotation at run ${annotation.run_id} was not kept: that run is not in this series here`;
  const changeId = annotation.change_id === null ? null : (changeIds.get(annotation.change_id) ?? null);
  const createdAt = new Date(annotation.created_at);
  const present = await db().seriesAnnotation.findFirst({
    where: {
      OR: [
        { id: annotation.id, seriesId },
        ...(changeId === null ? [] : [{ changeId }]),
        { seriesId, runId: annotation.run_id, note: annotation.note, createdAt },
      ],
    },
    select: { id: true },
  });
  if (present) return null;
  const data = { seriesId, runId: annotation.run_id, note: annotation.note, changeId, createdAt };
  const id = await createKeepingId(annotation.id, (candidate) =>
    db().seriesAnnotation.create({ data: { id: candidate, ...data }, select: { id: true } }),
  );
  return id === null ? `the annotation at run ${annotation.run_id} marks a change another one marks` : null;
}

/**
 * Step two, after the runs: a stored series gets its detected changes back as they were (ids, so /alerts/<id>
 * links work; statuses, notes, when they were detected) and its annotations, then it is judged, which refreshes
 * its summary and brings any change up to date with the restored runs; every other series of two runs or more
 * that a restored run joined (seriesJoinedBy) is judged too, so the series list and the alerts are current. A stored series that no restored run joined is
 * removed again (its key matched none of the export's runs) and its line refused. Judging never announces: these
 * regressions are old news.
 *
 * The same export posted again after an interruption ends as one posted once: a series an earlier attempt
 * stored gets what of its state is missing (every step above is idempotent), and is judged after that.
 */
export async function applyRestoredSeriesState(
  entries: readonly SeriesToRestore[],
  created: RestoredSeries[],
  joinedSeriesIds: Iterable<string>,
  /** Called after each series is judged: a restore job renews its lease there. */
  afterEach: () => Promise<void> = async () => undefined,
): Promise<void> {
  const byLine = new Map(entries.map((entry) => [entry.line, entry.series]));
  const judged = new Set<string>();
  for (const result of created) {
    const applyState = result.applyState === true;
    delete result.applyState;
    if (!applyState) continue;
    const series = byLine.get(result.line)!;
    const members = new Set(
      (await db().run.findMany({ where: { seriesId: result.id }, select: { id: true } })).map((run) => run.id),
    );
    if (members.size === 0) {
      if (result.status !== "stored") continue;
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
      const outcome = await restoreChange(result.id, change, members);
      if ("id" in outcome) changeIds.set(change.id, outcome.id);
      else notes.push(outcome.note);
    }
    for (const annotation of series.annotations) {
      const note = await restoreAnnotation(result.id, annotation, members, changeIds);
      if (note !== null) notes.push(note);
    }
    await judgeStoredSeries(result.id);
    judged.add(result.id);
    if (notes.length > 0) result.notes = [...(result.notes ?? []), ...notes];
    await afterEach();
  }
  const left = [...joinedSeriesIds].filter((seriesId) => !judged.has(seriesId));
  // On SQLite one series at a time: its queries hold the server's one thread, and another judgement beside it
  // would only wait. On PostgreSQL a judgement mostly waits on the database, so a few run side by side, each on
  // a connection of the pool (lib/db/client.ts), leaving the rest to the requests served meanwhile.
  const sideBySide = provider() === "sqlite" ? 1 : JUDGED_SIDE_BY_SIDE;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(sideBySide, left.length) }, async () => {
      while (next < left.length) {
        const seriesId = left[next]!;
        next += 1;
        await judgeStoredSeries(seriesId);
        await afterEach();
      }
    }),
  );
}

/** Series judged at once at the end of a restore on PostgreSQL: under half of the pool's connections. */
const JUDGED_SIDE_BY_SIDE = 4;

/**
 * The series of two runs or more that these restored runs joined: judged when the restore ends. A series of one
 * run has nothing to judge (its status stays "insufficient", the default) and a restored history holds many:
 * leaving them out keeps a restore of 100,000 one-off runs from spending minutes on them.
 */
export async function seriesJoinedBy(restoredRunIds: readonly string[]): Promise<string[]> {
  const joined = new Set<string>();
  // In slices: SQLite binds at most 32,766 parameters.
  for (let start = 0; start < restoredRunIds.length; start += 500) {
    const rows = await db().run.findMany({
      where: { id: { in: restoredRunIds.slice(start, start + 500) }, seriesId: { not: null } },
      select: { seriesId: true },
      distinct: ["seriesId"],
    });
    for (const { seriesId } of rows) if (seriesId !== null) joined.add(seriesId);
  }
  const candidates = [...joined];
  const judgeable: string[] = [];
  for (let start = 0; start < candidates.length; start += 500) {
    const counts = await db().run.groupBy({
      by: ["seriesId"],
      where: { seriesId: { in: candidates.slice(start, start + 500) } },
      _count: { _all: true },
    });
    for (const row of counts) if (row.seriesId !== null && row._count._all >= 2) judgeable.push(row.seriesId);
  }
  return judgeable;
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
