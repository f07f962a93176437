/**
 * Browser tests run against a production build served by `next start` on a fresh, migrated SQLite file,
 * the way `npm start` serves it. The build is reused when it is of the current code.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../../lib/db/migrate";
import { ensureBuild } from "../../scripts/build-state";
import { startServer, stopServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureBuild((line) => process.stdout.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-e2e-"));
  const file = path.join(dir, "e2e.db");
  migrateDatabase(file);
  const server = await startServer(file, path.join(dir, "server.log"));
  project.provide("baseUrl", server.url);
  return async () => {
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
