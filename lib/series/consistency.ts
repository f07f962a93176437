/**
 * A named series keeps its configuration: a run sent to it whose model, GPU, GPU count or workload differs from
 * the series' runs is refused (a 422 naming the field), unless it says `series_override`: then it is stored in the
 * series, marked, and never judged with it. Without this, a run of another model sent with `--series` was judged a
 * −88% regression of the series.
 */
import { withSortedKeys } from "@/lib/canonical-json";
import { db } from "@/lib/db/client";
import type { RunDocument } from "@/lib/document/normalize";
import { AppError, type ErrorIssue } from "@/lib/errors";
import { parseJson } from "./load";

type SeriesConfigInput = Pick<RunDocument, "series" | "series_override" | "model" | "hardware" | "workload">;

/** What a named series holds fixed, as the run's document says it; undefined where the document is silent. */
interface HeldConfiguration {
  model: string;
  gpu: string | undefined;
  gpu_count: number | undefined;
  /** Canonical JSON of the workload, so key order does not count as a difference. */
  workload: string | undefined;
}

function heldOf(doc: Pick<RunDocument, "model" | "hardware" | "workload">): HeldConfiguration {
  return {
    model: doc.model,
    gpu: doc.hardware?.gpu,
    gpu_count: doc.hardware?.gpu_count,
    workload: doc.workload ? JSON.stringify(withSortedKeys(doc.workload)) : undefined,
  };
}

const FIELD_PATHS: Record<keyof HeldConfiguration, string> = {
  model: "model",
  gpu: "hardware.gpu",
  gpu_count: "hardware.gpu_count",
  workload: "workload",
};

function shown(value: string | number | undefined): string {
  return value === undefined ? "not stated" : typeof value === "number" ? String(value) : `"${value}"`;
}

/**
 * The fields where a run differs from its series. A field counts only when both state it: a file that does not
 * say its GPU is not another GPU.
 */
export function configurationConflicts(
  series: string,
  reference: HeldConfiguration,
  run: HeldConfiguration,
): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  for (const field of Object.keys(FIELD_PATHS) as (keyof HeldConfiguration)[]) {
    const theirs = reference[field];
    const ours = run[field];
    if (theirs === undefined || ours === undefined || theirs === ours) continue;
    issues.push({
      path: FIELD_PATHS[field],
      message:
        field === "workload"
          ? `the workload differs from the runs of series "${series}" (${ours} here, ${theirs} there); send series_override to store it in the series anyway (marked, not judged)`
          : `${shown(ours)} differs from the ${FIELD_PATHS[field]} of series "${series}" (${shown(theirs)}); send series_override to store it in the series anyway (marked, not judged)`,
    });
  }
  return issues;
}

/** The configuration a named series holds: that of its newest run not stored by override; null when it has none. */
async function seriesReference(series: string): Promise<HeldConfiguration | null> {
  const row = await db().run.findFirst({
    where: { series: { key: `name:${series}` }, seriesOverride: false },
    orderBy: [{ sortAt: "desc" }, { id: "desc" }],
    select: { model: true, gpu: true, gpuCount: true, workloadJson: true },
  });
  if (!row) return null;
  const workload = parseJson<RunDocument["workload"]>(row.workloadJson);
  return heldOf({
    model: row.model,
    ...(row.gpu !== null || row.gpuCount !== null
      ? {
          hardware: {
            ...(row.gpu !== null ? { gpu: row.gpu } : {}),
            ...(row.gpuCount !== null ? { gpu_count: row.gpuCount } : {}),
          },
        }
      : {}),
    ...(workload ? { workload } : {}),
  });
}

/**
 * Refuse an upload whose runs would join a named series they do not match (nothing is stored). Runs of one upload
 * that start a series are held to the first of them.
 */
export async function checkSeriesConfigurations(docs: readonly SeriesConfigInput[]): Promise<void> {
  const references = new Map<string, HeldConfiguration | null>();
  const issues: ErrorIssue[] = [];
  for (const [index, doc] of docs.entries()) {
    if (doc.series === undefined || doc.series_override === true) continue;
    if (!references.has(doc.series)) references.set(doc.series, await seriesReference(doc.series));
    const reference = references.get(doc.series) ?? null;
    const held = heldOf(doc);
    if (!reference) {
      references.set(doc.series, held);
      continue;
    }
    const prefix = docs.length > 1 ? `runs.${index}.` : "";
    for (const issue of configurationConflicts(doc.series, reference, held))
      issues.push({ path: `${prefix}${issue.path}`, message: issue.message });
  }
  const first = issues[0];
  if (!first) return;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  throw new AppError(
    "validation_failed",
    `The run does not match its series, nothing was stored. ${first.path}: ${first.message}${more}`,
    issues,
  );
}
