/**
 * What a security review found, through the real route handlers and a real migrated database (SQLite, and
 * PostgreSQL in CI): a search holding a NUL, bidi marks and invisible names, a `__proto__=` variable in a command,
 * keys named after Object's methods, JSON numbers beyond ±2^53, credentials in URLs and headers, and ids of
 * restored documents. Each refusal has its status, names its field, and changes nothing.
 */
import { beforeAll, describe, expect, it, test } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { GET as listRunsRoute, POST as postRun } from "@/app/api/runs/route";
import HistoryPage from "@/app/page";
import type { RestoreReport } from "@/lib/backup/restore-report";
import { buildComparison } from "@/lib/comparisons/build";
import { parseCompareView } from "@/lib/comparisons/view";
import { db } from "@/lib/db/client";
import { ID_RULE } from "@/lib/ids";
import { listRuns } from "@/lib/runs/history";
import { getRunsByIds } from "@/lib/runs/read";
import {
  BASE,
  counts,
  fixtureJson,
  fixtureText,
  idContext,
  jsonRequest,
  multipartRequest,
  noContext,
  SEED_FILES,
} from "./helpers";

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

const valid = () => fixtureJson(SEED_FILES.vllm);
let runId: string;

/** Everything a refused write must leave as it was. */
async function snapshot() {
  const [runs, comparisons, series] = await Promise.all([
    db().run.findMany({ include: { tags: true }, orderBy: { id: "asc" } }),
    db().comparison.findMany({ orderBy: { slug: "asc" } }),
    db().series.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { runs, comparisons, series, counts: await counts() };
}

async function expectRefused(response: Response, status: number, path: string, message?: string | RegExp) {
  const body = (await response.json()) as ErrorBody;
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error.issues?.map((issue) => issue.path)).toContain(path);
  if (typeof message === "string") expect(body.error.issues).toContainEqual({ path, message });
  else if (message) expect(body.error.message).toMatch(message);
  return body;
}

/** `write` is refused with `status`, naming `path`, and nothing stored changes. */
async function expectRefusedWrite(
  write: () => Promise<Response>,
  status: number,
  path: string,
  message?: string | RegExp,
) {
  const before = await snapshot();
  const body = await expectRefused(await write(), status, path, message);
  expect(await snapshot()).toEqual(before);
  return body;
}

const upload = (document: Record<string, unknown>) => postRun(jsonRequest("/api/runs", "POST", document), noContext);
const uploadText = (text: string) => postRun(jsonRequest("/api/runs", "POST", text), noContext);
const patch = (id: string, body: unknown) => patchRun(jsonRequest(`/api/runs/${id}`, "PATCH", body), idContext(id));
const saveComparison = (body: unknown) => postComparison(jsonRequest("/api/comparisons", "POST", body), noContext);

async function storedRun(id: string): Promise<Record<string, unknown>> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
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

beforeAll(async () => {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
  await db().series.deleteMany({});
  const response = await upload({ ...valid(), name: "search target abcd" });
  expect(response.status).toBe(201);
  runId = ((await response.json()) as { id: string }).id;
});

describe("a search holding a control character", () => {
  test.each([
    ["q", "ab%00cd", "must not contain a control character (U+0000 at character 3)"],
    ["q", "search%00", "must not contain a control character (U+0000 at character 7)"],
    ["q", "ab%1Bcd", "must not contain a control character (U+001B at character 3)"],
    ["engine", "vl%00lm", "must not contain a control character (U+0000 at character 3)"],
    ["tag", "%E2%80%8Fdemo", "must not contain a bidirectional mark (U+200F at character 1)"],
  ])("GET /api/runs?%s=%s is a 400 naming it", async (key, value, message) => {
    const response = await listRunsRoute(new Request(`${BASE}/api/runs?${key}=${value}`), noContext);
    const body = await expectRefused(response, 400, key, message);
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message).toBe(`Invalid query parameter ${key}: ${message}`);
  });

  it("the history page keeps the search and lists no run, on either database", async () => {
    for (const q of ["ab\u0000cd", "search\u0000", "\u0000", "search target\u0000abcd"]) {
      const list = await listRuns({ q, page: 1, per_page: 25, sort: "date", dir: "desc" });
      expect(list).toEqual({ runs: [], total: 0, total_exact: true });
    }
    for (const filter of ["engine", "model", "gpu", "tag"] as const) {
      const list = await listRuns({ [filter]: "v\u0000llm", page: 1, per_page: 25, sort: "name", dir: "asc" });
      expect(list.runs).toEqual([]);
    }
    // The page itself renders (its data read without an error) with the NUL in its address.
    const page = await HistoryPage({ searchParams: Promise.resolve({ q: "ab\u0000cd" }) });
    expect(page).toBeTruthy();
    // A search without one still finds the run.
    const found = await listRuns({ q: "target abcd", page: 1, per_page: 25, sort: "date", dir: "desc" });
    expect(found.runs.map((run) => run.id)).toEqual([runId]);
  });
});

