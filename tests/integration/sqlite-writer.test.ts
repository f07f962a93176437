/**
 * Runs' rows are written on the writer thread's own connection to the SQLite file (lib/db/sqlite-writer.ts): an
 * upload's rows are there at once for the app's connection; a failed request leaves nothing and its error keeps
 * SQLite's code (so busy, full, read-only and a broken key are told apart); the writer's connection is set up as
 * the app's (foreign keys, query_only); the app's connection takes turns with it; and a script that stored a run
 * through it ends. On PostgreSQL there is no writer thread: its callers write with Prisma.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { setConnectionPragma, sqliteWriterActivity, writeRowsOnWriter, writerBusy } from "@/lib/db/sqlite-writer";
import { sqliteWrite } from "@/lib/db/sqlite-writes";
import { storageProblemOf } from "@/lib/db/storage";
import { FIXTURES, fixtureJson, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const ROOT = path.join(__dirname, "..", "..");
const TAG_INSERT = `INSERT INTO "RunTag" ("runId", "tag") VALUES (?, ?)`;
const onSqlite = process.env.SERVEBENCH_TEST_DATABASE !== "postgresql";

async function tagsOf(runId: string): Promise<string[]> {
  const rows = await db().runTag.findMany({ where: { runId }, orderBy: { tag: "asc" } });
  return rows.map((row) => row.tag);
}

async function uploadedRunId(name: string): Promise<string> {
  const response = await postRun(
    jsonRequest("/api/runs", "POST", { ...fixtureJson(SEED_FILES.vllm), name, tags: ["writer"] }),
    noContext,
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

if (onSqlite) {
  describe("the SQLite writer thread", () => {
    let runId = "";

    beforeAll(async () => {
      runId = await uploadedRunId("written on the writer thread");
    });

    it("writes an upload's rows, which the app's connection reads at once", async () => {
      const before = sqliteWriterActivity();
      const id = await uploadedRunId("a second upload");
      const after = sqliteWriterActivity();
      expect(after.started).toBeGreaterThanOrEqual(1);
      expect(after.writes).toBe(before.writes + 1);
      const response = await getRun(new Request(`http://localhost/api/runs/${id}`), idContext(id));
      expect(response.status).toBe(200);
      const run = (await response.json()) as { name: string; results: unknown[]; tags: string[] };
      expect(run.name).toBe("a second upload");
      expect(run.results).toHaveLength((fixtureJson(SEED_FILES.vllm).results as unknown[]).length);
      expect(await tagsOf(id)).toEqual(["writer"]);
    });

    it("stores nothing of a request that fails, and the error keeps SQLite's code", async () => {
      // The first statement would store a tag; the second breaks the (runId, tag) key: neither stays.
      const failed = await writeRowsOnWriter([
        { sql: TAG_INSERT, rows: [[runId, "kept only if all is"]] },
        { sql: TAG_INSERT, rows: [[runId, "writer"]] },
      ]).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as { code?: string }).code).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
      expect(isUniqueViolation(failed)).toBe(true);
      expect(await tagsOf(runId)).toEqual(["writer"]);
    });

    it("keeps foreign keys on, as the app's connection does", async () => {
      const failed = await writeRowsOnWriter([{ sql: TAG_INSERT, rows: [["no-such-run", "orphan"]] }]).catch(
        (error: unknown) => error,
      );
      expect((failed as { code?: string }).code).toBe("SQLITE_CONSTRAINT_FOREIGNKEY");
      expect(await db().runTag.count({ where: { tag: "orphan" } })).toBe(0);
    });

    it("takes a pragma set on the app's connections: query_only refuses its writes as read-only", async () => {
      await setConnectionPragma("query_only = 1");
      try {
        const failed = await writeRowsOnWriter([{ sql: TAG_INSERT, rows: [[runId, "read-only"]] }]).catch(
          (error: unknown) => error,
        );
        expect((failed as { code?: string }).code).toBe("SQLITE_READONLY");
        expect(storageProblemOf(failed)).toBe("read_only");
      } finally {
        await setConnectionPragma("query_only = 0");
      }
      expect(await writeRowsOnWriter([{ sql: TAG_INSERT, rows: [[runId, "writable again"]] }])).toBe(true);
      expect(await tagsOf(runId)).toEqual(["writable again", "writer"]);
    });

    it("writes on the app's own connection only while nothing is on the writer thread", async () => {
      const rows = Array.from({ length: 2_000 }, (_, index) => [runId, `bulk ${String(index).padStart(4, "0")}`]);
      const onWriter = writeRowsOnWriter([{ sql: TAG_INSERT, rows }]);
      // The request is posted a few microtasks later; its answer can only come in a later turn of the event loop.
      for (let turn = 0; !writerBusy() && turn < 1_000; turn += 1) await Promise.resolve();
      expect(writerBusy()).toBe(true);
      // The app's write waits for the writer's to be committed, then runs with nothing on the writer thread.
      const seen = await sqliteWrite((connection) => {
        const bulkTags = connection
          .prepare(`SELECT count(*) FROM "RunTag" WHERE "runId" = ? AND "tag" LIKE 'bulk %'`)
          .pluck()
          .get(runId);
        connection.prepare(TAG_INSERT).run(runId, "from the app's connection");
        return { writerBusy: writerBusy(), bulkTags: Number(bulkTags) };
      });
      expect(seen?.value).toEqual({ writerBusy: false, bulkTags: 2_000 });
      expect(await onWriter).toBe(true);
      expect(await db().runTag.count({ where: { runId } })).toBe(2_000 + 3);
    });

    it("lets a script that stored a run through it end", async () => {
      const { stdout } = await promisify(execFile)(
        path.join(ROOT, "node_modules", ".bin", "tsx"),
        ["tests/support/create-run-script.ts", path.join(FIXTURES, SEED_FILES.sglangGraphs)],
        { cwd: ROOT, env: { ...process.env } },
      );
      const id = stdout.trim();
      expect(await db().run.findUnique({ where: { id }, select: { name: true } })).toEqual({
        name: fixtureJson(SEED_FILES.sglangGraphs).name,
      });
    });
  });
} else {
  describe("PostgreSQL: no writer thread", () => {
    it("answers false and writes nothing; runs are written with Prisma", async () => {
      const before = sqliteWriterActivity();
      expect(await writeRowsOnWriter([{ sql: TAG_INSERT, rows: [["x", "y"]] }])).toBe(false);
      await setConnectionPragma("query_only = 1");
      const id = await uploadedRunId("stored with Prisma");
      expect(await tagsOf(id)).toEqual(["writer"]);
      expect(sqliteWriterActivity()).toEqual(before);
    });
  });
}
