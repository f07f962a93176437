/**
 * `servebench restore FILE --url URL` as it runs from a shell (node bin/servebench.mjs), against the restore route
 * handlers served on a real port and the real database: an export restored with its progress and summary, a
 * restore killed while the file was being sent and one killed while the server stored it, each finished by the
 * same command run again (every run once), `--job ID` following a job to its end, Ctrl-C naming the job, a server
 * that stops answering, bad usage, and a hostile server's words printed without their terminal controls.
 *
 * The CLI is killed where the test has seen it get to (the server holding part of the file, the job storing its
 * lines), never after a fixed time: on a slow, busy machine each step only takes longer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as saveComparison } from "@/app/api/comparisons/route";
import { GET as exportAll } from "@/app/api/export/route";
import { GET as getJob } from "@/app/api/restore/jobs/[id]/route";
import { POST as restore } from "@/app/api/restore/route";
import { listRestoreJobs, readRestoreJob } from "@/lib/backup/restore-jobs";
import type { RestoreReport } from "@/lib/backup/restore-report";
import { db } from "@/lib/db/client";
import { formatBytes } from "@/scripts/cli/restore-progress";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";
import { clearEverything, json } from "./restore-helpers";

const ROOT = path.join(__dirname, "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-cli-restore-"));
/** Far above what any command here takes on a busy machine: a command that hangs fails its test, not the run. */
const SAFETY_NET_MS = 240_000;

/** A duration as the summary writes it: 0.4 s, 12 s, 3 min 05 s. */
const DURATION = String.raw`(?:[\d.]+ s|\d+ min \d\d s|\d+ h \d\d min)`;

/** What must never reach a terminal from a plain (not a terminal) stderr: `\r`, ESC and the other controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

// ---------------------------------------------------------------------------------------------------------
// The server: the restore route handlers on a real port, the request body streamed to them as it arrives.

/**
 * When set, the route gets this many bytes of an upload's body and no more: the server holds part of the file, as
 * one does while the rest is on its way, until the client goes away.
 */
let holdAfterBytes: number | null = null;

/** The body of an incoming request as the route handler reads it: streamed, held past `holdAfterBytes`. */
function bodyOf(incoming: http.IncomingMessage): ReadableStream<Uint8Array> {
  const hold = holdAfterBytes;
  const gone = new Promise<void>((resolve) => incoming.socket.once("close", () => resolve()));
  const chunks = incoming[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let passed = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (hold !== null && passed >= hold) {
          // The route gets no more of the body. The rest is read and dropped, so that the connection's end is
          // seen (a socket that is not read never learns that its client has gone).
          void (async () => {
            try {
              while (!(await chunks.next()).done);
            } catch {
              // The client went away mid-body: seen below.
            }
          })();
          await gone;
          controller.error(new Error("the client went away"));
          return;
        }
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else {
            passed += next.value.length;
            controller.enqueue(new Uint8Array(next.value));
          }
        } catch (error) {
          controller.error(error);
        }
      },
    },
    { highWaterMark: 0 },
  );
}

function startServer(): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((incoming, outgoing) => {
    outgoing.on("error", () => undefined);
    void (async () => {
      const url = new URL(incoming.url ?? "/", BASE);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const post = incoming.method === "POST";
      const request = new Request(url, {
        method: incoming.method,
        headers,
        ...(post ? { body: bodyOf(incoming), duplex: "half" } : {}),
      } as RequestInit);
      const job = /^\/api\/restore\/jobs\/([^/]+)$/.exec(url.pathname);
      const response =
        url.pathname === "/api/restore"
          ? await restore(request, noContext)
          : job
            ? await getJob(request, idContext(decodeURIComponent(job[1]!)))
            : Response.json({ error: { code: "not_found", message: "not here" } }, { status: 404 });
      if (outgoing.destroyed) return;
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => outgoing.destroy());
  });
  server.listen(0, "127.0.0.1");
  return once(server, "listening").then(() => ({
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  }));
}