describe("bidi marks, line separators and invisible names", () => {
  test.each([
    ["name", { name: "safe\u200Frun" }, "must not contain a bidirectional mark (U+200F at character 5)"],
    ["model", { model: "\u061CKimi" }, "must not contain a bidirectional mark (U+061C at character 1)"],
    ["tags.0", { tags: ["night\u2028ly"] }, "must not contain a line or paragraph separator (U+2028 at character 6)"],
    [
      "hardware.gpu",
      { hardware: { gpu: "H100\u2029x" } },
      "must not contain a line or paragraph separator (U+2029 at character 5)",
    ],
    [
      "series",
      { series: "\u200B\u200B" },
      "must contain a visible character (it holds only spaces or invisible characters)",
    ],
    ["name", { name: "\u2060" }, "must contain a visible character (it holds only spaces or invisible characters)"],
  ])("an upload with %s %j is a 422 naming it", async (path, fields, message) => {
    await expectRefusedWrite(() => upload({ ...valid(), ...fields }), 422, path, message);
  });

  test.each([
    ["name", { name: "a\u200Fb" }],
    ["name", { name: "\u200B" }],
    ["tags.0", { tags: ["\uFEFF\u200B"] }],
    ["name", { name: "a\u2028b" }],
  ])("PATCH with %s %j is a 422 and the run is unchanged", async (path, body) => {
    await expectRefusedWrite(() => patch(runId, body), 422, path);
  });

  test.each(["\u200B\u200B", "\u2060", " \u200C\u200D "])(
    "a comparison titled %j is a 422 naming title",
    async (title) => {
      await expectRefusedWrite(
        () => saveComparison({ runs: [runId], title }),
        422,
        "title",
        "must contain a visible character (it holds only spaces or invisible characters)",
      );
    },
  );

  it("a file named with a mark or a line separator is still taken: its name is shown with `?` for them", async () => {
    const file = new File([fixtureText("vllm/bench_serve_v0.25.1.json")], "bench\u200F\u2028serve.json", {
      type: "application/json",
    });
    const response = await postRun(multipartRequest("/api/runs", { file, engine: "vllm" }), noContext);
    expect(response.status, await response.clone().text()).toBe(201);
    const run = await storedRun(((await response.json()) as { id: string }).id);
    const files = new Set((run.not_imported as { file: string }[]).map((entry) => entry.file));
    expect([...files]).toEqual(["bench??serve.json"]);
  });

  it("a comparison titled with a right-to-left mark is refused; Hebrew, Arabic and marks in notes are kept", async () => {
    await expectRefusedWrite(() => saveComparison({ runs: [runId], title: "a\u200Fb" }), 422, "title");
    const response = await saveComparison({ runs: [runId], title: "הרצה · تشغيل", notes: "שלום\u200F.\u2028next" });
    expect(response.status).toBe(201);
    const { slug } = (await response.json()) as { slug: string };
    const saved = await db().comparison.findUniqueOrThrow({ where: { slug } });
    expect([saved.title, saved.notes]).toEqual(["הרצה · تشغيل", "שלום\u200F.\u2028next"]);
  });
});

