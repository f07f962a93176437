/**
 * `servebench db copy` from a shell: the history of this file's database (SQLite in the `integration` project,
 * PostgreSQL in `integration-postgresql`) copied to the other kind and back, ids, times and every column kept,
 * verified by the command itself and here by reading every table on both sides.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db, openDatabase, provider } from "@/lib/db/client";
import { databaseTarget } from "@/lib/env";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { uncoveredModels } from "@/scripts/cli/db-copy";
import { clearDatabase, fixtureText, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const ROOT = path.join(__dirname, "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-copy-"));
const made: string[] = [];
let siblings = 0;

function servebench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "bin", "servebench.mjs"), ...args],
      { cwd: ROOT, timeout: 300_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Another empty database of the same kind as this file's. */
async function emptySibling(): Promise<string> {
  const target = databaseTarget(process.env.DATABASE_URL);
  siblings += 1;
  if (target.provider === "sqlite") return `file:${path.join(dir, `sibling-${siblings}.db`)}`;
  const name = `copy_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  made.push(name);
  return target.url.replace(/\/[^/]+$/, `/${name}`);
}

async function dump(client: PrismaClient) {
  return {
    runs: await client.run.findMany({ orderBy: { id: "asc" } }),
    points: await client.resultPoint.findMany({ orderBy: { id: "asc" } }),
    tags: await client.runTag.findMany({ orderBy: [{ runId: "asc" }, { tag: "asc" }] }),
    comparisons: await client.comparison.findMany({ orderBy: { slug: "asc" } }),
    total: (await client.runTotal.findUnique({ where: { id: 1 } }))?.runs,
  };
}

beforeAll(async () => {
  await clearDatabase();
  const ids: string[] = [];
  for (const file of Object.values(SEED_FILES)) {
    const response = await postRun(jsonRequest("/api/runs", "POST", fixtureText(file)), noContext);
    ids.push(((await response.json()) as { id: string }).id);
  }
  await patchRun(
    jsonRequest(`/api/runs/${ids[0]}`, "PATCH", { name: "Renamed, édité", tags: ["kept"] }),
    idContext(ids[0]!),
  );
  await postComparison(
    jsonRequest("/api/comparisons", "POST", { runs: [ids[1], ids[2]], title: "CUDA graphs" }),
    noContext,
  );
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  const target = databaseTarget(process.env.DATABASE_URL);
  if (target.provider === "postgresql" && made.length > 0) {
    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    for (const name of made) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
});

describe("servebench db copy", () => {
  it("knows every table of the models", () => {
    expect(uncoveredModels()).toEqual([]);
  });

  it(`copies a ${provider()} history table by table, ids and times kept, and verifies it`, async () => {
    const original = await dump(db());
    const source = process.env.DATABASE_URL!;
    // On PostgreSQL: into a SQLite file, and from that file into a new PostgreSQL database (both directions).
    const hops =
      provider() === "postgresql"
        ? [`file:${path.join(dir, "from-postgresql.db")}`, await emptySibling()]
        : [await emptySibling()];
    let from = source;
    for (const to of hops) {
      const result = await servebench(["db", "copy", "--from", from, "--to", to]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      expect(result.stdout).toContain("verified Run: 3 rows");
      expect(result.stdout).toContain("verified ResultPoint: 6 rows");
      expect(result.stdout).toContain("verified RunTag: ");
      expect(result.stdout).toContain("verified Comparison: 1 rows");
      expect(result.stdout).toContain("counts and checksums match");
      const copy = openDatabase(databaseTarget(to));
      try {
        expect(await dump(copy)).toEqual(original);
      } finally {
        await copy.$disconnect();
      }
      from = to;
    }
    // The last copy is a working database: a new point gets a fresh id (PostgreSQL's sequence was moved on).
    const copy = openDatabase(databaseTarget(from));
    try {
      const now = new Date();
      const created = await copy.run.create({
        data: {
          id: "after-copy-1",
          name: "after the copy",
          engine: "vllm",
          model: "m",
          flagsJson: "{}",
          envJson: "{}",
          metadataJson: "{}",
          sourceFormat: "servebench/v1",
          createdAt: now,
          updatedAt: now,
          sortAt: now,
          searchText: "after the copy",
          singleStreamDerived: false,
          pointCount: 1,
          points: { create: [{ position: 0, concurrency: 1 }] },
        },
        include: { points: true },
      });
      expect(created.points[0]!.id).toBeGreaterThan(Math.max(...original.points.map((point) => point.id)));
      expect((await copy.runTotal.findUnique({ where: { id: 1 } }))?.runs).toBe(4);
    } finally {
      await copy.$disconnect();
    }
  });

  it("refuses a destination that already holds runs, and changes nothing", async () => {
    const destination = await emptySibling();
    expect((await servebench(["db", "copy", "--from", process.env.DATABASE_URL!, "--to", destination])).code).toBe(0);
    const again = await servebench(["db", "copy", "--from", process.env.DATABASE_URL!, "--to", destination]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds \d+ (Series|Run) row\(s\): db copy fills an empty database only/);
  });
});
