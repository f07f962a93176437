/**
 * A search no index narrows down (a text of fewer than three characters, or one in too many runs) reads the runs'
 * text run by run, a statement at a time, within a budget (SEARCH_BUDGET). Held here on both databases:
 *
 * - read a few runs per statement, the walk answers every sort, direction, filter and page exactly as the definition
 *   does (ties of name, engine and figure included, and the runs without a figure after those with it);
 * - past its budget it stops and says so (`search_complete: false`, `runs_searched`), listing only matches, in order.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listRunsRoute } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { listRuns, type RunListQuery, SEARCH_BUDGET, SEARCH_ROW_COST, type SortKey } from "@/lib/runs/history";
import { BASE, clearDatabase, noContext } from "./helpers";

const RUNS = 300;
const NAMES = ["alpha", "beta", "gamma", "delta"];
const ENGINES = ["vllm", "sglang", "trtllm"];

interface Row {
  id: string;
  name: string;
  engine: string;
  model: string;
  searchText: string;
  sortAt: Date;
  singleStreamTokS: number | null;
  peakTokS: number | null;
}

let rows: Row[] = [];

beforeAll(async () => {
  await clearDatabase();
  const now = Date.parse("2026-06-01T00:00:00Z");
  rows = Array.from({ length: RUNS }, (_, index) => {
    const name = `${NAMES[index % NAMES.length]} ${index % 7 === 0 ? "qz" : "run"}`;
    const engine = ENGINES[index % ENGINES.length]!;
    return {
      id: `walk${String(index).padStart(4, "0")}`,
      name,
      engine,
      model: `m${index % 5}`,
      // Runs measured at the same minute (ties of sortAt), names, engines and figures repeating: the walk's
      // statements must part ties exactly where the page's order does.
      sortAt: new Date(now - (index % 37) * 60_000),
      singleStreamTokS: index % 4 === 0 ? null : (index % 9) * 10,
      peakTokS: index % 6 === 0 ? null : (index % 11) * 100,
      searchText: `${name}\n${engine}\nm${index % 5}\n\n${index % 3 === 0 ? "notes q" : ""}`.toLowerCase(),
    };
  });
  await db().run.createMany({
    data: rows.map((row) => ({
      ...row,
      flagsJson: "{}",
      envJson: "{}",
      metadataJson: "{}",
      sourceFormat: "servebench/v1",
      createdAt: row.sortAt,
      updatedAt: row.sortAt,
      singleStreamDerived: false,
      pointCount: 0,
    })),
  });
});

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Newest first, ties by id descending. */
function byDate(a: Row, b: Row): number {
  return b.sortAt.getTime() - a.sortAt.getTime() || compareText(b.id, a.id);
}

/** The page's order, as listRunIds defines it, over the runs holding `q`. */
function expected(query: RunListQuery): string[] {
  const needle = (query.q ?? "").toLowerCase();
  const sign = query.dir === "asc" ? 1 : -1;
  const matching = rows.filter(
    (row) => row.searchText.includes(needle) && (query.engine === undefined || row.engine === query.engine),
  );
  if (query.sort === "date") return matching.sort((a, b) => -sign * byDate(a, b)).map((row) => row.id);
  if (query.sort === "single_stream" || query.sort === "peak") {
    const figure = (row: Row) => (query.sort === "peak" ? row.peakTokS : row.singleStreamTokS);
    const withFigure = matching
      .filter((row) => figure(row) !== null)
      .sort((a, b) => sign * (figure(a)! - figure(b)!) || byDate(a, b));
    const without = matching.filter((row) => figure(row) === null).sort(byDate);
    return [...withFigure, ...without].map((row) => row.id);
  }
  const column = query.sort as "name" | "engine" | "model";
  return matching.sort((a, b) => sign * compareText(a[column], b[column]) || byDate(a, b)).map((row) => row.id);
}

const SORTS: SortKey[] = ["date", "name", "engine", "model", "single_stream", "peak"];

describe("a search read run by run", () => {
  // 12 orders × 2 texts, every page of each: hundreds of short statements.
  it("lists every sort, direction and page as the definition does, a few runs per statement", async () => {
    const perPage = 20;
    for (const sort of SORTS) {
      for (const dir of ["desc", "asc"] as const) {
        for (const q of ["qz", "q"]) {
          const all = expected({ q, sort, dir, page: 1, per_page: perPage });
          expect(all.length).toBeGreaterThan(40);
          const found: string[] = [];
          for (let page = 1; page <= Math.ceil(all.length / perPage) + 1; page++) {
            const list = await listRuns({ q, sort, dir, page, per_page: perPage }, { searchStatementRows: 7 });
            expect(list.search_complete).toBeUndefined();
            found.push(...list.runs.map((run) => run.id));
            const offset = (page - 1) * perPage;
            const left = Math.max(0, all.length - offset);
            // A page and a window past it counted, as every filtered list is.
            if (left >= 2 * perPage + 1) expect([list.total, list.total_exact]).toEqual([offset + 2 * perPage, false]);
            else expect([list.total, list.total_exact]).toEqual([all.length, true]);
          }
          expect({ sort, dir, q, found }).toEqual({ sort, dir, q, found: all });
        }
      }
    }
  });

  it("keeps the other filters", async () => {
    const query: RunListQuery = { q: "qz", engine: "sglang", sort: "name", dir: "asc", page: 1, per_page: 100 };
    const list = await listRuns(query, { searchStatementRows: 5 });
    expect(list.runs.map((run) => run.id)).toEqual(expected(query));
    expect(list.runs.length).toBeGreaterThan(5);
  });

  it("stops at its budget, says how far it read, and lists only matches in order", async () => {
    const query: RunListQuery = { q: "qz", sort: "date", dir: "desc", page: 1, per_page: 25 };
    const all = expected(query);
    // Each run costs its text and SEARCH_ROW_COST: a budget of the newest 40 runs, read 10 a statement.
    const newest40 = [...rows].sort(byDate).slice(0, 40);
    const budget = newest40.reduce((sum, row) => sum + row.searchText.length + SEARCH_ROW_COST, 0);
    const list = await listRuns(query, { searchBudget: budget, searchStatementRows: 10 });
    expect(list.search_complete).toBe(false);
    expect(list.runs_searched).toBe(40);
    expect(list.total_exact).toBe(false);
    // The matches among the newest 40 runs, in order: a beginning of the whole answer, and no more.
    const inThem = all.filter((id) => newest40.some((row) => row.id === id));
    expect(inThem.length).toBeGreaterThan(0);
    expect(list.runs.map((run) => run.id)).toEqual(inThem);
    expect(list.total).toBe(inThem.length);
    expect(all.slice(0, inThem.length)).toEqual(inThem);
  });

  it("a text no run holds is answered as such within the budget, over the API", async () => {
    // The budget reads every run of this history (300 short texts): nothing is left unsearched.
    expect(RUNS * (SEARCH_ROW_COST + 40)).toBeLessThan(SEARCH_BUDGET);
    const response = await listRunsRoute(new Request(`${BASE}/api/runs?q=${encodeURIComponent("§§")}`), noContext);
    expect(response.status).toBe(200);
    // Every run read, none holds it: an exact "none", with no partial-search fields.
    expect(await response.json()).toEqual({ runs: [], total: 0, total_exact: true });
    const partial = await listRuns(
      { q: "§§", sort: "name", dir: "asc", page: 1, per_page: 25 },
      { searchBudget: 1, searchStatementRows: 50 },
    );
    expect(partial).toEqual({ runs: [], total: 0, total_exact: false, search_complete: false, runs_searched: 50 });
  });
});
