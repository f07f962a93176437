/** Exporting and restoring through the real routes, for the tests of export and restore. */
import { expect } from "vitest";
import { PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as listAlerts } from "@/app/api/alerts/route";
import { POST as saveComparison } from "@/app/api/comparisons/route";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { POST as postRun } from "@/app/api/runs/route";
import { POST as postAnnotation } from "@/app/api/series/[id]/annotations/route";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import type { RestoreReport } from "@/lib/backup/restore-report";
import { db } from "@/lib/db/client";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";

/** Nothing stored: runs, their series (and so their changes and annotations), saved comparisons, deliveries. */
export async function clearEverything(): Promise<void> {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
  await db().series.deleteMany({});
}

/** The answer's JSON, once its status is the one expected (the body shows when it is not). */
export async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** GET /api/export, line by line. */
export async function exportLines(): Promise<Record<string, unknown>[]> {
  const text = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** POST /api/restore of these lines as an export file; its report. */
export async function restoreLines(lines: readonly unknown[]): Promise<RestoreReport> {
  const response = await restore(
    new Request(`${BASE}/api/restore`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
    }),
    noContext,
  );
  return json<RestoreReport>(response);
}

/** Everything a restore keeps, read through the API, in a form two instances can be compared by. */
export async function restoredState() {
  const runs = await db().run.findMany({ select: { id: true, name: true, seriesId: true }, orderBy: { id: "asc" } });
  const series = await db().series.findMany({ select: { id: true, key: true, settingsJson: true } });
  const views = [];
  for (const { id } of series) {
    const view = await json<{
      status: string;
      settings: Record<string, unknown>;
      changes: {
        id: string;
        kind: string;
        metric: string;
        status: string;
        note: string | null;
        start_run_id: string;
      }[];
      annotations: { id: string; run_id: string; note: string | null; change_id: string | null }[];
    }>(await getSeries(new Request(`${BASE}/api/series/${id}`), idContext(id)));
    views.push({
      id,
      status: view.status,
      settings: view.settings,
      changes: view.changes.map(({ id, kind, metric, status, note, start_run_id }) => ({
        id,
        kind,
        metric,
        status,
        note,
        start_run_id,
      })),
      annotations: view.annotations,
    });
  }
  const alerts = await json<{ alerts: { id: string; status: string; note: string | null; metric: string }[] }>(
    await listAlerts(new Request(`${BASE}/api/alerts?status=all`), noContext),
  );
  const comparisons = await db().comparison.findMany({ select: { slug: true, title: true, runIdsJson: true } });
  return {
    runs,
    series: series.map(({ id, key, settingsJson }) => ({ id, key, settings: JSON.parse(settingsJson) as unknown })),
    views: views.sort((a, b) => a.id.localeCompare(b.id)),
    alerts: alerts.alerts.map(({ id, status, note, metric }) => ({ id, status, note, metric })),
    comparisons,
  };
}

/**
 * A history to export, made through the API from `docs` (one nightly series): the series' threshold set, an
 * annotation with a note, the single-stream alert acknowledged with a note, a saved comparison of runs 17 and 18.
 * Everything stored before is cleared first. Returns the acknowledged alert's id.
 */
export async function buildHistory(docs: readonly unknown[]): Promise<string> {
  await clearEverything();
  const runIds: string[] = [];
  let seriesId = "";
  for (const doc of docs) {
    const body = await json<{ id: string; series: { series: { id: string } } }>(
      await postRun(jsonRequest("/api/runs", "POST", doc), noContext),
      201,
    );
    runIds.push(body.id);
    seriesId = body.series.series.id;
  }
  await json(
    await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { threshold_pct: 4 } }),
      idContext(seriesId),
    ),
  );
  await json(
    await postAnnotation(
      jsonRequest(`/api/series/${seriesId}/annotations`, "POST", { run_id: runIds[4], note: "new driver 580" }),
      idContext(seriesId),
    ),
    201,
  );
  const alerts = await json<{ alerts: { id: string; metric: string }[] }>(
    await listAlerts(new Request(`${BASE}/api/alerts`), noContext),
  );
  const acknowledgedId = alerts.alerts.find((alert) => alert.metric === "single_stream_tok_s")!.id;
  await json(
    await patchAlert(
      jsonRequest(`/api/alerts/${acknowledgedId}`, "PATCH", { status: "acknowledged", note: "vLLM #31337" }),
      idContext(acknowledgedId),
    ),
  );
  await json(
    await saveComparison(
      jsonRequest("/api/comparisons", "POST", { runs: [runIds[17], runIds[18]], title: "the step" }),
      noContext,
    ),
    201,
  );
  return acknowledgedId;
}