// ---------------------------------------------------------------------------------------------------------
// The command

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * `node bin/servebench.mjs …` with only PATH, HOME and NODE_ENV, in a process group of its own (the launcher, tsx
 * and the command), so that a signal reaches all three as a terminal's Ctrl-C does, and SIGKILL ends all three.
 */
function start(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [path.join(ROOT, "bin", "servebench.mjs"), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const safetyNet = setTimeout(() => signal(child, "SIGKILL"), SAFETY_NET_MS);
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(safetyNet);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, name);
  } catch {
    // Already gone.
  }
}

function servebench(args: string[], env: Record<string, string> = {}) {
  return start(args, env).done;
}

/** The summary's counts, read back from its lines. */
function summaryCounts(text: string) {
  const counts = (kind: string) => {
    const match = new RegExp(
      `^ {2}${kind}: ([\\d,]+) stored, ([\\d,]+) already present(?: \\(restored before\\))?, ([\\d,]+) refused$`,
      "m",
    ).exec(text);
    expect(match, `${kind} in:\n${text}`).not.toBeNull();
    const number = (value: string) => Number(value.replace(/,/g, ""));
    return { stored: number(match![1]!), already_present: number(match![2]!), refused: number(match![3]!) };
  };
  const unreadable = /^ {2}unreadable lines: ([\d,]+)$/m.exec(text);
  expect(unreadable, text).not.toBeNull();
  return {
    runs: counts("runs"),
    comparisons: counts("comparisons"),
    series: counts("series"),
    unreadable: Number(unreadable![1]!.replace(/,/g, "")),
  };
}

function expectPlain(what: string, text: string): void {
  expect(CONTROL.exec(text), `${what}: ${JSON.stringify(text.slice(0, 2000))}`).toBeNull();
}

async function exportText(): Promise<string> {
  const response = await exportAll(new Request(`${BASE}/api/export`), noContext);
  expect(response.status).toBe(200);
  return response.text();
}