describe("names that are properties of every object", () => {
  it("a `__proto__=1` prefix in a command is refused naming command, not dropped", async () => {
    await expectRefusedWrite(
      () => upload({ ...valid(), command: "__proto__=1 VLLM_USE_V1=1 vllm serve model" }),
      422,
      "command",
      'sets the environment variable "__proto__", a name servebench cannot store (every JavaScript object has a property of that name): rename the variable or leave it out of the command',
    );
    await expectRefusedWrite(
      () => multipartRequestUpload({ command: "constructor=1 vllm serve model" }),
      422,
      "command",
    );
  });

  it("keys named hasOwnProperty, toString, valueOf, __defineGetter__ are kept and compared as data", async () => {
    const response = await upload({
      ...valid(),
      name: "object-method keys",
      command: "toString=1 hasOwnProperty=2 vllm serve model --tp 8",
      env: { valueOf: "3", __defineGetter__: "4" },
      metadata: { hasOwnProperty: 1, toString: "x", valueOf: true, __defineGetter__: "y" },
      flags: { "--toString": "5" },
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const run = await storedRun(id);
    expect(run.env).toEqual({ toString: "1", hasOwnProperty: "2", valueOf: "3", __defineGetter__: "4" });
    expect(run.metadata).toEqual({ hasOwnProperty: 1, toString: "x", valueOf: true, __defineGetter__: "y" });
    expect(run.flags).toMatchObject({ "--toString": "5", "--tp": "8" });

    // Compared with a run that has none of them: each variable added, none read off Object.prototype.
    const { runs } = await getRunsByIds([runId, id]);
    const comparison = buildComparison(runs, parseCompareView({ runs: `${runId},${id}` }));
    const texts = comparison.series[1]!.changes.filter((change) => change.section === "env").map(
      (change) => change.text,
    );
    expect(texts.sort()).toEqual(
      ["__defineGetter__=4 added", "hasOwnProperty=2 added", "toString=1 added", "valueOf=3 added"].sort(),
    );
    expect(JSON.stringify(comparison.series[1]!.changes)).not.toMatch(/native code|function/);
    const back = buildComparison([runs[1]!, runs[0]!], parseCompareView({ runs: `${id},${runId}` }));
    expect(back.series[1]!.changes.filter((change) => change.section === "env").map((change) => change.kind)).toEqual([
      "removed",
      "removed",
      "removed",
      "removed",
    ]);
  });
});

async function multipartRequestUpload(fields: Record<string, string>): Promise<Response> {
  const file = new Blob([JSON.stringify(valid())], { type: "application/json" });
  return postRun(multipartRequest("/api/runs", { file, ...fields }), noContext);
}

describe("JSON numbers beyond ±2^53", () => {
  it("metadata keeps the exact digits as text, on upload, on download and through a restore", async () => {
    const text = JSON.stringify({ ...valid(), name: "big build number", metadata: { note: "x" } }).replace(
      '"metadata":{"note":"x"}',
      '"metadata":{"note":"x","build":9007199254740993},"job":-18446744073709551615',
    );
    const response = await uploadText(text);
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const run = await storedRun(id);
    expect(run.metadata).toEqual({ note: "x", build: "9007199254740993", job: "-18446744073709551615" });

    const line = JSON.stringify({ ...run, id: "big-restored", name: "big restored" }).replace(
      '"build":"9007199254740993"',
      '"build":9007199254740995',
    );
    const report = await restoreText(`${line}\n`);
    expect(report.lines).toEqual([{ line: 1, kind: "run", id: "big-restored", status: "stored" }]);
    expect((await storedRun("big-restored")).metadata).toMatchObject({ build: "9007199254740995" });
  });

  it("a file uploaded in a form keeps them too", async () => {
    const text = JSON.stringify({ ...valid(), name: "form upload, big seed" }).replace(
      '"format":"servebench/v1"',
      '"format":"servebench/v1","flags":{"--seed":12345678901234567891}',
    );
    const file = new Blob([text], { type: "application/json" });
    const response = await postRun(multipartRequest("/api/runs", { file }), noContext);
    expect(response.status, await response.clone().text()).toBe(201);
    const run = await storedRun(((await response.json()) as { id: string }).id);
    expect((run.flags as Record<string, unknown>)["--seed"]).toBe("12345678901234567891");
  });

  test.each([
    ["results.0.completed", '"completed":9007199254740993'],
    ["results.0.output_throughput", '"output_throughput":1e300'],
    ["workload.seed", '"workload":{"seed":9007199254740993}'],
  ])("a figure or setting is refused naming %s", async (path, replacement) => {
    const base = {
      ...valid(),
      results: [{ concurrency: 1, completed: 1, output_throughput: 1 }],
      workload: { seed: 1 },
    };
    const text = JSON.stringify(base)
      .replace('"completed":1', path === "results.0.completed" ? replacement : '"completed":1')
      .replace('"output_throughput":1', path === "results.0.output_throughput" ? replacement : '"output_throughput":1')
      .replace('"workload":{"seed":1}', path === "workload.seed" ? replacement : '"workload":{"seed":1}');
    const body = await expectRefusedWrite(() => uploadText(text), 422, path);
    expect(body.error.issues?.[0]?.message).toMatch(/, beyond ±2\^53 \(9,007,199,254,740,992\): a JSON number/);
  });

  it("a saved comparison's number beyond it is refused naming the field", async () => {
    await expectRefusedWrite(
      () =>
        postComparison(
          jsonRequest("/api/comparisons", "POST", `{"runs": ["${runId}"], "at_user": 18446744073709551616}`),
          noContext,
        ),
      422,
      "at_user",
    );
  });
});

describe("credentials in URLs and headers", () => {
  it("are redacted in the command, the flags and env before anything is stored", async () => {
    const response = await upload({
      ...valid(),
      name: "credentials",
      command:
        "HF_ENDPOINT=https://bot:hunter2@hf.example vllm serve m --header 'Authorization: Bearer sk-live-9' -H X-Api-Key: k-live-8 --load-from https://u:pw-7@hub/m",
      env: { MIRROR: "s3://key:pw-6@bucket/path" },
    });
    expect(response.status).toBe(201);
    const run = await storedRun(((await response.json()) as { id: string }).id);
    expect(JSON.stringify(run)).not.toMatch(/hunter2|sk-live-9|k-live-8|pw-7|pw-6/);
    expect(run.command).toBe(
      "HF_ENDPOINT=https://bot:(redacted)@hf.example vllm serve m --header 'Authorization: Bearer (redacted)' -H X-Api-Key: (redacted) --load-from https://u:(redacted)@hub/m",
    );
    expect(run.env).toEqual({
      HF_ENDPOINT: "https://bot:(redacted)@hf.example",
      MIRROR: "s3://key:(redacted)@bucket/path",
    });
    expect(run.flags).toMatchObject({
      "--header": "Authorization: Bearer (redacted)",
      "-H": ["X-Api-Key:", "(redacted)"],
      "--load-from": "https://u:(redacted)@hub/m",
    });
  });
});

describe("ids of uploaded and restored documents", () => {
  test.each(["has space", "a/b", "x".repeat(65), "", "ü"])(
    "an upload carrying id %j is a 422 naming id",
    async (id) => {
      await expectRefusedWrite(() => upload({ ...valid(), id }), 422, "id", ID_RULE);
    },
  );

  it("an upload keeps an id of the rule, one beginning with '-' or a prototype's name included", async () => {
    for (const id of ["-kept-id_1", "constructor"]) {
      const response = await upload({ ...valid(), id, name: `kept ${id}` });
      expect(response.status, await response.clone().text()).toBe(201);
      expect(((await response.json()) as { id: string }).id).toBe(id);
      expect((await storedRun(id)).name).toBe(`kept ${id}`);
    }
  });

  it("a restore refuses each line whose id, slug or series' ids break the rule, by field, and stores the rest", async () => {
    const exported = (await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text())
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const run = exported.find((line) => line.format === "servebench/v1" && line.id === runId)!;
    const comparison = {
      format: "servebench/comparison-v1",
      slug: "x",
      title: "short slug",
      notes: null,
      runs: [runId],
      baseline: null,
      noise: null,
      hide: [],
      stat: "mean",
      created_at: "2026-11-30T10:02:11.052Z",
    };
    const series = {
      format: "servebench/series-v1",
      id: "s-1",
      key: "name:restored-series",
      name: "restored-series",
      explicit: true,
      created_at: "2026-11-01T00:00:00.000Z",
      settings: {},
      annotations: [],
      changes: [],
    };
    const before = await snapshot();
    const report = await restoreText(
      [
        { ...run, id: "bad id", name: "bad id" },
        { ...comparison, slug: "no/slug" },
        { ...series, id: "bad.series" },
        {
          ...series,
          annotations: [{ id: "a b", run_id: runId, note: null, change_id: null, created_at: "2026-11-02T00:00:00Z" }],
        },
        comparison,
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const refused = report.lines.slice(0, 4).map((line) => [line.status, line.error?.issues?.[0]]);
    expect(refused).toEqual([
      ["refused", { path: "id", message: ID_RULE }],
      ["refused", { path: "slug", message: ID_RULE }],
      ["refused", { path: "id", message: ID_RULE }],
      ["refused", { path: "annotations.0.id", message: ID_RULE }],
    ]);
    expect(report.lines[4]).toMatchObject({ kind: "comparison", id: "x", status: "stored" });
    const after = await snapshot();
    expect(after.runs).toEqual(before.runs);
    expect(after.series).toEqual(before.series);
    expect(after.comparisons.map((saved) => saved.slug).sort()).toEqual(
      [...before.comparisons.map((saved) => saved.slug), "x"].sort(),
    );
  });
});
