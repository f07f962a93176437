/** Prototype names as data, on PostgreSQL (the tests: tests/e2e/prototype-names.ts). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migratePostgresql } from "../../lib/db/migrate";
import { startCluster } from "../support/postgresql";
import { prototypeNamesSuite } from "./prototype-names";
import { startServer, stopServer } from "./server";

prototypeNamesSuite("PostgreSQL", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-prototype-names-pg-"));
  const cluster = await startCluster();
  const url = await cluster.createDatabase("servebench_prototype_names");
  await migratePostgresql(url);
  // startServer names a SQLite file; the environment's DATABASE_URL takes its place.
  const server = await startServer(path.join(dir, "unused.db"), path.join(dir, "server.log"), { DATABASE_URL: url });
  return {
    url: server.url,
    stop: async () => {
      await stopServer(server);
      cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
