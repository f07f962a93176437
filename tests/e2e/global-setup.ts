/**
 * Browser tests run against a production build served by `next start` on a fresh, migrated SQLite file,
 * the way `npm start` serves it. The build is reused when it is of the current code.
 *
 * The e2e files run on several workers at once (their wait is mostly on servers and browsers, not the CPU), and
 * one server and database per worker is started here. A file takes one for itself with a lease while it runs
 * (tests/e2e/worker-server.ts): a file may delete every run of its server, so two files never share one.
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
    /** One server per e2e worker; a file takes one with a lease in `serverLeaseDir` (tests/e2e/worker-server.ts). */
    baseUrls: string[];
    serverLeaseDir: string;
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
  const leases = path.join(dir, "leases");
  fs.mkdirSync(leases);
  project.provide("serverLeaseDir", leases);
  return async () => {
    await Promise.all(servers.map((server) => stopServer(server)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
