/**
 * Writes from another site are refused: a page on another origin cannot create, edit or delete anything on an
 * open servebench (no write token) with an auto-submitted form or a `no-cors` fetch. Same-origin pages, the CLI
 * and curl (no Origin, no Sec-Fetch-Site) keep working.
 */
import { beforeAll, describe, expect, it, test } from "vitest";
import { DELETE as deleteComparison } from "@/app/api/comparisons/[slug]/route";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { POST as restore } from "@/app/api/restore/route";
import { DELETE as deleteRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { BASE, clearDatabase, counts, fixtureText, idContext, noContext, SEED_FILES } from "./helpers";

const document = () => fixtureText(SEED_FILES.sglangGraphs);
let runId: string;
let slug: string;

function write(url: string, method: string, headers: Record<string, string>, body?: BodyInit): Request {
  return new Request(`${BASE}${url}`, { method, headers: { "content-type": "application/json", ...headers }, body });
}

async function snapshot() {
  return {
    counts: await counts(),
    comparisons: await db().comparison.count(),
    run: await db().run.findUnique({ where: { id: runId } }),
  };
}

beforeAll(async () => {
  await clearDatabase();
  const response = await postRun(write("/api/runs", "POST", {}, document()), noContext);
  expect(response.status).toBe(201);
  runId = ((await response.json()) as { id: string }).id;
  const saved = await postComparison(
    write("/api/comparisons", "POST", {}, JSON.stringify({ runs: [runId] })),
    noContext,
  );
  slug = ((await saved.json()) as { slug: string }).slug;
});

const FOREIGN: [string, Record<string, string>][] = [
  ["Origin of another site", { origin: "http://evil.example" }],
  ["Origin of another port on the same host", { origin: "http://localhost:8080" }],
  ["Origin null (a sandboxed frame, a file)", { origin: "null" }],
  ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
  ["Sec-Fetch-Site same-site (another origin of the same site)", { "sec-fetch-site": "same-site" }],
];

describe("writes from another site", () => {
  test.each(FOREIGN)("%s: every write is a 403, nothing changes", async (_label, headers) => {
    const before = await snapshot();
    const responses = [
      await postRun(write("/api/runs", "POST", headers, document()), noContext),
      await postRun(write("/api/runs?dry_run=1", "POST", headers, document()), noContext),
      await postRun(
        new Request(`${BASE}/api/runs`, {
          method: "POST",
          headers,
          body: (() => {
            const form = new FormData();
            form.append("file", new Blob([document()]), "run.json");
            return form;
          })(),
        }),
        noContext,
      ),
      await patchRun(write(`/api/runs/${runId}`, "PATCH", headers, JSON.stringify({ name: "x" })), idContext(runId)),
      await deleteRun(write(`/api/runs/${runId}`, "DELETE", headers), idContext(runId)),
      await postComparison(write("/api/comparisons", "POST", headers, JSON.stringify({ runs: [runId] })), noContext),
      await deleteComparison(write(`/api/comparisons/${slug}`, "DELETE", headers), {
        params: Promise.resolve({ slug }),
      }),
      await restore(
        write("/api/restore", "POST", { ...headers, "content-type": "application/x-ndjson" }, document()),
        noContext,
      ),
    ];
    for (const response of responses) {
      expect(response.status).toBe(403);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("forbidden");
      expect(body.error.message).toMatch(/^Writes from another site are refused: /);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("names the page it came from", async () => {
    const response = await postRun(
      write("/api/runs", "POST", { origin: "http://evil.example" }, document()),
      noContext,
    );
    expect(await response.json()).toEqual({
      error: {
        code: "forbidden",
        message:
          'Writes from another site are refused: this request came from a page at "http://evil.example". Use this servebench\'s own pages, the servebench command or curl.',
      },
    });
  });
});

describe("writes that stay allowed", () => {
  it.each([
    ["no Origin, no Sec-Fetch-Site (curl, the CLI)", {}],
    ["the servebench's own origin", { origin: "http://localhost" }],
    ["Sec-Fetch-Site same-origin", { "sec-fetch-site": "same-origin" }],
    ["Sec-Fetch-Site none (typed by the person)", { "sec-fetch-site": "none" }],
    [
      "behind a proxy: Origin of the forwarded host",
      { origin: "https://bench.example.com", "x-forwarded-host": "bench.example.com" },
    ],
  ])("%s", async (_label, headers) => {
    const response = await postRun(write("/api/runs?dry_run=1", "POST", headers, document()), noContext);
    expect(response.status).toBe(200);
  });
});
