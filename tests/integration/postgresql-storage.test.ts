/**
 * On PostgreSQL, a server that takes no writes (a standby, or a database set read-only) answers writes 503
 * database_read_only with what to do, and /api/health says so; reads stay open. SQLite's full disk and read-only
 * file are tests/integration/storage.test.ts and tests/e2e/storage.test.ts. A PostgreSQL disk_full (SQLSTATE
 * 53100) cannot be made here without filling a file system, so its mapping is checked on the error itself.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getHealth } from "@/app/api/health/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import { disconnectDb } from "@/lib/db/client";
import { storageProblemOf } from "@/lib/db/storage";
import { BASE, clearDatabase, counts, fixtureJson, jsonRequest, noContext, SEED_FILES } from "./helpers";

async function setReadOnly(readOnly: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    // This session writes whatever the database's default, then the default changes for new connections.
    await client.query("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
    const name = (await client.query<{ name: string }>("SELECT current_database() AS name")).rows[0]!.name;
    await client.query(
      readOnly
        ? `ALTER DATABASE "${name}" SET default_transaction_read_only = on`
        : `ALTER DATABASE "${name}" RESET default_transaction_read_only`,
    );
  } finally {
    await client.end();
  }
  // The app's pool opens new connections, which take the new default.
  await disconnectDb();
}

beforeAll(async () => {
  await clearDatabase();
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureJson(SEED_FILES.vllm)), noContext);
  expect(response.status).toBe(201);
});

afterAll(async () => {
  await setReadOnly(false);
});

describe("a PostgreSQL database that takes no writes", () => {
  it("answers writes 503 database_read_only, stores nothing, keeps reads open, and /api/health says so", async () => {
    await setReadOnly(true);
    const before = await counts();
    const response = await postRun(
      jsonRequest("/api/runs", "POST", { ...fixtureJson(SEED_FILES.sglangGraphs), name: "read-only" }),
      noContext,
    );
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("database_read_only");
    expect(body.error.message).toMatch(/^The database \(PostgreSQL 127\.0\.0\.1:\d+\/it_[0-9a-f]+\) takes no writes/);
    expect(await counts()).toEqual(before);

    const list = await listRuns(new Request(`${BASE}/api/runs`), noContext);
    expect(list.status).toBe(200);

    const health = await getHealth(new Request(`${BASE}/api/health`), noContext);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { database: string }).database).toBe("read_only");
  });

  it("maps PostgreSQL's disk_full and read-only SQLSTATEs, as the driver reports them", () => {
    expect(
      storageProblemOf({ code: "P2010", meta: { driverAdapterError: { cause: { originalCode: "53100" } } } }),
    ).toBe("disk_full");
    expect(storageProblemOf(Object.assign(new Error("read-only"), { code: "25006" }))).toBe("read_only");
    expect(storageProblemOf({ code: "23505" })).toBeNull();
  });
});
