/**
 * A restore killed with SIGKILL at several points and resumed by the next server on the same database ends
 * exactly as a restore never interrupted: the two instances export the same file, line for line (every run, the
 * series with its settings, acknowledged alert, note and annotation, the saved comparison).
 *
 * The export is a real history made through the API (a nightly series with a step, its alert acknowledged, an
 * annotation, a saved comparison) and 9,000 runs more, so that it spans several parts (about 9). The commands are those
 * docs/api.md shows under "Restore jobs", run with curl as written there.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { nightlyDocuments } from "../support/nightly-documents";
import { type RunningServer, startServer, stopServer } from "./server";

interface JobView {
  id: string;
  status: string;
  phase: string;
  url: string;
  progress: { parts_done: number; parts_total: number; lines_done: number };
  report?: { runs: { stored: number; already_present: number; refused: number }; unreadable: number };
  error?: { message: string };
}

const BULK_RUNS = 9_000;
let dir: string;
let exportFile: string;
let exportLineCount = 0;
const servers: RunningServer[] = [];

async function call<T>(url: string, init: RequestInit & { json?: unknown } = {}, status = 200): Promise<T> {
  const { json, ...rest } = init;
  const response = await fetch(url, {
    ...rest,
    ...(json === undefined ? {} : { body: JSON.stringify(json), headers: { "content-type": "application/json" } }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function serve(name: string, dbFile: string): Promise<RunningServer> {
  const server = await startServer(dbFile, path.join(dir, `${name}.log`), { SERVEBENCH_DEMO: "0" });
  servers.push(server);
  return server;
}

function freshDatabase(name: string): string {
  const file = path.join(dir, `${name}.db`);
  migrateDatabase(file);
  return file;
}

/** The commands of docs/api.md's "Restore jobs", pointed at `url` and at the export file. */
function documentedCommands(url: string): string[] {
  const api = fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8");
  const section = api.slice(api.indexOf("### Restore jobs"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.startsWith("curl "))
    .map((line) => line.replaceAll("http://new-host:3000", url).replace("@backup.jsonl", `@${exportFile}`));
}

/** Run a documented command (with -s and -S: no progress meter, errors still said): its head (with -i) and body. */
function curl(command: string): { head: string; body: string } {
  let output = execFileSync("bash", ["-c", command.replace(/^curl /, "curl -sS ")], { encoding: "utf8" });
  let head = "";
  // With -i: each head (an interim "100 Continue" first, for a large body), then the body.
  while (output.startsWith("HTTP/")) {
    const end = output.indexOf("\r\n\r\n");
    head = output.slice(0, end);
    output = output.slice(end + 4);
  }
  return { head, body: output };
}

async function job(server: RunningServer, id: string): Promise<JobView> {
  return call<JobView>(`${server.url}/api/restore/jobs/${id}`);
}

/** Poll the job until `done` holds for it. */
async function until(server: RunningServer, id: string, done: (job: JobView) => boolean): Promise<JobView> {
  for (;;) {
    const view = await job(server, id);
    if (done(view)) return view;
    expect(view.status, JSON.stringify(view)).not.toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function exportOf(server: RunningServer): Promise<string[]> {
  const response = await fetch(`${server.url}/api/export`);
  expect(response.status).toBe(200);
  return (await response.text()).split("\n").filter((line) => line !== "");
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-restore-kill-"));
  // The history, made through the API.
  const origin = await serve("origin", freshDatabase("origin"));
  const docs = nightlyDocuments({ seed: 44, series: "nightly-kill", flakeAt: 8, stepAt: 18 });
  const runIds: string[] = [];
  let seriesId = "";
  for (const doc of docs) {
    const stored = await call<{ id: string; series: { series: { id: string } } }>(
      `${origin.url}/api/runs`,
      { method: "POST", json: doc },
      201,
    );
    runIds.push(stored.id);
    seriesId = stored.series.series.id;
  }
  await call(`${origin.url}/api/series/${seriesId}`, { method: "PATCH", json: { settings: { threshold_pct: 4 } } });
  await call(
    `${origin.url}/api/series/${seriesId}/annotations`,
    { method: "POST", json: { run_id: runIds[4], note: "new driver 580" } },
    201,
  );
  const alerts = await call<{ alerts: { id: string; metric: string }[] }>(`${origin.url}/api/alerts`);
  const alert = alerts.alerts.find((candidate) => candidate.metric === "single_stream_tok_s");
  expect(alert).toBeDefined();
  await call(`${origin.url}/api/alerts/${alert!.id}`, {
    method: "PATCH",
    json: { status: "acknowledged", note: "vLLM #31337" },
  });
  await call(
    `${origin.url}/api/comparisons`,
    { method: "POST", json: { runs: [runIds[17], runIds[18]], title: "the step" } },
    201,
  );
  const lines = await exportOf(origin);
  await stopServer(origin);
  // Then many more runs, each of a series of its own (not exported: a series of one run comes back with its run).
  const template = JSON.parse(lines[0]!) as Record<string, unknown>;
  const bulk = Array.from({ length: BULK_RUNS }, (_, index) =>
    JSON.stringify({
      ...template,
      id: `bulk-${String(index).padStart(5, "0")}`,
      name: `bulk ${index}`,
      series: `bulk-${index}`,
      created_at: new Date(Date.parse("2026-10-01T00:00:00Z") + index * 1000).toISOString(),
    }),
  );
  exportLineCount = bulk.length + lines.length;
  exportFile = path.join(dir, "backup.jsonl");
  fs.writeFileSync(exportFile, `${[...bulk, ...lines].join("\n")}\n`);
});

afterAll(async () => {
  for (const server of servers) await stopServer(server, "SIGKILL");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a restore killed mid-way", () => {
  it("is resumed by the next server at each kill and ends as one never interrupted", async () => {
    // The reference: the file restored in one piece, by the documented commands.
    const reference = await serve("reference", freshDatabase("reference"));
    const [post, poll] = documentedCommands(reference.url);
    expect(post).toContain("Prefer: respond-async");
    const answer = curl(post!);
    expect(answer.head).toMatch(/^HTTP\/1\.1 202/);
    const accepted = JSON.parse(answer.body) as JobView;
    expect(answer.head).toMatch(new RegExp(`\r\nlocation: /api/restore/jobs/${accepted.id}\r\n`, "i"));
    expect(accepted.status).toMatch(/^(queued|running)$/);
    expect(poll).toMatch(/\/api\/restore\/jobs\/[A-Za-z0-9_-]+$/);
    const pollCommand = poll!.replace(/jobs\/[A-Za-z0-9_-]+$/, `jobs/${accepted.id}`);
    for (;;) {
      const view = JSON.parse(curl(pollCommand).body) as JobView;
      if (view.status === "done") break;
      expect(view.status).not.toBe("failed");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const expected = await exportOf(reference);
    await stopServer(reference);
    expect(expected.length).toBe(exportLineCount);

    const dbFile = freshDatabase("killed");
    let server = await serve("killed-1", dbFile);
    const body = fs.readFileSync(exportFile);
    const response = await fetch(`${server.url}/api/restore`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson", prefer: "respond-async" },
      body,
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as JobView;
    // Killed right after the body was stored, then with a third of its parts stored, then two thirds.
    const partsStored = (fraction: number) => (view: JobView) =>
      view.progress.parts_total > 0 && view.progress.parts_done >= Math.ceil(view.progress.parts_total * fraction);
    const killPoints = [(view: JobView) => view.status !== "receiving", partsStored(1 / 3), partsStored(2 / 3)];
    const seen: string[] = [];
    for (const [index, reached] of killPoints.entries()) {
      const view = await until(server, id, (candidate) => candidate.status === "done" || reached(candidate));
      expect(view.status, "the restore ended before this kill").not.toBe("done");
      seen.push(`${view.phase} ${view.progress.parts_done}/${view.progress.parts_total}`);
      server.process.kill("SIGKILL");
      await new Promise((resolve) => server.process.once("exit", resolve));
      server = await serve(`killed-${index + 2}`, dbFile);
    }
    expect(seen).toHaveLength(3);
    const finished = await until(server, id, (candidate) => candidate.status === "done");
    expect(finished.report?.runs.refused).toBe(0);
    expect(finished.report?.unreadable).toBe(0);
    expect((finished.report?.runs.stored ?? 0) + (finished.report?.runs.already_present ?? 0)).toBe(
      exportLineCount - 2,
    );
    const restored = await exportOf(server);
    expect(restored.length).toBe(expected.length);
    const differing = restored.filter((line, index) => line !== expected[index]);
    expect(differing.slice(0, 3)).toEqual([]);
  }, 900_000);
});
