/**
 * Before each integration test file: a new SQLite file in a temporary folder, created by the real
 * migrations, and the app's settings pointed at it. Nothing of the database is mocked.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { migrateDatabase } from "@/lib/db/migrate";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-it-"));
const file = path.join(dir, "test.db");
process.env.DATABASE_URL = `file:${file}`;
process.env.SERVEBENCH_MAX_BODY_MB = "1";
migrateDatabase(file);

afterAll(async () => {
  const holder = globalThis as unknown as { servebenchPrisma?: { $disconnect(): Promise<void> } };
  await holder.servebenchPrisma?.$disconnect();
  holder.servebenchPrisma = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});
