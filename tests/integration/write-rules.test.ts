/**
 * One validation for every write path: the same character rules, length rules applied after normalization,
 * duplicate keys, `__proto__` / `constructor` keys and invalid UTF-8 refused alike by uploads, PATCH and saved
 * comparisons, each with its status, a message that names the field, and nothing changed.
 */
import { beforeAll, describe, expect, it, test } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import {
  BASE,
  clearDatabase,
  counts,
  fixtureJson,
  fixtureText,
  idContext,
  jsonRequest,
  noContext,
  SEED_FILES,
} from "./helpers";

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

const valid = () => fixtureJson(SEED_FILES.sglangGraphs);
let runId: string;

async function snapshot() {
  const [runs, comparisons] = await Promise.all([
    db().run.findMany({ include: { tags: true }, orderBy: { id: "asc" } }),
    db().comparison.findMany({ orderBy: { slug: "asc" } }),
  ]);
  return { runs, comparisons, counts: await counts() };
}

function rawRequest(url: string, method: string, body: string | Uint8Array<ArrayBuffer>, type = "application/json") {
  return new Request(`${BASE}${url}`, { method, headers: { "content-type": type }, body });
}

async function expectRefused(response: Response, status: number, code: string, path?: string, message?: RegExp) {
  const body = (await response.json()) as ErrorBody;
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error.code).toBe(code);
  if (path !== undefined) expect(body.error.issues?.map((issue) => issue.path)).toContain(path);
  if (message) expect(body.error.message).toMatch(message);
  return body;
}

beforeAll(async () => {
  await clearDatabase();
  const response = await postRun(jsonRequest("/api/runs", "POST", valid()), noContext);
  expect(response.status).toBe(201);
  runId = ((await response.json()) as { id: string }).id;
});

const upload = (document: Record<string, unknown>) => postRun(jsonRequest("/api/runs", "POST", document), noContext);
const patch = (body: unknown) => patchRun(jsonRequest(`/api/runs/${runId}`, "PATCH", body), idContext(runId));
const compare = (body: unknown) => postComparison(jsonRequest("/api/comparisons", "POST", body), noContext);

describe("the character rules, on every field of every write", () => {
  const BAD: [string, string][] = [
    ["a NUL", "a\u0000b"],
    ["an escape sequence", "a\u001b[31mb"],
    ["a right-to-left override", "safe\u202Egnp.exe"],
    ["a first-strong isolate", "a\u2068b"],
    ["an unpaired surrogate", "a\ud800b"],
  ];

  const UPLOAD_FIELDS: [string, (bad: string) => Record<string, unknown>][] = [
    ["name", (bad) => ({ name: bad })],
    ["model", (bad) => ({ model: bad })],
    ["engine_version", (bad) => ({ engine_version: bad })],
    ["hardware.gpu", (bad) => ({ hardware: { gpu: bad } })],
    ["metadata.note", (bad) => ({ metadata: { note: bad } })],
    ["metadata", (bad) => ({ metadata: { [`k${bad}`]: "v" } })],
    ["env.NCCL_ALGO", (bad) => ({ env: { NCCL_ALGO: bad } })],
    ["flags.--served-model-name", (bad) => ({ flags: { "--served-model-name": bad } })],
    ["flags", (bad) => ({ flags: { [`--x${bad}`]: "1" } })],
    ["tags.0", (bad) => ({ tags: [bad] })],
    ["notes", (bad) => ({ notes: bad })],
    ["source_format", (bad) => ({ source_format: bad })],
    ["an extra top-level field", (bad) => ({ extra_field: bad })],
  ];

  for (const [label, bad] of BAD) {
    test.each(UPLOAD_FIELDS)(`an upload with ${label} in %s is a 422, nothing stored`, async (_field, make) => {
      const before = await counts();
      const body = await expectRefused(await upload({ ...valid(), ...make(bad) }), 422, "validation_failed");
      expect(body.error.message).toMatch(
        /must not contain (a control character|a bidirectional override|an unpaired surrogate)/,
      );
      expect(await counts()).toEqual(before);
    });

    it(`PATCH with ${label} in the name, a tag or the notes is a 422, nothing changed`, async () => {
      const before = await snapshot();
      await expectRefused(await patch({ name: bad }), 422, "validation_failed", "name");
      await expectRefused(await patch({ tags: ["ok", bad] }), 422, "validation_failed", "tags.1");
      if (label !== "an escape sequence" || !bad.includes("\n")) {
        await expectRefused(await patch({ notes: `${bad}` }), 422, "validation_failed", "notes");
      }
      expect(await snapshot()).toEqual(before);
    });

    it(`a saved comparison with ${label} in its title or notes is a 422, nothing stored`, async () => {
      const before = await snapshot();
      await expectRefused(await compare({ runs: [runId], title: bad }), 422, "validation_failed", "title");
      await expectRefused(await compare({ runs: [runId], notes: bad }), 422, "validation_failed", "notes");
      expect(await snapshot()).toEqual(before);
    });
  }

  it("names the character and where it is", async () => {
    const body = await expectRefused(await patch({ name: "run \u202e2" }), 422, "validation_failed", "name");
    expect(body.error.issues?.[0]?.message).toBe("must not contain a bidirectional override (U+202E at character 5)");
  });

  it("keeps line breaks and tabs in free text (notes, metadata values), refuses them in one-line fields", async () => {
    const before = await counts();
    const stored = await upload({ ...valid(), name: "multi-line notes", notes: "a\n\tb", metadata: { log: "x\ny" } });
    expect(stored.status).toBe(201);
    await expectRefused(await upload({ ...valid(), name: "a\nb" }), 422, "validation_failed", "name");
    expect((await counts()).runs).toBe(before.runs + 1);
  });
});

