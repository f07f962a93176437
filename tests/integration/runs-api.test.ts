import { beforeEach, describe, expect, it } from "vitest";
import { GET as getHealth } from "@/app/api/health/route";
import { DELETE as deleteRun, GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import { GET as getSchema } from "@/app/api/schema/route";
import {
  BASE,
  clearDatabase,
  counts,
  fixtureJson,
  fixtureText,
  idContext,
  jsonRequest,
  multipartRequest,
  noContext,
  SEED_FILES,
} from "./helpers";

async function upload(doc: unknown): Promise<{ id: string; url: string }> {
  const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; url: string };
}

async function fetchRun(id: string): Promise<Record<string, unknown>> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function list(query = ""): Promise<{ runs: Record<string, unknown>[]; total: number }> {
  const response = await listRuns(new Request(`${BASE}/api/runs${query}`), noContext);
  expect(response.status).toBe(200);
  return (await response.json()) as { runs: Record<string, unknown>[]; total: number };
}

beforeEach(async () => {
  await clearDatabase();
});

describe("POST /api/runs", () => {
  it("stores a servebench/v1 document and answers 201 with a short unguessable id", async () => {
    const response = await postRun(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.sglangGraphs)), noContext);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { id: string; url: string };
    expect(body.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(body.url).toBe(`/runs/${body.id}`);
    expect(response.headers.get("location")).toBe(`/runs/${body.id}`);
    expect(await counts()).toEqual({ runs: 1, points: 2, tags: 2 });
  });

  it("stores the same content once: uploading it again answers 200 with the existing run", async () => {
    const doc = fixtureJson(SEED_FILES.vllm);
    const first = await upload(doc);
    const again = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ id: first.id, url: `/runs/${first.id}`, engine: "vllm", duplicate: true });
    expect(await counts()).toEqual({ runs: 1, points: 2, tags: 2 });
    // Other context makes other content: a run of its own.
    const renamed = await upload({ ...doc, notes: "rerun after a driver update" });
    expect(renamed.id).not.toBe(first.id);
  });

  it("stores identical content sent at the same moment once", async () => {
    const doc = fixtureJson(SEED_FILES.sglangGraphs);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => postRun(jsonRequest("/api/runs", "POST", doc), noContext)),
    );
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as { id: string }[];
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(await counts()).toEqual({ runs: 1, points: 2, tags: 2 });
  });

  it("returns a document that uploads unchanged into another servebench", async () => {
    const { id } = await upload(fixtureJson(SEED_FILES.sglangNoGraphs));
    const stored = await fetchRun(id);
    expect(stored).toMatchObject({
      id,
      format: "servebench/v1",
      name: "SGLang TP8, --disable-cuda-graph",
      engine: "sglang",
      model: "Kimi-K2.5 INT4",
      hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 },
      flags: {
        "--model-path": "moonshotai/Kimi-K2.5",
        "--tp": "8",
        "--attention-backend": "triton",
        "--disable-cuda-graph": true,
      },
      env: {},
      server_startup_s: 313,
      tags: ["blackwell", "tp8"],
      results: [
        { concurrency: 1, output_throughput: 27, mean_tpot_ms: 37 },
        { concurrency: 128, output_throughput: 2216 },
      ],
    });
    expect(typeof stored.created_at).toBe("string");

    // Into another servebench (here: the same one, emptied), the document restores the run, id and all.
    await clearDatabase();
    const copy = await upload(stored);
    expect(copy.id).toBe(id);
    expect(await fetchRun(copy.id)).toEqual(stored);
  });

  it("lower-cases the engine and tags, parses the command and keeps extra keys as metadata", async () => {
    const { id } = await upload({
      format: "servebench/v1",
      engine: "vLLM",
      model: "Llama-3.1-8B",
      command:
        "NCCL_P2P_LEVEL=SYS vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size=2 --enable-chunked-prefill",
      env: { VLLM_USE_V1: 1 },
      tags: ["H100", "h100", " nightly "],
      ci_job: "bench-42",
      commit_sha: "abc123",
      dirty: false,
      results: [{ concurrency: 4, output_throughput: 900.5 }],
    });
    const stored = await fetchRun(id);
    expect(stored.engine).toBe("vllm");
    expect(stored.name).toBe("vLLM · Llama-3.1-8B");
    expect(stored.tags).toEqual(["h100", "nightly"]);
    expect(stored.flags).toEqual({
      "--tensor-parallel-size": "2",
      "--enable-chunked-prefill": true,
      "--model": "meta-llama/Llama-3.1-8B",
    });
    expect(stored.env).toEqual({ NCCL_P2P_LEVEL: "SYS", VLLM_USE_V1: "1" });
    expect(stored.metadata).toEqual({ ci_job: "bench-42", commit_sha: "abc123", dirty: false });
  });

  it("keeps request-rate points, including an unbounded rate", async () => {
    const { id } = await upload({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      results: [
        { request_rate: "inf", output_throughput: 3000, p99_ttft_ms: 812.5 },
        { request_rate: 4, output_throughput: 1000 },
      ],
    });
    const stored = await fetchRun(id);
    expect(stored.results).toEqual([
      { request_rate: "inf", output_throughput: 3000, p99_ttft_ms: 812.5 },
      { request_rate: 4, output_throughput: 1000 },
    ]);
    const { runs } = await list();
    expect(runs[0]).toMatchObject({
      single_stream: null,
      peak: { output_tok_s: 3000, concurrency: null, request_rate: "inf" },
    });
  });

  it("keeps a point's request goodput", async () => {
    const { id } = await upload({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      results: [{ concurrency: 16, request_throughput: 3.2, request_goodput: 2.75 }],
    });
    const stored = await fetchRun(id);
    expect(stored.results).toEqual([{ concurrency: 16, request_throughput: 3.2, request_goodput: 2.75 }]);
  });

  it("takes a multipart file whose context fields fill and override the file", async () => {
    const file = new Blob([fixtureText(SEED_FILES.sglangGraphs)], { type: "application/json" });
    const response = await postRun(
      multipartRequest("/api/runs", {
        file,
        name: "SGLang 0.5.8 graphs",
        engine_version: "0.5.8",
        gpu: "RTX PRO 6000 Blackwell Server Edition",
        gpu_count: "4",
        tags: "blackwell, cuda-graphs,,",
        notes: "",
      }),
      noContext,
    );
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const stored = await fetchRun(id);
    expect(stored).toMatchObject({
      name: "SGLang 0.5.8 graphs",
      engine: "sglang",
      engine_version: "0.5.8",
      hardware: { gpu: "RTX PRO 6000 Blackwell Server Edition", gpu_count: 4, gpu_memory_mib: 97887 },
      tags: ["blackwell", "cuda-graphs"],
      notes: "The same launch with --disable-cuda-graph removed.",
    });
  });

  it("previews with dry_run=1 without storing anything", async () => {
    const response = await postRun(jsonRequest("/api/runs?dry_run=1", "POST", fixtureText(SEED_FILES.vllm)), noContext);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      runs: {
        document: { name: string; flags: Record<string, unknown> };
        valid: boolean;
        missing: string[];
        single_stream: unknown;
        peak: unknown;
      }[];
      conflicts: string[];
    };
    expect(body.runs).toHaveLength(1);
    const run = body.runs[0]!;
    expect(run.valid).toBe(true);
    expect(run.document.name).toBe("vLLM TP8 baseline");
    expect(run.document.flags).toEqual({ "--tensor-parallel-size": "8", "--model": "moonshotai/Kimi-K2.5" });
    expect(run.missing).toEqual(["engine version"]);
    expect(run.single_stream).toEqual({ output_tok_s: 82.5, derived: false });
    expect(run.peak).toEqual({ output_tok_s: 1536, concurrency: 128, request_rate: null });
    expect(body.conflicts).toEqual([]);
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
  });

  it("derives single stream from TPOT when C=1 has no throughput", async () => {
    await upload({
      format: "servebench/v1",
      engine: "sglang",
      model: "m",
      results: [
        { concurrency: 1, mean_tpot_ms: 20 },
        { concurrency: 8, output_throughput: 400 },
      ],
    });
    const { runs } = await list();
    expect(runs[0]).toMatchObject({
      single_stream: { output_tok_s: 50, derived: true },
      peak: { output_tok_s: 400, concurrency: 8 },
    });
  });
});

