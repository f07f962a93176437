/**
 * A restore is a job: its body stored in parts as it arrives, its lines stored a part at a time, its progress
 * saved after each step. `Prefer: respond-async` answers 202 at once with the job to poll; a job whose process
 * stopped (its lease held by a process that is gone) is taken over and ends exactly as an uninterrupted restore.
 */
import os from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getJob } from "@/app/api/restore/jobs/[id]/route";
import { GET as listJobs } from "@/app/api/restore/jobs/route";
import { POST as restore } from "@/app/api/restore/route";
import { PART_BYTES } from "@/lib/backup/export-parts";
import {
  type RestoreJobView,
  readRestoreJob,
  receiveExport,
  runRestoreJobs,
  waitForRestoreJob,
} from "@/lib/backup/restore-jobs";
import type { RestoreReport } from "@/lib/backup/restore-report";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { MAX_LINE_BYTES } from "@/lib/ingest/restore-lines";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, noContext } from "./helpers";
import { buildHistory, clearEverything, exportLines, json, restoredState, restoreLines } from "./restore-helpers";

/** The export's lines, each padded with spaces (JSON allows them) so that the file spans several parts. */
function paddedExport(lines: readonly Record<string, unknown>[], padTo: number): string {
  return lines.map((line) => JSON.stringify(line).padEnd(padTo, " ")).join("\n");
}