/** An export restored in this process, through the route, its job waited for: its report. */
async function restoreHere(text: string): Promise<RestoreReport> {
  const response = await restore(
    new Request(`${BASE}/api/restore`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson", prefer: "respond-async" },
      body: text,
    }),
    noContext,
  );
  const { id } = await json<{ id: string }>(response, 202);
  // Waited for by hand: this runs in a beforeAll, where expect.poll is not at hand.
  for (;;) {
    const job = await readRestoreJob(id);
    if (job?.status === "done") return job.report!;
    expect(job?.status).not.toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let server: http.Server;
let url = "";

beforeAll(async () => {
  ({ server, url } = await startServer());
});

afterAll(async () => {
  server?.close();
  // No job of this file's is left working on the database it is about to lose (waited for by hand: expect.poll
  // is for tests).
  while ((await listRestoreJobs()).some((job) => job.status === "queued" || job.status === "running")) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("servebench restore FILE --url URL", () => {
  const file = path.join(dir, "export.jsonl");
  let text = "";
  let runLines = 0;
  let seriesLines = 0;

  beforeAll(async () => {
    await clearEverything();
    // Three nightly series of 90 runs (30 nights, 3 repeats), each run under its id and upload time.
    const lines = ["h100", "h200", "b200"].flatMap((name, index) =>
      nightlyDocuments({ seed: 41 + index, series: `nightly-${name}`, repeats: 3, flakeAt: 8, stepAt: 18 }).map(
        (document, run) => ({
          ...document,
          id: `cli-${name}-${String(run).padStart(3, "0")}`,
          created_at: new Date(Date.UTC(2026, 10, 1 + Math.floor(run / 3), index, run % 3)).toISOString(),
        }),
      ),
    );
    const report = await restoreHere(`${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    expect(report.runs).toEqual({ stored: 270, already_present: 0, refused: 0 });
    await json(
      await saveComparison(
        jsonRequest("/api/comparisons", "POST", { runs: ["cli-h100-000", "cli-h200-000"], title: "H100 and H200" }),
        noContext,
      ),
      201,
    );
    text = await exportText();
    const formats = text
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { format: string }).format);
    runLines = formats.filter((format) => format === "servebench/v1").length;
    seriesLines = formats.filter((format) => format === "servebench/series-v1").length;
    expect(runLines).toBe(270);
    expect(seriesLines).toBe(3);
    fs.writeFileSync(file, text);
    await clearEverything();
  });

  it("restores every run with its figures, prints progress on stderr as plain lines and sums it up", async () => {
    const result = await servebench(["restore", "export.jsonl", "--url", url]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryCounts(result.stdout)).toEqual({
      runs: { stored: 270, already_present: 0, refused: 0 },
      comparisons: { stored: 1, already_present: 0, refused: 0 },
      series: { stored: 3, already_present: 0, refused: 0 },
      unreadable: 0,
    });
    expect(result.stdout).toMatch(
      new RegExp(`^restored export\\.jsonl into ${url} in ${DURATION} \\(job [A-Za-z0-9_-]{16}\\)\n`),
    );
    expect(result.stdout).toMatch(new RegExp(`^ {2}270 runs in ${DURATION}: [\\d.,]+ runs/s$`, "m"));
    // Progress, on stderr as plain lines (stderr is a pipe here): the file sent, the job named, the server's work.
    expectPlain("stderr", result.stderr);
    expectPlain("stdout", result.stdout);
    const size = fs.statSync(file).size;
    expect(result.stderr).toMatch(/^sending export\.jsonl: 0 bytes of [\d.]+ (kB|MB) \(0%\)$/m);
    expect(result.stderr).toContain(`sent export.jsonl: ${formatBytes(size)}; waiting for the server to store it\n`);
    const job =
      /if this command stops, the job goes on: follow it with servebench restore --job ([A-Za-z0-9_-]+) --url (\S+)$/m.exec(
        result.stderr,
      );
    expect(job?.[2]).toBe(url);
    expect(result.stderr).toMatch(
      /^(queued: 274 lines received|reading the file's series lines: 274 lines received|storing: [\d,]+ of 274 lines|finishing: )/m,
    );
    // Every run is back with its figures: the restored instance exports the very same file.
    expect(await exportText()).toBe(text);
    expect(await db().run.count()).toBe(270);

    // The same file again, its report as JSON: nothing is stored twice, and the summary says why.
    const again = await servebench(["restore", "export.jsonl", "--url", url, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as RestoreReport;
    expect(report.runs).toEqual({ stored: 0, already_present: 270, refused: 0 });
    expect(report.comparisons).toEqual({ stored: 0, already_present: 1, refused: 0 });
    expect(report.series).toEqual({ stored: 0, already_present: 3, refused: 0 });
    expect(again.stderr).toContain("  runs: 0 stored, 270 already present (restored before), 0 refused\n");
    expect(summaryCounts(again.stderr)).toMatchObject({ runs: report.runs, comparisons: report.comparisons });
    expect(await exportText()).toBe(text);
  });
});

describe("a restore interrupted, then run again", () => {
  const RUNS = 3000;
  const file = path.join(dir, "large.jsonl");
  const args = () => ["restore", "large.jsonl", "--url", url];

  beforeAll(() => {
    // Thousands of small runs (a line of about 2 kB each, so the file is several of the server's 1 MB parts), in
    // 30 configurations of 100 runs.
    const lines: string[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      lines.push(
        JSON.stringify({
          format: "servebench/v1",
          id: `large-${String(index).padStart(5, "0")}`,
          created_at: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
          name: `run ${index + 1}`,
          engine: "vllm",
          model: `model-${index % 30}`,
          hardware: { gpu: "H100 80GB", gpu_count: 1 },
          notes: `Run ${index + 1} of a large export. ${"padding ".repeat(220)}`,
          results: [{ concurrency: 1, output_throughput: 100 + (index % 17) }],
        }),
      );
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    expect(fs.statSync(file).size).toBeGreaterThan(5_000_000);
  });

  it("killed before the server had the whole file: it keeps nothing of it, and the same command restores it all", async () => {
    await clearEverything();
    // The server has 2.5 MB of the file (two parts stored) and no more when the command is killed.
    holdAfterBytes = 2_500_000;
    const cli = start(args());
    try {
      await expect
        .poll(async () => (await listRestoreJobs()).find((job) => job.status === "receiving")?.received.parts ?? 0, {
          interval: 50,
        })
        .toBeGreaterThanOrEqual(2);
      // The command has started sending, and has no answer yet (it would name the job).
      expect(cli.stderr()).toMatch(/^sending large\.jsonl: 0 bytes of 6\.1 MB \(0%\)$/m);
      expect(cli.stderr()).not.toContain("--job");
    } finally {
      holdAfterBytes = null;
      signal(cli.child, "SIGKILL");
    }
    await cli.done;
    // The body broke off: the job and its parts are gone, and no run was stored.
    await expect.poll(async () => (await listRestoreJobs()).filter((job) => job.status === "receiving")).toEqual([]);
    expect(await db().run.count()).toBe(0);

    const result = await servebench(args());
    expect(result.code, result.stderr).toBe(0);
    expect(summaryCounts(result.stdout).runs).toEqual({ stored: RUNS, already_present: 0, refused: 0 });
    expect(await db().run.count()).toBe(RUNS);
  });

  it("killed while the server stored it: the job goes on, --job follows it to its end, the same command reports the runs already present", async () => {
    await clearEverything();
    const cli = start(args());
    let id = "";
    try {
      // The command has named its job (the server has the whole file), and the job stores its lines (or, on a
      // fast machine, has stored them all already).
      await expect
        .poll(() => /servebench restore --job ([A-Za-z0-9_-]+) --url/.exec(cli.stderr())?.[1] ?? "", { interval: 20 })
        .not.toBe("");
      id = /servebench restore --job ([A-Za-z0-9_-]+) --url/.exec(cli.stderr())![1]!;
      expect(cli.stderr()).toContain(`servebench restore --job ${id} --url ${url}\n`);
      await expect
        .poll(
          async () => {
            const job = await readRestoreJob(id);
            return job?.status === "done" || (job?.status === "running" && job.progress.lines_done > 0);
          },
          { interval: 20 },
        )
        .toBe(true);
    } finally {
      signal(cli.child, "SIGKILL");
    }
    expect((await cli.done).code).toBe(-1);

    // Followed again: its progress, to its end, and the job's own counts.
    const followed = await servebench(["restore", "--job", id, "--url", url]);
    expect(followed.code, followed.stderr).toBe(0);
    expectPlain("stderr", followed.stderr);
    const job = await readRestoreJob(id);
    expect(job?.status).toBe("done");
    expect(summaryCounts(followed.stdout)).toEqual({
      runs: job!.report!.runs,
      comparisons: job!.report!.comparisons,
      series: job!.report!.series,
      unreadable: job!.report!.unreadable,
    });
    expect(job!.report!.runs).toEqual({ stored: RUNS, already_present: 0, refused: 0 });
    expect(followed.stdout).toMatch(new RegExp(`^restore job ${id} on ${url}: done in ${DURATION}\n`));
    expect(await db().run.count()).toBe(RUNS);

    // The same command as the one killed: every run was stored before, and is reported so; none is stored twice.
    const again = await servebench(args());
    expect(again.code, again.stderr).toBe(0);
    const counts = summaryCounts(again.stdout);
    expect(counts.runs).toEqual({ stored: 0, already_present: RUNS, refused: 0 });
    expect(again.stdout).toContain(
      `  runs: 0 stored, ${RUNS.toLocaleString("en-US")} already present (restored before), 0 refused\n`,
    );
    expect(await db().run.count()).toBe(RUNS);
    const ids = await db().run.findMany({ select: { id: true } });
    expect(new Set(ids.map((run) => run.id)).size).toBe(RUNS);
  });
});

// ---------------------------------------------------------------------------------------------------------
// A server that is not servebench, or not a friendly one: its answers chosen by the test.

const CLEAR_SCREEN = "\x1b[2J\x1b[H";
const SET_TITLE = "\x1b]0;pwned\x07";
const HIDDEN_LINK = "\x1b]8;;https://evil.example/\x1b\\";
const RIGHT_TO_LEFT_OVERRIDE = "\u202e";
/** "The disk is full", with terminal controls between the words. */
const HOSTILE_MESSAGE = `${CLEAR_SCREEN}The ${SET_TITLE}disk\r is${RIGHT_TO_LEFT_OVERRIDE} ${HIDDEN_LINK}full\x07\x08\u009b2J`;
const HOSTILE_WORDS = "The disk is full";

function jobAnswer(id: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    status,
    phase: "lines",
    url: `/api/restore/jobs/${id}`,
    created_at: "2026-12-04T10:00:00.000Z",
    updated_at: "2026-12-04T10:00:01.000Z",
    finished_at: null,
    received: { bytes: 1000, lines: 10, parts: 1 },
    progress: { parts_done: 0, parts_total: 1, lines_done: 0 },
    counts: {
      runs: { stored: 0, already_present: 0, refused: 0 },
      comparisons: { stored: 0, already_present: 0, refused: 0 },
      series: { stored: 0, already_present: 0, refused: 0 },
      unreadable: 0,
    },
    ...extra,
  };
}

describe("servebench restore: usage, Ctrl-C and a hostile server", () => {
  let fake: http.Server;
  let fakeUrl = "";
  let polls = 0;
  const file = path.join(dir, "small.jsonl");

  beforeAll(async () => {
    fs.writeFileSync(file, `${JSON.stringify({ format: "servebench/v1", id: "small1" })}\n`);
    // Its path prefix says how it answers: /refuses refuses the file, /fails takes it and fails the job, /endless
    // takes it and works on the job for ever, /silent never answers, /vanishes takes it and then answers nothing
    // but a proxy's error page.
    fake = http.createServer((incoming, outgoing) => {
      void (async () => {
        const [, mode, ...rest] = (incoming.url ?? "/").split("/");
        const route = `/${rest.join("/")}`;
        if (mode === "silent") return;
        for await (const _chunk of incoming) {
          // The body is read whole, as a server does before it answers.
        }
        if (mode === "vanishes" && route !== "/api/restore") {
          outgoing.writeHead(502, { "content-type": "text/html" });
          return outgoing.end("<html><body>502 Bad Gateway</body></html>");
        }
        const send = (status: number, body: unknown) => {
          outgoing.writeHead(status, { "content-type": "application/json" });
          outgoing.end(JSON.stringify(body));
        };
        if (mode === "refuses")
          return send(413, { error: { code: `payload_too_large${SET_TITLE}`, message: HOSTILE_MESSAGE } });
        const id =
          mode === "fails" ? "failingJob123456" : mode === "vanishes" ? "vanishedJob12345" : "endlessJob123456";
        if (route === "/api/restore") return send(202, jobAnswer(id, "queued"));
        polls += 1;
        if (mode === "fails") {
          return send(
            200,
            jobAnswer(id, "failed", { error: { code: `disk_full${CLEAR_SCREEN}`, message: HOSTILE_MESSAGE } }),
          );
        }
        return send(
          200,
          jobAnswer(id, "running", { progress: { parts_done: 0, parts_total: 1, lines_done: Math.min(polls, 9) } }),
        );
      })();
    });
    fake.listen(0, "127.0.0.1");
    await once(fake, "listening");
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    fake?.closeAllConnections();
    fake?.close();
  });

  it("exits 2 naming the problem: no file, no server, a file that cannot be read, a file with --job", async () => {
    const cases: [string[], string][] = [
      [["restore", "--url", fakeUrl], "name the export file to restore"],
      [["restore", "small.jsonl"], "name the servebench to restore into with --url URL (or $SERVEBENCH_URL)"],
      [["restore", "missing.jsonl", "--url", fakeUrl], "no such file: missing.jsonl"],
      [["restore", ".", "--url", fakeUrl], ". is a folder: name the export file"],
      [
        ["restore", "small.jsonl", "--job", "abc", "--url", fakeUrl],
        "--job ID follows a job already on the server: give no FILE with it",
      ],
      [["restore", "--job", "../etc", "--url", fakeUrl], "--job takes a restore job's id"],
      [["restore", "small.jsonl", "--url", fakeUrl, "--timeout", "0"], "--timeout must be a number of seconds"],
    ];
    for (const [args, message] of cases) {
      const result = await servebench(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(`servebench restore: ${message}`);
      expect(result.stdout).toBe("");
    }
  });

  it("prints a hostile refusal and a hostile failed job without their controls, naming the code, and exits 1", async () => {
    const refused = await servebench(["restore", "small.jsonl", "--url", `${fakeUrl}/refuses`]);
    expect(refused.code).toBe(1);
    expectPlain("stderr", refused.stderr);
    expect(refused.stderr).toContain(`servebench restore: refused (413 payload_too_large): ${HOSTILE_WORDS}`);

    const failed = await servebench(["restore", "small.jsonl", "--url", `${fakeUrl}/fails`]);
    expect(failed.code).toBe(1);
    expectPlain("stderr", failed.stderr);
    expect(failed.stderr).toContain(
      `servebench restore: restore job failingJob123456 failed (disk_full): ${HOSTILE_WORDS}`,
    );
    expect(failed.stderr).toContain("What was stored stays: restore the file again");
    expect(failed.stdout).toBe("");
  });

  it("gives up when the server stops answering, after --timeout, saying how to go on", async () => {
    const silent = await servebench(["restore", "small.jsonl", "--url", `${fakeUrl}/silent`, "--timeout", "2"]);
    expect(silent.code).toBe(1);
    expect(silent.stderr).toContain(
      `servebench restore: no answer from ${fakeUrl}/silent within 2 s of the file's end; if the server is only slow, give it longer with --timeout SECONDS\nNothing is lost: run the same command again to restore the file (nothing is stored twice).\n`,
    );

    const vanished = await servebench(["restore", "small.jsonl", "--url", `${fakeUrl}/vanishes`, "--timeout", "2"]);
    expect(vanished.code).toBe(1);
    expect(vanished.stderr).toContain(
      `${fakeUrl}/vanishes answered 502 with something that is not servebench's JSON; asking again\n`,
    );
    expect(vanished.stderr).toContain(
      `No answer about job vanishedJob12345 for 2 s; the server goes on with it if it is running. Follow it to its end with:\n  servebench restore --job vanishedJob12345 --url ${fakeUrl}/vanishes\n`,
    );
  });

  it("on Ctrl-C while the server works, says how to follow the job again, and exits 130", async () => {
    const cli = start(["restore", "small.jsonl", "--url", `${fakeUrl}/endless`]);
    await expect.poll(cli.stderr, { interval: 50 }).toMatch(/^storing: \d of 10 lines/m);
    signal(cli.child, "SIGINT");
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      `servebench restore: interrupted; the server goes on with job endlessJob123456. Follow it to its end with:\n  servebench restore --job endlessJob123456 --url ${fakeUrl}/endless\n`,
    );
    expectPlain("stderr", result.stderr);
  });
});