describe("GET /api/runs", () => {
  async function seedThree(): Promise<{ vllm: string; noGraphs: string; graphs: string }> {
    const vllm = (await upload({ ...fixtureJson(SEED_FILES.vllm), measured_at: "2026-02-14T08:00:00Z" })).id;
    const noGraphs = (
      await upload({
        ...fixtureJson(SEED_FILES.sglangNoGraphs),
        measured_at: "2026-02-14T09:00:00Z",
        tags: ["blackwell", "debug"],
      })
    ).id;
    const graphs = (
      await upload({
        ...fixtureJson(SEED_FILES.sglangGraphs),
        measured_at: "2026-02-14T10:00:00Z",
        hardware: { gpu: "H200", gpu_count: 8 },
      })
    ).id;
    return { vllm, noGraphs, graphs };
  }

  it("lists newest first with the headline figures", async () => {
    const ids = await seedThree();
    const { runs, total } = await list();
    expect(total).toBe(3);
    expect(runs.map((run) => run.id)).toEqual([ids.graphs, ids.noGraphs, ids.vllm]);
    expect(runs[1]).toMatchObject({
      id: ids.noGraphs,
      url: `/runs/${ids.noGraphs}`,
      name: "SGLang TP8, --disable-cuda-graph",
      engine: "sglang",
      engine_version: null,
      model: "Kimi-K2.5 INT4",
      hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8 },
      tags: ["blackwell", "debug"],
      measured_at: "2026-02-14T09:00:00.000Z",
      point_count: 2,
      single_stream: { output_tok_s: 27, derived: false },
      peak: { output_tok_s: 2216, concurrency: 128, request_rate: null },
    });
  });

  it.each([
    ["?engine=vllm", ["vllm"]],
    ["?engine=SGLang", ["graphs", "noGraphs"]],
    ["?gpu=H200", ["graphs"]],
    ["?tag=debug", ["noGraphs"]],
    ["?tag=DEBUG", ["noGraphs"]],
    ["?model=Kimi-K2.5%20INT4", ["graphs", "noGraphs", "vllm"]],
    ["?model=Other", []],
    ["?q=disable-cuda-graph", ["graphs", "noGraphs"]],
    ["?q=hang", ["noGraphs"]],
    ["?q=TENSOR-PARALLEL", ["vllm"]],
    ["?q=leftover", []],
    ["?q=left%20over", ["noGraphs"]],
    ["?engine=sglang&gpu=RTX%20PRO%206000%20Blackwell", ["noGraphs"]],
  ] as const)("filters %s", async (query, expected) => {
    const ids = await seedThree();
    const { runs, total } = await list(query);
    expect(runs.map((run) => run.id)).toEqual(expected.map((key) => ids[key]));
    expect(total).toBe(expected.length);
  });

  it("sorts by peak and single stream in both directions", async () => {
    const ids = await seedThree();
    expect((await list("?sort=peak&dir=desc")).runs.map((run) => run.id)).toEqual([ids.graphs, ids.noGraphs, ids.vllm]);
    expect((await list("?sort=single_stream&dir=asc")).runs.map((run) => run.id)).toEqual([
      ids.noGraphs,
      ids.graphs,
      ids.vllm,
    ]);
    expect((await list("?sort=name&dir=asc")).runs.map((run) => run.name)).toEqual([
      "SGLang TP8, --disable-cuda-graph",
      "SGLang TP8, CUDA graphs on",
      "vLLM TP8 baseline",
    ]);
  });

  it("paginates on the server", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      const doc = {
        ...fixtureJson(SEED_FILES.vllm),
        name: `run ${index}`,
        measured_at: `2026-03-0${index + 1}T00:00:00Z`,
      };
      ids.push((await upload(doc)).id);
    }
    const newestFirst = [...ids].reverse();
    const page1 = await list("?per_page=3&page=1");
    const page3 = await list("?per_page=3&page=3");
    const page4 = await list("?per_page=3&page=4");
    expect(page1.total).toBe(7);
    expect(page1.runs.map((run) => run.id)).toEqual(newestFirst.slice(0, 3));
    expect(page3.runs.map((run) => run.id)).toEqual(newestFirst.slice(6));
    expect(page4.runs).toEqual([]);
    expect(page4.total).toBe(7);
  });

  it.each([
    ["?per_page=101", "per_page"],
    ["?per_page=0", "per_page"],
    ["?page=-1", "page"],
    ["?page=two", "page"],
    ["?sort=speed", "sort"],
    ["?dir=sideways", "dir"],
  ])("rejects %s with 400 naming the parameter", async (query, parameter) => {
    const response = await listRuns(new Request(`${BASE}/api/runs${query}`), noContext);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.issues.map((issue) => issue.path)).toEqual([parameter]);
    expect(body.error.message).toContain(parameter);
  });
});