function streamOf(text: string, chunkBytes = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

/** A process on this machine that has ended: its id, as a lease would name it. */
function deadHolder(): string {
  let pid = 4_000_000;
  for (;;) {
    try {
      process.kill(pid, 0);
      pid += 1;
    } catch {
      return `${os.hostname()}|${pid}|gone`;
    }
  }
}

function refused(): AppError {
  return new AppError("payload_too_large", "too large");
}

describe("restore jobs", () => {
  const docs = nightlyDocuments({ seed: 31, series: "nightly-jobs", flakeAt: 8, stepAt: 18 });
  let exported: Record<string, unknown>[] = [];
  let reference: Awaited<ReturnType<typeof restoredState>>;
  let referenceReport: RestoreReport;
  // ~150 kB a line: the export's 30-odd lines make five parts.
  const padTo = Math.ceil(PART_BYTES / 7);

  beforeAll(async () => {
    await buildHistory(docs);
    exported = await exportLines();
    await clearEverything();
    referenceReport = await restoreLines(exported);
    reference = await restoredState();
  });

  it("answers 202 at once with Prefer: respond-async, and the job ends with the report a waiting restore gives", async () => {
    await clearEverything();
    const response = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", prefer: "respond-async" },
        body: paddedExport(exported, padTo),
      }),
      noContext,
    );
    const pending = await json<RestoreJobView>(response, 202);
    expect(response.headers.get("location")).toBe(`/api/restore/jobs/${pending.id}`);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(pending).toMatchObject({ url: `/api/restore/jobs/${pending.id}`, finished_at: null });
    expect(pending.received.lines).toBe(exported.length);
    expect(pending.received.parts).toBeGreaterThanOrEqual(5);

    const finished = await waitForRestoreJob(pending.id, 600_000);
    expect(finished?.status).toBe("done");
    const polled = await json<RestoreJobView>(
      await getJob(new Request(`${BASE}${pending.url}`), idContext(pending.id)),
    );
    expect(polled.progress).toEqual({
      parts_done: pending.received.parts,
      parts_total: pending.received.parts,
      lines_done: exported.length,
    });
    expect(polled.report).toEqual(referenceReport);
    expect(polled.counts.runs).toEqual({ stored: docs.length, already_present: 0, refused: 0 });
    expect(await restoredState()).toEqual(reference);
    // The parts are deleted once the job is done; the job and its report stay.
    expect(await db().restoreJobPart.count({ where: { jobId: pending.id } })).toBe(0);
    const list = await json<{ jobs: RestoreJobView[] }>(
      await listJobs(new Request(`${BASE}/api/restore/jobs`), noContext),
    );
    expect(list.jobs[0]).toMatchObject({ id: pending.id, status: "done" });
    expect(list.jobs[0]).not.toHaveProperty("report");
  });

  it("answers 200 with the report when the job ends within the wait, and names the job in Content-Location", async () => {
    await clearEverything();
    const response = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", prefer: "wait=120" },
        body: paddedExport(exported, padTo),
      }),
      noContext,
    );
    const report = await json<RestoreReport>(response);
    expect(report).toEqual(referenceReport);
    expect(response.headers.get("content-location")).toMatch(/^\/api\/restore\/jobs\/[A-Za-z0-9_-]+$/);
  });

  it.each([
    [1, "its process on this machine has ended"],
    [2, "its lease, held on another machine, lapsed"],
    [4, "its process on this machine has ended"],
  ])("a job stopped after %i parts, taken over once %s, ends as an uninterrupted restore", async (partsDone, how) => {
    await clearEverything();
    const id = await receiveExport(streamOf(paddedExport(exported, padTo)), 1e9, refused);
    const received = (await readRestoreJob(id))!;
    expect(received.status).toBe("queued");
    expect(received.received.parts).toBeGreaterThan(partsDone);
    // Work on it here until it has stored `partsDone` parts, then give its lease to another process that is
    // alive, as if this one had stopped there: the step under way (its runs perhaps half stored) is not saved,
    // and this process stops working on the job at its next step.
    const working = runRestoreJobs();
    let handedOver = 0;
    while (handedOver === 0) {
      const handed = await db().restoreJob.updateMany({
        where: { id, status: "running", phase: "lines", nextPart: { gte: partsDone } },
        data: { leaseHolder: "another-machine|1|alive", leaseUntil: new Date(Date.now() + 3_600_000) },
      });
      handedOver = handed.count;
      if (handedOver === 0) {
        const job = await readRestoreJob(id);
        expect(job?.status, "the job ended before it could be interrupted").not.toBe("done");
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await working;
    const stopped = (await readRestoreJob(id))!;
    expect(stopped.status).toBe("running");
    expect(stopped.progress.parts_done).toBeGreaterThanOrEqual(partsDone);
    expect(stopped.progress.parts_done).toBeLessThan(stopped.progress.parts_total);
    // Held by a living process elsewhere: nobody takes it.
    await runRestoreJobs();
    expect((await readRestoreJob(id))!.progress).toEqual(stopped.progress);

    // The holder goes: the next pass (a sweep, or anyone asking after the job) resumes it.
    await db().restoreJob.update({
      where: { id },
      data:
        how === "its lease, held on another machine, lapsed"
          ? { leaseUntil: new Date(Date.now() - 1) }
          : { leaseHolder: deadHolder() },
    });
    await json(await getJob(new Request(`${BASE}/api/restore/jobs/${id}`), idContext(id)));
    const finished = await waitForRestoreJob(id, 600_000);
    expect(finished?.status).toBe("done");
    expect(finished?.report?.runs.refused).toBe(0);
    expect(finished!.report!.runs.stored + finished!.report!.runs.already_present).toBe(docs.length);
    expect(await restoredState()).toEqual(reference);
  });

  it("a job still receiving when its process died is failed, its parts deleted, and nothing of it stored", async () => {
    await clearEverything();
    const id = await receiveExport(streamOf(paddedExport(exported, padTo)), 1e9, refused);
    await db().restoreJob.update({
      where: { id },
      data: { status: "receiving", leaseHolder: deadHolder(), leaseUntil: new Date(Date.now() + 3_600_000) },
    });
    await runRestoreJobs();
    const job = (await readRestoreJob(id))!;
    expect(job.status).toBe("failed");
    expect(job.error?.message).toContain("post the file again");
    expect(await db().restoreJobPart.count({ where: { jobId: id } })).toBe(0);
    expect(await db().run.count()).toBe(0);
    const answer = await getJob(new Request(`${BASE}/api/restore/jobs/${id}`), idContext(id));
    expect((await json<RestoreJobView>(answer)).error?.code).toBe("bad_request");
  });

  it("a body over the limit leaves no job and no part", async () => {
    const jobsBefore = await db().restoreJob.count();
    await expect(receiveExport(streamOf(paddedExport(exported, padTo)), 2 * PART_BYTES, refused)).rejects.toThrow(
      "too large",
    );
    expect(await db().restoreJob.count()).toBe(jobsBefore);
    expect(await db().restoreJobPart.count({ where: { job: { status: "receiving" } } })).toBe(0);
  });

  it("reports a line longer than any run document without reading it, and restores the rest", async () => {
    await clearEverything();
    const long = `{"format":"servebench/v1","name":"${"x".repeat(MAX_LINE_BYTES)}"}`;
    const body = `${JSON.stringify(exported[0])}\n${long}\n${exported
      .slice(1)
      .map((line) => JSON.stringify(line))
      .join("\n")}\n`;
    const report = await json<RestoreReport>(
      await restore(
        new Request(`${BASE}/api/restore`, {
          method: "POST",
          headers: { "content-type": "application/x-ndjson" },
          body,
        }),
        noContext,
      ),
    );
    expect(report.unreadable).toBe(1);
    expect(report.lines).toContainEqual(
      expect.objectContaining({
        line: 2,
        status: "refused",
        error: expect.objectContaining({ code: "payload_too_large" }),
      }),
    );
    expect(await restoredState()).toEqual(reference);
  });

  it("answers 404 for a job id nobody made, and 422 for an empty export", async () => {
    const missing = await getJob(new Request(`${BASE}/api/restore/jobs/nope`), idContext("nope"));
    expect(missing.status).toBe(404);
    const empty = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: "\n \n",
      }),
      noContext,
    );
    const error = await json<{ error: { code: string; issues: { path: string; message: string }[] } }>(empty, 422);
    expect(error.error.issues).toContainEqual({ path: "body", message: "holds no lines" });
  });
});
