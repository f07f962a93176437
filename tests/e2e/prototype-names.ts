/**
 * Ids, keys and names are data. Every name a JavaScript object already answers to (`constructor`,
 * `hasOwnProperty`, `__proto__`, `toString`, …) is sent as every kind of id, name, key, tag, query parameter and
 * setting that a write or a read takes; afterwards every page and every read route still answers. Before, one
 * run stored under the id "constructor" (or "hasOwnProperty") and measured in the year 9999 made `GET /`
 * answer 500 for good: the history looked its change badges up in a plain object by run id.
 *
 * A server of its own: what is stored here would sit first in every other test's history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightlyDocuments } from "../support/nightly-documents";

/** Every property name of a plain object, and `prototype`, which every function has. */
const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), "prototype"].sort();
/** The three a JSON body may not use as a key at all (refused as a field name: lib/http/body.ts). */
const REFUSED_AS_KEY = new Set(["__proto__", "constructor", "prototype"]);

/** A server of its own, on the database the file tests, and how to stop it and remove what it left. */
export interface PrototypeNamesServer {
  url: string;
  stop(): Promise<void>;
}

let baseUrl = "";

/**
 * The tests, against a server `start` starts (on SQLite: tests/e2e/prototype-names.test.ts; on PostgreSQL:
 * tests/e2e/postgresql-prototype-names.test.ts).
 */
export function prototypeNamesSuite(database: string, start: () => Promise<PrototypeNamesServer>): void {
  let server: PrototypeNamesServer | undefined;
  beforeAll(async () => {
    server = await start();
    baseUrl = server.url;
  });
  afterAll(async () => {
    await server?.stop();
  });
  suite(database);
}

