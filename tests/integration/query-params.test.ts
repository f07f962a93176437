import { beforeAll, describe, expect, it, test } from "vitest";
import { GET as listComparisons } from "@/app/api/comparisons/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
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
});
