/**
 * Query parameters read as data: own keys only, numbers in decimal digits only, and `q` matched literally.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it, test } from "vitest";
import { GET as listComparisons } from "@/app/api/comparisons/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import { migrateDatabase } from "@/lib/db/migrate";
import { databaseFilePath } from "@/lib/env";
import { literalSearchText } from "@/lib/runs/queries";
import { BASE, clearDatabase, fixtureJson, jsonRequest, noContext, SEED_FILES } from "./helpers";

async function list(query: string) {
  const response = await listRuns(new Request(`${BASE}/api/runs${query}`), noContext);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function names(query: string): Promise<string[]> {
  const { status, body } = await list(query);
  expect(status).toBe(200);
  return (body.runs as { name: string }[]).map((run) => run.name).sort();
}

beforeAll(async () => {
  await clearDatabase();
  for (const name of ["tp8_graphs 100%", "tp8xgraphs 100 percent", "back\\slash", "plain"]) {
    const response = await postRun(
      jsonRequest("/api/runs", "POST", { ...fixtureJson(SEED_FILES.vllm), name }),
      noContext,
    );
    expect(response.status).toBe(201);
  }
});

describe("query parameters", () => {
  test.each(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"])(
    "?%s=1 is an unknown parameter like any other: ignored",
    async (key) => {
      const { status, body } = await list(`?${key}=1`);
      expect(status).toBe(200);
      expect(body.total).toBe(4);
      const comparisons = await listComparisons(new Request(`${BASE}/api/comparisons?${key}=1`), noContext);
      expect(comparisons.status).toBe(200);
    },
  );

  test.each(["0x10", "1e1", "16.0", " 16", "+16", "016x", "-1", "0", "101", "99999999999"])(
    "per_page=%s is a 400 naming per_page",
    async (value) => {
      const { status, body } = await list(`?per_page=${encodeURIComponent(value)}`);
      expect(status).toBe(400);
      const error = (body as { error: { code: string; issues: { path: string }[] } }).error;
      expect(error.code).toBe("bad_request");
      expect(error.issues[0]?.path).toBe("per_page");
      const comparisons = await listComparisons(
        new Request(`${BASE}/api/comparisons?per_page=${encodeURIComponent(value)}`),
        noContext,
      );
      expect(comparisons.status).toBe(400);
    },
  );

  it("says what a number must look like", async () => {
    const { body } = await list("?per_page=0x10");
    expect(body).toEqual({
      error: {
        code: "bad_request",
        message: "Invalid query parameter per_page: must be a whole number written in decimal digits",
        issues: [{ path: "per_page", message: "must be a whole number written in decimal digits" }],
      },
    });
    expect((await list("?per_page=16")).status).toBe(200);
    expect((await list("?page=2&per_page=2")).body.runs).toHaveLength(2);
  });
});

describe("q matches text literally", () => {
  it("treats % and _ as the characters they are", async () => {
    expect(await names("?q=%25")).toEqual(["tp8_graphs 100%"]);
    expect(await names("?q=_")).toEqual(["tp8_graphs 100%"]);
    expect(await names("?q=tp8_graphs")).toEqual(["tp8_graphs 100%"]);
    expect(await names("?q=tp8%25graphs")).toEqual([]);
    expect(await names("?q=back%5Cslash")).toEqual(["back\\slash"]);
    expect(await names("?q=TP8")).toEqual(["tp8_graphs 100%", "tp8xgraphs 100 percent"]);
  });

  it("rewrites the search column of databases made before, so old runs match literally too", async () => {
    // A database at the migration before: searchText as it was written then, with a plain underscore.
    const file = databaseFilePath().replace(/\.db$/, "-old.db");
    const migrations = fs.mkdtempSync(`${file}-migrations-`);
    const all = fs.readdirSync(path.join(process.cwd(), "prisma", "migrations")).filter((name) => /^\d/.test(name));
    for (const name of all.filter((entry) => entry < "20261202000000")) {
      fs.cpSync(path.join(process.cwd(), "prisma", "migrations", name), path.join(migrations, name), {
        recursive: true,
      });
    }
    migrateDatabase(file, migrations);
    const database = new Database(file);
    database
      .prepare(
        `INSERT INTO "Run" (id, name, engine, model, flagsJson, envJson, metadataJson, sourceFormat, createdAt, updatedAt, sortAt, searchText, singleStreamDerived, pointCount)
         VALUES ('old123456789', 'a_b 5%', 'vllm', 'm', '{}', '{}', '{}', 'servebench/v1', 0, 0, 0, 'a_b 5%' || char(10) || 'vllm', 0, 0)`,
      )
      .run();
    database.close();
    migrateDatabase(file);
    const migrated = new Database(file);
    const row = migrated.prepare(`SELECT searchText FROM "Run" WHERE id = 'old123456789'`).get() as {
      searchText: string;
    };
    migrated.close();
    expect(row.searchText).toBe(literalSearchText("a_b 5%\nvllm"));
    fs.rmSync(migrations, { recursive: true, force: true });
  });
});
