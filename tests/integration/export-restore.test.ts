/**
 * GET /api/export and POST /api/restore: an export restored into an empty instance reproduces every run, figure,
 * saved link and view; one bad line never stops the rest; ids are kept even when two runs' contents coincide.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { GET as compareCsv } from "@/app/api/compare/csv/route";
import { GET as getComparison } from "@/app/api/comparisons/[slug]/route";
import { GET as listComparisons, POST as postComparison } from "@/app/api/comparisons/route";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import type { RestoreReport } from "@/lib/backup/restore-report";
import { openSavedComparison } from "@/lib/comparisons/save";
import { compareQuery, savedCompareView } from "@/lib/comparisons/view";
import { db } from "@/lib/db/client";
import { BASE, counts, fixtureJson, fixtureText, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const slugContext = (slug: string) => ({ params: Promise.resolve({ slug }) });

async function emptyInstance(): Promise<void> {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
}

async function upload(request: Request): Promise<string[]> {
  const response = await postRun(request, noContext);
  expect(response.status, await response.clone().text()).toBe(201);
  const body = (await response.json()) as { id: string; runs?: { id: string }[] };
  return body.runs ? body.runs.map((run) => run.id) : [body.id];
}

async function uploadDocument(document: Record<string, unknown>): Promise<string> {
  const [id] = await upload(jsonRequest("/api/runs", "POST", document));
  return id!;
}

async function patch(id: string, body: unknown): Promise<void> {
  const response = await patchRun(jsonRequest(`/api/runs/${id}`, "PATCH", body), idContext(id));
  expect(response.status, await response.clone().text()).toBe(200);
}

async function save(body: Record<string, unknown>): Promise<string> {
  const response = await postComparison(jsonRequest("/api/comparisons", "POST", body), noContext);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { slug: string }).slug;
}

async function exportText(): Promise<string> {
  const response = await exportAll(new Request(`${BASE}/api/export`), noContext);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
  return response.text();
}

async function restoreText(text: string): Promise<RestoreReport> {
  const response = await restore(
    new Request(`${BASE}/api/restore`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: text,
    }),
    noContext,
  );
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as RestoreReport;
}

/** Everything a person can see of the instance through the API: runs, figures, saved links and their views. */
async function everything() {
  const summaries: unknown[] = [];
  for (let page = 1; ; page += 1) {
    const response = await listRuns(new Request(`${BASE}/api/runs?per_page=100&page=${page}`), noContext);
    const body = (await response.json()) as { runs: { id: string }[]; total: number };
    summaries.push(...body.runs);
    if (summaries.length >= body.total) break;
  }
  const ids = (summaries as { id: string }[]).map((run) => run.id).sort();
  const runs = await Promise.all(
    ids.map(async (id) => (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id))).json()),
  );
  const listed = (await (
    await listComparisons(new Request(`${BASE}/api/comparisons?per_page=100`), noContext)
  ).json()) as {
    comparisons: { slug: string }[];
  };
  const slugs = listed.comparisons.map((comparison) => comparison.slug).sort();
  const comparisons = await Promise.all(
    slugs.map(async (slug) => {
      const saved = await (
        await getComparison(new Request(`${BASE}/api/comparisons/${slug}`), slugContext(slug))
      ).json();
      // The view the link opens with, computed live from the runs: the figures and deltas the page shows.
      const opened = await openSavedComparison(slug);
      const csv = await (
        await compareCsv(
          new Request(`${BASE}/api/compare/csv?${compareQuery(savedCompareView(opened.saved))}`),
          noContext,
        )
      ).text();
      return { saved, view: opened.view, comparison: JSON.parse(JSON.stringify(opened.comparison)), csv };
    }),
  );
  return { summaries, runs, listed, comparisons };
}

beforeEach(emptyInstance);