async function send(method: string, url: string, body?: unknown, contentType = "application/json") {
  const response = await fetch(`${baseUrl}${url}`, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** A write either succeeds or is refused with an error that names what it refused; never a 500. */
function expectHandled(result: { status: number; text: string }, what: string): void {
  expect(result.status, `${what}: ${result.text.slice(0, 500)}`).toBeLessThan(500);
  if (result.status >= 400) {
    const body = JSON.parse(result.text) as { error?: { code?: string; message?: string } };
    expect(body.error?.message, `${what}: the refusal says why`).toMatch(/\S/);
  }
}

function keyed(name: string, value: string | number): Record<string, string | number> {
  return REFUSED_AS_KEY.has(name) ? {} : { [name]: value };
}

function runDocument(name: string, index: number): Record<string, unknown> {
  return {
    format: "servebench/v1",
    id: name,
    name,
    engine: name.toLowerCase(),
    engine_version: name,
    model: name,
    hardware: { gpu: name, gpu_count: 1 + (index % 8) },
    command: `vllm serve ${name} --${name} ${index} --tensor-parallel-size 1`,
    flags: keyed(`--${name}`, name),
    env: keyed(name, name),
    workload: { dataset: name, input_len: 1024, output_len: 128 },
    tags: [name, `tag-${name}`],
    series: name,
    notes: name,
    metadata: keyed(name, index),
    measured_at: "9999-12-31T00:00:00Z",
    results: [
      { concurrency: 1, output_throughput: 50 + index, mean_tpot_ms: 20, mean_ttft_ms: 80 },
      { concurrency: 8, output_throughput: 300 + index, mean_tpot_ms: 26, mean_ttft_ms: 120 },
    ],
  };
}

/** Every page a person can open, given the ids stored. */
function pageAddresses(runIds: string[], seriesIds: string[], alertIds: string[], slugs: string[]): string[] {
  const pairs = runIds.slice(1).map((id) => `${runIds[0]},${id}`);
  return [
    "/",
    "/upload",
    "/series",
    "/series?all=1",
    "/alerts",
    "/alerts?status=all",
    "/comparisons",
    ...PROTOTYPE_NAMES.flatMap((name) => {
      const value = encodeURIComponent(name);
      return [
        `/?q=${value}`,
        `/?engine=${value}`,
        `/?model=${value}`,
        `/?gpu=${value}`,
        `/?tag=${value}`,
        `/?sort=${value}`,
        `/?${value}=1`,
        `/series?${value}=1`,
        `/alerts?status=${value}`,
        `/comparisons?${value}=x`,
      ];
    }),
    ...runIds.map((id) => `/runs/${encodeURIComponent(id)}`),
    ...pairs.map((pair) => `/compare?runs=${encodeURIComponent(pair)}`),
    `/compare?runs=${encodeURIComponent(runIds.join(","))}&baseline=${encodeURIComponent(runIds[1] ?? "")}`,
    ...PROTOTYPE_NAMES.map(
      (name) => `/compare?runs=${encodeURIComponent(runIds.slice(0, 2).join(","))}&${encodeURIComponent(name)}=1`,
    ),
    `/compare?runs=${encodeURIComponent(runIds.slice(0, 2).join(","))}&price=${encodeURIComponent(PROTOTYPE_NAMES.map((name) => `${name}:2`).join(","))}`,
    ...seriesIds.map((id) => `/series/${encodeURIComponent(id)}`),
    ...seriesIds.flatMap((id) => PROTOTYPE_NAMES.map((name) => `/series/${id}?level=${encodeURIComponent(name)}`)),
    ...alertIds.map((id) => `/alerts#${id}`),
    ...slugs.map((slug) => `/c/${encodeURIComponent(slug)}`),
  ];
}

function apiAddresses(runIds: string[], seriesIds: string[], alertIds: string[], slugs: string[]): string[] {
  const two = encodeURIComponent(runIds.slice(0, 2).join(","));
  return [
    "/api/runs",
    "/api/series",
    "/api/alerts",
    "/api/alerts?status=all",
    "/api/alerts/deliveries",
    "/api/comparisons",
    "/api/export",
    `/api/compare/runs?runs=${two}`,
    `/api/compare/csv?runs=${two}`,
    ...PROTOTYPE_NAMES.flatMap((name) => {
      const value = encodeURIComponent(name);
      return [
        `/api/runs?${value}=1`,
        `/api/runs?q=${value}`,
        `/api/runs?engine=${value}`,
        `/api/runs?tag=${value}`,
        `/api/runs?sort=${value}`,
        `/api/series?${value}=1`,
        `/api/alerts?${value}=1`,
        `/api/alerts?status=${value}`,
        `/api/comparisons?${value}=1`,
      ];
    }),
    ...runIds.map((id) => `/api/runs/${encodeURIComponent(id)}`),
    ...seriesIds.map((id) => `/api/series/${encodeURIComponent(id)}`),
    ...alertIds.map((id) => `/api/alerts/${encodeURIComponent(id)}`),
    ...slugs.map((slug) => `/api/comparisons/${encodeURIComponent(slug)}`),
    ...slugs.map((slug) => `/api/og?slug=${encodeURIComponent(slug)}`),
  ];
}

function suite(database: string): void {
  describe.sequential(`prototype names as data (${database})`, () => {
    const runIds: string[] = [];
    const seriesIds: string[] = [];
    const alertIds: string[] = [];
    const slugs: string[] = [];

    it("stores a run under every prototype name as its id, name, engine, model, GPU, tag, series, flag and key", async () => {
      for (const [index, name] of PROTOTYPE_NAMES.entries()) {
        const result = await send("POST", "/api/runs", runDocument(name, index));
        expectHandled(result, `POST /api/runs with ${name}`);
        expect(result.status, `${name}: ${result.text.slice(0, 300)}`).toBe(201);
        const id = String(result.json().id);
        // Kept as the document asked: an id is an id, whatever its letters spell.
        expect(id).toBe(name);
        runIds.push(id);
      }
      const stored = await send("GET", `/api/runs/${encodeURIComponent("constructor")}`);
      expect(stored.status).toBe(200);
      expect(stored.json()).toMatchObject({ id: "constructor", name: "constructor", model: "constructor" });
      expect(stored.json().tags).toEqual(["constructor", "tag-constructor"]);
    });

    it("keeps a nightly series named after a prototype property, with its regression as an alert", async () => {
      const documents = nightlyDocuments({
        series: "hasOwnProperty",
        seed: 7,
        nights: 12,
        base: 100,
        noise: 0.01,
        stepAt: 8,
        step: -0.15,
      });
      // The run stored above under this name already opened the series: the nights keep its model, GPU and
      // workload, as a named series requires (another configuration would be refused with a 422).
      const opener = runDocument("hasOwnProperty", PROTOTYPE_NAMES.indexOf("hasOwnProperty"));
      for (const night of documents) {
        const document = { ...night, model: opener.model, hardware: opener.hardware, workload: opener.workload };
        const result = await send("POST", "/api/runs", document);
        expect(result.status, result.text.slice(0, 300)).toBe(201);
      }
      const list = await send("GET", "/api/series");
      expect(list.status).toBe(200);
      const series = (list.json().series as { id: string; name: string }[]).find((s) => s.name === "hasOwnProperty");
      expect(series).toBeDefined();
      seriesIds.push(series!.id);
      const alerts = await send("GET", "/api/alerts?status=all");
      expect(alerts.status).toBe(200);
      for (const alert of alerts.json().alerts as { id: string }[]) alertIds.push(alert.id);
      expect(alertIds.length).toBeGreaterThan(0);
      // Every other series of one run, listed with all=1.
      const all = await send("GET", "/api/series?all=1&per_page=100");
      for (const other of all.json().series as { id: string }[])
        if (!seriesIds.includes(other.id)) seriesIds.push(other.id);
      expect(seriesIds.length).toBeGreaterThan(1);
    });

    it("answers every write that names a prototype property as a setting, figure, status or note without a 500", async () => {
      const [seriesId] = seriesIds;
      const [alertId] = alertIds;
      for (const name of PROTOTYPE_NAMES) {
        const settings = await send("PATCH", `/api/series/${seriesId}`, {
          settings: { ...keyed(name, 1), figures: [name] },
        });
        expectHandled(settings, `PATCH series settings ${name}`);
        expect(settings.status, `settings naming ${name} are refused`).toBe(422);
        const figures = await send("PATCH", `/api/series/${seriesId}`, { settings: { figures: [name] } });
        expect(figures.status, `figures: [${name}] is refused: ${figures.text.slice(0, 300)}`).toBe(422);
        expect(figures.text).toContain("figures");
        const alert = await send("PATCH", `/api/alerts/${alertId}`, { status: name, note: name });
        expectHandled(alert, `PATCH alert status ${name}`);
        expect(alert.status).toBe(422);
        const noted = await send("PATCH", `/api/alerts/${alertId}`, { note: name });
        expect(noted.status, noted.text.slice(0, 300)).toBe(200);
        const annotation = await send("POST", `/api/series/${seriesId}/annotations`, { run_id: name, note: name });
        expectHandled(annotation, `POST annotation at run ${name}`);
        const edited = await send("PATCH", `/api/runs/${encodeURIComponent(name)}`, { tags: [name], name });
        expectHandled(edited, `PATCH run ${name}`);
        expect(edited.status).toBe(200);
      }
      // The series still judges on its figures.
      const series = await send("GET", `/api/series/${seriesId}`);
      expect(series.status).toBe(200);
      expect((series.json().metrics as unknown[]).length).toBeGreaterThan(0);
    });

    it("saves comparisons titled after every prototype property, and restores an export that uses them as ids", async () => {
      for (const [index, name] of PROTOTYPE_NAMES.entries()) {
        const other = PROTOTYPE_NAMES[(index + 1) % PROTOTYPE_NAMES.length]!;
        const saved = await send("POST", "/api/comparisons", {
          runs: [other, name],
          title: name,
          notes: name,
          baseline: name,
        });
        expect(saved.status, saved.text.slice(0, 300)).toBe(201);
        slugs.push(String(saved.json().slug));
      }
      const comparisonLine = (slug: string) =>
        JSON.stringify({
          format: "servebench/comparison-v1",
          slug,
          title: slug,
          notes: null,
          runs: [runIds[0], runIds[1]],
          baseline: runIds[0],
          noise: 2,
          hide: [],
          stat: "mean",
          created_at: "2026-11-01T00:00:00.000Z",
        });
      const lines = PROTOTYPE_NAMES.flatMap((name, index) => [
        JSON.stringify({ ...runDocument(`restored-${name}`, index), id: `${name}` }),
        comparisonLine(name),
      ]);
      const restored = await send("POST", "/api/restore", `${lines.join("\n")}\n`, "application/x-ndjson");
      expectHandled(restored, "POST /api/restore");
      expect(restored.status, restored.text.slice(0, 500)).toBe(200);
      const report = restored.json() as { lines: { kind: string; id?: string; status: string }[] };
      // The runs are here already under those ids with other content: refused as taken, never stored elsewhere.
      const runLines = report.lines.filter((line) => line.kind === "run");
      expect(runLines.map((line) => line.status)).toEqual(PROTOTYPE_NAMES.map(() => "refused"));
      const comparisonLines = report.lines.filter((line) => line.kind === "comparison");
      // A slug is an id like any other: each prototype name is kept as one.
      expect(comparisonLines.map((line) => [line.id, line.status])).toEqual(
        PROTOTYPE_NAMES.map((name) => [name, "stored"]),
      );
      slugs.push(...PROTOTYPE_NAMES);
      for (const name of ["constructor", "__proto__", "hasOwnProperty"]) {
        const opened = await send("GET", `/api/comparisons/${name}`);
        expect(opened.status).toBe(200);
        expect(opened.json()).toMatchObject({ slug: name, title: name });
      }
    });

    it("then answers every page", async () => {
      const failures: string[] = [];
      for (const address of pageAddresses(runIds, seriesIds, alertIds, slugs)) {
        const response = await fetch(`${baseUrl}${address}`);
        const text = await response.text();
        if (response.status !== 200) failures.push(`${address} → ${response.status} ${text.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
      // The history shows the runs, newest (the year 9999) first, and its badges for the series' regression.
      const home = await (await fetch(`${baseUrl}/`)).text();
      for (const name of ["constructor", "hasOwnProperty", "toString"]) expect(home).toContain(`/runs/${name}`);
    });

    it("and every read route of the API", async () => {
      const failures: string[] = [];
      for (const address of apiAddresses(runIds, seriesIds, alertIds, slugs)) {
        const response = await fetch(`${baseUrl}${address}`);
        const text = await response.text();
        // A query parameter the route does not take is ignored or refused (400 naming it); nothing else fails.
        const allowed = response.status === 200 || (response.status === 400 && /\?/.test(address));
        if (!allowed) failures.push(`${address} → ${response.status} ${text.slice(0, 200)}`);
        if (response.status === 400) expect(text, address).toMatch(/"message":"[^"]+"/);
      }
      expect(failures).toEqual([]);
    });
  });
}
