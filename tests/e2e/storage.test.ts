/**
 * A real full disk and a real read-only file system under `next start`: the server runs in a mount namespace of
 * its own (`unshare -m`, as root, as the tests and CI run here) with its database on a tmpfs that is nearly full,
 * or remounted read-only. Writes answer 503 with what is wrong, /api/health says which, and nothing is stored.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { freePort } from "./server";

const SEED = path.join(process.cwd(), "tests", "fixtures", "servebench");

interface Confined {
  url: string;
  child: ChildProcess;
  log: string;
}

let dir: string;
let seedDb: string;
const servers: Confined[] = [];

/** `next start` with its database on a tmpfs of `sizeKb`, mounted in a namespace only it sees. */
async function startConfined(name: string, sizeKb: number, readOnly: boolean): Promise<Confined> {
  const mount = path.join(dir, `${name}-mount`);
  fs.mkdirSync(mount);
  const port = await freePort();
  const log = path.join(dir, `${name}.log`);
  const database = path.join(mount, "servebench.db");
  const script = [
    `mount -t tmpfs -o size=${sizeKb}k tmpfs '${mount}'`,
    `cp '${seedDb}' '${database}'`,
    ...(readOnly ? [`mount -o remount,ro '${mount}'`] : []),
    `exec '${path.join(process.cwd(), "node_modules", ".bin", "next")}' start -p ${port}`,
  ].join(" && ");
  const out = fs.openSync(log, "a");
  const child = spawn("unshare", ["-m", "--propagation", "private", "sh", "-c", script], {
    env: { ...process.env, DATABASE_URL: `file:${database}`, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", out, out],
  });
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the confined server exited:\n${fs.readFileSync(log, "utf8")}`);
    try {
      await (await fetch(`${url}/api/health`)).text();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`no answer from ${url}:\n${fs.readFileSync(log, "utf8")}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const server = { url, child, log };
  servers.push(server);
  return server;
}

function bigRun(name: string): string {
  const document = JSON.parse(fs.readFileSync(path.join(SEED, "vllm-tp8-baseline.json"), "utf8")) as object;
  return JSON.stringify({
    ...document,
    name,
    results: Array.from({ length: 1_000 }, (_, index) => ({ concurrency: index + 1, output_throughput: index })),
  });
}

async function runCount(url: string): Promise<number> {
  const response = await fetch(`${url}/api/runs`);
  return ((await response.json()) as { total: number }).total;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-storage-"));
  seedDb = path.join(dir, "seed.db");
  migrateDatabase(seedDb);
});

afterAll(async () => {
  for (const server of servers) {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a real full disk and a real read-only file system", () => {
  it("full disk: uploads answer 503 disk_full, nothing is stored, /api/health says disk_full", async () => {
    // Room for the database and 32 kB more: a run of 1,000 load levels needs far more than that in SQLite's log.
    const size = Math.ceil(fs.statSync(seedDb).size / 4096) * 4 + 32;
    const { url } = await startConfined("full", size, false);
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, database: "disk_full", error: { code: "disk_full" } });
    const upload = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bigRun("no room on the disk"),
    });
    expect(upload.status).toBe(503);
    const body = (await upload.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("disk_full");
    expect(body.error.message).toMatch(
      /^The disk that holds the database \(.*servebench\.db\) is full: nothing was stored\./,
    );
    expect(upload.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await runCount(url)).toBe(0);
  });

  it("read-only file system: writes answer 503 database_read_only, /api/health says read_only", async () => {
    const { url } = await startConfined("readonly", 4096, true);
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      ok: false,
      database: "read_only",
      error: { code: "database_read_only" },
    });
    const upload = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bigRun("read-only"),
    });
    expect(upload.status).toBe(503);
    expect(((await upload.json()) as { error: { code: string } }).error.code).toBe("database_read_only");
    // Reading fails too (SQLite cannot create its shared-memory file next to the database): the same answer.
    const list = await fetch(`${url}/api/runs`);
    expect(list.status).toBe(503);
    expect(((await list.json()) as { error: { code: string } }).error.code).toBe("database_read_only");
  });
});
