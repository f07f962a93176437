/**
 * A named series keeps its configuration: a run of another model, GPU, GPU count or workload sent to it is refused
 * naming the field (nothing stored), or stored with `series_override`, marked and kept out of the judging.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { GET as getSeries } from "@/app/api/series/[id]/route";
import { db } from "@/lib/db/client";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest, multipartRequest, noContext } from "./helpers";

const docs = nightlyDocuments({ seed: 11, series: "keeps-config" });
let seriesId = "";

async function upload(doc: Record<string, unknown>) {
  const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
  return {
    status: response.status,
    body: (await response.json()) as {
      id: string;
      error?: { code: string; message: string; issues: { path: string; message: string }[] };
      series?: { verdict: string; series: { id: string } };
    },
  };
}

beforeAll(async () => {
  for (const doc of docs.slice(0, 8)) {
    const { status, body } = await upload(doc);
    expect(status).toBe(201);
    seriesId = body.series!.series.id;
  }
});

describe("a named series refuses a run of another configuration", () => {
  const cases: [string, (doc: Record<string, unknown>) => Record<string, unknown>, string, RegExp][] = [
    ["model", (doc) => ({ ...doc, model: "facebook/opt-125m" }), "model", /"facebook\/opt-125m" differs/],
    ["GPU", (doc) => ({ ...doc, hardware: { gpu: "A100 80GB", gpu_count: 1 } }), "hardware.gpu", /"A100 80GB"/],
    ["GPU count", (doc) => ({ ...doc, hardware: { gpu: "H100 80GB", gpu_count: 2 } }), "hardware.gpu_count", /2/],
    [
      "workload",
      (doc) => ({ ...doc, workload: { dataset: "random", input_len: 2048, output_len: 128 } }),
      "workload",
      /workload differs/,
    ],
  ];
  for (const [what, change, path, message] of cases) {
    it(`refuses another ${what} with a 422 naming ${path}, storing nothing`, async () => {
      const before = await db().run.count();
      const { status, body } = await upload(change(docs[8]!));
      expect(status).toBe(422);
      expect(body.error!.code).toBe("validation_failed");
      expect(body.error!.message).toContain(`${path}:`);
      expect(body.error!.issues[0]!.path).toBe(path);
      expect(body.error!.issues[0]!.message).toMatch(message);
      expect(body.error!.issues[0]!.message).toContain('series "keeps-config"');
      expect(await db().run.count()).toBe(before);
    });
  }

  it("stores it with series_override (a form field), marked and left out of the judging", async () => {
    const wrongModel = { ...docs[8]!, model: "facebook/opt-125m", results: [{ concurrency: 1, output_throughput: 9 }] };
    const response = await postRun(
      multipartRequest("/api/runs", {
        file: new Blob([JSON.stringify(wrongModel)], { type: "application/json" }),
        series_override: "1",
      }),
      noContext,
    );
    expect(response.status).toBe(201);
    const body = (await response.json()) as { id: string; series?: unknown };
    // Not judged: the series' judgement does not read it, so it carries no verdict.
    expect(body.series).toBeUndefined();
    const row = await db().run.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.seriesOverride).toBe(true);
    expect(row.seriesId).toBe(seriesId);
    const run = (await (await getRun(new Request(`${BASE}/api/runs/${body.id}`), idContext(body.id))).json()) as {
      series_override?: boolean;
    };
    expect(run.series_override).toBe(true);
    const view = (await (
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId))
    ).json()) as {
      points: { run_id: string }[];
      changes: unknown[];
    };
    expect(view.points.map((point) => point.run_id)).not.toContain(body.id);
    expect(view.changes).toEqual([]);
    // The next run of the series' own configuration is judged as before: ok, not against the −88% run.
    const next = await upload(docs[9]!);
    expect(next.status).toBe(201);
    expect(next.body.series!.verdict).toBe("ok");
  });

  it("refuses a series_override that is not 1 or true, naming it", async () => {
    const response = await postRun(
      multipartRequest("/api/runs", {
        file: new Blob([JSON.stringify({ ...docs[10]!, model: "facebook/opt-125m" })], { type: "application/json" }),
        series_override: "maybe",
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues[0]!.path).toBe("series_override");
  });
});
