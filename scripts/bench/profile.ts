/**
 * `npx tsx scripts/bench/profile.ts`: where the time of the history page and of a vLLM import goes, in this
 * process (no server, no build; ~30 s). For each database size it times the history page's data functions
 * (lib/runs/summaries.ts countRuns, listFilterOptions; lib/runs/history.ts listRuns) as the page calls them, then each query of
 * listFilterOptions alone with the SQL Prisma sent and the time SQLite took for it, next to the same question
 * asked with SQL GROUP BY. Then it times each stage of an upload of the benchmark's vLLM file.
 *
 * Each database size runs in a child process of its own: the app's Prisma client reads DATABASE_URL once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { median } from "./http";
import { generateRuns, writeDatabase } from "./seed";
import { writeVllmDetailedFile } from "./vllm-file";

const ITERATIONS = 20;

async function time<T>(iterations: number, action: () => Promise<T> | T): Promise<number> {
  await action();
  await action();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const fmt = (value: number) => `${value.toFixed(2)} ms`;

/** In the child: profile the history's queries against DATABASE_URL. */
async function profileHistory(file: string): Promise<void> {
  process.env.DATABASE_URL = `file:${file}`;
  const { listRuns } = await import("@/lib/runs/history");
  const { countRuns, listFilterOptions } = await import("@/lib/runs/summaries");
  const { parseListQueryLenient } = await import("@/lib/runs/list-query");
  const query = parseListQueryLenient({});
  const runs = await countRuns();
  console.log(`\n${runs} runs — the history page's data functions (median of ${ITERATIONS}):`);
  const all = await time(ITERATIONS, () => Promise.all([countRuns(), listRuns(query), listFilterOptions()]));
  console.log(`  all three, concurrently as the page calls them: ${fmt(all)}`);
  console.log(`  countRuns():         ${fmt(await time(ITERATIONS, () => countRuns()))}`);
  console.log(`  listRuns(page 1):    ${fmt(await time(ITERATIONS, () => listRuns(query)))}`);
  console.log(`  listFilterOptions(): ${fmt(await time(ITERATIONS, () => listFilterOptions()))}`);

  // The same queries on a client that reports the SQL it sends and how long SQLite took.
  const client = new PrismaClient({
    adapter: new PrismaBetterSqlite3({ url: file }),
    log: [{ level: "query", emit: "event" }],
  });
  const sent: { sql: string; ms: number }[] = [];
  client.$on("query", (event) => sent.push({ sql: event.query, ms: event.duration }));
  const queries: [string, () => Promise<unknown>][] = [
    [
      "engine  findMany distinct",
      () => client.run.findMany({ distinct: ["engine"], select: { engine: true }, orderBy: { engine: "asc" } }),
    ],
    [
      "model   findMany distinct",
      () => client.run.findMany({ distinct: ["model"], select: { model: true }, orderBy: { model: "asc" } }),
    ],
    [
      "gpu     findMany distinct",
      () =>
        client.run.findMany({
          distinct: ["gpu"],
          select: { gpu: true },
          where: { gpu: { not: null } },
          orderBy: { gpu: "asc" },
        }),
    ],
    [
      "tag     findMany distinct",
      () => client.runTag.findMany({ distinct: ["tag"], select: { tag: true }, orderBy: { tag: "asc" } }),
    ],
    ["engine  groupBy", () => client.run.groupBy({ by: ["engine"], orderBy: { engine: "asc" } })],
    ["model   groupBy", () => client.run.groupBy({ by: ["model"], orderBy: { model: "asc" } })],
    [
      "gpu     groupBy",
      () => client.run.groupBy({ by: ["gpu"], where: { gpu: { not: null } }, orderBy: { gpu: "asc" } }),
    ],
    ["tag     groupBy", () => client.runTag.groupBy({ by: ["tag"], orderBy: { tag: "asc" } })],
  ];
  console.log("  each filter query alone (median ms in JS | ms in SQLite | rows SQLite returned | SQL):");
  for (const [label, run] of queries) {
    const rows = await run();
    sent.length = 0;
    const total = await time(ITERATIONS, run);
    const sqlMs = median(sent.map((entry) => entry.ms));
    const sql = sent[sent.length - 1]?.sql ?? "";
    const returned = await countRowsOf(file, sql);
    console.log(
      `    ${label}: ${fmt(total)} | ${sqlMs.toFixed(0)} ms | ${returned} rows (${(rows as unknown[]).length} kept) | ${sql.replace(/\s+/g, " ").slice(0, 160)}`,
    );
  }
  await client.$disconnect();
}

