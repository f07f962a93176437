/**
 * Hostile and broken uploads, one per row: each gets its status and error code, and none changes anything.
 * setup.ts sets the body limit to 1 MB for these tests.
 */
import { zipSync } from "fflate";
import { beforeAll, describe, expect, it, test } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { BASE, clearDatabase, counts, fixtureJson, fixtureText, noContext, SEED_FILES } from "./helpers";

const valid = () => fixtureJson(SEED_FILES.sglangGraphs);
const withPoint = (point: Record<string, unknown>) => ({ ...valid(), results: [{ concurrency: 1, ...point }] });

function raw(body: BodyInit | null, contentType: string | null): Request {
  const headers: Record<string, string> = {};
  if (contentType) headers["content-type"] = contentType;
  return new Request(`${BASE}/api/runs`, { method: "POST", headers, body });
}
const json = (value: unknown) => raw(typeof value === "string" ? value : JSON.stringify(value), "application/json");

function multipart(files: { name: string; content: BlobPart }[], fields: Record<string, string> = {}): Request {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([file.content]), file.name);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return new Request(`${BASE}/api/runs`, { method: "POST", body: form });
}

function nested(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

function garbage(bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  let seed = 12345;
  for (let index = 0; index < bytes; index += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[index] = seed & 0xff;
  }
  out[10] = 0;
  return out;
}

const CASES: [string, () => Request, number, string][] = [
  ["truncated JSON", () => json('{"format": "servebench/v1", "engine": "vllm", "mod'), 400, "invalid_json"],
  ["an empty body", () => json(""), 400, "invalid_json"],
  ["a body of spaces", () => json("   \n  "), 400, "invalid_json"],
  ["null", () => json("null"), 422, "unsupported_format"],
  ["a JSON string", () => json('"servebench"'), 422, "unsupported_format"],
  ["a JSON document inside a string", () => json(JSON.stringify(JSON.stringify(valid()))), 422, "unsupported_format"],
  ["a number", () => json("42"), 422, "unsupported_format"],
  ["true", () => json("true"), 422, "unsupported_format"],
  ["an empty array", () => json("[]"), 422, "unsupported_format"],
  ["an empty object", () => json("{}"), 422, "unsupported_format"],
  ["another tool's unknown format", () => json({ benchmark: "mlperf", result: 1 }), 422, "unsupported_format"],
  ["no results", () => json({ format: "servebench/v1", engine: "vllm", model: "m" }), 422, "validation_failed"],
  ["results that are an object", () => json({ ...valid(), results: { concurrency: 1 } }), 422, "validation_failed"],
  ["empty results", () => json({ ...valid(), results: [] }), 422, "validation_failed"],
  ["an engine that is a number", () => json({ ...valid(), engine: 7 }), 422, "validation_failed"],
  ["a model that is a list", () => json({ ...valid(), model: ["a", "b"] }), 422, "validation_failed"],
  ["a negative concurrency", () => json({ ...valid(), results: [{ concurrency: -8 }] }), 422, "validation_failed"],
  ["a zero concurrency", () => json({ ...valid(), results: [{ concurrency: 0 }] }), 422, "validation_failed"],
  ["an absurd concurrency", () => json({ ...valid(), results: [{ concurrency: 1e12 }] }), 422, "validation_failed"],
  ["a concurrency as a string", () => json({ ...valid(), results: [{ concurrency: "8" }] }), 422, "validation_failed"],
  ["a negative throughput", () => json(withPoint({ output_throughput: -1 })), 422, "validation_failed"],
  ["an absurd throughput", () => json(withPoint({ output_throughput: 1e300 })), 422, "validation_failed"],
  [
    "a number too big for a double",
    () => json(JSON.stringify(valid()).replace('"output_throughput":63.6', '"output_throughput":1e400')),
    422,
    "validation_failed",
  ],
  [
    "a bare NaN",
    () => json(JSON.stringify(valid()).replace('"output_throughput":63.6', '"output_throughput":NaN')),
    422,
    "validation_failed",
  ],
  [
    "a bare -Infinity",
    () => json(JSON.stringify(valid()).replace('"mean_tpot_ms":15.7', '"mean_tpot_ms":-Infinity')),
    422,
    "validation_failed",
  ],
  ["a fractional completed count", () => json(withPoint({ completed: 2.5 })), 422, "validation_failed"],
  [
    "an unknown request rate",
    () => json({ ...valid(), results: [{ request_rate: "fast" }] }),
    422,
    "validation_failed",
  ],
  [
    "1,001 result points",
    () => json({ ...valid(), results: Array.from({ length: 1001 }, (_, index) => ({ concurrency: index + 1 })) }),
    422,
    "validation_failed",
  ],
  [
    "100 tags",
    () => json({ ...valid(), tags: Array.from({ length: 100 }, (_, index) => `t${index}`) }),
    422,
    "validation_failed",
  ],
  ["a 10,000-character name", () => json({ ...valid(), name: "x".repeat(10_000) }), 422, "validation_failed"],
  [
    "a 100,000-character command",
    () => json({ ...valid(), command: `vllm serve m ${"--x 1 ".repeat(20_000)}` }),
    422,
    "validation_failed",
  ],
  ["a NUL in the name", () => json({ ...valid(), name: "run\u0000name" }), 422, "validation_failed"],
  ["an escape sequence in the model", () => json({ ...valid(), model: "m\u001b[31m" }), 422, "validation_failed"],
  [
    "a right-to-left override in a tag",
    () => json({ ...valid(), tags: ["safe\u202Egnp.exe"] }),
    422,
    "validation_failed",
  ],
  ["a bell in the notes", () => json({ ...valid(), notes: "ding\u0007" }), 422, "validation_failed"],
  [
    "metadata with an object value",
    () => json({ ...valid(), metadata: { nested: { a: 1 } } }),
    422,
    "validation_failed",
  ],
  ["an extra key with a list value", () => json({ ...valid(), extra: [1, 2] }), 422, "validation_failed"],
  ["flags that are a number", () => json({ ...valid(), flags: 8 }), 422, "validation_failed"],
  [
    "an environment variable named with a space",
    () => json({ ...valid(), env: { "A B": "1" } }),
    422,
    "validation_failed",
  ],
  ["a wrong format version", () => json({ ...valid(), format: "servebench/v9" }), 422, "validation_failed"],
  [
    "duplicate keys",
    () => json(JSON.stringify(valid()).replace('"engine":"sglang"', '"engine":"sglang","engine":"vllm"')),
    400,
    "invalid_json",
  ],
  ["10,000 levels of nesting", () => json(nested(10_000)), 400, "invalid_json"],
  [
    "nesting in a tool file",
    () => multipart([{ name: "deep.json", content: `{"benchmarks": ${nested(100)}}` }]),
    400,
    "invalid_json",
  ],
  ["binary garbage", () => raw(garbage(4096), "application/octet-stream"), 400, "invalid_json"],
  ["binary garbage sent as JSON", () => raw(garbage(4096), "application/json"), 400, "invalid_json"],
  ["plain text", () => raw("format: servebench/v1", "text/plain"), 415, "unsupported_media_type"],
  ["no content type", () => raw(JSON.stringify(valid()), null), 415, "unsupported_media_type"],
  [
    "a URL-encoded form",
    () => raw("format=servebench%2Fv1", "application/x-www-form-urlencoded"),
    415,
    "unsupported_media_type",
  ],
  ["XML", () => raw("<run/>", "application/xml"), 415, "unsupported_media_type"],
  ["a body over the limit", () => json({ ...valid(), notes: "x".repeat(1_100_000) }), 413, "payload_too_large"],
  ["a multipart body with no file", () => multipart([], { name: "x" }), 400, "bad_request"],
  [
    "1,001 files",
    () => multipart(Array.from({ length: 1001 }, (_, index) => ({ name: `f${index}.json`, content: "{}" }))),
    413,
    "payload_too_large",
  ],
  [
    "a zip holding 1,001 files",
    () =>
      multipart([
        {
          name: "many.zip",
          content: zipSync(
            Object.fromEntries(
              Array.from({ length: 1001 }, (_, index) => [`r${index}.json`, new TextEncoder().encode("{}")]),
            ),
          ),
        },
      ]),
    413,
    "payload_too_large",
  ],
  [
    "a zip that is not a zip",
    () =>
      multipart([{ name: "broken.zip", content: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]) }]),
    400,
    "bad_request",
  ],
  [
    "a vLLM file with an object for a figure",
    () =>
      multipart(
        [
          {
            name: "bench.json",
            content: JSON.stringify({
              ...(JSON.parse(fixtureText("vllm/bench_serve_v0.25.1.json")) as object),
              output_throughput: { value: 1 },
            }),
          },
        ],
        { engine: "vllm" },
      ),
    422,
    "validation_failed",
  ],
];

