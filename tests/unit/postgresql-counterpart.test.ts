/**
 * The PostgreSQL counterpart of a SQLite migration is the difference between the SQLite schema before and after
 * it (lib/db/counterpart.ts): Prisma's table rebuild reads as the column change it is, and what a diff cannot
 * carry (data changes, triggers, FTS5) is flagged for porting by hand.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { postgresqlDiff, readSqliteSchema, statementsToPortByHand } from "@/lib/db/counterpart";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function diffOf(before: string, migration: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-counterpart-"));
  dirs.push(dir);
  const file = path.join(dir, "db.sqlite");
  const database = new Database(file);
  database.exec(before);
  database.close();
  const a = readSqliteSchema(file);
  const again = new Database(file);
  again.exec(migration);
  again.close();
  return postgresqlDiff(a, readSqliteSchema(file));
}

const BASE = `CREATE TABLE "Run" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT NOT NULL, "score" REAL);
CREATE INDEX "Run_name_idx" ON "Run"("name");`;

describe("the PostgreSQL counterpart of a SQLite migration", () => {
  it("adds columns, tables with their keys, indexes and foreign keys in Prisma's PostgreSQL DDL", () => {
    const statements = diffOf(
      BASE,
      `ALTER TABLE "Run" ADD COLUMN "seenAt" DATETIME;
       ALTER TABLE "Run" ADD COLUMN "pinned" BOOLEAN NOT NULL DEFAULT false;
       CREATE TABLE "Alert" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "runId" TEXT NOT NULL, "limit_ms" REAL NOT NULL,
         CONSTRAINT "Alert_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE);
       CREATE UNIQUE INDEX "Alert_runId_key" ON "Alert"("runId");`,
    );
    expect(statements).toEqual([
      `-- CreateTable\nCREATE TABLE "Alert" (\n    "id" SERIAL NOT NULL,\n    "runId" TEXT COLLATE "C" NOT NULL,\n    "limit_ms" DOUBLE PRECISION NOT NULL,\n    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")\n);`,
      `-- AlterTable\nALTER TABLE "Run" ADD COLUMN "seenAt" TIMESTAMP(3),\nADD COLUMN "pinned" BOOLEAN NOT NULL DEFAULT false;`,
      `-- CreateIndex\nCREATE UNIQUE INDEX "Alert_runId_key" ON "Alert"("runId");`,
      `-- AddForeignKey\nALTER TABLE "Alert" ADD CONSTRAINT "Alert_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;`,
    ]);
  });

  it("reads Prisma's SQLite table rebuild as the column change it makes", () => {
    const statements = diffOf(
      BASE,
      `PRAGMA foreign_keys=OFF;
       CREATE TABLE "new_Run" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT NOT NULL, "score" REAL NOT NULL DEFAULT 0);
       INSERT INTO "new_Run" ("id", "name", "score") SELECT "id", "name", coalesce("score", 0) FROM "Run";
       DROP TABLE "Run";
       ALTER TABLE "new_Run" RENAME TO "Run";
       CREATE INDEX "Run_name_idx" ON "Run"("name");
       PRAGMA foreign_keys=ON;`,
    );
    expect(statements).toEqual([
      `-- AlterTable\nALTER TABLE "Run" ALTER COLUMN "score" SET NOT NULL,\nALTER COLUMN "score" SET DEFAULT 0;`,
    ]);
  });

  it("drops what the migration drops", () => {
    expect(diffOf(BASE, `DROP INDEX "Run_name_idx"; ALTER TABLE "Run" DROP COLUMN "score";`)).toEqual([
      `-- DropIndex\nDROP INDEX "Run_name_idx";`,
      `-- AlterTable\nALTER TABLE "Run" DROP COLUMN "score";`,
    ]);
  });

  it("flags data changes and SQLite-only objects for porting by hand, not the copy of a rebuild", () => {
    const flagged = statementsToPortByHand(`-- a backfill
      UPDATE "Run" SET "score" = 0 WHERE "score" IS NULL;
      INSERT INTO "new_Run" SELECT * FROM "Run";
      CREATE TRIGGER "t" AFTER INSERT ON "Run" BEGIN SELECT 1; END;
      CREATE VIRTUAL TABLE "S" USING fts5("name");
      CREATE INDEX "x" ON "Run"("name");`);
    expect(flagged.map((statement) => statement.split(/\s+/).slice(0, 3).join(" "))).toEqual([
      'UPDATE "Run" SET',
      'CREATE TRIGGER "t"',
      "CREATE VIRTUAL TABLE",
    ]);
  });
});
