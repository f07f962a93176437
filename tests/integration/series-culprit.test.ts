/**
 * Regressions that name the culprit, through the real route handlers and a real database: a −10% step at night 20
 * that moves every figure (single stream, peak, and output throughput, TTFT and TPOT at c:64) is one alert, one
 * webhook naming the last good and first bad night with their commits and every moved figure; acknowledging it
 * acknowledges them all; from its third bad night "what changed" still reads last good → first bad.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getAlert, PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as listAlertsRoute } from "@/app/api/alerts/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import type { RunVerdict } from "@/lib/series/judging";
import { stopDeliveries } from "@/lib/webhooks/deliveries";
import type { WebhookPayload } from "@/lib/webhooks/payload";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { uploadSummary } from "../../scripts/cli/summary";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";
import { clearEverything, exportLines, restoreLines } from "./restore-helpers";

const hooks: WebhookPayload[] = [];
const receiver = http.createServer((request, response) => {
  let text = "";
  request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  request.on("end", () => {
    hooks.push(JSON.parse(text) as WebhookPayload);
    response.writeHead(200).end("ok");
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  process.env.SERVEBENCH_WEBHOOK_URLS = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await stopDeliveries();
  await new Promise((resolve) => receiver.close(resolve));
});

async function deliveriesSettled(): Promise<void> {
  for (;;) {
    const unsettled = await db().webhookDelivery.count({
      where: { OR: [{ status: "pending" }, { leaseUntil: { gt: new Date() } }] },
    });
    if (unsettled === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Night 20 is index 19: "nightly 20", its commit 0x14 repeated; the last good night is "nightly 19" (0x13).
const docs = nightlyDocuments({ seed: 7, series: "culprit", flakeAt: null, stepAt: 19, stepEveryFigure: true });
const COMMIT_19 = "00000013".repeat(5);
const COMMIT_20 = "00000014".repeat(5);
const verdicts: RunVerdict[] = [];
const ids: string[] = [];

describe("a −10% step at night 20 that moves every figure", () => {
  it("is judged regression from the night it is confirmed, naming nights 19 → 20 every night after", async () => {
    for (const doc of docs) {
      const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
      expect(response.status).toBe(201);
      const body = (await response.json()) as { id: string; series: RunVerdict };
      ids.push(body.id);
      verdicts.push(body.series);
    }
    const kinds = verdicts.map((verdict) => verdict.verdict);
    expect(kinds.slice(0, 2)).toEqual(["insufficient", "insufficient"]);
    expect(kinds.slice(2, 19).every((kind) => kind === "ok")).toBe(true);
    expect(kinds[19]).toBe("suspicious");
    expect(kinds.slice(20)).toEqual(Array(10).fill("regression"));
    for (const verdict of verdicts.slice(19)) {
      const culprit = verdict.culprits.find((candidate) => candidate.kind !== "improvement")!;
      expect(culprit.culprit.last_good).toMatchObject({ name: "nightly 19", git_commit: COMMIT_19 });
      expect(culprit.culprit.first_bad).toMatchObject({ name: "nightly 20", git_commit: COMMIT_20 });
      // The third bad night on still reads the culprit range, not the difference of two bad nights.
      expect(culprit.culprit.what_changed).toContain(`commit: ${COMMIT_19.slice(0, 12)} → ${COMMIT_20.slice(0, 12)}`);
      expect(culprit.culprit.bisect).toBe(
        `bisect between commits ${COMMIT_19.slice(0, 12)} and ${COMMIT_20.slice(0, 12)}`,
      );
      expect(culprit.culprit.compare_url).toBe(`/compare?runs=${ids[18]},${ids[19]}`);
    }
    // The change points over the whole stretch, beside the window rule: each figure's at night 20, after BH.
    const atStep = verdicts[29]!.change_points.filter((point) => point.first_bad_run_id === ids[19]);
    expect(atStep.map((point) => point.metric).sort()).toEqual(
      ["mean_tpot_ms@c:64", "mean_ttft_ms@c:64", "output_throughput@c:64", "peak_tok_s", "single_stream_tok_s"].sort(),
    );
    expect(atStep.every((point) => point.direction === "worse" && point.last_good_run_id === ids[18])).toBe(true);
    expect(atStep.every((point) => point.p < 0.05)).toBe(true);
    // Recomputed at every upload: before the step there is none at night 20, and a steady stretch shows none.
    expect(verdicts[15]!.change_points).toEqual([]);
    const figures = verdicts[25]!.culprits[0]!.figures.map((figure) => figure.key).sort();
    expect(figures).toEqual(
      ["mean_tpot_ms@c:64", "mean_ttft_ms@c:64", "output_throughput@c:64", "peak_tok_s", "single_stream_tok_s"].sort(),
    );
  });

  it("sends one webhook naming the culprit range and every moved figure", async () => {
    await deliveriesSettled();
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    expect(hook.figures.map((figure) => figure.key).sort()).toEqual(
      ["mean_tpot_ms@c:64", "mean_ttft_ms@c:64", "output_throughput@c:64", "peak_tok_s", "single_stream_tok_s"].sort(),
    );
    expect(hook.culprit.last_good).toMatchObject({ name: "nightly 19", git_commit: COMMIT_19 });
    expect(hook.culprit.first_bad).toMatchObject({ name: "nightly 20", git_commit: COMMIT_20 });
    expect(hook.text).toContain(`nightly 19 (${COMMIT_19.slice(0, 12)}) → nightly 20 (${COMMIT_20.slice(0, 12)})`);
    expect(hook.culprit.compare_url).toBe(`${BASE}/compare?runs=${ids[18]},${ids[19]}`);
  });

  it("is one open alert listing every figure; acknowledging it acknowledges them all", async () => {
    const list = (await (await listAlertsRoute(new Request(`${BASE}/api/alerts`), noContext)).json()) as {
      alerts: { id: string; figures: { metric: string; status: string }[]; last_good_run_id: string }[];
      total: number;
      counts: { open: number; acknowledged: number };
    };
    expect(list.total).toBe(1);
    expect(list.counts.open).toBe(1);
    expect(list.alerts[0]!.figures).toHaveLength(5);
    expect(list.alerts[0]!.last_good_run_id).toBe(ids[18]);
    const alertId = list.alerts[0]!.id;
    expect(alertId).toBe(hooks[0]!.alert_id);
    const patched = await patchAlert(
      jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "acknowledged", note: "engine bump, on it" }),
      idContext(alertId),
    );
    expect(patched.status).toBe(200);
    const rows = await db().seriesChange.findMany({ where: { kind: "regression" } });
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => row.status === "acknowledged" && row.note === "engine bump, on it")).toBe(true);
    // Any of its figures' ids names the same alert.
    const other = rows.find((row) => row.id !== alertId)!;
    const viaOther = (await (
      await getAlert(new Request(`${BASE}/api/alerts/${other.id}`), idContext(other.id))
    ).json()) as {
      id: string;
      status: string;
    };
    expect(viaOther).toMatchObject({ id: alertId, status: "acknowledged" });
    const after = (await (await listAlertsRoute(new Request(`${BASE}/api/alerts`), noContext)).json()) as {
      counts: { open: number; acknowledged: number };
    };
    expect(after.counts).toMatchObject({ open: 0, acknowledged: 1 });
  });

  it("the CI summary: one headline with the range, one alert link listing the figures, no repeated heading", () => {
    const summary = uploadSummary(BASE, [
      { id: ids[24]!, url: `/runs/${ids[24]}`, name: "nightly 25", series: verdicts[24]! },
    ]);
    expect(summary.split("\n")[0]).toBe("## servebench · culprit: regression, nightly 19 → nightly 20");
    expect(summary.match(/^#/gm)).toHaveLength(1);
    expect(summary).toContain(
      `Culprit range: last good **nightly 19** (commit \`${COMMIT_19.slice(0, 12)}\`) → first bad **nightly 20** (commit \`${COMMIT_20.slice(0, 12)}\`)`,
    );
    expect(summary).toContain("What changed from the last good run to the first bad one:");
    expect(summary).toContain(`- commit: ${COMMIT_19.slice(0, 12)} → ${COMMIT_20.slice(0, 12)}`);
    expect(summary.match(/\[alert: /g)).toHaveLength(1);
    expect(summary).toMatch(
      /Change points over the series \(E-divisive, 5% false discovery rate\): Single stream -\d+\.\d% from nightly 20 \(p 0\.\d+\);/,
    );
    expect(summary).toMatch(
      /\| Single stream \| [\d.]+ tok\/s \| [\d.]+ ± [\d.]+ tok\/s \| -\d+\.\d% \| \*\*worse\*\*, regression \(open\) \|/,
    );
    const suspicious = uploadSummary(BASE, [
      { id: ids[19]!, url: `/runs/${ids[19]}`, name: "nightly 20", series: verdicts[19]! },
    ]);
    expect(suspicious.split("\n")[0]).toBe(
      "## servebench · culprit: suspicious change (not yet a regression), nightly 19 → nightly 20",
    );
    expect(suspicious).not.toContain("no regression");
  });

  it("keeps the one alert through an export and a restore: same id, every figure, its status, note and culprit", async () => {
    const listed = async () =>
      (await (await listAlertsRoute(new Request(`${BASE}/api/alerts?status=all`), noContext)).json()) as {
        alerts: {
          id: string;
          status: string;
          note: string | null;
          figures: { metric: string }[];
          last_good_run_id: string;
        }[];
        total: number;
      };
    const before = await listed();
    const lines = await exportLines();
    await clearEverything();
    expect((await listed()).total).toBe(0);
    await restoreLines(lines);
    const after = await listed();
    expect(after.total).toBe(1);
    expect(after.alerts[0]).toMatchObject({
      id: before.alerts[0]!.id,
      status: "acknowledged",
      note: "engine bump, on it",
      last_good_run_id: ids[18],
    });
    expect(after.alerts[0]!.figures.map((figure) => figure.metric).sort()).toEqual(
      before.alerts[0]!.figures.map((figure) => figure.metric).sort(),
    );
  });
});
