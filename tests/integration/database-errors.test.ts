/**
 * Database failures answer the same on SQLite and PostgreSQL (this file runs on both): a write that waits past the
 * lock timeout for another writer is a 503 database_busy, a database that cannot be reached a 503
 * database_unavailable, an unsettled unique violation a 409 conflict; each with the one error shape, nothing of
 * the underlying error in the body, and nothing written.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { db, disconnectDb, provider } from "@/lib/db/client";
import { databaseTarget } from "@/lib/env";
import { errorResponse } from "@/lib/http/errors";
import { clearDatabase, counts, fixtureText, jsonRequest, noContext, SEED_FILES } from "./helpers";

// Before the first client is made: writers give up after half a second instead of ten.
process.env.SERVEBENCH_LOCK_TIMEOUT_MS = "500";

const upload = () => postRun(jsonRequest("/api/runs", "POST", fixtureText(SEED_FILES.vllm)), noContext);

/** Another connection holding the lock every run insert needs, until release(). */
async function holdWriteLock(): Promise<() => Promise<void>> {
  const target = databaseTarget(process.env.DATABASE_URL);
  if (target.provider === "sqlite") {
    const other = new Database(target.file);
    other.exec("BEGIN IMMEDIATE");
    return async () => {
      other.exec("ROLLBACK");
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: target.url });
  await other.connect();
  await other.query("BEGIN");
  // Every run insert updates this row (the run total's trigger).
  await other.query(`SELECT * FROM "RunTotal" WHERE "id" = 1 FOR UPDATE`);
  return async () => {
    await other.query("ROLLBACK");
    await other.end();
  };
}

beforeAll(async () => {
  await clearDatabase();
});

afterEach(async () => {
  await disconnectDb();
});

describe(`database errors on ${provider()}`, () => {
  it("a write that waits past the lock timeout is a 503 database_busy with Retry-After, and writes nothing", async () => {
    await db().run.count(); // the client exists before the lock is taken
    const release = await holdWriteLock();
    try {
      const response = await upload();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      expect(await response.json()).toEqual({
        error: { code: "database_busy", message: "The database is busy; try again in a moment." },
      });
    } finally {
      await release();
    }
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
    expect((await upload()).status).toBe(201);
  });

  it("a database that cannot be reached is a 503 database_unavailable, naming nothing of it", async () => {
    const saved = process.env.DATABASE_URL!;
    const target = databaseTarget(saved);
    // PostgreSQL: a port nobody listens on. SQLite: a file in a folder that does not exist.
    const unreachable =
      target.provider === "postgresql"
        ? "postgresql://postgres@127.0.0.1:9/servebench"
        : "file:/nonexistent-servebench-dir/db.sqlite";
    await disconnectDb();
    process.env.DATABASE_URL = unreachable;
    const { reloadEnv } = await import("@/lib/env");
    reloadEnv();
    try {
      const response = await upload();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: "database_unavailable", message: "The database cannot be reached right now; try again later." },
      });
      expect(text).not.toMatch(/127\.0\.0\.1|nonexistent|ECONNREFUSED|SQLITE/);
    } finally {
      await disconnectDb();
      process.env.DATABASE_URL = saved;
      reloadEnv();
    }
  });

  it("an unique violation the code does not settle is a 409 conflict", async () => {
    const data = { slug: "same-slug", title: "t", runIdsJson: "[]", viewJson: "{}", createdAt: new Date() };
    await db().comparison.create({ data });
    const error = await db()
      .comparison.create({ data })
      .then(() => null)
      .catch((caught: unknown) => caught);
    const response = errorResponse(error, "test");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: { code: "conflict", message: "Something else wrote the same thing at the same moment; try again." },
    });
  });
});