describe("GET, PATCH and DELETE /api/runs/{id}", () => {
  it("answers 404 with the error shape for an unknown id", async () => {
    const response = await getRun(new Request(`${BASE}/api/runs/nope`), idContext("nope"));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: "not_found", message: 'Run "nope" not found' } });
  });

  it("offers the document as a download", async () => {
    const { id } = await upload(fixtureJson(SEED_FILES.vllm));
    const response = await getRun(new Request(`${BASE}/api/runs/${id}?download=1`), idContext(id));
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="servebench-run-${id}.json"`);
  });

  it("edits name, tags and notes, and nothing else", async () => {
    const { id } = await upload(fixtureJson(SEED_FILES.sglangGraphs));
    const response = await patchRun(
      jsonRequest(`/api/runs/${id}`, "PATCH", {
        name: "Graphs on (final)",
        tags: ["Final", "final", "tp8"],
        notes: "Ship it.",
      }),
      idContext(id),
    );
    expect(response.status).toBe(200);
    const stored = await fetchRun(id);
    expect(stored).toMatchObject({
      name: "Graphs on (final)",
      tags: ["final", "tp8"],
      notes: "Ship it.",
      engine: "sglang",
    });
    const search = await list("?q=ship%20it");
    expect(search.runs.map((run) => run.id)).toEqual([id]);

    const cleared = await patchRun(jsonRequest(`/api/runs/${id}`, "PATCH", { notes: "" }), idContext(id));
    expect(cleared.status).toBe(200);
    expect((await fetchRun(id)).notes).toBeUndefined();
  });

  it.each([
    [{ name: "" }, "name", "must not be empty"],
    [{ tags: "a,b" }, "tags", "Invalid input: expected array, received string"],
    [{ engine: "vllm" }, "engine", 'unknown field "engine"'],
    [{ tags: ["a,b"] }, "tags.0", "must not contain a comma"],
  ])("rejects the change %j with 422 at %s", async (patch, path, message) => {
    const { id } = await upload(fixtureJson(SEED_FILES.vllm));
    const before = await fetchRun(id);
    const response = await patchRun(jsonRequest(`/api/runs/${id}`, "PATCH", patch), idContext(id));
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.issues).toEqual([{ path, message }]);
    expect(await fetchRun(id)).toEqual(before);
  });

  it("answers 404 to a PATCH of an unknown run", async () => {
    const response = await patchRun(jsonRequest("/api/runs/missing", "PATCH", { name: "x" }), idContext("missing"));
    expect(response.status).toBe(404);
  });

  it("deletes a run with its points and tags", async () => {
    const { id } = await upload(fixtureJson(SEED_FILES.sglangGraphs));
    const keep = await upload(fixtureJson(SEED_FILES.vllm));
    const response = await deleteRun(new Request(`${BASE}/api/runs/${id}`, { method: "DELETE" }), idContext(id));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await counts()).toEqual({ runs: 1, points: 2, tags: 2 });
    const again = await deleteRun(new Request(`${BASE}/api/runs/${id}`, { method: "DELETE" }), idContext(id));
    expect(again.status).toBe(404);
    expect((await fetchRun(keep.id)).name).toBe("vLLM TP8 baseline");
  });
});

describe("health and schema", () => {
  it("reports health once the database answers", async () => {
    const response = await getHealth(new Request(`${BASE}/api/health`), noContext);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, database: "ok" });
  });

  it("publishes the JSON Schema of the run document", async () => {
    const response = getSchema();
    expect(response.headers.get("content-type")).toContain("application/schema+json");
    const schema = (await response.json()) as { $id: string; required: string[]; properties: Record<string, unknown> };
    expect(schema.$id).toBe("servebench/v1");
    expect(schema.required).toEqual(expect.arrayContaining(["format", "engine", "model", "results"]));
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        "hardware",
        "command",
        "flags",
        "env",
        "workload",
        "speculative",
        "server_startup_s",
        "metadata",
      ]),
    );
  });
});
