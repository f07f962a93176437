/**
 * A database that takes no writes (SQLite's query_only, as a read-only file is; PostgreSQL's
 * default_transaction_read_only, as a standby is) still shows every page: a page only reads. The series pages used to
 * file runs stored before series existed into their series as they loaded, a write that failed them with a 500;
 * that write now waits for a database that takes it. Writes answer 503 database_read_only and change nothing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import AlertsPage from "@/app/alerts/page";
import { GET as listAlertsRoute } from "@/app/api/alerts/route";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { POST as postRun } from "@/app/api/runs/route";
import { GET as getSeriesRoute, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { GET as listSeriesRoute } from "@/app/api/series/route";
import SavedComparisonPage from "@/app/c/[slug]/page";
import ComparePage from "@/app/compare/page";
import ComparisonsPage from "@/app/comparisons/page";
import HistoryPage from "@/app/page";
import RunPage from "@/app/runs/[id]/page";
import SeriesPage from "@/app/series/[id]/page";
import SeriesListPage from "@/app/series/page";
import { db, disconnectDb, provider } from "@/lib/db/client";
import { setConnectionPragma } from "@/lib/db/sqlite-writer";
import { BASE, counts, fixtureJson, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const runIds: string[] = [];
let seriesId = "";
let slug = "";

async function setReadOnly(readOnly: boolean): Promise<void> {
  if (provider() === "sqlite") {
    // The app's SQLite connections (its own and the writer thread's) refuse every write from now on, as a
    // read-only file makes them.
    await setConnectionPragma(`query_only = ${readOnly ? 1 : 0}`);
    return;
  }
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
    const name = (await client.query<{ name: string }>("SELECT current_database() AS name")).rows[0]!.name;
    await client.query(
      readOnly
        ? `ALTER DATABASE "${name}" SET default_transaction_read_only = on`
        : `ALTER DATABASE "${name}" RESET default_transaction_read_only`,
    );
  } finally {
    await client.end();
  }
  // New connections take the new default.
  await disconnectDb();
}

async function snapshot() {
  const [runs, series, comparisons] = await Promise.all([
    db().run.findMany({ orderBy: { id: "asc" } }),
    db().series.findMany({ orderBy: { id: "asc" } }),
    db().comparison.findMany({ orderBy: { slug: "asc" } }),
  ]);
  return { runs, series, comparisons, counts: await counts() };
}

const params = <T>(value: T) => Promise.resolve(value);

beforeAll(async () => {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
  await db().series.deleteMany({});
  for (const file of [SEED_FILES.vllm, SEED_FILES.sglangNoGraphs, SEED_FILES.sglangGraphs]) {
    const response = await postRun(jsonRequest("/api/runs", "POST", { ...fixtureJson(file), series: "ro" }), noContext);
    expect(response.status).toBe(201);
    runIds.push(((await response.json()) as { id: string }).id);
  }
  seriesId = (await db().series.findFirstOrThrow({ select: { id: true } })).id;
  const saved = await postComparison(jsonRequest("/api/comparisons", "POST", { runs: runIds.slice(0, 2) }), noContext);
  slug = ((await saved.json()) as { slug: string }).slug;
  // A run stored before series existed (or by an older restore): the series pages file it into its series.
  await db().run.update({ where: { id: runIds[0]! }, data: { seriesId: null } });
});

afterAll(async () => {
  await setReadOnly(false);
});

describe(`a database that takes no writes (${provider()})`, () => {
  it("renders every page, the series pages included", async () => {
    await setReadOnly(true);
    const before = await snapshot();
    const pages: [string, () => Promise<unknown>][] = [
      ["/", () => HistoryPage({ searchParams: params({}) })],
      ["/?q=vllm serve", () => HistoryPage({ searchParams: params({ q: "vllm serve" }) })],
      ["/series", () => SeriesListPage({ searchParams: params({ all: "1" }) })],
      [`/series/${seriesId}`, () => SeriesPage({ params: params({ id: seriesId }), searchParams: params({}) })],
      ["/alerts", () => AlertsPage({ searchParams: params({}) })],
      ["/comparisons", () => ComparisonsPage({ searchParams: params({}) })],
      [`/runs/${runIds[1]}`, () => RunPage({ params: params({ id: runIds[1]! }) })],
      ["/compare", () => ComparePage({ searchParams: params({ runs: runIds.join(",") }) })],
      [`/c/${slug}`, () => SavedComparisonPage({ params: params({ slug }), searchParams: params({}) })],
    ];
    for (const [path, render] of pages) {
      await expect(render(), path).resolves.toBeTruthy();
    }
    expect(await snapshot()).toEqual(before);
  });

  it("answers the series and alerts API 200, and writes 503 database_read_only, changing nothing", async () => {
    await setReadOnly(true);
    const before = await snapshot();
    const list = await listSeriesRoute(new Request(`${BASE}/api/series?all=1`), noContext);
    expect(list.status, await list.clone().text()).toBe(200);
    const listed = (await list.json()) as { series: { id: string; run_count: number }[] };
    // The run without a series is not counted until it can be filed.
    expect(listed.series.map((entry) => [entry.id, entry.run_count])).toEqual([[seriesId, 2]]);
    const view = await getSeriesRoute(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId));
    expect(view.status).toBe(200);
    expect((await listAlertsRoute(new Request(`${BASE}/api/alerts`), noContext)).status).toBe(200);

    const writes = [
      await postRun(
        jsonRequest("/api/runs", "POST", { ...fixtureJson(SEED_FILES.vllm), name: "not stored" }),
        noContext,
      ),
      await patchSeries(
        jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { window: 10 } }),
        idContext(seriesId),
      ),
      await postComparison(jsonRequest("/api/comparisons", "POST", { runs: runIds }), noContext),
    ];
    for (const response of writes) {
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status).toBe(503);
      expect(body.error.code).toBe("database_read_only");
    }
    expect(await snapshot()).toEqual(before);
  });

  it("files the run into its series once the database takes writes again", async () => {
    await setReadOnly(false);
    const list = (await (await listSeriesRoute(new Request(`${BASE}/api/series?all=1`), noContext)).json()) as {
      series: { id: string; run_count: number }[];
    };
    expect(list.series.map((entry) => [entry.id, entry.run_count])).toEqual([[seriesId, 3]]);
    expect((await db().run.findUniqueOrThrow({ where: { id: runIds[0]! } })).seriesId).toBe(seriesId);
  });
});
