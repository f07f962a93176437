/**
 * Changing a stored run: its name, tags and notes (PATCH /api/runs/{id}), or deleting it.
 */

import { db } from "@/lib/db/client";
import { issuesFromZod, validationError } from "@/lib/document/normalize";
import { RunPatchSchema } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { AppError, notFoundError } from "@/lib/errors";
import { readJsonBody } from "@/lib/http/body";
import { searchColumnsOf } from "./derived-columns";
import { getRunOrThrow } from "./read";

export interface RunPatch {
  name?: string | undefined;
  tags?: string[] | undefined;
  notes?: string | null | undefined;
}

// A PATCH carries a few short fields; anything bigger is a mistake.
const PATCH_LIMIT_BYTES = 100_000;

/**
 * The change a PATCH asks for, validated and cleaned up: tags lower-cased once each, blank notes removed. The
 * answers (a 422 naming the field) are the ones the run's address has always given.
 */
export async function readRunPatch(request: Request): Promise<RunPatch> {
  const body = await readJsonBody(request, PATCH_LIMIT_BYTES);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationError([{ path: "", message: "expected a JSON object with name, tags or notes" }]);
  }
  const parsed = RunPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new AppError("validation_failed", `Invalid change. ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  const { name, tags, notes } = parsed.data;
  return {
    name,
    tags: tags === undefined ? undefined : [...new Set(tags.map((tag) => tag.toLowerCase()))],
    notes: notes === undefined ? undefined : notes === null || notes.trim() === "" ? null : notes,
  };
}

export async function updateRunOrThrow(id: string, patch: RunPatch): Promise<StoredRun> {
  const existing = await db().run.findUnique({
    where: { id },
    select: { id: true, name: true, engine: true, model: true, command: true, notes: true },
  });
  if (!existing) throw notFoundError(`Run "${id}"`);
  const name = patch.name ?? existing.name;
  const notes = patch.notes === undefined ? existing.notes : patch.notes;
  const searchColumns = searchColumnsOf({
    name,
    engine: existing.engine,
    model: existing.model,
    command: existing.command ?? undefined,
    notes: notes ?? undefined,
  });
  await db().$transaction([
    db().run.update({
      where: { id },
      data: { name, notes, ...searchColumns, updatedAt: new Date() },
    }),
    ...(patch.tags === undefined
      ? []
      : [
          db().runTag.deleteMany({ where: { runId: id } }),
          db().runTag.createMany({ data: patch.tags.map((tag) => ({ runId: id, tag })) }),
        ]),
  ]);
  return getRunOrThrow(id);
}

/** Delete a run; returns the series it was in, which has to be judged again. */
export async function deleteRunOrThrow(id: string): Promise<{ seriesId: string | null }> {
  const row = await db().run.findUnique({ where: { id }, select: { seriesId: true } });
  const result = await db().run.deleteMany({ where: { id } });
  if (result.count === 0) throw notFoundError(`Run "${id}"`);
  return { seriesId: row?.seriesId ?? null };
}
