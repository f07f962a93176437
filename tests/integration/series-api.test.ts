/**
 * Series, detection and alerts through the real route handlers and a real SQLite file, with webhook
 * receivers on loopback: the synthetic nightly series uploaded night by night.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getAlert, PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as getDeliveries } from "@/app/api/alerts/deliveries/route";
import { GET as listAlertsRoute } from "@/app/api/alerts/route";
import { DELETE as deleteRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { POST as postAnnotation } from "@/app/api/series/[id]/annotations/route";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { GET as listSeriesRoute } from "@/app/api/series/route";
import { db } from "@/lib/db/client";
import { stopDeliveries } from "@/lib/webhooks/deliveries";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";

interface Received {
  body: Record<string, unknown>;
  status: number;
}

function receiver(answer: (count: number) => number) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      const status = answer(received.length);
      received.push({ body: JSON.parse(text) as Record<string, unknown>, status });
      response.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "boom");
    });
  });
  return {
    received,
    server,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)),
      ),
  };
}

const steady = receiver(() => 200);
const flaky = receiver((count) => (count === 0 ? 500 : 200));

beforeAll(async () => {
  const urls = [await steady.listen(), await flaky.listen()];
  // Read once, at the first env() call: before any request.
  process.env.SERVEBENCH_WEBHOOK_URLS = urls.join(", ");
  process.env.SERVEBENCH_WEBHOOK_RETRY_MS = "50";
});

afterAll(async () => {
  await stopDeliveries();
  await new Promise((resolve) => steady.server.close(resolve));
  await new Promise((resolve) => flaky.server.close(resolve));
});

type Body = Record<string, unknown> & {
  id: string;
  series?: { verdict: string; series: { id: string; status: string }; changes: { kind: string; metric: string }[] };
};

async function upload(doc: Record<string, unknown>): Promise<{ status: number; body: Body; timing: string | null }> {
  const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
  return {
    status: response.status,
    body: (await response.json()) as Body,
    timing: response.headers.get("server-timing"),
  };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls until no webhook delivery is pending or held by a sender: the end state of every delivery. */
