/**
 * The app's SQLite connection: its page cache is sized for a history of a million runs (lib/db/client.ts), not
 * SQLite's 2 MiB default, which a search at that size outgrows. On PostgreSQL the server's own settings apply.
 */
import { describe, expect, it } from "vitest";
import { db, provider } from "@/lib/db/client";

describe("the app's database connection", () => {
  it("keeps a 32 MiB page cache on SQLite, for every query after the first", async () => {
    await db().run.count();
    const rows = await db().$queryRawUnsafe<Record<string, unknown>[]>(
      provider() === "sqlite" ? "PRAGMA cache_size" : "SELECT 1 AS one",
    );
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual(provider() === "sqlite" ? [[-32768]] : [[1]]);
  });
});
