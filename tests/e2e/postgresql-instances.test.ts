/**
 * Several app instances on one PostgreSQL database, each started the way a deployment starts it (`npm start`:
 * scripts/start.ts migrates, loads the demo runs into an empty database, then serves the production build). They
 * start together: the migrations are applied once, the demo runs stored once, the example's comparison saved once.
 * Then uploads go to both at once: every new run is stored, the same content sent to both is stored once, ids and
 * slugs never collide.
 * A private cluster of its own (tests/support/postgresql.ts). Only where PostgreSQL is installed (vitest.config.mts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_RUN_COUNT } from "@/lib/demo/example-sweeps";
import { type Cluster, startCluster } from "../support/postgresql";
import { freePort, waitForHealth } from "./server";

let cluster: Cluster;
let url: string;
const instances: { url: string; child: ChildProcess; log: string }[] = [];
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-instances-"));

async function startInstance(index: number): Promise<{ url: string; child: ChildProcess; log: string }> {
  const port = await freePort();
  const log = path.join(logDir, `instance-${index}.log`);
  const out = fs.openSync(log, "w");
  const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), ["scripts/start.ts"], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), SERVEBENCH_DEMO: "1", SERVEBENCH_WRITE_TOKEN: "" },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  return { url: `http://localhost:${port}`, child, log };
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function runDocument(name: string) {
  return {
    format: "servebench/v1",
    name,
    engine: "vllm",
    model: "Qwen/Qwen3-32B",
    hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1 },
    results: [1, 8, 64].map((concurrency) => ({ concurrency, output_throughput: 40 * concurrency })),
  };
}

async function post(
  base: string,
  route: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  cluster = await startCluster();
  url = await cluster.createDatabase("servebench_instances");
  const started = await Promise.all([startInstance(0), startInstance(1)]);
  instances.push(...started);
  for (const instance of instances) {
    try {
      await waitForHealth(instance.url, instance.child, 300_000);
    } catch (error) {
      throw new Error(`${String(error)}\n${fs.readFileSync(instance.log, "utf8")}`);
    }
  }
});

afterAll(async () => {
  for (const instance of instances) {
    const exited = new Promise((resolve) => instance.child.once("exit", resolve));
    instance.child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill("SIGKILL");
  }
  cluster?.stop();
  fs.rmSync(logDir, { recursive: true, force: true });
});

describe("two instances on one PostgreSQL database", () => {
  it("applied each migration once and stored the demo runs once, starting together", async () => {
    const migrations = await query<{ migration_name: string; n: string }>(
      `SELECT migration_name, count(*) AS n FROM "_prisma_migrations" GROUP BY migration_name`,
    );
    const names = fs
      .readdirSync(path.join("prisma", "postgresql", "migrations"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(migrations.map((row) => row.migration_name).sort()).toEqual(names);
    expect(migrations.every((row) => Number(row.n) === 1)).toBe(true);
    const [runs] = await query<{ n: string }>(`SELECT count(*) AS n FROM "Run"`);
    expect(Number(runs!.n)).toBe(DEMO_RUN_COUNT);
    // The example's comparison and its series' regression are made by the instance that stored its first run.
    const [comparisons] = await query<{ n: string }>(`SELECT count(*) AS n FROM "Comparison"`);
    expect(Number(comparisons!.n)).toBe(1);
    const [alerts] = await query<{ n: string }>(`SELECT count(*) AS n FROM "SeriesChange" WHERE "kind" = 'regression'`);
    expect(Number(alerts!.n)).toBe(1);
    const logs = instances.map((instance) => fs.readFileSync(instance.log, "utf8"));
    expect(logs.filter((log) => log.includes("(applied ")).length).toBe(1);
  });

  it("store every upload sent to both at once, the same content once, with ids that never collide", async () => {
    const distinct = Array.from({ length: 40 }, (_, index) =>
      post(instances[index % 2]!.url, "/api/runs", runDocument(`parallel upload ${index}`)),
    );
    const same = Array.from({ length: 10 }, (_, index) =>
      post(instances[index % 2]!.url, "/api/runs", runDocument("the same run, uploaded ten times")),
    );
    const [stored, repeated] = await Promise.all([Promise.all(distinct), Promise.all(same)]);
    expect(stored.map((answer) => answer.status)).toEqual(Array(40).fill(201));
    expect(new Set(stored.map((answer) => answer.body.id)).size).toBe(40);
    expect(repeated.filter((answer) => answer.status === 201).length).toBe(1);
    expect(repeated.filter((answer) => answer.status === 200 && answer.body.duplicate === true).length).toBe(9);
    expect(new Set(repeated.map((answer) => answer.body.id)).size).toBe(1);

    const [runs] = await query<{ n: string }>(`SELECT count(*) AS n FROM "Run"`);
    expect(Number(runs!.n)).toBe(DEMO_RUN_COUNT + 41);
    const [total] = await query<{ runs: number }>(`SELECT "runs" FROM "RunTotal" WHERE "id" = 1`);
    expect(total!.runs).toBe(DEMO_RUN_COUNT + 41);
    const [points] = await query<{ n: string }>(
      `SELECT count(*) AS n FROM "ResultPoint" p JOIN "Run" r ON r."id" = p."runId" WHERE r."name" LIKE 'parallel upload %'`,
    );
    expect(Number(points!.n)).toBe(40 * 3);
    // Both instances list the same history.
    const lists = await Promise.all(
      instances.map(
        async (instance) => (await (await fetch(`${instance.url}/api/runs?per_page=100`)).json()) as { total: number },
      ),
    );
    expect(lists.map((list) => list.total)).toEqual([DEMO_RUN_COUNT + 41, DEMO_RUN_COUNT + 41]);
  });

  it("save comparisons on both at once under slugs that never collide", async () => {
    const [a, b] = (await query<{ id: string }>(`SELECT "id" FROM "Run" ORDER BY "id" LIMIT 2`)).map((row) => row.id);
    const saved = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post(instances[index % 2]!.url, "/api/comparisons", { runs: [a, b], title: `comparison ${index}` }),
      ),
    );
    expect(saved.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(saved.map((answer) => answer.body.slug)).size).toBe(20);
  });
});
