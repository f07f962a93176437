/**
 * A database that cannot take writes answers 503 with what is wrong, not a generic 500, and /api/health says
 * which. SQLite's own limits make the errors here: `max_page_count` at the current size makes every write that
 * needs a page fail as a full disk does (SQLITE_FULL), `query_only` as a read-only database does
 * (SQLITE_READONLY); both set on every connection the app has to the file (its own and the writer thread's). tests/e2e/storage.test.ts does the same with a real full file system and a read-only mount.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { GET as getHealth } from "@/app/api/health/route";
import { PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { setConnectionPragma } from "@/lib/db/sqlite-writer";
import { databaseFilePath } from "@/lib/env";
import { BASE, clearDatabase, counts, fixtureJson, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

let runId: string;

async function pragma(statement: string): Promise<void> {
  await setConnectionPragma(statement);
}

async function health() {
  const response = await getHealth(new Request(`${BASE}/api/health`), noContext);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A run of 1,000 load levels: tens of pages of rows, more than a database with no room left can take. */
function bigRun(name: string) {
  return {
    ...fixtureJson(SEED_FILES.vllm),
    name,
    results: Array.from({ length: 1_000 }, (_, index) => ({ concurrency: index + 1, output_throughput: index })),
  };
}

beforeAll(async () => {
  await clearDatabase();
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureJson(SEED_FILES.vllm)), noContext);
  runId = ((await response.json()) as { id: string }).id;
});

afterEach(async () => {
  await pragma("max_page_count = 1073741823");
  await pragma("query_only = 0");
});

describe("storage problems", () => {
  it("says ok while the database takes writes", async () => {
    expect(await health()).toEqual({ status: 200, body: { ok: true, database: "ok" } });
  });

  it("answers a write on a full database 503 disk_full, stores nothing, and /api/health says so", async () => {
    const pages = (await db().$queryRawUnsafe("PRAGMA page_count")) as { page_count: bigint | number }[];
    await pragma(`max_page_count = ${Number(pages[0]!.page_count)}`);
    const before = await counts();
    const response = await postRun(jsonRequest("/api/runs", "POST", bigRun("no room")), noContext);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: {
        code: "disk_full",
        message: `The disk that holds the database (${databaseFilePath()}) is full: nothing was stored. Free some space there and try again.`,
      },
    });
    expect(await counts()).toEqual(before);
    const reported = await health();
    expect(reported.status).toBe(503);
    expect(reported.body).toMatchObject({ ok: false, database: "disk_full", error: { code: "disk_full" } });
  });

  it("answers writes to a read-only database 503 database_read_only, and /api/health says so", async () => {
    await pragma("query_only = 1");
    const before = await counts();
    const patched = await patchRun(jsonRequest(`/api/runs/${runId}`, "PATCH", { name: "renamed" }), idContext(runId));
    expect(patched.status).toBe(503);
    const body = (await patched.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("database_read_only");
    expect(body.error.message).toMatch(/is read-only: its file, folder or file system does not allow writing/);
    const saved = await postComparison(jsonRequest("/api/comparisons", "POST", { runs: [runId] }), noContext);
    expect(saved.status).toBe(503);
    const uploaded = await postRun(jsonRequest("/api/runs", "POST", bigRun("read-only")), noContext);
    expect(uploaded.status).toBe(503);
    expect(await counts()).toEqual(before);
    const reported = await health();
    expect(reported.status).toBe(503);
    expect(reported.body).toMatchObject({ ok: false, database: "read_only", error: { code: "database_read_only" } });
  });
});
