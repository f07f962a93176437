/**
 * Every shell example of README.md and docs/*.md, run as written: each ```sh block is read from the file, its
 * placeholders are replaced by what the table below says (the only change made to it), and each of its commands
 * runs in bash against servebench servers started on fresh databases, in one working folder that holds real
 * benchmark files from tests/fixtures under the names the examples use. A command that exits non-zero or prints
 * an error fails the test. A block that cannot run here is listed in EXCLUDED with the reason; a block that is
 * neither run nor excluded (a new example) fails the test, and so does an entry that matches no block any more.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { type OpenAITestServer, startOpenAITestServer } from "../support/openai-test-server";
import { type RunningServer, startServer, stopServer } from "./server";

const ROOT = path.join(__dirname, "..", "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures");
const DOCUMENTS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md"))].map(
  (name) => (name === "README.md" ? name : `docs/${name}`),
);

interface Block {
  /** "README.md:62": the file and the line of the opening fence. */
  where: string;
  file: string;
  /** The block's first line, which names it in the tables below (line numbers move as the docs grow). */
  first: string;
  text: string;
}

function shellBlocks(): Block[] {
  const blocks: Block[] = [];
  for (const file of DOCUMENTS) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    for (const match of text.matchAll(/^```(sh|bash|shell|console)\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, match.index).split("\n").length;
      const body = match[2] ?? "";
      blocks.push({ where: `${file}:${line}`, file, first: body.split("\n")[0] ?? "", text: body });
    }
  }
  return blocks;
}

/** Blocks that cannot run in a test, each with why. Keyed by file and first line. */
const EXCLUDED: { file: string; first: string; reason: string }[] = [
  {
    file: "README.md",
    first: "npm install && npm start    # serves the dashboard with demo data at http://localhost:3000",
    reason:
      "installs packages (the machine is offline) and runs `npm start` and `npm test` themselves, which CI runs; these tests start the same build with `next start`",
  },
  {
    file: "docs/deploy.md",
    first: "git clone … && cd servebench",
    reason: "a PostgreSQL deployment on real hosts (db.internal, bench.example.com) from a fresh clone",
  },
  {
    file: "docs/deploy.md",
    first:
      "npx servebench db copy --from file:./data/servebench.db --to 'postgresql://servebench:…@db.internal:5432/servebench'",
    reason:
      "copies into a PostgreSQL server at a real host with an elided password; tests/integration/database-copy.test.ts runs the same command against a local PostgreSQL",
  },
  {
    file: "docs/deploy.md",
    first: "git pull && npm ci",
    reason: "upgrades a clone (git pull, installing packages) and migrates the deployment's database",
  },
];

interface Output {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

/** Blocks that run, with what their output must show beyond a clean exit. Keyed by file and first line. */
const RUN: { file: string; first: string; check?: (outputs: Output[], work: string) => void }[] = [
  {
    file: "README.md",
    first: "npx servebench upload results/*.json --url http://localhost:3000 \\",
    check: ([upload]) => expect(upload!.stdout).toMatch(new RegExp(`^${servers().main}/runs/[A-Za-z0-9_-]{12}\n$`)),
  },
  {
    file: "README.md",
    first: "curl -fsSO http://localhost:3000/cli/servebench.mjs",
    check: ([, upload, compare], work) => {
      // A vLLM bench serve file says nothing about its server: stored with the engine unknown, said on stderr.
      expect(upload!.stdout).toMatch(new RegExp(`^${servers().main}/runs/[A-Za-z0-9_-]{12}\n`));
      expect(upload!.stderr).toContain('stored as engine "unknown" (pass --engine NAME');
      const summary = fs.readFileSync(path.join(work, "summary.md"), "utf8");
      // The series' first run: stored and listed, judged from the third.
      expect(summary).toMatch(
        /^## servebench · nightly-h100: too few earlier runs to judge \(judging starts at the third run\)\n/,
      );
      expect(compare!.stdout).toMatch(/^#/);
    },
  },
  {
    file: "README.md",
    first: "curl -X POST http://localhost:3000/api/runs -F file=@bench.json -F engine=vllm -F gpu_count=8",
    check: (outputs) => {
      for (const output of outputs) expect(output.stdout).toMatch(/^\{"id":"[A-Za-z0-9_-]{12}","url":"\/runs\//);
    },
  },
  {
    file: "README.md",
    first: "npx servebench bench --base-url http://gpu-box:8000/v1 --model Qwen/Qwen3-8B \\",
    check: ([bench]) => {
      // The test server says nothing about its engine: measured anyway, and the command says what it could not tell.
      const printed = `${bench!.stdout}${bench!.stderr}`;
      expect(printed).toContain("engine: not told by the server");
      expect(printed).toMatch(/single stream: [\d,.]+ tok\/s \(C=1\)/);
      expect(printed).toMatch(new RegExp(`${servers().main}/runs/[A-Za-z0-9_-]{12}`));
    },
  },
  {
    file: "docs/api.md",
    first: "curl -X POST http://localhost:3000/api/runs -H 'Content-Type: application/json' --data @run.json",
  },
  { file: "docs/api.md", first: "curl -o backup.jsonl http://old-host:3000/api/export" },
  {
    file: "docs/api.md",
    first: "curl -i -X POST http://new-host:3000/api/restore -H 'Prefer: respond-async' \\",
    check: ([restore, job]) => {
      expect(restore!.stdout).toMatch(/^HTTP\/1\.1 202 /);
      expect(job!.stdout).toMatch(/^\{"id":"[A-Za-z0-9_-]+","status":"(running|done)"/);
    },
  },
  {
    file: "docs/api.md",
    first: "npx servebench restore backup.jsonl --url http://new-host:3000",
    check: ([restore, followed]) => {
      // The export was restored into the fresh server by the examples before: every run is there already.
      expect(restore!.stdout).toMatch(
        new RegExp(`^restored backup\\.jsonl into ${servers().fresh} in .+ \\(job [A-Za-z0-9_-]{16}\\)\n`),
      );
      const runs = /^ {2}runs: 0 stored, [1-9][\d,]* already present \(restored before\), 0 refused$/m.exec(
        restore!.stdout,
      );
      expect(runs, restore!.stdout).not.toBeNull();
      expect(restore!.stderr).toMatch(/^sending backup\.jsonl: /m);
      // --job follows the job the first command named (now done): the same counts.
      expect(followed!.stdout).toMatch(new RegExp(`^restore job [A-Za-z0-9_-]{16} on ${servers().fresh}: done in `));
      expect(followed!.stdout).toContain(`${runs![0]}\n`);
    },
  },
  {
    file: "docs/api.md",
    first: "curl -X POST http://localhost:3000/api/comparisons -H 'Content-Type: application/json' \\",
    check: ([save]) => expect(save!.stdout).toContain('"url":"/c/'),
  },
  {
    file: "docs/api.md",
    first: "curl -o preview.png 'http://localhost:3000/api/og?runs=hwaNHidBsoTH,Qx3vKbL0p_9a'",
    check: (_outputs, work) =>
      expect([...fs.readFileSync(path.join(work, "preview.png")).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]),
  },
  {
    file: "docs/api.md",
    first: 'curl -X POST http://localhost:3000/api/runs -H "Authorization: Bearer $SERVEBENCH_TOKEN" \\',
  },
  {
    file: "docs/bench.md",
    first: "npx servebench bench --base-url http://gpu-box:8000/v1 --model Qwen/Qwen3-8B \\",
    check: ([bench]) => {
      // Its --command names the program: the engine is read from it.
      expect(`${bench!.stdout}${bench!.stderr}`).toContain("engine: vllm (the --command program: vllm serve)");
    },
  },
  {
    file: "docs/bench.md",
    first:
      "npx servebench bench --base-url http://gpu-box:8000/v1 --model Qwen/Qwen3-8B --gpu 'H100 80GB' --gpu-count 2 \\",
    check: ([bench], work) => {
      expect(`${bench!.stdout}${bench!.stderr}`).toMatch(
        /power: http:\/\/\S+\/dcgm\/metrics every 500 ms \(dcgm-exporter\)/,
      );
      const run = JSON.parse(fs.readFileSync(path.join(work, "power-run.json"), "utf8")) as {
        results: { energy_j?: number; power_gpu_count?: number; power_source?: string }[];
      };
      // Two GPUs at 350 W, read from the exporter. These levels last a fraction of the 500 ms between gauge readings,
      // so their power comes from the energy counter read just before and just after each (the exact figure, against
      // long levels, is tests/integration/bench-power.test.ts's).
      for (const point of run.results) {
        expect(point).toMatchObject({ power_gpu_count: 2, power_source: "dcgm-exporter" });
        expect(point.energy_j).toBeGreaterThan(0);
      }
    },
  },
  {
    file: "docs/api.md",
    first: "npx servebench upload results/ --eval lm_eval/results_2026-12-05.json --url https://bench.example.com",
    check: ([uploaded, attached]) => {
      expect(uploaded!.stdout).toMatch(/\/runs\/[A-Za-z0-9_-]+/);
      // The gsm8k file's two scores (strict-match and flexible-extract), stored with the run and then attached again.
      expect(attached!.stdout).toContain("2 accuracy scores stored with the run");
    },
  },
  { file: "docs/deploy.md", first: "curl -o history.jsonl http://old-host:3000/api/export" },
  { file: "docs/series.md", first: "curl -fsSO https://bench.example.com/cli/servebench.mjs" },
];

let main: RunningServer;
let fresh: RunningServer;
let gpuBox: OpenAITestServer;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-readme-"));
const work = path.join(dir, "work");

function servers() {
  return { main: main.url, fresh: fresh.url };
}

/** Ids of two runs stored on the main server: what RUN_ID, OTHER_RUN_ID and the example ids stand for. */
async function twoRunIds(): Promise<[string, string]> {
  const { runs } = (await (await fetch(`${main.url}/api/runs?per_page=2`)).json()) as { runs: { id: string }[] };
  if (runs.length < 2) throw new Error("the examples before this one should have stored two runs");
  return [runs[0]!.id, runs[1]!.id];
}

/**
 * The placeholders of the examples and what stands in for them: the one visible change made to an example.
 * `previous` is the output of the block's commands so far (a job id the block's first command answered).
 */
async function substitutions(previous: Output[]): Promise<[string, string][]> {
  const needsIds = (await fetch(`${main.url}/api/runs?per_page=2`).then((r) => r.json())) as { runs: unknown[] };
  const [runId, otherRunId] = needsIds.runs.length >= 2 ? await twoRunIds() : ["RUN_ID", "OTHER_RUN_ID"];
  // A 202's Location header (curl -i), or the job `servebench restore` names on stderr.
  const job = /(?:Location: \/api\/restore\/jobs\/|servebench restore --job )([A-Za-z0-9_-]+)/i.exec(
    previous.map((o) => `${o.stdout}\n${o.stderr}`).join("\n"),
  );
  return [
    // The servers: the one the examples upload to, and a second, empty one for "new-host" (a restore target).
    ["http://localhost:3000", main.url],
    ["https://bench.example.com", main.url],
    ["http://old-host:3000", main.url],
    ["http://new-host:3000", fresh.url],
    // The inference server `servebench bench` measures: a small OpenAI-compatible server that names no engine.
    ["http://gpu-box:8000/v1", gpuBox.baseUrl],
    // Its DCGM exporter: two GPUs at 350 W each, served by the same test server.
    ["http://gpu-box:9400/metrics", gpuBox.baseUrl.replace(/\/v1$/, "/dcgm/metrics")],
    // `npx servebench` runs the package's bin; here, the clone's.
    ["npx servebench", `node ${JSON.stringify(path.join(ROOT, "bin", "servebench.mjs"))}`],
    // Ids of runs stored by the examples before.
    ["RUN_ID OTHER_RUN_ID", `${runId} ${otherRunId}`],
    ["hwaNHidBsoTH", runId],
    ["Qx3vKbL0p_9a", otherRunId],
    // The restore job the block's first command started (curl's or servebench restore's).
    ["Vd3kQ0xq2m9TfA1b", job?.[1] ?? "Vd3kQ0xq2m9TfA1b"],
  ];
}

/** Variables the examples read from the environment. */
const ENVIRONMENT = {
  ENGINE_COMMIT: "3f9a1c2e7b4d5a6f8091a2b3c4d5e6f708192a3b",
  // The main server sets no write token, so any token is accepted: the example shows how one is sent.
  SERVEBENCH_TOKEN: "0123456789abcdef0123456789abcdef",
};

/** The working folder: real benchmark files under the names the examples use. */
function fillWorkFolder(): Record<string, string> {
  const files: Record<string, string> = {
    "results/bench_serve_v0.25.1.json": "vllm/bench_serve_v0.25.1.json",
    "bench.json": "vllm/bench_serve_v0.25.1.json",
    "run.json": "servebench/vllm-tp8-baseline.json",
    "lm_eval/results_2026-12-05.json": "accuracy/lm-eval/v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json",
    "sweep/run=0.json":
      "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/run=0.json",
    "sweep/run=1.json":
      "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/run=1.json",
  };
  for (const [name, fixture] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, fixture), path.join(work, name));
  }
  // A zipped results folder: two vLLM benchmark_serving runs of one server at two request rates, one run.
  const zipEntries: Record<string, Uint8Array> = {};
  for (const name of ["benchmark_2025-05-13_04-55-27.json", "benchmark_2025-05-13_05-00-45.json"]) {
    zipEntries[`results/${name}`] = new Uint8Array(fs.readFileSync(path.join(FIXTURES, "vllm", name)));
  }
  fs.writeFileSync(path.join(work, "results.zip"), zipSync(zipEntries));
  files["results.zip"] = "vllm/benchmark_2025-05-13_04-55-27.json and _05-00-45.json, zipped under results/";
  return files;
}

/** The block's commands: continuation lines joined, comment lines (shown output) left out. */
function commandsOf(text: string): string[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

function bash(command: string): Promise<Output> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", command],
      {
        cwd: work,
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_ENV: "production", ...ENVIRONMENT },
      },
      (error, stdout, stderr) =>
        resolve({ command, code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** What an example must not print: an API error body, a refusal, a failure to reach a server. */
const ERROR_OUTPUT = /"error"\s*:\s*\{|rejected|cannot reach|\berror:|command not found/i;

const blocks = shellBlocks();
const key = (entry: { file: string; first: string }) => `${entry.file} | ${entry.first}`;

beforeAll(async () => {
  const mainDb = path.join(dir, "main.db");
  const freshDb = path.join(dir, "fresh.db");
  migrateDatabase(mainDb);
  migrateDatabase(freshDb);
  main = await startServer(mainDb, path.join(dir, "main.log"), { SERVEBENCH_DEMO: "0" });
  fresh = await startServer(freshDb, path.join(dir, "fresh.log"), { SERVEBENCH_DEMO: "0" });
  gpuBox = await startOpenAITestServer({
    ttftMs: 5,
    itlMs: 1,
    tokens: 8,
    maxConcurrent: 256,
    models: [{ id: "Qwen/Qwen3-8B" }],
    // No /version, no /get_server_info, no owner in its model list: a server that does not say its engine.
    ownedBy: null,
    version: null,
    serverInfo: null,
    dcgm: { gpus: 2, watts: 350 },
  });
  fs.mkdirSync(work);
  fillWorkFolder();
}, 180_000);

afterAll(async () => {
  await gpuBox?.close();
  if (main) await stopServer(main);
  if (fresh) await stopServer(fresh);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the shell examples of README.md and docs/*.md", () => {
  it("are each run or excluded with a reason, and every table entry still names a block", () => {
    const known = new Set([...RUN, ...EXCLUDED].map(key));
    const unaccounted = blocks
      .filter((block) => !known.has(key(block)))
      .map((block) => `${block.where}: ${block.first}`);
    expect(unaccounted, "add each new example to RUN (with its placeholders in substitutions) or to EXCLUDED").toEqual(
      [],
    );
    const present = new Set(blocks.map(key));
    expect([...known].filter((entry) => !present.has(entry))).toEqual([]);
    for (const entry of EXCLUDED) expect(entry.reason.length).toBeGreaterThan(20);
  });

  // In document order: later examples use what earlier ones stored (run ids, an export to restore).
  for (const block of blocks) {
    const entry = RUN.find((candidate) => key(candidate) === key(block));
    if (!entry) continue;
    it(`${block.where} runs as written: ${block.first}`, async () => {
      const outputs: Output[] = [];
      for (const command of commandsOf(block.text)) {
        let substituted = command;
        for (const [placeholder, value] of await substitutions(outputs)) {
          substituted = substituted.split(placeholder).join(value);
        }
        const output = await bash(substituted);
        outputs.push(output);
        const printed = `${output.stdout}\n${output.stderr}`;
        expect(output.code, `${substituted}\n${printed}`).toBe(0);
        expect(printed, substituted).not.toMatch(ERROR_OUTPUT);
      }
      entry.check?.(outputs, work);
    });
  }
});
