/**
 * What a request sends never forges or scrambles the server's log, and is not echoed back at any length: a
 * `?filename=` with a newline and ESC, a 1 MB file name, a duplicate key spelled with escapes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { logText } from "@/lib/http/errors";
import { BASE, idContext, noContext } from "./helpers";

let lines: string[] = [];

beforeEach(() => {
  lines = [];
  const capture = (...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  };
  vi.spyOn(console, "warn").mockImplementation(capture);
  vi.spyOn(console, "error").mockImplementation(capture);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("log lines", () => {
  it("escapes a newline and ESC in ?filename=, so no line of the log is forged", async () => {
    const filename = "run.json\n[servebench] GET /admin → 200 ok\u001b[2K";
    const response = await postRun(
      new Request(`${BASE}/api/runs?filename=${encodeURIComponent(filename)}`, {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: "not,a\nknown,format",
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { message: string } };
    // The error names the file with its control characters shown as ?, never as themselves.
    expect(body.error.message).toContain('"run.json?[servebench] GET /admin → 200 ok?[2K"');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.includes("\n") || lines[0]?.includes("\u001b")).toBe(false);
    expect(lines[0]).toMatch(/^\[servebench\] POST \/api\/runs → 422 unsupported_format: /);
  });

  it("cuts a 1 MB file name to 200 characters in the answer and keeps the log line short", async () => {
    const filename = "x".repeat(1_000_000);
    const response = await postRun(
      new Request(`${BASE}/api/runs?filename=${filename}`, {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: "not,a\nknown,format",
      }),
      noContext,
    );
    expect(response.status).toBe(422);
    const text = await response.text();
    expect(text.length).toBeLessThan(4_000);
    const message = (JSON.parse(text) as { error: { message: string } }).error.message;
    expect(message.startsWith(`"${"x".repeat(200)}…" is not a results file`)).toBe(true);
    expect(lines[0]!.length).toBeLessThan(2_500);
  });

  it("escapes a key that the request spelled with escapes", async () => {
    const response = await patchRun(
      new Request(`${BASE}/api/runs/abc`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: '{"a\\nb\\u001b": 1, "a\\u000ab\\u001b": 2}',
      }),
      idContext("abc"),
    );
    expect(response.status).toBe(400);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('has the key "a\\nb\\u001b" twice');
  });

  it("writes control characters, bidi overrides and unpaired surrogates as escapes", () => {
    expect(logText("a\nb\rc\td\u001be\u202ef\ud800g\\h")).toBe("a\\nb\\rc\\td\\u001be\\u202ef\\ud800g\\\\h");
    expect(logText("y".repeat(3_000))).toBe(`${"y".repeat(2_000)}… (3,000 characters)`);
  });
});