describe("length rules after normalization", () => {
  const dotted = "İ"; // lower-cases to "i" + U+0307: one character becomes two

  it("refuses a tag of 40 İ, 80 characters once lower-cased, on upload and PATCH", async () => {
    const before = await snapshot();
    const tag = dotted.repeat(40);
    expect(tag.toLowerCase()).toHaveLength(80);
    const uploaded = await expectRefused(await upload({ ...valid(), tags: [tag] }), 422, "validation_failed", "tags.0");
    expect(uploaded.error.issues?.[0]?.message).toBe("must be at most 40 characters once lower-cased");
    await expectRefused(await patch({ tags: [tag] }), 422, "validation_failed", "tags.0");
    await expectRefused(await upload({ ...valid(), engine: dotted.repeat(64) }), 422, "validation_failed", "engine");
    expect(await snapshot()).toEqual(before);
  });

  it("takes a tag of 20 İ (40 characters once lower-cased), and the stored run uploads again as it is", async () => {
    const response = await upload({ ...valid(), name: "dotted tags", tags: [dotted.repeat(20)] });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const stored = (await (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id))).json()) as {
      tags: string[];
    };
    expect(stored.tags).toEqual([dotted.repeat(20).toLowerCase()]);
    // The server's own document is a valid upload: the same content, found as a duplicate.
    const again = await upload(stored as unknown as Record<string, unknown>);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { duplicate?: boolean }).duplicate).toBe(true);
  });

  it("refuses a command that redaction would make longer than the limit", async () => {
    const before = await counts();
    // 19,995 characters typed; "(redacted)" replaces the 1-character key, so 20,004 would be stored.
    const command = `vllm serve m --api-key k ${"x".repeat(19_995 - 25)}`;
    expect(command).toHaveLength(19_995);
    const body = await expectRefused(await upload({ ...valid(), command }), 422, "validation_failed", "command");
    expect(body.error.message).toContain("(once normalized)");
    expect(await counts()).toEqual(before);
  });

  it("fits a generated name to the name limit", async () => {
    const response = await upload({
      ...valid(),
      name: undefined,
      engine: "e".repeat(64),
      engine_version: "v".repeat(64),
      model: "m".repeat(200),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const stored = (await (await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id))).json()) as {
      name: string;
    };
    expect(stored.name).toHaveLength(200);
    expect(stored.name.endsWith("…")).toBe(true);
  });
});

