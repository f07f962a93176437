/**
 * An upload's runs stored and judged: what POST /api/runs answers once the upload worker has turned the request
 * into runs ready to store.
 */

import { type RunToStore, storeRuns } from "@/lib/runs/store";
import { checkSeriesConfigurations } from "@/lib/series/consistency";
import { judgeUploadedRuns, type RunVerdict } from "@/lib/series/judging";

export interface StoredUploadRun {
  id: string;
  url: string;
  name: string;
  /** "unknown" when nothing said which engine served the run: the CLI says so and names --engine. */
  engine: string;
  duplicate: boolean;
  series?: RunVerdict | undefined;
}

export interface StoredUploadAnswer {
  /** One run: its id and url (and duplicate, series); several: the first's id and url and every run. */
  body:
    | { id: string; url: string; engine: string; duplicate?: true; series?: RunVerdict }
    | { id: string; url: string; engine: string; duplicate?: true; runs: StoredUploadRun[] };
  /** 201 when anything was added, 200 when every run was there already. */
  status: 200 | 201;
  headers: Record<string, string>;
}

/**
 * Store the runs and judge each new one against its series. Content stored before is not stored again: the answer
 * names the existing run. `baseUrl` is where alert notifications link to.
 */
export async function storeUpload(entries: readonly RunToStore[], baseUrl: string): Promise<StoredUploadAnswer> {
  await checkSeriesConfigurations(entries.map((entry) => entry.document));
  const stored = await storeRuns(entries);
  // Each new run is judged against its series; never fails the upload (a failure leaves the run unjudged).
  const judgeStarted = performance.now();
  const added = stored.filter((run) => !run.duplicate).map((run) => run.id);
  const verdicts = await judgeUploadedRuns(added, baseUrl);
  const judgeMs = performance.now() - judgeStarted;
  const runs = stored.map((run, index) => ({
    id: run.id,
    url: `/runs/${run.id}`,
    name: run.name,
    // storeRuns answers in the order of the entries it was given.
    engine: entries[index]!.document.engine,
    duplicate: run.duplicate,
    ...(verdicts.has(run.id) ? { series: verdicts.get(run.id) } : {}),
  }));
  const first = runs[0]!;
  // Content stored before is not stored again: 200 with the existing run, 201 when anything was added.
  const allDuplicates = runs.every((run) => run.duplicate);
  const body =
    runs.length === 1
      ? {
          id: first.id,
          url: first.url,
          engine: first.engine,
          ...(first.duplicate ? { duplicate: true as const } : {}),
          ...(first.series ? { series: first.series } : {}),
        }
      : {
          id: first.id,
          url: first.url,
          engine: first.engine,
          ...(allDuplicates ? { duplicate: true as const } : {}),
          runs,
        };
  return {
    body,
    status: allDuplicates ? 200 : 201,
    headers: { Location: first.url, "Server-Timing": `judge;dur=${judgeMs.toFixed(1)};desc="series judgement"` },
  };
}
