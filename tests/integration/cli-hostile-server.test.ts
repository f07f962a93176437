/**
 * The command line against a hostile server: a real `node:http` server at the address given with --url (or
 * --upload) that answers with terminal escape sequences in every string, with an answer of hundreds of MB, or
 * with an answer that never ends. The CLI runs as it does from a shell (node bin/servebench.mjs). What it
 * prints and writes must hold no terminal control, with the server's words still readable; a huge answer
 * ends at the cap, an endless one at the timeout, both with exit code 1.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAITestServer, startOpenAITestServer } from "../support/openai-test-server";

const ROOT = path.join(__dirname, "..", "..");
const FIXTURE = path.join(ROOT, "tests", "fixtures", "vllm", "bench_serve_v0.25.1.json");
const BASELINE_FIXTURE = path.join(ROOT, "tests", "fixtures", "servebench", "vllm-tp8-baseline.json");
const CANDIDATE_FIXTURE = path.join(ROOT, "tests", "fixtures", "servebench", "sglang-tp8-cuda-graphs-on.json");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-cli-hostile-"));
const SAFETY_NET_MS = 100_000;
const TEST_TIMEOUT_MS = 150_000;

/** Sequences a terminal acts on, as a hostile server would put them around its words. */
const CLEAR_SCREEN = "\x1b[2J\x1b[H";
const SET_TITLE = "\x1b]0;pwned\x07";
const SET_TITLE_ST = "\x1b]2;pwned\x1b\\";
const CLIPBOARD_WRITE = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07";
const HIDDEN_LINK_START = "\x1b]8;;https://evil.example/\x1b\\";
const HIDDEN_LINK_END = "\x1b]8;;\x1b\\";
const C1_CLEAR_SCREEN = "\u009b2J";
const RIGHT_TO_LEFT_OVERRIDE = "\u202e";
const POP_DIRECTIONAL = "\u202c";

/** "Upload refused: the disk is full", with something hostile between every two words. */
const HOSTILE_MESSAGE = `${CLEAR_SCREEN}Upload ${SET_TITLE}refused:\r the ${CLIPBOARD_WRITE}disk${RIGHT_TO_LEFT_OVERRIDE} is${POP_DIRECTIONAL} full\x07\x08${C1_CLEAR_SCREEN}`;
const HOSTILE_MESSAGE_WORDS = "Upload refused: the disk is full";
const HOSTILE_ISSUE = `${SET_TITLE_ST}engine${HIDDEN_LINK_START} is required${HIDDEN_LINK_END}\x7f`;
const HOSTILE_ISSUE_WORDS = "engine is required";
const HOSTILE_RUN_NAME = `nightly ${HIDDEN_LINK_START}build${HIDDEN_LINK_END}\u2066 42\u2069${C1_CLEAR_SCREEN}`;
const HOSTILE_RUN_NAME_WORDS = "nightly build 42";
const HOSTILE_SERIES_NAME = `h100\x1b[31m-nightly\x1b[0m${SET_TITLE}`;
const HOSTILE_SERIES_NAME_WORDS = "h100-nightly";

/**
 * What must never reach a terminal: C0 controls but newline and tab, DEL, C1 controls, bidi controls and the
 * Unicode line separators.
 */
const UNSAFE_CHARACTER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

function expectTerminalSafe(what: string, bytes: Buffer): string {
  for (const byte of [0x1b, 0x07, 0x0d, 0x08, 0x7f]) {
    expect(bytes.indexOf(byte), `${what} holds byte 0x${byte.toString(16)}`).toBe(-1);
  }
  const text = bytes.toString("utf8");
  expect(UNSAFE_CHARACTER.exec(text), `${what}: ${JSON.stringify(text)}`).toBeNull();
  return text;
}

