/**
 * A restore posted again after an interruption ends exactly as one posted once: every run, the series (its id
 * and settings), each alert (id, status, note), the annotations and the saved comparison. Before, the series
 * line of an interrupted restore was "already_present" the second time and its state was never applied: the
 * acknowledged alert answered 404, judging had found it again as "open", its note and the annotation were gone.
 *
 * The interruptions: the server stopped after the series row and some runs were stored (step one of the restore
 * and part of its runs, then nothing), a restore of part of the file (its state applied to the runs there), and
 * an export restored in parts (its runs first, the series line last).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getAlert } from "@/app/api/alerts/[id]/route";
import { PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { createRestoredSeries } from "@/lib/backup/series";
import { db } from "@/lib/db/client";
import { exportedSeriesOf } from "@/lib/series/export-schema";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest } from "./helpers";
import { buildHistory, clearEverything, exportLines, json, restoredState, restoreLines } from "./restore-helpers";

describe("a restore resumed after an interruption", () => {
  const docs = nightlyDocuments({ seed: 23, series: "nightly-resume", flakeAt: 8, stepAt: 18 });
  let exported: Record<string, unknown>[] = [];
  let before: Awaited<ReturnType<typeof restoredState>>;
  let acknowledgedId = "";

  beforeAll(async () => {
    acknowledgedId = await buildHistory(docs);
    exported = await exportLines();
    // The reference: the export restored in one piece into an empty instance.
    await clearEverything();
    await restoreLines(exported);
    before = await restoredState();
    expect(before.alerts).toContainEqual({
      id: acknowledgedId,
      status: "acknowledged",
      note: "vLLM #31337",
      metric: "single_stream_tok_s",
    });
    expect(before.views[0]!.annotations.map((annotation) => annotation.note)).toContain("new driver 580");
    expect(before.comparisons).toHaveLength(1);
  });

  const runLines = () => exported.filter((line) => line.format === "servebench/v1");
  const otherLines = () => exported.filter((line) => line.format !== "servebench/v1");
  const seriesLine = () => exported.find((line) => line.format === "servebench/series-v1")!;

  it.each([0, 2, 13, 29])(
    "stopped after the series row and %i runs were stored: posting the file again restores it all",
    async (storedRuns) => {
      await clearEverything();
      // Step one of the restore (the series row, under its id and key), then part of the runs, then nothing
      // more: where a server stopped mid-restore leaves the database.
      await createRestoredSeries([{ line: exported.length, series: exportedSeriesOf(seriesLine()) }]);
      if (storedRuns > 0) await restoreLines(runLines().slice(0, storedRuns));
      const report = await restoreLines(exported);
      expect(report.runs).toEqual({ stored: docs.length - storedRuns, already_present: storedRuns, refused: 0 });
      expect(report.series).toEqual({ stored: 0, already_present: 1, refused: 0 });
      expect(await restoredState()).toEqual(before);
      const alert = await json<{ status: string; note: string }>(
        await getAlert(new Request(`${BASE}/api/alerts/${acknowledgedId}`), idContext(acknowledgedId)),
      );
      expect(alert).toMatchObject({ status: "acknowledged", note: "vLLM #31337" });
    },
  );

  it.each([5, 19])("a restore of the first %i runs and the series line, then of the whole file", async (count) => {
    await clearEverything();
    await restoreLines([...runLines().slice(0, count), ...otherLines()]);
    await restoreLines(exported);
    expect(await restoredState()).toEqual(before);
  });

  it("an export restored in parts: its runs first, then its comparison and series lines", async () => {
    await clearEverything();
    const runs = runLines();
    await restoreLines(runs.slice(0, 11));
    await restoreLines(runs.slice(11));
    const report = await restoreLines(otherLines());
    expect(report.series).toEqual({ stored: 0, already_present: 1, refused: 0 });
    expect(await restoredState()).toEqual(before);
  });

  it("the same file posted three times changes nothing after the first", async () => {
    await clearEverything();
    await restoreLines(exported);
    await restoreLines(exported);
    const third = await restoreLines(exported);
    expect(third.runs).toEqual({ stored: 0, already_present: docs.length, refused: 0 });
    expect(await restoredState()).toEqual(before);
  });

  it("leaves a series someone handled here as it is, and says so", async () => {
    await clearEverything();
    await restoreLines(runLines());
    // Someone sets a threshold on the series the runs formed before the series line arrives.
    const formed = await db().series.findFirstOrThrow({ select: { id: true } });
    await json(
      await patchSeries(
        jsonRequest(`/api/series/${formed.id}`, "PATCH", { settings: { threshold_pct: 9 } }),
        idContext(formed.id),
      ),
    );
    const report = await restoreLines(otherLines());
    const line = report.lines.find((entry) => entry.kind === "series")!;
    expect(line).toMatchObject({ id: formed.id, status: "already_present" });
    expect((line as { notes?: string[] }).notes?.[0]).toContain("its settings here were kept");
    const settings = await db().series.findUniqueOrThrow({ where: { id: formed.id }, select: { settingsJson: true } });
    expect(JSON.parse(settings.settingsJson)).toEqual({ threshold_pct: 9 });
  });
});
