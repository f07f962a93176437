/**
 * Browser tests run against a production build served by `next start` on a fresh, migrated SQLite file,
 * the way `npm start` serves it. The build is reused when it is of the current code.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../../lib/db/migrate";
import { ensureBuild } from "../../scripts/build-state";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForHealth(url: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`next start exited with code ${server.exitCode}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server at ${url} did not become healthy within ${timeoutMs} ms`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureBuild((line) => process.stdout.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-e2e-"));
  const file = path.join(dir, "e2e.db");
  migrateDatabase(file);
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const log = fs.openSync(path.join(dir, "server.log"), "a");
  const server = spawn(path.join(process.cwd(), "node_modules", ".bin", "next"), ["start", "-p", String(port)], {
    env: { ...process.env, DATABASE_URL: `file:${file}`, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", log, log],
  });
  try {
    await waitForHealth(baseUrl, server, 60_000);
  } catch (error) {
    server.kill("SIGKILL");
    process.stdout.write(fs.readFileSync(path.join(dir, "server.log"), "utf8"));
    throw error;
  }
  project.provide("baseUrl", baseUrl);

  return async () => {
    server.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (server.exitCode === null) server.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
