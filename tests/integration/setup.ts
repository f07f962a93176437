/**
 * Before each integration test file: a database of its own, created by the real migrations, and the app's settings
 * pointed at it. The `integration` project runs the files on a new SQLite file in a temporary folder; the
 * `integration-postgresql` project runs the same files on a new database in the private PostgreSQL cluster of
 * postgresql-global-setup.ts. Nothing of the database is mocked.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { migrateDatabase, migratePostgresql } from "@/lib/db/migrate";

process.env.SERVEBENCH_MAX_BODY_MB = "1";

async function disconnectApp(): Promise<void> {
  const holder = globalThis as unknown as { servebenchPrisma?: { $disconnect(): Promise<void> } };
  await holder.servebenchPrisma?.$disconnect();
  holder.servebenchPrisma = undefined;
}

if (process.env.SERVEBENCH_TEST_DATABASE === "postgresql") {
  const clusterUrl = inject("postgresqlClusterUrl");
  const name = `it_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = clusterUrl.replace(/\/postgres$/, `/${name}`);
  process.env.DATABASE_URL = url;
  await migratePostgresql(url);

  afterAll(async () => {
    await disconnectApp();
    const client = new pg.Client({ connectionString: clusterUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-it-"));
  const file = path.join(dir, "test.db");
  process.env.DATABASE_URL = `file:${file}`;
  migrateDatabase(file);

  afterAll(async () => {
    await disconnectApp();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
