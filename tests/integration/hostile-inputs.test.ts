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

  const named = CASES.map(([label, request, status, code]) => ({ label, request, status, code }));
  test.each(named)("$label → $status $code, nothing stored", async ({ request, status, code }) => {
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
    const response = await postRun(multipart([{ name: "bomb.zip", content: bomb }]), noContext);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      '"bomb.zip" expands to more than 200 MB; upload fewer files.',
    );
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

/** A zip's central directory without the entries whose names match `drop`, the end record fixed to match. */
function withoutDirectoryEntries(zip: Uint8Array, drop: (name: string) => boolean): Uint8Array<ArrayBuffer> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.byteLength - 22;
  expect(view.getUint32(end, true)).toBe(0x06054b50);
  const directoryOffset = view.getUint32(end + 16, true);
  const count = view.getUint16(end + 10, true);
  const kept: Uint8Array[] = [];
  let at = directoryOffset;
  for (let index = 0; index < count; index += 1) {
    const length = 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)));
    if (!drop(name)) kept.push(zip.slice(at, at + length));
    at += length;
  }
  const directory = Buffer.concat(kept);
  const record = Buffer.from(zip.slice(end));
  record.writeUInt16LE(kept.length, 8);
  record.writeUInt16LE(kept.length, 10);
  record.writeUInt32LE(directory.byteLength, 12);
  return new Uint8Array(Buffer.concat([zip.subarray(0, directoryOffset), directory, record]));
}

describe("archives: one budget per upload, the central directory honoured", () => {
  const vllm = () => new TextEncoder().encode(fixtureText("vllm/bench_serve_v0.25.1.json"));
  const preview = (form: FormData) =>
    postRun(new Request(`${BASE}/api/runs?dry_run=1`, { method: "POST", body: form }), noContext);

  it("charges sixteen small zip bombs to one expansion budget, and refuses at the one that overruns it", async () => {
    // 20 MB of zeros each, 16 of them (320 MB) in a body of a few hundred kB: refused once 200 MB are used up.
    const bomb = zipSync({ "zeros.json": new Uint8Array(20_000_000) }, { level: 9 });
    const files = Array.from({ length: 16 }, (_, index) => ({ name: `z${index}.zip`, content: bomb }));
    const before = await counts();
    const response = await postRun(multipart(files), noContext);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      '"z10.zip" and the archives before it in this upload expand to more than 200 MB; upload fewer files.',
    );
    expect(await counts()).toEqual(before);
  });

  it("reads only the files the central directory lists", async () => {
    const zip = zipSync({ "listed/run.json": vllm(), "hidden/run.json": vllm() });
    const form = new FormData();
    form.append("file", new Blob([withoutDirectoryEntries(zip, (name) => name.startsWith("hidden/"))]), "r.zip");
    form.set("engine", "vllm");
    const response = await preview(form);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fragments: { file: string }[] };
    expect(body.fragments.map((fragment) => fragment.file)).toEqual(["r.zip/listed/run.json"]);
  });

  it("reads stored (uncompressed) entries", async () => {
    const form = new FormData();
    form.append("file", new Blob([zipSync({ "run.json": vllm() }, { level: 0 })]), "stored.zip");
    form.set("engine", "vllm");
    const response = await preview(form);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { runs: unknown[] }).runs).toHaveLength(1);
  });

  test.each([
    [
      "an entry larger than its directory says",
      () => {
        const zip = zipSync({ "run.json": vllm() });
        // The uncompressed size in the central directory entry, made one byte smaller.
        const view = new DataView(zip.buffer);
        const directory = view.getUint32(zip.byteLength - 22 + 16, true);
        view.setUint32(directory + 24, view.getUint32(directory + 24, true) - 1, true);
        return zip;
      },
      '"x.zip" is not a readable zip archive: run.json does not match its directory entry (damaged or altered).',
    ],
    [
      "an entry whose bytes were altered",
      () => {
        const zip = zipSync({ "run.json": vllm() }, { level: 0 });
        zip[40] = zip[40] === 0x20 ? 0x21 : 0x20;
        return zip;
      },
      '"x.zip" is not a readable zip archive: run.json does not match its directory entry (damaged or altered).',
    ],
    [
      "a symbolic link",
      () => zipSync({ "link.json": [new TextEncoder().encode("/etc/passwd"), { os: 3, attrs: 0o120777 << 16 }] }),
      '"x.zip": link.json is a symbolic link; zip the files themselves (zip without -y).',
    ],
    [
      "a zip inside the zip",
      () => zipSync({ "inner.zip": zipSync({ "run.json": vllm() }) }),
      '"x.zip": inner.zip is itself a zip archive; unzip it and upload its files.',
    ],
    [
      "a zip cut short",
      () => {
        const zip = zipSync({ "run.json": vllm() });
        return zip.slice(0, zip.byteLength - 30);
      },
      '"x.zip" is not a readable zip archive: it has no central directory (a truncated download?).',
    ],
  ])("refuses %s with a 400 that says so", async (_label, make, message) => {
    const before = await counts();
    const form = new FormData();
    form.append("file", new Blob([make()]), "x.zip");
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "bad_request", message } });
    expect(await counts()).toEqual(before);
  });
});

describe("bytes checked before anything is parsed", () => {
  it("refuses invalid UTF-8 with its byte offset", async () => {
    const text = new TextEncoder().encode(JSON.stringify({ ...valid(), name: "café" }));
    const offset = Buffer.from(text).indexOf("caf") + 3;
    const broken = new Uint8Array(text);
    broken[offset] = 0xc0; // the first byte of an overlong form
    const before = await counts();
    for (const request of [
      raw(broken, "application/json"),
      raw(broken, "application/x-ndjson"),
      multipart([{ name: "run.json", content: broken }]),
    ]) {
      const response = await postRun(request, noContext);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_json");
      expect(body.error.message).toMatch(
        new RegExp(
          `is not UTF-8 text: byte ${offset.toLocaleString("en-US")} \\(0xC0\\) does not begin a valid character`,
        ),
      );
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses a body that would parse into millions of objects, before parsing it", async () => {
    // 400 kB of `{}` in a list: 133,000 objects. The integration tests' 1 MB limit keeps this small, so the
    // limit is shown through a zip of 2.1 million empty objects (a few kB compressed).
    const many = new TextEncoder().encode(`[${"{},".repeat(2_100_000)}{}]`);
    const response = await postRun(
      multipart([{ name: "objects.zip", content: zipSync({ "objects.json": many }) }]),
      noContext,
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'The upload holds more than 2,000,000 objects and lists (counted up to "objects.zip/objects.json"); no benchmark result comes near that. Upload fewer or smaller files.',
    );
  });
});
