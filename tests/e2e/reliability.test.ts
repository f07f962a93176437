/**
 * Nothing acknowledged is lost: 50 uploads at once all land, and a server killed with SIGKILL in the middle
 * of a stream of uploads restarts on a sound database holding every run it had answered 201 for, whole.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { type RunningServer, startServer, stopServer } from "./server";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const FIXTURE = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "fixtures", "servebench", "sglang-tp8-cuda-graphs-on.json"), "utf8"),
) as Record<string, unknown>;

function runDocument(name: string, tag: string) {
  return {
    ...FIXTURE,
    name,
    tags: [tag],
    results: [
      { concurrency: 1, output_throughput: 63.6, mean_tpot_ms: 15.7 },
      { concurrency: 8, output_throughput: 400 },
      { concurrency: 128, output_throughput: 2370 },
    ],
  };
}

async function post(url: string, document: unknown): Promise<Response> {
  return fetch(`${url}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(document),
  });
}

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await stopServer(server, "SIGKILL");
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("reliability", () => {
  it("takes 50 uploads at once, all of them", async () => {
    const tag = `parallel-${Date.now()}`;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => post(baseUrl, runDocument(`parallel ${index}`, tag))),
    );
    const statuses = responses.map((response) => response.status);
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      id?: string;
      error?: { message: string };
    }[];
    expect(bodies.filter((body) => body.error).map((body) => body.error?.message)).toEqual([]);
    expect(statuses).toEqual(Array.from({ length: 50 }, () => 201));
    const listed = (await (await fetch(`${baseUrl}/api/runs?tag=${tag}&per_page=100`)).json()) as {
      total: number;
      runs: { id: string; point_count: number }[];
    };
    expect(listed.total).toBe(50);
    expect(new Set(listed.runs.map((run) => run.id))).toEqual(new Set(bodies.map((body) => body.id)));
    expect(listed.runs.every((run) => run.point_count === 3)).toBe(true);
  });

  it("loses no acknowledged upload when the server is killed in the middle of a stream of them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-crash-"));
    dirs.push(dir);
    const dbFile = path.join(dir, "crash.db");
    migrateDatabase(dbFile);
    const first = await startServer(dbFile, path.join(dir, "first.log"));
    servers.push(first);

    const acknowledged: string[] = [];
    let sent = 0;
    let stop = false;
    // Four writers upload distinct runs back to back until the server dies under them.
    const writer = async (worker: number) => {
      while (!stop) {
        const index = sent++;
        try {
          const response = await post(first.url, runDocument(`crash ${worker}-${index}`, "crash"));
          if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
        } catch {
          return; // connection reset: the server is gone
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    first.process.kill("SIGKILL");
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    const database = new Database(dbFile);
    expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
    // No run stored half: every run has exactly the points it says it has.
    const partial = database
      .prepare(
        'SELECT r.id FROM "Run" r LEFT JOIN "ResultPoint" p ON p.runId = r.id GROUP BY r.id HAVING COUNT(p.id) != r.pointCount',
      )
      .all();
    expect(partial).toEqual([]);
    database.close();

    const second = await startServer(dbFile, path.join(dir, "second.log"));
    servers.push(second);
    for (const id of acknowledged) {
      const response = await fetch(`${second.url}/api/runs/${id}`);
      expect(response.status).toBe(200);
      const run = (await response.json()) as { results: unknown[]; tags: string[] };
      expect(run.results).toHaveLength(3);
      expect(run.tags).toEqual(["crash"]);
    }
    await stopServer(second);
  });
});