async function waitForSettledDeliveries(): Promise<void> {
  for (;;) {
    const unsettled = await db().webhookDelivery.count({
      where: { OR: [{ status: "pending" }, { leaseUntil: { gt: new Date() } }] },
    });
    if (unsettled === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("a nightly series: 30 runs, 2% noise, a flake at run 10, a −10% step at run 20", () => {
  const docs = nightlyDocuments({ seed: 7, series: "nightly-h100", flakeAt: 10, stepAt: 20 });
  const verdicts: string[] = [];
  const ids: string[] = [];
  let seriesId = "";

  it("judges each upload as it arrives: suspicious at the flake, regression from the second run of the step", async () => {
    for (const doc of docs) {
      const { status, body, timing } = await upload(doc);
      expect(status).toBe(201);
      expect(timing).toMatch(/^judge;dur=\d+(\.\d)?;desc="series judgement"$/);
      ids.push(body.id);
      verdicts.push(body.series!.verdict);
      seriesId = body.series!.series.id;
    }
    // Judged from the third run on: the first two have no baseline.
    expect(verdicts.slice(0, 2)).toEqual(["insufficient", "insufficient"]);
    expect(verdicts[10]).toBe("suspicious");
    expect(verdicts[11]).toBe("ok");
    expect(verdicts[20]).toBe("suspicious");
    expect(verdicts.slice(21)).toEqual(Array(9).fill("regression"));
    expect(verdicts.slice(2, 20).filter((verdict) => verdict !== "ok")).toEqual(["suspicious"]);
  });

  it("lists the series with its status, count and trend", async () => {
    const response = await listSeriesRoute(new Request(`${BASE}/api/series`), noContext);
    const body = (await response.json()) as { series: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(1);
    expect(body.series[0]).toMatchObject({
      id: seriesId,
      name: "nightly-h100",
      explicit: true,
      status: "regression",
      run_count: 30,
      open_alerts: 1,
      last_metric: { key: "single_stream_tok_s", unit: "tok/s" },
    });
    expect((body.series[0]!.trend as number[]).length).toBe(30);
  });

  it("stores the flake as suspicious and the step as one regression, on single stream only", async () => {
    const response = await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId));
    const view = (await response.json()) as {
      changes: { kind: string; metric: string; start_run_id: string; violations: number; active: boolean }[];
      points: { run_id: string; what_changed: string[] }[];
      level: string;
      metrics: { key: string; judged: boolean }[];
    };
    expect(
      view.changes.map((change) => [change.kind, change.metric, change.start_run_id, change.violations, change.active]),
    ).toEqual([
      ["suspicious", "single_stream_tok_s", ids[10], 1, false],
      ["regression", "single_stream_tok_s", ids[20], 10, true],
    ]);
    expect(view.level).toBe("c:64");
    expect(view.metrics.filter((metric) => metric.judged).map((metric) => metric.key)).toEqual([
      "single_stream_tok_s",
      "peak_tok_s",
      "output_throughput@c:64",
      "mean_ttft_ms@c:64",
      "mean_tpot_ms@c:64",
    ]);
    expect(view.points[15]!.what_changed).toEqual([
      "engine version: 0.11.0 → 0.12.0",
      "commit: 0000000f0000 → 000000100000",
    ]);
  });

  it("delivers exactly one webhook per regression and URL, and retries after a 500", async () => {
    await waitFor(() => steady.received.length >= 1 && flaky.received.length >= 2, "the deliveries");
    // Every delivery settled (none pending, no sender holding one): a duplicate would have been sent by now.
    await waitForSettledDeliveries();
    expect(steady.received.map((entry) => entry.status)).toEqual([200]);
    expect(flaky.received.map((entry) => entry.status)).toEqual([500, 200]);
    const payload = steady.received[0]!.body;
    expect(payload).toMatchObject({
      event: "regression",
      series: { id: seriesId, name: "nightly-h100", url: `${BASE}/series/${seriesId}` },
      metric: { key: "single_stream_tok_s", label: "Single stream", unit: "tok/s", better: "higher" },
    });
    expect(payload.change_pct as number).toBeLessThan(-7);
    expect((payload.runs as { id: string }[]).map((run) => run.id)).toEqual([ids[20], ids[21]]);
    expect(payload.text).toMatch(
      /^Regression in nightly-h100, nightly 20 \(000000140000\) → nightly 21 \(000000150000\): Single stream [\d.]+ → [\d.]+ tok\/s \(-\d+\.\d%\) over 2 runs\. http/,
    );
    expect((payload.blocks as { type: string }[]).map((block) => block.type)).toEqual(["section", "context"]);
    expect(flaky.received[1]!.body).toEqual(flaky.received[0]!.body);

    const log = (await (await getDeliveries(new Request(`${BASE}/api/alerts/deliveries`), noContext)).json()) as {
      deliveries: { url: string; status: string; attempts: number; log: { http_status: number }[] }[];
    };
    expect(
      log.deliveries
        .map((entry) => [entry.url, entry.status, entry.attempts, entry.log.map((a) => a.http_status)])
        .sort(),
    ).toEqual(
      [
        [
          "http://127.0.0.1/…".replace("127.0.0.1", `127.0.0.1:${(flaky.server.address() as AddressInfo).port}`),
          "delivered",
          2,
          [500, 200],
        ],
        [
          "http://127.0.0.1/…".replace("127.0.0.1", `127.0.0.1:${(steady.server.address() as AddressInfo).port}`),
          "delivered",
          1,
          [200],
        ],
      ].sort(),
    );
  });

  it("lists the open alert; marking it expected restarts the baseline and clears the series", async () => {
    const list = (await (await listAlertsRoute(new Request(`${BASE}/api/alerts`), noContext)).json()) as {
      alerts: { id: string; status: string; series: { id: string } }[];
      counts: Record<string, number>;
    };
    expect(list.counts).toEqual({ open: 1, acknowledged: 0, expected: 0 });
    const alertId = list.alerts[0]!.id;
    const acknowledged = await patchAlert(
      jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "acknowledged", note: "looking at it" }),
      idContext(alertId),
    );
    expect(await acknowledged.json()).toMatchObject({
      status: "acknowledged",
      note: "looking at it",
      kind: "regression",
    });

    const expected = await patchAlert(
      jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "expected", note: "new sampler, slower on purpose" }),
      idContext(alertId),
    );
    expect(expected.status).toBe(200);
    const view = (await (
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId))
    ).json()) as {
      status: string;
      annotations: { run_id: string; change_id: string }[];
      changes: { id: string; status: string; active: boolean }[];
    };
    expect(view.annotations).toMatchObject([{ run_id: ids[20], change_id: alertId }]);
    expect(view.changes.find((change) => change.id === alertId)).toMatchObject({ status: "expected", active: false });
    expect(view.status).toBe("ok");

    // The next night is judged against the new level: not a regression.
    const next = nightlyDocuments({
      seed: 8,
      series: "nightly-h100",
      flakeAt: null,
      stepAt: 0,
      nights: 1,
      startDate: "2026-12-05T02:00:00Z",
    });
    const { body } = await upload({ ...next[0]!, git_commit: "feedface01" });
    expect(body.series!.verdict).toBe("ok");
    // Undoing the mark brings the regression back.
    await patchAlert(jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "open" }), idContext(alertId));
    const again = (await (
      await getAlert(new Request(`${BASE}/api/alerts/${alertId}`), idContext(alertId))
    ).json()) as Record<string, unknown>;
    expect(again).toMatchObject({ status: "open", active: true });
    expect(await db().seriesAnnotation.count()).toBe(0);
  });

  it("refuses bad changes with errors that name the field, changing nothing", async () => {
    const alertId = (await db().seriesChange.findFirstOrThrow({ where: { kind: "regression" } })).id;
    const bad = await patchAlert(
      jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "fixed" }),
      idContext(alertId),
    );
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ error: { code: "validation_failed", issues: [{ path: "status" }] } });
    const settings = await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { window: 1, colour: "red" } }),
      idContext(seriesId),
    );
    expect(settings.status).toBe(422);
    const issues = ((await settings.json()) as { error: { issues: { path: string }[] } }).error.issues.map(
      (issue) => issue.path,
    );
    expect(issues.sort()).toEqual(["settings.colour", "settings.window"]);
    const missing = await getSeries(new Request(`${BASE}/api/series/nope`), idContext("nope"));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: 'Series "nope" not found' } });
    const stranger = await upload({ ...docs[0]!, series: "another", git_commit: "abcdef1234" });
    const annotation = await postAnnotation(
      jsonRequest(`/api/series/${seriesId}/annotations`, "POST", { run_id: stranger.body.id }),
      idContext(seriesId),
    );
    expect(annotation.status).toBe(422);
    expect(await annotation.json()).toMatchObject({
      error: { issues: [{ path: "run_id", message: "is not a run of this series" }] },
    });
    expect(await db().seriesAnnotation.count()).toBe(0);
    expect((await db().series.findUniqueOrThrow({ where: { id: seriesId } })).settingsJson).toBe("{}");
  });

  it("applies changed settings at once: a 15% threshold leaves the step unflagged", async () => {
    const response = await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { threshold_pct: 15 } }),
      idContext(seriesId),
    );
    expect(await response.json()).toMatchObject({ settings: { threshold_pct: 15, z_threshold: 2.5, consecutive: 2 } });
    const view = (await (
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId))
    ).json()) as {
      status: string;
      changes: { active: boolean }[];
    };
    expect(view.status).toBe("ok");
    expect(view.changes.every((change) => !change.active)).toBe(true);
    await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { threshold_pct: null } }),
      idContext(seriesId),
    );
  });

  it("judges the series again when a run is deleted", async () => {
    const before = await db().seriesChangeRun.count({ where: { runId: ids[29] } });
    expect(before).toBe(1);
    const response = await deleteRun(
      new Request(`${BASE}/api/runs/${ids[29]}`, { method: "DELETE" }),
      idContext(ids[29]!),
    );
    expect(response.status).toBe(204);
    const change = await db().seriesChange.findFirstOrThrow({ where: { kind: "regression" }, include: { runs: true } });
    expect(change.runs.map((link) => link.runId)).not.toContain(ids[29]);
  });
});

