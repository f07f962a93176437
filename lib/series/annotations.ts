/**
 * Annotations: expected changes. An annotation restarts its series' baseline at its run, so adding or removing one
 * judges the series again.
 */
import { db } from "@/lib/db/client";
import { AppError, notFoundError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { judgeStoredSeries } from "./judging";
import { newSeriesId } from "./key";

export interface SeriesAnnotationView {
  id: string;
  run_id: string;
  note: string | null;
  change_id: string | null;
  created_at: string;
}

export function annotationView(row: Prisma.SeriesAnnotationGetPayload<object>): SeriesAnnotationView {
  return {
    id: row.id,
    run_id: row.runId,
    note: row.note,
    change_id: row.changeId,
    created_at: row.createdAt.toISOString(),
  };
}

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
