/**
 * Two app processes on one SQLite file (a second instance on the same machine, or a restart overlapping the
 * old process): uploads sent to both at once are all stored. SQLite refuses at once, without waiting, a
 * transaction that read before another process wrote; those are run again (lib/db/errors.ts, retryWhileBusy)
 * instead of answering 503 database_busy, which 12% of such uploads did.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitForHealth } from "./server";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-sqlite-instances-"));
const file = path.join(dir, "shared.db");
const instances: { url: string; child: ChildProcess; log: string }[] = [];

async function startInstance(index: number): Promise<{ url: string; child: ChildProcess; log: string }> {
  const port = await freePort();
  const log = path.join(dir, `instance-${index}.log`);
  const out = fs.openSync(log, "w");
  const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), ["scripts/start.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: `file:${file}`,
      PORT: String(port),
      SERVEBENCH_DEMO: "0",
      SERVEBENCH_WRITE_TOKEN: "",
    },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  const instance = { url: `http://localhost:${port}`, child, log };
  try {
    await waitForHealth(instance.url, child, 300_000);
  } catch (error) {
    throw new Error(`${String(error)}\n${fs.readFileSync(log, "utf8")}`);
  }
  return instance;
}

beforeAll(async () => {
  // One after the other: the second finds the database migrated.
  instances.push(await startInstance(0));
  instances.push(await startInstance(1));
});

afterAll(async () => {
  for (const instance of instances) {
    const exited = new Promise((resolve) => instance.child.once("exit", resolve));
    instance.child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill("SIGKILL");
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("two instances on one SQLite file", () => {
  it("store every upload of 32 uploaders sent to both, three each back to back, none answered busy", async () => {
    // A fixed amount of work, not a time window: on a loaded machine it takes longer, and it is the same test.
    const statuses = new Map<number, number>();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, uploader) => {
        const base = instances[uploader % 2]!.url;
        for (let upload = 0; upload < 3; upload += 1) {
          sent += 1;
          const response = await fetch(`${base}/api/runs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              format: "servebench/v1",
              name: `uploader ${uploader} upload ${upload}`,
              engine: "vllm",
              model: "Qwen/Qwen3-32B",
              results: [1, 8, 64].map((concurrency) => ({ concurrency, output_throughput: 40 * concurrency })),
            }),
          });
          await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    expect(sent).toBe(96);
    expect(Object.fromEntries(statuses)).toEqual({ 201: 96 });
    const database = new Database(file, { readonly: true });
    try {
      const { n } = database.prepare(`SELECT count(*) AS n FROM "Run"`).get() as { n: number };
      expect(n).toBe(96);
    } finally {
      database.close();
    }
  });
});