describe("hostile and broken uploads", () => {
  beforeAll(async () => {
    await clearDatabase();
    const response = await postRun(json(valid()), noContext);
    expect(response.status).toBe(201);
  });

  it("has at least 40 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  test.each(CASES)("%s → %i %s, nothing stored", async (_label, request, status, code) => {
    const before = await counts();
    const response = await postRun(request(), noContext);
    const body = (await response.json()) as { error?: { code: string; message: string } };
    expect(response.status).toBe(status);
    expect(body.error?.code).toBe(code);
    expect(body.error?.message.length).toBeGreaterThan(10);
    expect(JSON.stringify(body)).not.toMatch(/\bat \w+ \(|node_modules|\/work\//);
    expect(await counts()).toEqual(before);
  });
});

describe("archives", () => {
  it("refuses a zip bomb from its directory, before inflating it", async () => {
    // 210 MB of zeros compress to about 200 kB: under the body limit, over the expansion limit.
    const bomb = zipSync({ "zeros.json": new Uint8Array(210_000_000) }, { level: 1 });
    expect(bomb.byteLength).toBeLessThan(1_000_000);
    const before = await counts();
    const started = performance.now();
    const response = await postRun(multipart([{ name: "bomb.zip", content: bomb }]), noContext);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      '"bomb.zip" expands to more than 200 MB; upload fewer files.',
    );
    // Refused from the declared size: no time spent inflating 210 MB.
    expect(elapsed).toBeLessThan(2_000);
    expect(await counts()).toEqual(before);
  });

  it("takes entry paths as names only, stripped of anything that climbs out", async () => {
    const zip = zipSync({
      "../../../etc/cron.d/bench.json": new TextEncoder().encode(fixtureText("vllm/bench_serve_v0.25.1.json")),
    });
    const form = new FormData();
    form.append("file", new Blob([zip]), "results.zip");
    form.set("engine", "vllm");
    const response = await postRun(
      new Request(`${BASE}/api/runs?dry_run=1`, { method: "POST", body: form }),
      noContext,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fragments: { file: string }[] };
    expect(body.fragments.map((fragment) => fragment.file)).toEqual(["results.zip/etc/cron.d/bench.json"]);
  });
});
