/**
 * The history's list as both databases must answer it (this file runs on SQLite and on PostgreSQL): the same
 * case rules in the text search, byte-order sorting of names, runs without the sorted figure last in both
 * directions and across pages, a total that is exact without filters and read a page ahead with them, and
 * the filter menus.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listRunsRoute } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { deleteRunOrThrow, updateRunOrThrow } from "@/lib/runs/edit";
import { createRun } from "@/lib/runs/store";
import { countRuns, listFilterOptions } from "@/lib/runs/summaries";
import { BASE, clearDatabase, noContext } from "./helpers";

interface ListBody {
  runs: { id: string; name: string; single_stream: { output_tok_s: number } | null }[];
  total: number;
  total_exact: boolean;
}

async function list(query: string): Promise<ListBody> {
  const response = await listRunsRoute(new Request(`${BASE}/api/runs?${query}`), noContext);
  expect(response.status).toBe(200);
  return (await response.json()) as ListBody;
}

const names = (body: ListBody) => body.runs.map((run) => run.name);

async function store(name: string, options: { single?: number; notes?: string; minutesAgo: number; engine?: string }) {
  const doc = normalizeRunDocument({
    format: "servebench/v1",
    name,
    engine: options.engine ?? "vllm",
    model: "Qwen/Qwen3-32B",
    notes: options.notes,
    measured_at: new Date(Date.parse("2026-11-01T00:00:00Z") - options.minutesAgo * 60_000).toISOString(),
    results:
      options.single === undefined
        ? [{ concurrency: 8, output_throughput: 500 + options.minutesAgo }]
        : [{ concurrency: 1, output_throughput: options.single }],
  });
  return (await createRun(doc)).id;
}

beforeAll(async () => {
  await clearDatabase();
  await store("Zeta baseline", { single: 40, minutesAgo: 1, notes: "CUDA graphs ON, 100% of prompts_x" });
  await store("alpha", { single: 60, minutesAgo: 2, notes: "Größe: ÉCOLE" });
  await store("Beta", { minutesAgo: 3 });
  await store("beta", { single: 50, minutesAgo: 4, engine: "SGLang" });
  await store("Älpha", { minutesAgo: 5 });
});

describe("the text search", () => {
  it("matches regardless of case, in ASCII and beyond, on both databases", async () => {
    expect(names(await list("q=cuda%20GRAPHS"))).toEqual(["Zeta baseline"]);
    expect(names(await list("q=gr%C3%B6%C3%9Fe"))).toEqual(["alpha"]);
    expect(names(await list("q=%C3%A9cole"))).toEqual(["alpha"]);
    expect(names(await list("q=%C3%A4lpha"))).toEqual(["Älpha"]);
  });

  it("takes % and _ literally", async () => {
    expect(names(await list("q=100%25"))).toEqual(["Zeta baseline"]);
    expect(names(await list("q=s_x"))).toEqual(["Zeta baseline"]);
    expect(names(await list("q=0%25%25"))).toEqual([]);
  });

  it("finds queries shorter than a trigram too", async () => {
    expect(names(await list("q=z"))).toEqual(["Zeta baseline"]);
    expect(names(await list("q=%C3%A4l"))).toEqual(["Älpha"]);
    expect(names(await list("q=et"))).toEqual(["Zeta baseline", "Beta", "beta"]);
  });

  it("follows a renamed run and forgets a deleted one", async () => {
    const id = await store("temporary xyzzy", { minutesAgo: 10 });
    expect(names(await list("q=xyzzy"))).toEqual(["temporary xyzzy"]);
    await updateRunOrThrow(id, { name: "renamed plugh" });
    expect(names(await list("q=xyzzy"))).toEqual([]);
    expect(names(await list("q=plugh"))).toEqual(["renamed plugh"]);
    await deleteRunOrThrow(id);
    expect(names(await list("q=plugh"))).toEqual([]);
  });
});

describe("the order", () => {
  it("sorts names byte by byte, ties newest first", async () => {
    expect(names(await list("sort=name&dir=asc"))).toEqual(["Beta", "Zeta baseline", "alpha", "beta", "Älpha"]);
    expect(names(await list("sort=name&dir=desc"))).toEqual(["Älpha", "beta", "alpha", "Zeta baseline", "Beta"]);
  });

  it("puts runs without the figure last in both directions, across pages", async () => {
    expect(names(await list("sort=single_stream&dir=desc"))).toEqual([
      "alpha",
      "beta",
      "Zeta baseline",
      "Beta",
      "Älpha",
    ]);
    expect(names(await list("sort=single_stream&dir=asc"))).toEqual([
      "Zeta baseline",
      "beta",
      "alpha",
      "Beta",
      "Älpha",
    ]);
    const pages = [];
    for (let page = 1; page <= 3; page += 1)
      pages.push(...names(await list(`sort=single_stream&dir=asc&per_page=2&page=${page}`)));
    expect(pages).toEqual(["Zeta baseline", "beta", "alpha", "Beta", "Älpha"]);
    expect(names(await list("sort=single_stream&dir=asc&per_page=2&page=4"))).toEqual([]);
  });

  it("filters by engine and tag case-insensitively", async () => {
    expect(names(await list("engine=SGLANG"))).toEqual(["beta"]);
  });
});

describe("the totals and the filter menus", () => {
  it("lists each engine and model once, in byte order", async () => {
    const options = await listFilterOptions();
    expect(options.engines).toEqual(["sglang", "vllm"]);
    expect(options.models).toEqual(["Qwen/Qwen3-32B"]);
    expect(options.gpus).toEqual([]);
  });

  it("counts every run exactly, and a filtered list up to a page past the page", async () => {
    const before = await countRuns();
    expect(before).toBe(5);
    const now = new Date("2026-01-01T00:00:00Z");
    const rows = Array.from({ length: 1_030 }, (_, index) => ({
      id: `bulk${String(index).padStart(6, "0")}`,
      name: `bulk run ${index}`,
      engine: "tgi",
      model: "m",
      flagsJson: "{}",
      envJson: "{}",
      metadataJson: "{}",
      sourceFormat: "servebench/v1",
      createdAt: now,
      updatedAt: now,
      sortAt: now,
      searchText: `bulk run ${index}\ntgi\nm\n\n`,
      singleStreamDerived: false,
      pointCount: 0,
    }));
    await db().run.createMany({ data: rows });
    expect(await countRuns()).toBe(1_035);
    const plain = await list("per_page=10");
    expect({ total: plain.total, exact: plain.total_exact }).toEqual({ total: 1_035, exact: true });
    const filtered = await list("engine=tgi&per_page=10");
    expect({ total: filtered.total, exact: filtered.total_exact }).toEqual({ total: 20, exact: false });
    const deep = await list("engine=tgi&per_page=10&page=3");
    expect({ total: deep.total, exact: deep.total_exact }).toEqual({ total: 40, exact: false });
    const last = await list("engine=tgi&per_page=10&page=102");
    expect({ total: last.total, exact: last.total_exact, runs: last.runs.length }).toEqual({
      total: 1_030,
      exact: true,
      runs: 10,
    });
    const past = await list("engine=tgi&per_page=10&page=200");
    expect({ total: past.total, exact: past.total_exact, runs: past.runs.length }).toEqual({
      total: 1_030,
      exact: true,
      runs: 0,
    });
    const searched = await list("q=bulk%20run&per_page=10");
    expect({ total: searched.total, exact: searched.total_exact, first: searched.runs.length }).toEqual({
      total: 20,
      exact: false,
      first: 10,
    });
    const few = await list("q=bulk%20run%201029");
    expect({ names: names(few), total: few.total, exact: few.total_exact }).toEqual({
      names: ["bulk run 1029"],
      total: 1,
      exact: true,
    });
    await db().run.deleteMany({ where: { engine: "tgi" } });
    expect(await countRuns()).toBe(5);
  });
});
