/**
 * A series survives an export and a restore: its id (so /series/<id> links work), its detection settings, the
 * expected changes marked by hand, and each handled alert's status and note; the restored runs' series are
 * judged, so the series list and the alerts read as they did, and nothing is announced again.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getAlert, PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as listAlerts } from "@/app/api/alerts/route";
import { POST as postRun } from "@/app/api/runs/route";
import { POST as postAnnotation } from "@/app/api/series/[id]/annotations/route";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { GET as listSeries } from "@/app/api/series/route";
import { db } from "@/lib/db/client";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";
import { clearEverything, exportLines, json, restoreLines } from "./restore-helpers";

interface SeriesView {
  id: string;
  status: string;
  settings: Record<string, unknown>;
  changes: { id: string; kind: string; metric: string; status: string; start_run_id: string }[];
  annotations: { id: string; run_id: string; note: string | null; change_id: string | null }[];
}

/** What a person sees of a series and its alerts: compared before the export and after the restore. */
async function seen(seriesId: string) {
  const view = await json<SeriesView>(
    await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId)),
  );
  const alerts = await json<{ alerts: { id: string; status: string; note: string | null; metric: string }[] }>(
    await listAlerts(new Request(`${BASE}/api/alerts?status=all`), noContext),
  );
  const list = await json<{ series: { id: string; status: string; run_count: number; open_alerts: number }[] }>(
    await listSeries(new Request(`${BASE}/api/series?all=1`), noContext),
  );
  return {
    id: view.id,
    status: view.status,
    settings: view.settings,
    changes: view.changes.map(({ kind, metric, status, start_run_id }) => ({ kind, metric, status, start_run_id })),
    annotations: view.annotations.map(({ id, run_id, note, change_id }) => ({ id, run_id, note, manual: !change_id })),
    alerts: alerts.alerts.map(({ status, note, metric }) => ({ status, note, metric })),
    listed: list.series.map(({ id, status, run_count, open_alerts }) => ({ id, status, run_count, open_alerts })),
  };
}