/** How many rows a SELECT Prisma sent returns (its parameters are the LIMIT/OFFSET ones, if any). */
async function countRowsOf(file: string, sql: string): Promise<string> {
  if (!/^SELECT/i.test(sql.trim())) return "?";
  const { default: Database } = await import("better-sqlite3");
  const database = new Database(file, { readonly: true });
  try {
    const statement = database.prepare(sql);
    const parameters = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => -1);
    return String((statement.all(...parameters) as unknown[]).length);
  } catch {
    return "?";
  } finally {
    database.close();
  }
}

/** In the child: each stage of an upload of the vLLM file, as POST /api/runs runs them. */
async function profileIngest(file: string): Promise<void> {
  const { readUploadRequest } = await import("@/lib/ingest/ingest");
  const { readUploads } = await import("@/lib/formats/import");
  const { planRuns } = await import("@/lib/formats/import-plan");
  const { FORMAT_PARSERS } = await import("@/lib/formats/registry");
  const { decodeFile } = await import("@/lib/formats/decode");
  const { normalizeRunDocument } = await import("@/lib/document/normalize");
  const { multipartBody } = await import("./http");
  const bytes = fs.readFileSync(file);
  const { body, contentType } = multipartBody(
    { engine: "vllm" },
    { name: "vllm.json", type: "application/json", bytes },
  );
  const request = () =>
    new Request("http://localhost/api/runs?dry_run=1", {
      method: "POST",
      headers: { "content-type": contentType },
      body: new Uint8Array(body),
    });
  console.log(`\nvLLM import of ${(bytes.byteLength / 1e6).toFixed(1)} MB, stage by stage (median of 5):`);
  let upload = await readUploadRequest(request(), 200_000_000);
  console.log(
    `  read body + multipart (readUploadRequest): ${fmt(await time(5, async () => (upload = await readUploadRequest(request(), 200_000_000))))}`,
  );
  const fileBytes = upload.files[0]!.bytes;
  console.log(
    `  UTF-8 decode:                          ${fmt(await time(5, () => new TextDecoder().decode(fileBytes)))}`,
  );
  const text = new TextDecoder().decode(fileBytes);
  console.log(`  JSON.parse:                            ${fmt(await time(5, () => JSON.parse(text)))}`);
  console.log(
    `  decodeFile (binary check, decode, parse and its checks): ${fmt(await time(5, () => decodeFile("vllm.json", fileBytes)))}`,
  );
  // Checks lib/formats/decode.ts may export (looked up by name: not every version has them).
  const decodeModule = (await import("@/lib/formats/decode")) as Record<string, unknown>;
  const parsedJson: unknown = JSON.parse(text);
  for (const [name, input] of [
    ["findDuplicateKey", text],
    ["nestingDepth", parsedJson],
  ] as const) {
    const check = decodeModule[name];
    if (typeof check === "function")
      console.log(`    of which ${name}: ${fmt(await time(5, () => (check as (value: unknown) => unknown)(input)))}`);
  }
  const source = decodeFile("vllm.json", fileBytes);
  for (const parser of FORMAT_PARSERS) {
    const detectMs = await time(5, () => parser.detect(source));
    if (detectMs > 1 || parser.detect(source))
      console.log(`  ${parser.id}.detect: ${fmt(detectMs)}${parser.detect(source) ? " (claims the file)" : ""}`);
  }
  console.log(
    `  readUploads (decode, detect, parse):   ${fmt(await time(5, () => readUploads(upload.files, FORMAT_PARSERS)))}`,
  );
  const parsed = readUploads(upload.files, FORMAT_PARSERS);
  console.log(
    `  planRuns:                              ${fmt(await time(5, () => planRuns(parsed, { split: false, pick: undefined })))}`,
  );
  const plan = planRuns(parsed, { split: false, pick: undefined });
  console.log(
    `  normalizeRunDocument:                  ${fmt(await time(5, () => normalizeRunDocument({ ...plan.runs[0]!.document, engine: "vllm" })))}`,
  );
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  if (mode === "--history" && file) return profileHistory(file);
  if (mode === "--ingest" && file) return profileIngest(file);

  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-profile-"));
  try {
    const runs = generateRuns(10_000);
    const migrations = path.join(process.cwd(), "prisma", "migrations");
    for (const count of [100, 10_000]) {
      const database = path.join(directory, `runs-${count}.db`);
      writeDatabase(database, runs.slice(0, count), migrations);
      spawnSync(process.execPath, [...process.execArgv, __filename, "--history", database], { stdio: "inherit" });
    }
    const vllm = writeVllmDetailedFile(path.join(directory, "vllm.json"));
    spawnSync(process.execPath, [...process.execArgv, __filename, "--ingest", vllm.path], { stdio: "inherit" });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
