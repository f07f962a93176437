/**
 * Attaching accuracy results to a stored run (the files are read by lib/ingest/accuracy-upload.ts) (POST /api/runs/{id}/accuracy, `servebench upload --eval FILE --run
 * ID`): the evaluation often runs after the benchmark, against the same server. The files' scores join the run's;
 * a score of the same evaluator, task, metric and filter replaces the one stored.
 */
import { db } from "@/lib/db/client";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { AccuracyScore } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { AppError } from "@/lib/errors";
import { modelMismatchWarning } from "@/lib/formats/accuracy";
import type { AccuracyImport } from "@/lib/formats/accuracy-types";
import { getRunOrThrow } from "./read";

function scoreKey(score: AccuracyScore): string {
  return JSON.stringify([score.evaluator.toLowerCase(), score.task, score.metric, score.filter ?? null]);
}

/** Merge the files' scores into the run's (validated as the run's document would be) and store them. */
export async function attachAccuracyOrThrow(id: string, imports: readonly AccuracyImport[]): Promise<StoredRun> {
  const run = await getRunOrThrow(id);
  const byKey = new Map((run.accuracy ?? []).map((score) => [scoreKey(score), score]));
  const added = new Set<string>();
  for (const item of imports) {
    for (const score of item.scores) {
      const key = scoreKey(score);
      if (added.has(key)) {
        throw new AppError(
          "validation_failed",
          `Two of the files state ${score.task} ${score.metric}${score.filter ? ` (${score.filter})` : ""}: send one of them.`,
          [{ path: "file", message: `${item.file}: ${score.task} ${score.metric} given twice` }],
        );
      }
      added.add(key);
      byKey.set(key, score);
    }
  }
  const warnings = [
    ...run.warnings,
    ...imports.flatMap((item) => [
      ...item.warnings.map((warning) => `${item.file}: ${warning}`),
      ...[modelMismatchWarning(item, run.model)].filter((warning): warning is string => warning !== null),
    ]),
  ];
  const { id: _id, created_at: _created, ...document } = run;
  // The run's whole document is validated with the new scores: the same rules (and limits) as an upload's.
  const checked = normalizeRunDocument({ ...document, accuracy: [...byKey.values()], warnings });
  await db().run.update({
    where: { id },
    data: {
      accuracyJson: checked.accuracy ? JSON.stringify(checked.accuracy) : null,
      warningsJson: JSON.stringify(checked.warnings),
      updatedAt: new Date(),
    },
  });
  return getRunOrThrow(id);
}