describe("a series through export and restore", () => {
  const docs = nightlyDocuments({ seed: 11, series: "nightly-restore", flakeAt: 8, stepAt: 18 });
  const runIds: string[] = [];
  let seriesId = "";
  let before: Awaited<ReturnType<typeof seen>>;
  let exported: Record<string, unknown>[] = [];

  beforeAll(async () => {
    await clearEverything();
    for (const doc of docs) {
      const body = await json<{ id: string; series: { series: { id: string } } }>(
        await postRun(jsonRequest("/api/runs", "POST", doc), noContext),
        201,
      );
      runIds.push(body.id);
      seriesId = body.series.series.id;
    }
    // What a team sets and decides: a tighter threshold, an expected change marked by hand at run 5, and the
    // regression of the step acknowledged with a note.
    await json(
      await patchSeries(
        jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { threshold_pct: 4, consecutive: 2 } }),
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
    expect(alerts.alerts.map((alert) => alert.metric)).toContain("single_stream_tok_s");
    const step = alerts.alerts.find((alert) => alert.metric === "single_stream_tok_s")!;
    await json(
      await patchAlert(
        jsonRequest(`/api/alerts/${step.id}`, "PATCH", { status: "acknowledged", note: "vLLM #31337, fix in 0.12.1" }),
        idContext(step.id),
      ),
    );
    before = await seen(seriesId);
    exported = await exportLines();
  });

  it("exports the series a team touched as one line, after the runs and comparisons", async () => {
    const series = exported.filter((line) => line.format === "servebench/series-v1");
    expect(series).toHaveLength(1);
    expect(exported.at(-1)).toBe(series[0]);
    expect(series[0]).toMatchObject({
      id: seriesId,
      name: "nightly-restore",
      explicit: true,
      key: "name:nightly-restore",
      settings: { threshold_pct: 4, consecutive: 2 },
      annotations: [{ run_id: runIds[4], note: "new driver 580", change_id: null }],
    });
    // Every change as it was found, the flake found before the annotation included, with the alert's status.
    const changes = series[0]!.changes as { kind: string; status: string; note: string | null; start_run_id: string }[];
    expect(changes.map(({ kind, status, note, start_run_id }) => [kind, status, note, start_run_id])).toEqual([
      ["suspicious", "open", null, runIds[8]],
      ["regression", "acknowledged", "vLLM #31337, fix in 0.12.1", runIds[18]],
    ]);
    expect(before.alerts).toEqual([
      { status: "acknowledged", note: "vLLM #31337, fix in 0.12.1", metric: "single_stream_tok_s" },
    ]);
    expect(before.status).toBe("regression");
  });

  it("restores into an empty instance the same series: id, settings, annotations, alert statuses and the list", async () => {
    await clearEverything();
    const report = await restoreLines(exported);
    expect(report.runs).toEqual({ stored: docs.length, already_present: 0, refused: 0 });
    expect(report.series).toEqual({ stored: 1, already_present: 0, refused: 0 });
    expect(report.lines.at(-1)).toEqual({ line: exported.length, kind: "series", id: seriesId, status: "stored" });
    const after = await seen(seriesId);
    expect(after).toEqual(before);
    // Old news: restoring announces nothing.
    expect(await db().webhookDelivery.count()).toBe(0);
  });

  it("points the export sent to POST /api/runs at /api/restore, for its series lines too", async () => {
    const runLines = exported.filter((line) => line.format === "servebench/v1");
    const seriesLine = exported.find((line) => line.format === "servebench/series-v1")!;
    const response = await postRun(
      new Request(`${BASE}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: `${[...runLines.slice(0, 2), seriesLine].map((line) => JSON.stringify(line)).join("\n")}\n`,
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^This is a servebench export with saved comparisons or series: restore it with POST \/api\/restore/,
    );
  });

  it("restoring the same file again changes nothing and says so", async () => {
    const report = await restoreLines(exported);
    expect(report.runs).toEqual({ stored: 0, already_present: docs.length, refused: 0 });
    expect(report.series).toEqual({ stored: 0, already_present: 1, refused: 0 });
    expect(await seen(seriesId)).toEqual(before);
  });

  it("an export without series lines (an older one) still gives series that are judged", async () => {
    await clearEverything();
    const report = await restoreLines(exported.filter((line) => line.format !== "servebench/series-v1"));
    expect(report.series).toEqual({ stored: 0, already_present: 0, refused: 0 });
    const list = await json<{ series: { id: string; status: string; run_count: number }[] }>(
      await listSeries(new Request(`${BASE}/api/series`), noContext),
    );
    expect(list.series).toHaveLength(1);
    // A new id, default settings, and the step found again (open: nobody has looked at it here).
    expect(list.series[0]!.id).not.toBe(seriesId);
    expect(list.series[0]).toMatchObject({ status: "regression", run_count: docs.length });
    const alerts = await json<{ alerts: { status: string; metric: string }[] }>(
      await listAlerts(new Request(`${BASE}/api/alerts`), noContext),
    );
    expect(alerts.alerts.map((alert) => [alert.metric, alert.status])).toContainEqual(["single_stream_tok_s", "open"]);
  });

  it("refuses a broken series line by name, keeps the rest, and drops a series none of the runs joins", async () => {
    await clearEverything();
    const series = exported.find((line) => line.format === "servebench/series-v1")!;
    const report = await restoreLines([
      ...exported.filter((line) => line.format !== "servebench/series-v1"),
      { ...series, settings: { threshold_pct: -3 } },
      { ...series, id: "zzzzzzzzzz", key: "name:nobody-runs-this", annotations: [], changes: [] },
      { ...series, id: "not an id" },
    ]);
    const tail = report.lines.slice(-3);
    expect(tail[0]).toMatchObject({ kind: "series", status: "refused", error: { code: "validation_failed" } });
    expect(tail[0]!.error!.message).toContain("settings.threshold_pct");
    expect(tail[1]).toMatchObject({ kind: "series", id: "zzzzzzzzzz", status: "refused", error: { code: "no_runs" } });
    expect(tail[2]).toMatchObject({ kind: "series", status: "refused", error: { code: "validation_failed" } });
    expect(tail[2]!.error!.issues).toEqual([{ path: "id", message: 'must be 1–64 letters, digits, "-" or "_"' }]);
    expect(await db().series.count({ where: { id: "zzzzzzzzzz" } })).toBe(0);
    expect(report.runs.stored).toBe(docs.length);
  });

  it("takes a change that names a run twice, and two series lines with one id, without an error", async () => {
    await clearEverything();
    const series = exported.find((line) => line.format === "servebench/series-v1")!;
    const changes = series.changes as { runs: string[] }[];
    const doubled = {
      ...series,
      changes: changes.map((change) => ({ ...change, runs: [...change.runs, ...change.runs] })),
    };
    const report = await restoreLines([
      ...exported.filter((line) => line.format !== "servebench/series-v1"),
      doubled,
      doubled,
    ]);
    expect(report.lines.slice(-2).map((line) => line.status)).toEqual(["stored", "already_present"]);
    const links = await db().seriesChangeRun.count();
    expect(links).toBe(new Set(changes.flatMap((change, index) => change.runs.map((run) => `${index}:${run}`))).size);
  });

  it("keeps the annotations' run check: one at a run of another series is reported, not stored", async () => {
    await clearEverything();
    const series = exported.find((line) => line.format === "servebench/series-v1")!;
    const other = await json<{ id: string }>(
      await postRun(jsonRequest("/api/runs", "POST", { ...docs[0]!, series: "another", name: "elsewhere" }), noContext),
      201,
    );
    const annotations = series.annotations as { id: string; run_id: string; note: string; created_at: string }[];
    expect(annotations).toHaveLength(1);
    const report = await restoreLines([
      ...exported.filter((line) => line.format !== "servebench/series-v1"),
      { ...series, annotations: [...annotations, { ...annotations[0]!, id: "aaaaaaaaaa", run_id: other.id }] },
    ]);
    const line = report.lines.at(-1)!;
    expect(line).toMatchObject({ kind: "series", id: seriesId, status: "stored" });
    expect(line.notes).toEqual([`the annotation at run ${other.id} was not kept: that run is not in this series here`]);
    const view = await json<SeriesView>(
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId)),
    );
    expect(
      view.annotations.filter((annotation) => !annotation.change_id).map((annotation) => annotation.run_id),
    ).toEqual([runIds[4]]);
    const step = view.changes.find(
      (change) => change.metric === "single_stream_tok_s" && change.kind === "regression",
    )!;
    const alert = await json<{ status: string; note: string }>(
      await getAlert(new Request(`${BASE}/api/alerts/${step.id}`), idContext(step.id)),
    );
    expect(alert).toMatchObject({ status: "acknowledged", note: "vLLM #31337, fix in 0.12.1" });
  });
});
