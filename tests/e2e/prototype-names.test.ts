/** Prototype names as data, on SQLite (the tests: tests/e2e/prototype-names.ts). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase } from "../../lib/db/migrate";
import { prototypeNamesSuite } from "./prototype-names";
import { startServer, stopServer } from "./server";

prototypeNamesSuite("SQLite", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-prototype-names-"));
  const dbFile = path.join(dir, "prototype-names.db");
  migrateDatabase(dbFile);
  const server = await startServer(dbFile, path.join(dir, "server.log"));
  return {
    url: server.url,
    stop: async () => {
      await stopServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
