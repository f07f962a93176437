/**
 * Browser tests run against a production build served by `next start` on a fresh, migrated SQLite file,
 * the way `npm start` serves it. The build is reused when it is of the current code.
 *
 * The e2e files run on several workers at once (their wait is mostly on servers and browsers, not the CPU), and
 * each worker has a server and a database of its own: a file may delete every run of its server, so two files
 * never share one. Files on one worker run one after another, as they all did on one server before.
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
    /** One server per e2e worker: index `VITEST_POOL_ID - 1` is the worker's own (tests/e2e/worker-server.ts). */
    baseUrls: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureBuild((line) => process.stdout.write(`${line}\n`));
  const workers = Math.max(1, project.config.maxWorkers ?? 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-e2e-"));
  const servers = await Promise.all(
    Array.from({ length: workers }, (_, index) => {
      const file = path.join(dir, `e2e-${index + 1}.db`);
      migrateDatabase(file);
      return startServer(file, path.join(dir, `server-${index + 1}.log`));
    }),
  );
  project.provide(
    "baseUrls",
    servers.map((server) => server.url),
  );
  return async () => {
    await Promise.all(servers.map((server) => stopServer(server)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
