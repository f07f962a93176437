/** GET /api/export and uploading its file back: every run restored, ids and upload times kept. */
import { beforeEach, describe, expect, it } from "vitest";
import { GET as exportRuns } from "@/app/api/export/route";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { BASE, clearDatabase, counts, fixtureText, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

async function upload(request: Request): Promise<string[]> {
  const response = await postRun(request, noContext);
  expect(response.status).toBe(201);
  const body = (await response.json()) as { id: string; runs?: { id: string }[] };
  return body.runs ? body.runs.map((run) => run.id) : [body.id];
}

async function read(id: string): Promise<Record<string, unknown>> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

beforeEach(async () => {
  await clearDatabase();
});

describe("export and restore", () => {
  it("streams every run as JSON lines and restores them elsewhere with their ids", async () => {
    const ids = [
      ...(await upload(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.vllm)))),
      ...(await upload(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.sglangNoGraphs)))),
      ...(await upload(
        (() => {
          const form = new FormData();
          form.append(
            "file",
            new Blob([fixtureText("vllm/bench_serve_all_requests_failed_v0.25.1.json")]),
            "failed.json",
          );
          form.set("engine", "vllm");
          return new Request(`${BASE}/api/runs`, { method: "POST", body: form });
        })(),
      )),
    ];
    const originals = await Promise.all(ids.map(read));

    const response = await exportRuns(new Request(`${BASE}/api/export`), noContext);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="servebench-export-\d{4}-\d{2}-\d{2}\.jsonl"$/,
    );
    const text = await response.text();
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.id)).toEqual(ids);
    expect(lines).toEqual(originals);

    await clearDatabase();
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
    const restored = await upload(
      new Request(`${BASE}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: text,
      }),
    );
    expect(restored).toEqual(ids);
    for (const [index, id] of ids.entries()) expect(await read(id)).toEqual(originals[index]);

    // Restoring the same file again adds nothing.
    const again = await postRun(
      new Request(`${BASE}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: text,
      }),
      noContext,
    );
    expect(again.status).toBe(200);
    const body = (await again.json()) as { duplicate: boolean; runs: { id: string; duplicate: boolean }[] };
    expect(body.duplicate).toBe(true);
    expect(body.runs.map((run) => [run.id, run.duplicate])).toEqual(ids.map((id) => [id, true]));
    expect((await counts()).runs).toBe(3);
  });

  it("gives a restored run a new id when its id is taken by other content", async () => {
    const [id] = await upload(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.vllm)));
    const other = {
      ...(JSON.parse(fixtureText(SEED_FILES.sglangGraphs)) as object),
      id,
      created_at: "2026-01-01T00:00:00.000Z",
    };
    const [newId] = await upload(jsonRequest("/api/runs", "POST", other));
    expect(newId).not.toBe(id);
    expect((await read(id!)).name).toBe("vLLM TP8 baseline");
    expect((await read(newId!)).name).toBe("SGLang TP8, CUDA graphs on");
  });

  it("exports an empty file from an empty database", async () => {
    const response = await exportRuns(new Request(`${BASE}/api/export`), noContext);
    expect(await response.text()).toBe("");
  });
});