describe("keys: duplicates, __proto__ and constructor, on every write path", () => {
  it("refuses a key twice in one object in a PATCH and a saved comparison, escaped or not", async () => {
    const before = await snapshot();
    for (const body of ['{"name": "a", "name": "b"}', '{"name": "a", "\\u006eame": "b"}']) {
      const response = await patchRun(rawRequest(`/api/runs/${runId}`, "PATCH", body), idContext(runId));
      await expectRefused(response, 400, "invalid_json", undefined, /has the key "name" twice in one object/);
    }
    const comparison = await postComparison(
      rawRequest("/api/comparisons", "POST", `{"runs": ["${runId}"], "title": "a", "title": "b"}`),
      noContext,
    );
    await expectRefused(comparison, 400, "invalid_json", undefined, /has the key "title" twice/);
    const uploaded = await postRun(
      rawRequest(
        "/api/runs",
        "POST",
        JSON.stringify(valid()).replace('{"format"', '{"name":"x","\\u006eame":"y","format"'),
      ),
      noContext,
    );
    await expectRefused(uploaded, 400, "invalid_json", undefined, /has the key "name" twice/);
    expect(await snapshot()).toEqual(before);
  });

  test.each([
    ["__proto__ in metadata", () => ({ ...valid(), metadata: JSON.parse('{"__proto__": "x"}') }), "metadata.__proto__"],
    ["constructor in metadata", () => ({ ...valid(), metadata: { constructor: "x" } }), "metadata.constructor"],
    ["a top-level constructor field", () => ({ ...valid(), constructor: "x" }), "constructor"],
    ["__proto__ in env", () => ({ ...valid(), env: JSON.parse('{"__proto__": "1"}') }), "env.__proto__"],
    ["prototype in flags", () => ({ ...valid(), flags: { prototype: "1" } }), "flags.prototype"],
  ])("refuses an upload with %s, naming it", async (_label, make, path) => {
    const before = await counts();
    const text = JSON.stringify(make());
    const body = await expectRefused(
      await postRun(rawRequest("/api/runs", "POST", text), noContext),
      422,
      "validation_failed",
      path,
    );
    expect(body.error.message).toContain("is not allowed as a field name");
    expect(await counts()).toEqual(before);
  });

  test.each([
    ["a constructor key", '{"constructor": "x", '],
    ["an escaped __proto__ key", '{"\\u005f_proto__": {"x": 1}, '],
  ])("refuses a tool's file with %s, though its parser would drop it", async (_label, start) => {
    const before = await counts();
    const text = fixtureText("vllm/bench_serve_v0.25.1.json").replace(/^\{/, start);
    const form = new FormData();
    form.append("file", new Blob([text]), "bench.json");
    form.set("engine", "vllm");
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    const body = await expectRefused(response, 422, "validation_failed");
    expect(body.error.message).toMatch(/^"bench\.json" has a key that is not allowed: (constructor|__proto__): /);
    expect(await counts()).toEqual(before);
  });

  it("refuses __proto__ in a PATCH and a saved comparison", async () => {
    const before = await snapshot();
    await expectRefused(
      await patchRun(rawRequest(`/api/runs/${runId}`, "PATCH", '{"__proto__": {"name": "x"}}'), idContext(runId)),
      422,
      "validation_failed",
      "__proto__",
    );
    await expectRefused(
      await postComparison(
        rawRequest("/api/comparisons", "POST", `{"runs": ["${runId}"], "constructor": 1}`),
        noContext,
      ),
      422,
      "validation_failed",
      "constructor",
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe("invalid UTF-8, refused with its byte offset on every write path", () => {
  const broken = (text: string, at: string, byte: number) => {
    const bytes = new Uint8Array(Buffer.from(text, "utf8"));
    const offset = Buffer.from(text, "utf8").indexOf(at);
    bytes[offset] = byte;
    return { bytes, offset };
  };

  it("PATCH, saved comparison", async () => {
    const before = await snapshot();
    const name = broken('{"name": "ok X"}', "X", 0xff);
    await expectRefused(
      await patchRun(rawRequest(`/api/runs/${runId}`, "PATCH", name.bytes), idContext(runId)),
      400,
      "invalid_json",
      undefined,
      new RegExp(`is not UTF-8 text: byte ${name.offset} \\(0xFF\\)`),
    );
    const title = broken(`{"runs": ["${runId}"], "title": "X"}`, "X", 0xed);
    await expectRefused(
      await postComparison(rawRequest("/api/comparisons", "POST", title.bytes), noContext),
      400,
      "invalid_json",
      undefined,
      new RegExp(`byte ${title.offset} \\(0xED\\)`),
    );
    expect(await snapshot()).toEqual(before);
  });
});
