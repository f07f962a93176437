/**
 * A write refused by a unique constraint is recognised as such on both databases, whichever way it was written:
 * through Prisma's models (P2002) or as raw SQL on the connection (lib/runs/run-writes.ts: better-sqlite3's
 * SQLITE_CONSTRAINT_* on SQLite, Prisma's P2010 with PostgreSQL's 23505 on PostgreSQL). Every caller that settles
 * a race (two instances storing the same demo run, two uploads of the same content) depends on it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { databaseErrorOf } from "@/lib/db/database-errors";
import { isUniqueViolation } from "@/lib/db/errors";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { writeRunBatch } from "@/lib/runs/run-writes";
import { createRun } from "@/lib/runs/store";
import { clearDatabase, counts } from "./helpers";

const document = normalizeRunDocument({
  format: "servebench/v1",
  name: "unique violation",
  engine: "vllm",
  model: "Qwen/Qwen3-32B",
  results: [{ concurrency: 1, output_throughput: 63.6 }],
});

async function refusal(write: () => Promise<unknown>): Promise<unknown> {
  try {
    await write();
  } catch (error) {
    return error;
  }
  throw new Error("the write was not refused");
}

beforeEach(async () => {
  await clearDatabase();
});

describe("a write refused by a unique constraint", () => {
  it("is recognised when a raw batch repeats a stored content hash, and stores nothing of the batch", async () => {
    await writeRunBatch([{ id: "first", document, createdAt: new Date(), contentHash: "hash-a" }]);
    const error = await refusal(() =>
      writeRunBatch([
        { id: "second", document, createdAt: new Date(), contentHash: "hash-b" },
        { id: "third", document, createdAt: new Date(), contentHash: "hash-a" },
      ]),
    );
    expect(isUniqueViolation(error)).toBe(true);
    expect(databaseErrorOf(error)?.code).toBe("conflict");
    expect((await counts()).runs).toBe(1);
  });

  it("is recognised when a raw batch repeats a stored id", async () => {
    await writeRunBatch([{ id: "taken", document, createdAt: new Date(), contentHash: null }]);
    const error = await refusal(() =>
      writeRunBatch([{ id: "taken", document, createdAt: new Date(), contentHash: null }]),
    );
    expect(isUniqueViolation(error)).toBe(true);
    expect(databaseErrorOf(error)?.code).toBe("conflict");
  });

  it("is recognised through Prisma's models", async () => {
    const { id } = await createRun(document);
    const error = await refusal(() =>
      db()
        .runTag.create({ data: { runId: id, tag: "dup" } })
        .then(() => db().runTag.create({ data: { runId: id, tag: "dup" } })),
    );
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("is told apart from other failures", () => {
    expect(isUniqueViolation(new Error("unique"))).toBe(false);
    expect(isUniqueViolation({ code: "P2010", meta: { code: "42P01" } })).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