describe("the same series with 3 repeats a night at one commit", () => {
  it("judges by Welch's t-test and declares the step after two nights", async () => {
    const docs = nightlyDocuments({ seed: 7, series: "nightly-repeats", flakeAt: 10, stepAt: 20, repeats: 3 });
    const verdicts: string[] = [];
    let last: Body["series"];
    for (const doc of docs) {
      const { body } = await upload(doc);
      verdicts.push(body.series!.verdict);
      last = body.series;
    }
    // Night 10's three runs: suspicious once the second repeat makes a t-test possible.
    expect(verdicts.slice(31, 33)).toEqual(["suspicious", "suspicious"]);
    expect(verdicts.slice(33, 36)).toEqual(["ok", "ok", "ok"]);
    expect(verdicts.slice(63)).toEqual(Array(27).fill("regression"));
    const metrics = (last as unknown as { metrics: { key: string; test: string; p: number }[] }).metrics;
    expect(metrics.find((metric) => metric.key === "single_stream_tok_s")).toMatchObject({ test: "t" });
    const view = (await (
      await getSeries(new Request(`${BASE}/api/series/${last!.series.id}`), idContext(last!.series.id))
    ).json()) as { changes: { kind: string; violations: number }[]; points: unknown[] };
    expect(view.points).toHaveLength(90);
    expect(view.changes.map((change) => [change.kind, change.violations])).toEqual([
      ["suspicious", 1],
      ["regression", 10],
    ]);
  });
});