describe("export and restore", () => {
  it("restores into an empty instance every run, figure, saved link and view, renamed and coinciding runs included", async () => {
    const vllm = await uploadDocument(fixtureJson(SEED_FILES.vllm));
    const noGraphs = await uploadDocument(fixtureJson(SEED_FILES.sglangNoGraphs));
    const graphs = await uploadDocument(fixtureJson(SEED_FILES.sglangGraphs));
    const form = new FormData();
    form.append("file", new Blob([fixtureText("vllm/bench_serve_all_requests_failed_v0.25.1.json")]), "failed.json");
    form.set("engine", "vllm");
    const [imported] = await upload(new Request(`${BASE}/api/runs`, { method: "POST", body: form }));

    // Renamed through PATCH, with text from several scripts; tags that lower-case to more characters.
    await patch(vllm, { name: "vLLM TP8 — базовый, 基线 (renamed)", tags: ["İ".repeat(20), "Blackwell"] });
    await patch(noGraphs, { notes: "Same launch as the baseline.\nCUDA graphs off." });
    // Two runs that PATCH made identical: the same data uploaded twice under two names, then one renamed.
    const twinA = await uploadDocument({ ...fixtureJson(SEED_FILES.sglangGraphs), name: "twin A", tags: ["twin"] });
    const twinB = await uploadDocument({ ...fixtureJson(SEED_FILES.sglangGraphs), name: "twin B", tags: ["twin"] });
    await patch(twinB, { name: "twin A" });

    const slugs = [
      await save({ runs: [noGraphs, graphs], title: "CUDA graphs on Blackwell", notes: "One flag." }),
      // Every part of a view: a restore keeps the log axis, the SLO, prices, interactivity and capacity too.
      await save({
        runs: [vllm, noGraphs, graphs],
        baseline: graphs,
        noise: 5,
        hide: [vllm],
        stat: "p99",
        log_y: true,
        slo: { ttft_ms: 500, stat: "p90" },
        price: "2.5,H200:3.1",
        at_user: 40,
        capacity: { tiers: "chat,fast:tpot=25", demand: "users:100", gpu_budget: 64 },
      }),
      await save({ runs: [twinA, twinB, imported!], title: "Twins" }),
    ];
    const before = await everything();
    expect(before.runs).toHaveLength(6);
    expect(before.comparisons).toHaveLength(3);

    const text = await exportText();
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.format === "servebench/v1")).toHaveLength(6);
    expect(
      lines
        .filter((line) => line.format === "servebench/comparison-v1")
        .map((line) => line.slug)
        .sort(),
    ).toEqual([...slugs].sort());

    await emptyInstance();
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
    const report = await restoreText(text);
    expect(report.runs).toEqual({ stored: 6, already_present: 0, refused: 0 });
    expect(report.lines.filter((line) => line.status === "refused")).toEqual([]);
    expect(report.comparisons).toEqual({ stored: 3, already_present: 0, refused: 0 });
    expect(report.unreadable).toBe(0);
    expect(report.lines.map((line) => line.line)).toEqual(lines.map((_, index) => index + 1));

    const after = await everything();
    expect(after).toEqual(before);
    // The twins came back as two runs under their own ids, though their contents coincide.
    expect(after.runs.filter((run) => (run as { name: string }).name === "twin A")).toHaveLength(2);

    // The restored instance exports the same file.
    expect(await exportText()).toBe(text);

    // Restoring the same file again stores nothing and says each line was there already.
    const again = await restoreText(text);
    expect(again.runs).toEqual({ stored: 0, already_present: 6, refused: 0 });
    expect(again.comparisons).toEqual({ stored: 0, already_present: 3, refused: 0 });
    expect(await everything()).toEqual(before);
  });

  it("stores every valid line of a 200-run export when one line is refused, and says which and why", async () => {
    const base = fixtureJson(SEED_FILES.vllm);
    const runLines = Array.from({ length: 200 }, (_, index) =>
      JSON.stringify({
        ...base,
        id: `restored${String(index).padStart(4, "0")}`,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
        // What an older server let PATCH store: a right-to-left override in one run's name.
        name: index === 197 ? "renamed \u202Eevil" : `run ${index + 1}`,
      }),
    );
    const text = [...runLines, "{not json", JSON.stringify({ format: "servebench/v2", id: "x" }), ""].join("\n");
    const report = await restoreText(text);
    expect(report.runs).toEqual({ stored: 199, already_present: 0, refused: 1 });
    expect(report.unreadable).toBe(2);
    const refused = report.lines.filter((line) => line.status === "refused");
    expect(refused).toEqual([
      {
        line: 198,
        kind: "run",
        id: "restored0197",
        status: "refused",
        error: {
          code: "validation_failed",
          message:
            "The run document is invalid. name: must not contain a bidirectional override (U+202E at character 9)",
          issues: [{ path: "name", message: "must not contain a bidirectional override (U+202E at character 9)" }],
        },
      },
      {
        line: 201,
        kind: "unknown",
        status: "refused",
        error: expect.objectContaining({
          code: "invalid_json",
          message: expect.stringMatching(/^Line 201 is not valid JSON/),
        }),
      },
      {
        line: 202,
        kind: "unknown",
        id: "x",
        status: "refused",
        error: {
          code: "unsupported_format",
          message:
            'Line 202 is neither a run (servebench/v1), a saved comparison (servebench/comparison-v1) nor a series (servebench/series-v1); its format is "servebench/v2".',
        },
      },
    ]);
    expect((await counts()).runs).toBe(199);
    const kept = (await (
      await getRun(new Request(`${BASE}/api/runs/restored0199`), idContext("restored0199"))
    ).json()) as {
      id: string;
      created_at: string;
      name: string;
    };
    expect(kept).toMatchObject({ id: "restored0199", created_at: "2026-01-01T03:19:00.000Z", name: "run 200" });
  });

  it("keeps a run whose engine nothing stated as such through export, restore and search", async () => {
    await emptyInstance();
    const form = new FormData();
    form.append("file", new Blob([fixtureText("vllm/bench_serve_v0.25.1.json")]), "bench_serve_v0.25.1.json");
    const [id] = await upload(new Request(`${BASE}/api/runs`, { method: "POST", body: form }));
    const exported = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
    await emptyInstance();
    const report = await restoreText(exported);
    expect(report.runs.stored).toBe(1);
    const run = (await (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id!))).json()) as {
      engine: string;
      name: string;
    };
    expect(run).toMatchObject({ engine: "unknown", name: "opt-125m" });
    // The engine filter and the text search find it by the word it is stored as.
    const listed = (await (await listRuns(new Request(`${BASE}/api/runs?engine=unknown`), noContext)).json()) as {
      runs: { id: string }[];
    };
    expect(listed.runs.map((row) => row.id)).toEqual([id]);
  });

  it("leaves a run whose id is already here alone, and says so", async () => {
    const id = await uploadDocument(fixtureJson(SEED_FILES.vllm));
    const other = JSON.stringify({
      ...fixtureJson(SEED_FILES.sglangGraphs),
      id,
      created_at: "2026-01-01T00:00:00.000Z",
    });
    const report = await restoreText(other);
    expect(report.lines).toEqual([
      {
        line: 1,
        kind: "run",
        id,
        status: "refused",
        error: {
          code: "id_taken",
          message: `A different run already has the id "${id}" here (edited since the export?); it was left as it is.`,
        },
      },
    ]);
    expect(
      ((await (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id))).json()) as { name: string }).name,
    ).toBe("vLLM TP8 baseline");
  });

  it("exports an empty file from an empty instance, and refuses to restore an empty file", async () => {
    expect(await exportText()).toBe("");
    const response = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: "\n",
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "The export holds no lines; send the file GET /api/export wrote.",
    );
  });

  it("points an export with saved comparisons sent to POST /api/runs at /api/restore", async () => {
    const a = await uploadDocument(fixtureJson(SEED_FILES.sglangNoGraphs));
    await save({ runs: [a] });
    const text = await exportText();
    await emptyInstance();
    const response = await postRun(
      new Request(`${BASE}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: text,
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "This is a servebench export with saved comparisons or series: restore it with POST /api/restore, which stores it line by line and keeps every id and link.",
    );
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
  });
});