interface CliResult {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * `node bin/servebench.mjs …` with only PATH, HOME and NODE_ENV (no GITHUB_STEP_SUMMARY of a CI running the tests), in a
 * process group of its own: bin/servebench.mjs runs the command in a child process and ignores SIGTERM, so the
 * safety net below ends the whole group.
 */
function servebench(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "servebench.mjs"), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_ENV: "production", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A safety net only, shorter than the tests' own limits: every command here ends by itself, at its cap or
    // its --timeout. When it does not, the exit code (-1) fails the test.
    const safetyNet = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, SAFETY_NET_MS);
    child.on("close", (code) => {
      clearTimeout(safetyNet);
      resolve({ code: code ?? -1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
  });
}

/** 200 MB of JSON-looking bytes, streamed in 64 kB chunks as the client takes them, never held whole. */
const HUGE_ANSWER_BYTES = 200_000_000;
const HUGE_CHUNK = Buffer.alloc(64 * 1024, "7");

interface HugeAnswer {
  bytesSent: number;
  /** True when the client closed the connection before the whole answer was sent. */
  cutByClient: boolean;
  done: Promise<void>;
}
const hugeAnswers: HugeAnswer[] = [];

function streamHugeAnswer(response: http.ServerResponse, declaredBytes: number | null): void {
  const answer: HugeAnswer = { bytesSent: 0, cutByClient: false, done: Promise.resolve() };
  hugeAnswers.push(answer);
  let closed = false;
  const closing = new Promise<void>((resolve) =>
    response.on("close", () => {
      closed = true;
      resolve();
    }),
  );
  answer.done = (async () => {
    response.writeHead(200, {
      "content-type": "application/json",
      ...(declaredBytes === null ? {} : { "content-length": String(declaredBytes) }),
    });
    response.write('{"id":"');
    while (answer.bytesSent < HUGE_ANSWER_BYTES && !closed) {
      const flushed = response.write(HUGE_CHUNK);
      answer.bytesSent += HUGE_CHUNK.length;
      if (!flushed && !closed) await Promise.race([once(response, "drain"), closing]);
    }
    answer.cutByClient = closed;
    if (closed) return;
    // The whole answer went out: the client read it all (what this test is there to catch).
    if (declaredBytes === null) response.end('"}');
    else response.destroy();
  })();
}

/** Headers, then one byte of the answer every 100 ms, for as long as the client listens. */
function dripAnswer(response: http.ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.write("{");
  const timer = setInterval(() => response.write(" "), 100);
  response.on("close", () => clearInterval(timer));
}

/** A run as GET /api/runs/{id} answers it, with hostile text in its name and configuration. */
function storedRun(fixture: string, id: string, name: string, engineVersion: string): Record<string, unknown> {
  const document = JSON.parse(fs.readFileSync(fixture, "utf8")) as Record<string, unknown>;
  return {
    ...document,
    id,
    created_at: "2026-01-01T00:00:00.000Z",
    source_format: "servebench",
    name,
    engine_version: engineVersion,
    flags: {},
    env: {},
  };
}

const BASELINE_ID = "baselineRun1";
const CANDIDATE_ID = "candidateRun";
const HOSTILE_ENGINE_VERSION = `0.12.0${CLEAR_SCREEN}${RIGHT_TO_LEFT_OVERRIDE}rc1`;

function uploadedAnswer(): Record<string, unknown> {
  const verdict = {
    run_id: "hostileRun01",
    series: { id: "s1", name: HOSTILE_SERIES_NAME, url: `/series/s1${SET_TITLE}`, status: "regression" },
    verdict: "regression",
    level: "C=1",
    metrics: [
      {
        key: "single_stream_tok_s",
        label: `Single stream${CLEAR_SCREEN}`,
        unit: `tok/s${RIGHT_TO_LEFT_OVERRIDE}`,
        better: "higher",
        value: 80,
        baseline_mean: 100,
        change_pct: -20,
        z: -5,
        p: 0.001,
        test: "t",
        status: "worse",
      },
    ],
    changes: [
      {
        id: "c1",
        url: `/series/s1#change-c1${HIDDEN_LINK_START}`,
        metric: "single_stream_tok_s",
        label: "Single stream",
        unit: "tok/s",
        kind: "regression",
        status: "open\r",
        direction: "down",
        before: 100,
        after: 80,
        change_pct: -20,
        violations: 2,
        active: true,
        start_run_id: "hostileRun01",
        detected_at: "2026-01-01T00:00:00.000Z",
      },
    ],
    previous_run: { id: "previousRun1", url: `/runs/previousRun1\u2028# injected`, name: "previous" },
    what_changed: [`engine version: 0.11.0 → ${HOSTILE_ENGINE_VERSION}`],
    culprits: [
      {
        alert_id: "c1",
        url: `/series/s1#change-c1${HIDDEN_LINK_START}`,
        kind: "regression",
        status: "open\r",
        figures: [
          {
            key: "single_stream_tok_s",
            label: `Single stream${CLEAR_SCREEN}`,
            unit: "tok/s",
            better: "higher",
            before: 100,
            after: 80,
            change_pct: -20,
          },
        ],
        culprit: {
          last_good: {
            id: "previousRun1",
            url: `/runs/previousRun1\u2028# injected`,
            name: `previous${SET_TITLE}`,
            git_commit: `a1b2c3d4e5f6${CLEAR_SCREEN}a7b8`,
          },
          first_bad: {
            id: "hostileRun01",
            url: `/runs/hostileRun01${C1_CLEAR_SCREEN}`,
            name: HOSTILE_RUN_NAME,
            git_commit: null,
          },
          what_changed: [`engine version: 0.11.0 → ${HOSTILE_ENGINE_VERSION}`],
          bisect: `bisect between the two${CLEAR_SCREEN} runs`,
          compare_url: `/compare?runs=previousRun1,hostileRun01${HIDDEN_LINK_START}`,
        },
      },
    ],
    change_points: [
      {
        metric: "single_stream_tok_s",
        first_bad_run_id: "hostileRun01",
        last_good_run_id: "previousRun1",
        before: 100,
        after: 80,
        change_pct: -20,
        direction: "worse",
        p: 0.001,
      },
    ],
  };
  const run = { id: "hostileRun01", url: `/runs/hostileRun01${C1_CLEAR_SCREEN}`, name: HOSTILE_RUN_NAME };
  return { ...run, series: verdict, runs: [{ ...run, series: verdict }] };
}

/** The same answer from a servebench older than the CLI: no culprits, no change points. */
function olderServerAnswer(): Record<string, unknown> {
  const answer = uploadedAnswer();
  const { culprits: _culprits, change_points: _changePoints, ...verdict } = answer.series as Record<string, unknown>;
  return { ...answer, series: verdict, runs: [{ ...(answer.runs as object[])[0], series: verdict }] };
}

function previewAnswer(): Record<string, unknown> {
  return {
    runs: [
      {
        document: { name: HOSTILE_RUN_NAME, results: [{}, {}] },
        valid: false,
        issues: [{ path: `engine${CLEAR_SCREEN}`, message: HOSTILE_ISSUE }],
        missing: [`GPU${SET_TITLE}`],
      },
    ],
    fragments: [
      { index: 0, file: `c1.json${CLIPBOARD_WRITE}`, part: "", format_label: `vLLM${CLEAR_SCREEN}`, levels: ["C=1"] },
    ],
    conflicts: [HOSTILE_MESSAGE],
  };
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** The server's behaviour is the first segment of the path: --url http://127.0.0.1:PORT/<behaviour>. */
const server = http.createServer(async (request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const [, behaviour = "", ...rest] = url.pathname.split("/");
  // Read the request whole first (an upload's form), as a servebench does before it answers.
  for await (const _chunk of request) {
  }
  const runId = rest[0] === "api" && rest[1] === "runs" ? rest[2] : undefined;
  switch (behaviour) {
    case "rejects":
      return json(response, 422, {
        error: {
          code: `validation_failed${SET_TITLE}`,
          message: HOSTILE_MESSAGE,
          issues: [{ path: "", message: HOSTILE_ISSUE }],
        },
      });
    case "stores":
      if (url.searchParams.get("dry_run") === "1") return json(response, 200, previewAnswer());
      return json(response, 201, uploadedAnswer());
    case "stores-older":
      return json(response, 201, olderServerAnswer());
    case "runs":
      if (runId === BASELINE_ID)
        return json(response, 200, storedRun(BASELINE_FIXTURE, BASELINE_ID, "baseline", "0.11.0"));
      if (runId === CANDIDATE_ID)
        return json(
          response,
          200,
          storedRun(CANDIDATE_FIXTURE, CANDIDATE_ID, HOSTILE_RUN_NAME, HOSTILE_ENGINE_VERSION),
        );
      return json(response, 404, { error: { code: "not_found", message: HOSTILE_MESSAGE } });
    case "huge":
      return streamHugeAnswer(response, null);
    case "huge-declared":
      // Says 3 GB up front: the client can refuse before reading any of it.
      return streamHugeAnswer(response, 3_000_000_000);
    case "drips":
      return dripAnswer(response);
    case "silent":
      // Never answers: not even the headers.
      return;
    default:
      return json(response, 500, { error: { code: "unknown", message: `no behaviour ${behaviour}` } });
  }
});
let origin = "";
let inferenceServer: OpenAITestServer;

beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  inferenceServer = await startOpenAITestServer({ ttftMs: 1, itlMs: 1, tokens: 4 });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await inferenceServer.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("servebench upload against a hostile server", () => {
  it(
    "prints a rejection's message and issues without their terminal controls",
    async () => {
      const result = await servebench(["upload", FIXTURE, "--url", `${origin}/rejects`, "--engine", "vllm"]);
      expect(result.code).toBe(1);
      expectTerminalSafe("stdout", result.stdout);
      const stderr = expectTerminalSafe("stderr", result.stderr);
      expect(stderr).toBe(
        `servebench upload: rejected (422 validation_failed): ${HOSTILE_MESSAGE_WORDS}\n  (document): ${HOSTILE_ISSUE_WORDS}\n`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "prints the links, the summary, its file and $GITHUB_STEP_SUMMARY without terminal controls",
    async () => {
      const summaryFile = path.join(dir, "summary.md");
      const stepSummaryFile = path.join(dir, "step-summary.md");
      const result = await servebench(
        [
          "upload",
          FIXTURE,
          "--url",
          `${origin}/stores`,
          "--engine",
          "vllm",
          "--series",
          "nightly",
          "--fail-on-regression",
        ],
        { GITHUB_STEP_SUMMARY: stepSummaryFile },
      );
      expect(result.code, String(result.stderr)).toBe(3);
      const stdout = expectTerminalSafe("stdout", result.stdout);
      const stderr = expectTerminalSafe("stderr", result.stderr);
      expect(stderr).toBe(`servebench upload: 1 run judged a regression of ${HOSTILE_SERIES_NAME_WORDS}\n`);

      const withFile = await servebench(
        ["upload", FIXTURE, "--url", `${origin}/stores`, "--engine", "vllm", "--summary", summaryFile],
        { GITHUB_STEP_SUMMARY: stepSummaryFile },
      );
      expect(withFile.code).toBe(0);
      expectTerminalSafe("stdout", withFile.stdout);
      const summary = expectTerminalSafe("--summary file", fs.readFileSync(summaryFile));
      const stepSummary = expectTerminalSafe("$GITHUB_STEP_SUMMARY", fs.readFileSync(stepSummaryFile));
      // Appended once by each upload, the same text as the summary file's.
      expect(stepSummary).toBe(`${summary}\n${summary}\n`);
      // Every string of the answer in its place, without its controls; a link's address cannot end the link
      // early or start a new line of markdown.
      expect(summary).toBe(
        [
          `## servebench · ${HOSTILE_SERIES_NAME_WORDS}: regression, previous → ${HOSTILE_RUN_NAME_WORDS}`,
          "",
          `Culprit range: last good **previous** (commit \`a1b2c3d4e5f6\`) → first bad **${HOSTILE_RUN_NAME_WORDS}** · [compare the two](${origin}/stores/compare?runs=previousRun1,hostileRun01)`,
          "",
          "Bisect between the two runs.",
          "",
          `Change points over the series (E-divisive, 5% false discovery rate): Single stream -20.0% from ${HOSTILE_RUN_NAME_WORDS} (p 0.0010).`,
          "",
          "| Figure | This run | Baseline ± σ | Change | Verdict |",
          "| --- | ---: | ---: | ---: | --- |",
          "| Single stream | 80 tok/s | 100 tok/s | -20.0% | **worse**, regression (open) |",
          "",
          "What changed from the last good run to the first bad one:",
          "- engine version: 0.11.0 → 0.12.0rc1",
          "",
          `[run](${origin}/stores/runs/hostileRun01) · [series](${origin}/stores/series/s1) · [alert: Single stream](${origin}/stores/series/s1#change-c1)`,
          "",
        ].join("\n"),
      );
      // The first upload printed the same summary, after the run's link and name.
      expect(stdout).toBe(`${origin}/stores/runs/hostileRun01  ${HOSTILE_RUN_NAME_WORDS}\n\n${summary}\n`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "summarizes the answer of a servebench older than the CLI (no culprits, no change points) and still exits 3",
    async () => {
      const result = await servebench([
        "upload",
        FIXTURE,
        "--url",
        `${origin}/stores-older`,
        "--engine",
        "vllm",
        "--series",
        "nightly",
        "--fail-on-regression",
      ]);
      expect(result.code, String(result.stderr)).toBe(3);
      const stdout = expectTerminalSafe("stdout", result.stdout);
      expect(stdout).toBe(
        [
          `${origin}/stores-older/runs/hostileRun01  ${HOSTILE_RUN_NAME_WORDS}`,
          "",
          `## servebench · ${HOSTILE_SERIES_NAME_WORDS}: regression`,
          "",
          "| Figure | This run | Baseline ± σ | Change | Verdict |",
          "| --- | ---: | ---: | ---: | --- |",
          "| Single stream | 80 tok/s | 100 tok/s | -20.0% | **worse** |",
          "",
          `What changed since [the run before](${origin}/stores-older/runs/previousRun1%0A#%20injected):`,
          "- engine version: 0.11.0 → 0.12.0rc1",
          "",
          `[run](${origin}/stores-older/runs/hostileRun01) · [series](${origin}/stores-older/series/s1)`,
          "",
          "",
        ].join("\n"),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "prints a dry run's preview without terminal controls",
    async () => {
      const result = await servebench(["upload", FIXTURE, "--url", `${origin}/stores`, "--dry-run"]);
      // The preview holds a conflict and an invalid run: the upload would be rejected, so the dry run exits 1.
      expect(result.code).toBe(1);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        [
          "servebench upload: the upload would be rejected:",
          `  files: ${HOSTILE_MESSAGE_WORDS} (pass --split to store them as separate runs)`,
          "",
        ].join("\n"),
      );
      const stdout = expectTerminalSafe("stdout", result.stdout);
      expect(stdout).toBe(
        [
          `Dry run: nothing stored. ${origin}/stores would reject the upload; it holds:`,
          "  [0] c1.json: vLLM, C=1",
          `  conflict: ${HOSTILE_MESSAGE_WORDS}`,
          `  run 1: ${HOSTILE_RUN_NAME_WORDS}: 2 points (not valid yet)`,
          `    engine: ${HOSTILE_ISSUE_WORDS}`,
          "    missing: GPU",
          "",
        ].join("\n"),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ["without", "huge"],
    ["with", "huge-declared"],
  ])(
    "stops reading an answer of hundreds of MB %s its length declared: exit 1 at the 16 MB cap",
    async (_, behaviour) => {
      const answersBefore = hugeAnswers.length;
      const result = await servebench(["upload", FIXTURE, "--url", `${origin}/${behaviour}`, "--engine", "vllm"]);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench upload: the server's answer is larger than 16 MB; is ${origin}/${behaviour} a servebench?\n`,
      );
      expect(result.code).toBe(1);
      expect(result.stdout.length).toBe(0);
      // The client closed the connection: the server could not send it all.
      const answer = hugeAnswers[answersBefore]!;
      await answer.done;
      expect(answer.cutByClient).toBe(true);
      expect(answer.bytesSent).toBeLessThan(HUGE_ANSWER_BYTES);
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ["drips its answer a byte at a time", "drips"],
    ["never answers", "silent"],
  ])(
    "gives up on a server that %s when --timeout runs out: exit 1",
    async (_, behaviour) => {
      const result = await servebench([
        "upload",
        FIXTURE,
        "--url",
        `${origin}/${behaviour}`,
        "--engine",
        "vllm",
        "--timeout",
        "2",
      ]);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench upload: no complete answer from ${origin}/${behaviour} within 2 s; if the server is only slow, give it longer with --timeout SECONDS\n`,
      );
      expect(result.code).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses a --timeout that is not a number of seconds above 0: exit 2",
    async () => {
      const result = await servebench(["upload", FIXTURE, "--url", `${origin}/stores`, "--timeout", "0"]);
      expect(result.code).toBe(2);
      expect(result.stderr.toString("utf8")).toContain(
        'servebench upload: --timeout must be a number of seconds above 0 and at most 2147483, not "0"',
      );
    },
    TEST_TIMEOUT_MS,
  );
});

describe("servebench compare against a hostile server", () => {
  it(
    "writes markdown without the runs' terminal controls, and JSON with them escaped",
    async () => {
      const markdown = await servebench(["compare", BASELINE_ID, CANDIDATE_ID, "--url", `${origin}/runs`]);
      expect(markdown.code).toBe(0);
      expectTerminalSafe("stderr", markdown.stderr);
      const text = expectTerminalSafe("stdout", markdown.stdout);
      expect(text.split("\n")[0]).toBe(`## ${HOSTILE_RUN_NAME_WORDS} vs baseline`);
      expect(text).toContain("- engine version: 0.11.0 → 0.12.0rc1\n");
      expect(text).toContain(
        `[baseline](${origin}/runs/runs/${BASELINE_ID}) · [run](${origin}/runs/runs/${CANDIDATE_ID})`,
      );

      const asJson = await servebench([
        "compare",
        BASELINE_ID,
        CANDIDATE_ID,
        "--url",
        `${origin}/runs`,
        "--format",
        "json",
      ]);
      expect(asJson.code).toBe(0);
      // The same data, every control written as an escape: the JSON reads back to the server's exact name.
      const report = JSON.parse(expectTerminalSafe("stdout", asJson.stdout)) as {
        run: { name: string };
        what_changed: string[];
      };
      expect(report.run.name).toBe(HOSTILE_RUN_NAME);
      expect(report.what_changed).toContain(`engine version: 0.11.0 → ${HOSTILE_ENGINE_VERSION}`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "prints a missing run's message without its terminal controls: exit 1",
    async () => {
      const result = await servebench(["compare", BASELINE_ID, "missingRun01", "--url", `${origin}/runs`]);
      expect(result.code).toBe(1);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench compare: run missingRun01: ${HOSTILE_MESSAGE_WORDS}\n`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "stops reading a run of hundreds of MB at the 64 MB cap: exit 1",
    async () => {
      const answersBefore = hugeAnswers.length;
      const result = await servebench([
        "compare",
        "anyRunId0001",
        `${origin}/huge/runs/anyRunId0002`,
        "--url",
        `${origin}/huge`,
      ]);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench compare: the server's answer is larger than 64 MB; is ${origin}/huge a servebench?\n`,
      );
      expect(result.code).toBe(1);
      const answers = hugeAnswers.slice(answersBefore);
      await Promise.all(answers.map((answer) => answer.done));
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) expect(answer.bytesSent).toBeLessThan(HUGE_ANSWER_BYTES);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "gives up on a server that drips its answer when --timeout runs out: exit 1",
    async () => {
      const result = await servebench([
        "compare",
        BASELINE_ID,
        CANDIDATE_ID,
        "--url",
        `${origin}/drips`,
        "--timeout",
        "2",
      ]);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench compare: no complete answer from ${origin}/drips within 2 s; if the server is only slow, give it longer with --timeout SECONDS\n`,
      );
      expect(result.code).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("servebench bench --upload against a hostile servebench", () => {
  const bench = (uploadTo: string, ...extra: string[]) =>
    servebench([
      "bench",
      "--base-url",
      inferenceServer.baseUrl,
      "--model",
      "test-model",
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--warmup",
      "0",
      "--no-metrics",
      "--engine",
      "vllm",
      "--out",
      path.join(dir, `bench-${uploadTo}.json`),
      "--upload",
      `${origin}/${uploadTo}`,
      ...extra,
    ]);

  it(
    "prints the rejection without its terminal controls and keeps the run's file: exit 1",
    async () => {
      const result = await bench("rejects");
      expect(result.code).toBe(1);
      expectTerminalSafe("stdout", result.stdout);
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench bench: upload rejected (422 validation_failed): ${HOSTILE_MESSAGE_WORDS}\n  (document): ${HOSTILE_ISSUE_WORDS}\n`,
      );
      expect(fs.existsSync(path.join(dir, "bench-rejects.json"))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "gives up on a dripping upload when --upload-timeout runs out: exit 1",
    async () => {
      const result = await bench("drips", "--upload-timeout", "2");
      expect(expectTerminalSafe("stderr", result.stderr)).toBe(
        `servebench bench: no complete answer from ${origin}/drips within 2 s; if the server is only slow, give it longer with --upload-timeout SECONDS; the run is in the file above\n`,
      );
      expect(result.code).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
