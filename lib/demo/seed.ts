import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { saveComparison } from "@/lib/comparisons/save";
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { AppError } from "@/lib/errors";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { createRun, storeRuns } from "@/lib/runs/store";
import { countRuns } from "@/lib/runs/summaries";
import { updateAlertOrThrow } from "@/lib/series/alerts";
import { updateSeriesSettingsOrThrow } from "@/lib/series/queries";
import {
  DEMO_RUN_COUNT,
  EXAMPLE_ALERT_NOTE,
  EXAMPLE_COMPARISON,
  EXAMPLE_FILES_DIR,
  EXAMPLE_SERIES_SETTINGS,
  EXAMPLE_SWEEPS,
} from "./example-sweeps";
import { DEMO_RUNS } from "./runs";

const FILES_ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "files");

/** One example sweep's files read as an upload reads them, then the context a person would type applied. */
export function exampleSweepDocument(index: number) {
  const sweep = EXAMPLE_SWEEPS[index];
  if (!sweep) throw new AppError("internal_error", `The demo has no example sweep ${index}.`);
  const folder = path.join(FILES_ROOT, EXAMPLE_FILES_DIR);
  const files = readdirSync(folder)
    .filter((name) => name.startsWith(sweep.filePrefix))
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(path.join(folder, name))) }));
  const plan = planRuns(readUploads(files, FORMAT_PARSERS), { split: false });
  const planned = plan.runs[0];
  if (!planned || plan.runs.length !== 1 || plan.conflicts.length > 0) {
    throw new AppError("internal_error", `The demo files ${sweep.filePrefix}* did not import as one run.`);
  }
  return normalizeRunDocument({ ...planned.document, ...sweep.context });
}

/**
 * The example sweeps, oldest first, then their series' settings (which judges it) and the saved comparison.
 * Only the instance that stored the first sweep goes on to the settings and the comparison, so instances starting
 * together on one PostgreSQL database save one comparison.
 */
async function seedExampleSweeps(start: Date): Promise<number> {
  const stored = [];
  for (const [index] of EXAMPLE_SWEEPS.entries()) {
    const [ref] = await storeRuns([
      { document: exampleSweepDocument(index), restoreCreatedAt: new Date(start.getTime() + index * 1000) },
    ]);
    if (ref) stored.push(ref);
  }
  const first = stored[0];
  if (!first || first.duplicate) return 0;
  const seriesId = await seriesIdOf(first.id);
  if (seriesId) {
    await updateSeriesSettingsOrThrow(seriesId, EXAMPLE_SERIES_SETTINGS);
    // The note a person would leave on the alert: what changed between the runs.
    const regressions = await db().seriesChange.findMany({ where: { seriesId, kind: "regression" } });
    for (const regression of regressions) await updateAlertOrThrow(regression.id, { note: EXAMPLE_ALERT_NOTE });
  }
  // The two sweeps at 1024 input tokens: DEP8 (the baseline, measured first) and TEP8.
  const [dep8, , tep8] = stored;
  if (dep8 && tep8) {
    await saveComparison({ ...EXAMPLE_COMPARISON, runs: [dep8.id, tep8.id], baseline: dep8.id });
  }
  return stored.length;
}

async function seriesIdOf(runId: string): Promise<string | null> {
  const row = await db().run.findUnique({ where: { id: runId }, select: { seriesId: true } });
  return row?.seriesId ?? null;
}

/** Load the demo runs into an empty database. Returns how many were loaded (0 when it was not empty). */
export async function seedDemoRunsIfEmpty(): Promise<number> {
  if ((await countRuns()) > 0) return 0;
  // One second apart, oldest first, so the history lists each example in the order it ran.
  const start = Date.now() - DEMO_RUN_COUNT * 1000;
  await seedExampleSweeps(new Date(start));
  const campaignStart = start + EXAMPLE_SWEEPS.length * 1000;
  for (const [index, run] of DEMO_RUNS.entries()) {
    try {
      await createRun(normalizeRunDocument(run), { createdAt: new Date(campaignStart + index * 1000) });
    } catch (error) {
      // Several instances starting together on one PostgreSQL database: another one stored this run first.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return DEMO_RUN_COUNT;
}
