/**
 * The error contract of POST /api/runs: every failure has one body shape and an exact status, and a
 * rejected upload writes nothing. setup.ts sets the body limit to 1 MB for these tests.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { errorResponse } from "@/lib/http/errors";
import {
  BASE,
  clearDatabase,
  counts,
  fixtureJson,
  fixtureText,
  jsonRequest,
  multipartRequest,
  noContext,
  SEED_FILES,
} from "./helpers";

const valid = () => fixtureJson(SEED_FILES.sglangGraphs);

beforeEach(async () => {
  await clearDatabase();
  // Keep one stored run so "nothing changed" is checked against a non-empty database.
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.vllm)), noContext);
  expect(response.status).toBe(201);
});

async function expectRejected(request: Request, status: number, expectedBody: unknown): Promise<void> {
  const before = await counts();
  const response = await postRun(request, noContext);
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(await response.json()).toEqual(expectedBody);
  expect(await counts()).toEqual(before);
}

describe("malformed bodies → 400", () => {
  it("names where the JSON broke", async () => {
    await expectRejected(jsonRequest("/api/runs", "POST", '{"format": "servebench/v1", "engine": '), 400, {
      error: {
        code: "invalid_json",
        message: expect.stringMatching(/^The request body is not valid JSON: .+/) as unknown as string,
      },
    });
  });

  it("rejects an empty body", async () => {
    await expectRejected(jsonRequest("/api/runs", "POST", ""), 400, {
      error: { code: "invalid_json", message: "The request body is empty; expected a JSON object." },
    });
  });

  it("rejects a multipart file that is not JSON", async () => {
    await expectRejected(
      multipartRequest("/api/runs", {
        file: new File(["not json at all"], "results.json", { type: "application/json" }),
      }),
      400,
      {
        error: {
          code: "invalid_json",
          message: expect.stringMatching(
            /^"results\.json" is not valid JSON \(.+\), nor JSON lines, YAML or CSV\.$/,
          ) as unknown as string,
        },
      },
    );
  });

  it("calls a text file of another kind an unsupported format, not broken JSON", async () => {
    // A printed report of a tool servebench does not read (wrk's): text, but not a file servebench reads.
    const summary = [
      "Running 30s test @ http://127.0.0.1:8000/v1/completions",
      "  2 threads and 8 connections",
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
      "    Latency   812.31ms  101.20ms   1.20s    70.00%",
      "  294 requests in 30.01s, 1.21MB read",
      "Requests/sec:      9.80",
      "",
    ].join("\n");
    await expectRejected(
      multipartRequest("/api/runs", { file: new File([summary], "wrk-report.txt", { type: "text/plain" }) }),
      422,
      {
        error: {
          code: "unsupported_format",
          message: expect.stringMatching(
            /^"wrk-report\.txt" is not a results file servebench recognizes: it is text, but not JSON, JSON lines, YAML, CSV or a printed report servebench reads\. Supported: servebench\/v1 JSON; .+\.$/,
          ) as unknown as string,
        },
      },
    );
  });

  it("does not take another tool's JSON with a results list for a broken run document", async () => {
    const other = { metadata: { tool: "some-eval" }, results: [{ task: "gsm8k", score: 0.81 }] };
    await expectRejected(
      multipartRequest("/api/runs", {
        file: new File([JSON.stringify(other)], "eval.json", { type: "application/json" }),
      }),
      422,
      {
        error: {
          code: "not_a_run_document",
          message: expect.stringMatching(
            /^"eval\.json" is not a results file servebench recognizes \(it has a "results" list, but no "format": "servebench\/v1" nor the engine, model and hardware of a run document\)\. Supported: .+\.$/,
          ) as unknown as string,
        },
      },
    );
    // A run document that only forgot its format is still read as one, and told what it lacks.
    const { format: _format, ...forgotten } = valid() as Record<string, unknown>;
    const before = await counts();
    const response = await postRun(
      multipartRequest("/api/runs", {
        file: new File([JSON.stringify(forgotten)], "run.json", { type: "application/json" }),
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.issues.map((issue) => issue.path)).toContain("format");
    expect(await counts()).toEqual(before);
  });

  it("rejects a multipart body without a file", async () => {
    await expectRejected(multipartRequest("/api/runs", { name: "x" }), 400, {
      error: {
        code: "bad_request",
        message: "The multipart body has no `file` field; attach the results file as `file`.",
        issues: [{ path: "file", message: "is required" }],
      },
    });
  });
});

describe("oversized bodies → 413", () => {
  const tooLarge = () => JSON.stringify({ ...valid(), notes: "x".repeat(1_100_000) });
  const message = "The request body is larger than the limit of 1 MB (set SERVEBENCH_MAX_BODY_MB to change it).";

  it("refuses by Content-Length before reading", async () => {
    await expectRejected(jsonRequest("/api/runs", "POST", tooLarge()), 413, {
      error: { code: "payload_too_large", message },
    });
  });

  it("refuses a streamed body without Content-Length once it passes the limit", async () => {
    const bytes = new TextEncoder().encode(tooLarge());
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64_000)
          controller.enqueue(bytes.slice(offset, offset + 64_000));
        controller.close();
      },
    });
    const request = new Request(`${BASE}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    await expectRejected(request, 413, { error: { code: "payload_too_large", message } });
  });
});

const SUPPORTED =
  "application/json (a servebench/v1 document or a benchmark tool's results), another raw results file " +
  "(application/x-ndjson, text/csv, application/yaml, application/zip), or multipart/form-data with one or more `file` fields";

describe("unsupported content types → 415", () => {
  it.each([
    ["text/plain", 'Content-Type "text/plain" is not supported'],
    ["application/xml", 'Content-Type "application/xml" is not supported'],
    ["application/x-www-form-urlencoded", 'Content-Type "application/x-www-form-urlencoded" is not supported'],
  ])("%s", async (contentType, start) => {
    await expectRejected(jsonRequest("/api/runs", "POST", JSON.stringify(valid()), contentType), 415, {
      error: {
        code: "unsupported_media_type",
        message: `${start}; send ${SUPPORTED}.`,
      },
    });
  });

  it("a request without a content type", async () => {
    const request = new Request(`${BASE}/api/runs`, { method: "POST", body: new Uint8Array([123, 125]) });
    await expectRejected(request, 415, {
      error: {
        code: "unsupported_media_type",
        message: `Content-Type (none) is not supported; send ${SUPPORTED}.`,
      },
    });
  });
});

describe("schema violations → 422 naming every field", () => {
  it("names each violated field by its path", async () => {
    const doc = {
      ...valid(),
      engine: "",
      hardware: { gpu: "H100", gpu_count: 0 },
      results: [
        { concurrency: 0, output_throughput: -5 },
        { concurrency: 8, output_througput: 10 },
        { output_throughput: 1 },
      ],
    };
    await expectRejected(jsonRequest("/api/runs", "POST", doc), 422, {
      error: {
        code: "validation_failed",
        message: "The run document is invalid. engine: must not be empty (and 5 more)",
        issues: [
          { path: "engine", message: "must not be empty" },
          { path: "hardware.gpu_count", message: "Too small: expected number to be >=1" },
          { path: "results.0.concurrency", message: "Too small: expected number to be >=1" },
          { path: "results.0.output_throughput", message: "Too small: expected number to be >=0" },
          { path: "results.1.output_througput", message: 'unknown field "output_througput"' },
          { path: "results.2.concurrency", message: "a result point needs `concurrency` or `request_rate`" },
        ],
      },
    });
  });

  it.each([
    ["a missing format", { ...valid(), format: undefined }, "format", 'must be "servebench/v1"'],
    ["another format", { ...valid(), format: "servebench/v2" }, "format", 'must be "servebench/v1"'],
    ["a missing model", { ...valid(), model: undefined }, "model", "is required"],
    ["no results", { ...valid(), results: [] }, "results", "needs at least one result point"],
    [
      "results that are not a list",
      { ...valid(), results: { concurrency: 1 } },
      "results",
      "Invalid input: expected array, received object",
    ],
    [
      "a fractional concurrency",
      { ...valid(), results: [{ concurrency: 1.5 }] },
      "results.0.concurrency",
      "Invalid input: expected int, received number",
    ],
    [
      "a string throughput",
      { ...valid(), results: [{ concurrency: 1, output_throughput: "63.6" }] },
      "results.0.output_throughput",
      "Invalid input: expected number, received string",
    ],
    [
      "an unknown request rate",
      { ...valid(), results: [{ request_rate: "fast" }] },
      "results.0.request_rate",
      'must be a positive number of requests per second, or "inf"',
    ],
    [
      "two points at one concurrency",
      { ...valid(), results: [{ concurrency: 4 }, { concurrency: 4 }] },
      "results.1.concurrency",
      "concurrency 4 appears twice (also at results.0); a run has one point per load level and repeat (number repeats with `repeat`: 1, 2, …)",
    ],
    [
      "a bad env name",
      { ...valid(), env: { "BAD NAME": "1" } },
      "env.BAD NAME",
      "must be an environment variable name (letters, digits, _)",
    ],
    [
      "a nested extra key",
      { ...valid(), extra: { nested: true } },
      "extra",
      "unknown top-level field: extra fields are kept as metadata and must be a string, number or boolean",
    ],
    ["a bad timestamp", { ...valid(), measured_at: "yesterday" }, "measured_at", "Invalid ISO datetime"],
    [
      "an acceptance rate over 1",
      { ...valid(), speculative: { method: "eagle3", acceptance_rate: 42 } },
      "speculative.acceptance_rate",
      "Too big: expected number to be <=1",
    ],
    ["a tag with a comma", { ...valid(), tags: ["a,b"] }, "tags.0", "must not contain a comma"],
  ])("%s", async (_label, doc, path, message) => {
    const before = await counts();
    const response = await postRun(jsonRequest("/api/runs", "POST", JSON.stringify(doc)), noContext);
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { code: string; message: string; issues: { path: string; message: string }[] };
    };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.issues).toEqual([{ path, message }]);
    expect(body.error.message).toBe(`The run document is invalid. ${path || "document"}: ${message}`);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["an array", "[]"],
    ["a string", '"servebench"'],
    ["a number", "42"],
    ["an object of no known tool", '{"hello": "world"}'],
  ])("refuses a JSON body that is %s as an unknown format", async (_label, body) => {
    await expectRejected(jsonRequest("/api/runs", "POST", body), 422, {
      error: {
        code: "unsupported_format",
        message: expect.stringMatching(
          /^"request body" is not a results file servebench recognizes\. Supported: servebench\/v1 JSON; /,
        ) as unknown as string,
      },
    });
  });

  it("names multipart context fields as document paths", async () => {
    const file = new File([fixtureText(SEED_FILES.sglangGraphs)], "run.json", { type: "application/json" });
    await expectRejected(multipartRequest("/api/runs", { file, gpu_count: "eight" }), 422, {
      error: {
        code: "validation_failed",
        message: "The run document is invalid. hardware.gpu_count: Invalid input: expected number, received string",
        issues: [{ path: "hardware.gpu_count", message: "Invalid input: expected number, received string" }],
      },
    });
  });
});

describe("recognized files with nothing to import → 422 no_results", () => {
  it("an AIPerf CSV whose requests all failed is its own refusal, not an unknown format", async () => {
    const file = new File(
      [fixtureText("aiperf/hand-made-aiperf-all-requests-failed-profile_export_aiperf.csv")],
      "profile_export_aiperf.csv",
      { type: "text/csv" },
    );
    const reason =
      "recognised as AIPerf's CSV export, but every request failed: 16 errors, no latency or throughput rows";
    await expectRejected(multipartRequest("/api/runs", { file }), 422, {
      error: {
        code: "no_results",
        message: `Nothing to store: "profile_export_aiperf.csv" is ${reason}.`,
        issues: [{ path: "files", message: `profile_export_aiperf.csv: ${reason}` }],
      },
    });
  });
});

describe("a malformed level → 422 naming level", () => {
  it.each([
    ["a level of no known kind", "run.csv=batch:8", "it does not end in concurrency:N or rate:R"],
    [
      "a concurrency that is not a whole number",
      "run.csv=concurrency:2.5",
      "a concurrency is a whole number from 1 to 1000000",
    ],
    [
      "a rate that is not positive",
      "run.csv=rate:0",
      "a request rate is a positive number of requests per second, such as 2.5",
    ],
  ])("refuses %s", async (_label, level, why) => {
    const file = new File([fixtureText("aiperf/run1/profile_export_aiperf.csv")], "run.csv", { type: "text/csv" });
    await expectRejected(multipartRequest("/api/runs", { file, level }), 422, {
      error: {
        code: "validation_failed",
        message: `level "${level}" is not FILE=concurrency:N or FILE=rate:R (requests per second), FILE being the file's name as uploaded: ${why}.`,
        issues: [
          {
            path: "level",
            message: `${why} (expected FILE=concurrency:N or FILE=rate:R (requests per second), FILE being the file's name as uploaded)`,
          },
        ],
      },
    });
  });
});

describe("unexpected failures → 500", () => {
  it("never sends the exception to the client", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const response = errorResponse(
      new Error("SQLITE_CORRUPT at /var/lib/secret/path.db\n    at stack frame"),
      "POST /api/runs",
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: "internal_error", message: "Something went wrong on the server; the details are in its log." },
    });
    expect(text).not.toContain("SQLITE_CORRUPT");
    expect(text).not.toContain("stack");
    expect(log).toHaveBeenCalledOnce();
    log.mockRestore();
  });
});
