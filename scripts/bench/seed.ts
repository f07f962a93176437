/**
 * Realistic runs, written straight into SQLite with better-sqlite3 (10,000 runs in a second or two, where the
 * API would take minutes). The rows are exactly what lib/runs/store.ts `createRun` writes for the same
 * document: `checkAgainstCreateRun` stores a few runs both ways and compares every column, so a change to the
 * schema or to createRun that this file does not follow is reported instead of silently benchmarking
 * different data.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { canonicalJson } from "@/lib/canonical-json";
import { migrateDatabase } from "@/lib/db/migrate";
import { headline } from "@/lib/document/derived";
import { normalizeRunDocument, type RunDocument } from "@/lib/document/normalize";
import { LATENCY_KEYS, type ResultPoint, type RunDocumentInput, SERVER_METRIC_KEYS } from "@/lib/document/schema";
import { searchColumnsOf } from "@/lib/runs/derived-columns";
import { seededUniform } from "@/lib/seeded-random";
import { seriesIdentity } from "@/lib/series/key";

export interface SeedRun {
  id: string;
  doc: RunDocument;
  createdAt: Date;
}

// ---------------------------------------------------------------------------------------------------------
// Generating runs

interface Engine {
  name: string;
  versions: string[];
  command: (model: string, tp: number, extra: string) => string;
  variants: { flags: string; tag?: string; speed: number }[];
}

const ENGINES: Engine[] = [
  {
    name: "vllm",
    versions: ["0.9.2", "0.10.1.1", "0.11.0", "0.25.1"],
    command: (model, tp, extra) =>
      `vllm serve ${model} --tensor-parallel-size ${tp} --max-num-seqs 256 --gpu-memory-utilization 0.92${extra}`,
    variants: [
      { flags: "", speed: 1 },
      { flags: " --enable-chunked-prefill --max-num-batched-tokens 8192", tag: "chunked-prefill", speed: 1.06 },
      { flags: " --kv-cache-dtype fp8", tag: "kv-fp8", speed: 1.1 },
      { flags: " --enforce-eager", tag: "no-cuda-graphs", speed: 0.62 },
      {
        flags: ` --speculative-config '{"method":"eagle3","num_speculative_tokens":3}'`,
        tag: "spec-decode",
        speed: 1.35,
      },
    ],
  },
  {
    name: "sglang",
    versions: ["0.4.9.post6", "0.5.2", "0.5.4"],
    command: (model, tp, extra) =>
      `python -m sglang.launch_server --model-path ${model} --tp ${tp} --mem-fraction-static 0.88${extra}`,
    variants: [
      { flags: "", speed: 1.04 },
      { flags: " --disable-cuda-graph", tag: "no-cuda-graphs", speed: 0.58 },
      { flags: " --attention-backend triton", tag: "triton", speed: 0.97 },
      { flags: " --enable-torch-compile", tag: "torch-compile", speed: 1.08 },
    ],
  },
  {
    name: "tensorrt-llm",
    versions: ["1.0.0", "1.1.0rc2"],
    command: (model, tp, extra) => `trtllm-serve ${model} --tp_size ${tp} --max_batch_size 256${extra}`,
    variants: [
      { flags: "", speed: 1.12 },
      { flags: " --kv_cache_free_gpu_memory_fraction 0.95", tag: "kv-095", speed: 1.14 },
    ],
  },
  {
    name: "tgi",
    versions: ["3.3.4"],
    command: (model, tp, extra) => `text-generation-launcher --model-id ${model} --num-shard ${tp}${extra}`,
    variants: [{ flags: "", speed: 0.85 }],
  },
  {
    name: "llama.cpp",
    versions: ["b6523"],
    command: (model, _tp, extra) =>
      `llama-server -m /models/${model.split("/").pop()}-Q4_K_M.gguf -ngl 999 -c 32768 -np 16${extra}`,
    variants: [{ flags: "", speed: 0.45 }],
  },
];

/** Model, its single-stream speed on an H100 (tok/s), and the tensor-parallel sizes it is run at. */
const MODELS: { name: string; speed: number; tp: number[] }[] = [
  { name: "meta-llama/Llama-3.1-8B-Instruct", speed: 160, tp: [1] },
  { name: "meta-llama/Llama-3.3-70B-Instruct", speed: 38, tp: [2, 4, 8] },
  { name: "Qwen/Qwen3-32B", speed: 62, tp: [1, 2, 4] },
  { name: "Qwen/Qwen3-30B-A3B", speed: 140, tp: [1, 2] },
  { name: "deepseek-ai/DeepSeek-V3.1", speed: 34, tp: [8] },
  { name: "openai/gpt-oss-120b", speed: 120, tp: [1, 2, 4] },
  { name: "mistralai/Mistral-Small-3.2-24B-Instruct-2506", speed: 75, tp: [1, 2] },
  { name: "moonshotai/Kimi-K2.5", speed: 30, tp: [8] },
];

const GPUS: { name: string; memoryMib: number; speed: number }[] = [
  { name: "NVIDIA H100 80GB HBM3", memoryMib: 81559, speed: 1 },
  { name: "NVIDIA H200", memoryMib: 143771, speed: 1.18 },
  { name: "NVIDIA A100-SXM4-80GB", memoryMib: 81920, speed: 0.62 },
  { name: "NVIDIA L40S", memoryMib: 46068, speed: 0.48 },
  { name: "NVIDIA RTX PRO 6000 Blackwell Server Edition", memoryMib: 97887, speed: 0.9 },
  { name: "NVIDIA B200", memoryMib: 183359, speed: 1.65 },
  { name: "AMD Instinct MI300X", memoryMib: 196592, speed: 1.05 },
];

const TEAM_TAGS = ["team-inference", "team-platform", "team-research", "nightly", "release-check", "customer-poc"];
const EXTRA_TAGS = ["baseline", "regression", "prod-candidate", "long-context", "short-prompts", "rerun"];
const DATASETS = [
  { dataset: "random", input_len: 1024, output_len: 256 },
  { dataset: "random", input_len: 4096, output_len: 512 },
  { dataset: "sharegpt", output_len: 256 },
  { dataset: "random", input_len: 128, output_len: 128 },
];
const NOTES = [
  "Rerun after the driver update; numbers within noise of last week.",
  "TTFT spikes at C=128 come from prefill of the long prompts; check chunked prefill.",
  "Client on the same host as the server, 1 warm-up round.",
  "NCCL_P2P_DISABLE=0 this time, NVLink confirmed.",
  "Candidate for the production config.",
];
export const CONCURRENCY_LEVELS = [1, 2, 4, 8, 16, 32, 64, 128] as const;
const DAY_MS = 86_400_000;
const NOW = Date.parse("2026-11-30T12:00:00Z");

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** One load level, shaped like a vLLM sweep at `--max-concurrency c --request-rate inf`. */
function point(
  rand: () => number,
  concurrency: number,
  singleTokS: number,
  workload: { input_len?: number; output_len: number },
  imported: boolean,
): ResultPoint {
  const noise = () => 1 + (rand() - 0.5) * 0.06;
  // Throughput grows with concurrency and saturates: per-stream speed falls as the batch grows.
  const knee = 24 + rand() * 24;
  const perStream = (singleTokS / (1 + (concurrency - 1) / knee)) * noise();
  const tpot = 1000 / perStream;
  const inputLen = workload.input_len ?? 220;
  const ttft = (18 + inputLen / 60) * (1 + concurrency / 10) * noise();
  const completed = Math.max(100, concurrency * 10);
  const e2el = ttft + tpot * (workload.output_len - 1);
  const duration = (completed / concurrency) * (e2el / 1000) * noise();
  const outputTokens = completed * workload.output_len;
  const inputTokens = completed * inputLen;
  const result: ResultPoint = {
    concurrency,
    request_rate: "inf",
    completed,
    failed: rand() < 0.03 ? 1 : 0,
    duration_s: round(duration, 4),
    total_input_tokens: inputTokens,
    total_output_tokens: outputTokens,
    request_throughput: round(completed / duration, 4),
    output_throughput: round(outputTokens / duration, 3),
    total_token_throughput: round((inputTokens + outputTokens) / duration, 3),
    mean_ttft_ms: round(ttft, 3),
    median_ttft_ms: round(ttft * 0.93, 3),
    std_ttft_ms: round(ttft * 0.21, 3),
    p99_ttft_ms: round(ttft * 2.4, 3),
    mean_tpot_ms: round(tpot, 3),
    median_tpot_ms: round(tpot * 0.98, 3),
    std_tpot_ms: round(tpot * 0.07, 3),
    p99_tpot_ms: round(tpot * 1.3, 3),
    mean_itl_ms: round(tpot * 1.01, 3),
    median_itl_ms: round(tpot * 0.95, 3),
    std_itl_ms: round(tpot * 0.4, 3),
    p99_itl_ms: round(tpot * 3.1, 3),
    mean_e2el_ms: round(e2el, 3),
    median_e2el_ms: round(e2el * 0.97, 3),
    p99_e2el_ms: round(e2el * 1.5, 3),
  };
  if (imported) {
    result.sources = { duration_s: "duration", mean_ttft_ms: "mean_ttft_ms", output_throughput: "output_throughput" };
  }
  return result;
}

function runId(rand: () => number): string {
  const bytes = Buffer.alloc(9);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(rand() * 256);
  return bytes.toString("base64url");
}

/**
 * `count` runs: several engines, versions, models, GPUs and tags, all 8 concurrency levels 1..128, measured
 * over the last ~18 months (a few without a date). Normalized by the real normalizeRunDocument.
 */
export function generateRuns(count: number, seed = 20261130): SeedRun[] {
  return [...streamRuns(count, seed)];
}

/** generateRuns one at a time, for databases too large to hold in memory (a million runs). */
export function* streamRuns(count: number, seed = 20261130): Generator<SeedRun> {
  const rand = seededUniform(seed);
  const ids = new Set<string>();
  for (let index = 0; index < count; index += 1) {
    const engine = pick(rand, ENGINES);
    const version = pick(rand, engine.versions);
    const model = pick(rand, MODELS);
    const gpu = pick(rand, GPUS);
    const tp = pick(rand, model.tp);
    const variant = pick(rand, engine.variants);
    const workload = pick(rand, DATASETS);
    const imported = engine.name === "vllm" && rand() < 0.6;
    const singleTokS = model.speed * gpu.speed * variant.speed * (1 + 0.15 * Math.log2(tp)) * (0.9 + rand() * 0.2);
    const measuredMs = NOW - Math.floor(rand() * 540 * DAY_MS);
    const hasDate = rand() > 0.05;
    const tags = new Set<string>([pick(rand, TEAM_TAGS), `tp${tp}`]);
    if (variant.tag) tags.add(variant.tag);
    if (rand() < 0.4) tags.add(pick(rand, EXTRA_TAGS));
    const shortModel = model.name.split("/").pop()!;
    const input: RunDocumentInput = {
      format: "servebench/v1",
      name: `${engine.name} ${version} · ${shortModel} · ${gpu.name.replace(/^(NVIDIA|AMD Instinct) /, "")} ×${tp}${variant.tag ? ` · ${variant.tag}` : ""}`,
      engine: engine.name,
      engine_version: version,
      model: model.name,
      hardware: { gpu: gpu.name, gpu_count: tp, gpu_memory_mib: gpu.memoryMib },
      command: engine.command(model.name, tp, variant.flags),
      workload: { ...workload, num_prompts: 1280 },
      tags: [...tags],
      results: CONCURRENCY_LEVELS.map((concurrency) => point(rand, concurrency, singleTokS, workload, imported)),
    };
    if (rand() < 0.3) input.notes = pick(rand, NOTES);
    if (rand() < 0.2) input.server_startup_s = Math.round(40 + rand() * 300);
    if (imported) {
      input.source_format = "vllm-bench-serve";
      input.metadata = { backend: "vllm", tokenizer_id: model.name };
    }
    if (hasDate) input.measured_at = new Date(measuredMs).toISOString();
    let id = runId(rand);
    while (ids.has(id)) id = runId(rand);
    ids.add(id);
    // Uploaded a little after it was measured.
    const createdAt = new Date(Math.min(NOW, measuredMs + Math.floor(rand() * 3 * DAY_MS)));
    yield { id, doc: normalizeRunDocument(input), createdAt };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Writing runs: the columns createRun writes (lib/runs/run-rows.ts runRowValues, lib/runs/point-rows.ts pointToRow)

export type Row = Record<string, string | number | null>;

const POINT_NUMBER_KEYS = [
  "completed",
  "failed",
  "duration_s",
  "total_input_tokens",
  "total_output_tokens",
  "request_throughput",
  "request_goodput",
  "output_throughput",
  "total_token_throughput",
  "decode_throughput",
  ...LATENCY_KEYS,
  ...SERVER_METRIC_KEYS,
] as const;

/** How Prisma 7's SQLite adapter writes a DateTime. */
function sqliteDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** A stable series id per key: the benchmark's databases are the same on every run. */
export function seriesIdOf(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 10);
}

/** The row of a run's series as createRun makes it (with the benchmark's stable id). */
export function seriesRow(run: SeedRun): Row {
  const identity = seriesIdentity(run.doc);
  return {
    id: seriesIdOf(identity.key),
    key: identity.key,
    name: identity.name,
    explicit: identity.explicit ? 1 : 0,
    createdAt: sqliteDate(run.createdAt),
  };
}

export function runRow(run: SeedRun): Row {
  const { doc } = run;
  const measuredAt = doc.measured_at ? new Date(doc.measured_at) : null;
  const figures = headline(doc.results);
  return {
    id: run.id,
    name: doc.name,
    engine: doc.engine,
    engineVersion: doc.engine_version ?? null,
    model: doc.model,
    gpu: doc.hardware?.gpu ?? null,
    gpuCount: doc.hardware?.gpu_count ?? null,
    gpuMemoryMib: doc.hardware?.gpu_memory_mib ?? null,
    command: doc.command ?? null,
    flagsJson: JSON.stringify(doc.flags),
    envJson: JSON.stringify(doc.env),
    workloadJson: doc.workload ? JSON.stringify(doc.workload) : null,
    speculativeJson: doc.speculative ? JSON.stringify(doc.speculative) : null,
    modelSizeJson: doc.model_size ? JSON.stringify(doc.model_size) : null,
    serverStartupS: doc.server_startup_s ?? null,
    notes: doc.notes ?? null,
    metadataJson: JSON.stringify(doc.metadata),
    warningsJson: JSON.stringify(doc.warnings),
    sourceFormat: doc.source_format,
    measuredAt: measuredAt ? sqliteDate(measuredAt) : null,
    createdAt: sqliteDate(run.createdAt),
    updatedAt: sqliteDate(run.createdAt),
    sortAt: sqliteDate(measuredAt ?? run.createdAt),
    ...searchColumnsOf(doc),
    singleStreamTokS: figures.single_stream?.output_tok_s ?? null,
    singleStreamDerived: figures.single_stream?.derived ? 1 : 0,
    peakTokS: figures.peak?.output_tok_s ?? null,
    peakConcurrency: figures.peak?.concurrency ?? null,
    peakRequestRate: figures.peak?.request_rate == null ? null : String(figures.peak.request_rate),
    pointCount: doc.results.length,
    seriesName: doc.series ?? null,
    gitCommit: doc.git_commit ?? null,
    gitBranch: doc.git_branch ?? null,
    ciUrl: doc.ci_url ?? null,
    // The series row is inserted beside the run (writeDatabase); its id is derived from the key here.
    seriesId: seriesIdOf(seriesIdentity(doc).key),
    // Identity of the content (lib/document/content-hash.ts): SHA-256 of the key-sorted document.
    contentHash: createHash("sha256").update(canonicalJson(doc)).digest("hex"),
  };
}

export function pointRow(runId: string, point: ResultPoint, position: number): Row {
  const row: Row = {
    runId,
    position,
    sourcesJson: point.sources ? JSON.stringify(point.sources) : null,
    percentilesJson: point.percentiles ? JSON.stringify(point.percentiles) : null,
    concurrency: point.concurrency ?? null,
    request_rate: typeof point.request_rate === "number" ? point.request_rate : null,
    request_rate_infinite: point.request_rate === "inf" ? 1 : 0,
    repeat: point.repeat ?? null,
  };
  for (const key of POINT_NUMBER_KEYS) {
    const value = point[key];
    if (value !== undefined) row[key] = value;
  }
  return row;
}

interface Column {
  name: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

/**
 * An INSERT for the columns this file knows. Columns it writes that the table lacks are dropped only when the
 * table never had them (contentHash before its migration); a required column it does not know is an error.
 */
function inserter(
  database: Database.Database,
  table: string,
  known: readonly string[],
  optionalColumns: ReadonlySet<string>,
) {
  const columns = database.prepare(`PRAGMA table_info("${table}")`).all() as Column[];
  const names = new Set(columns.map((column) => column.name));
  const missingInTable = known.filter((name) => !names.has(name) && !optionalColumns.has(name));
  if (missingInTable.length > 0)
    throw new Error(`Table ${table} has no column ${missingInTable.join(", ")}: update scripts/bench/seed.ts`);
  const required = columns.filter(
    (column) => column.notnull && column.dflt_value === null && !column.pk && !known.includes(column.name),
  );
  if (required.length > 0) {
    throw new Error(
      `Table ${table} has required column(s) ${required.map((c) => c.name).join(", ")} the benchmark does not fill: update scripts/bench/seed.ts`,
    );
  }
  const used = known.filter((name) => names.has(name));
  const statement = database.prepare(
    `INSERT INTO "${table}" (${used.map((name) => `"${name}"`).join(", ")}) VALUES (${used.map((name) => `@${name}`).join(", ")})`,
  );
  return (row: Row) => {
    const values: Row = {};
    for (const name of used) values[name] = row[name] ?? null;
    statement.run(values);
  };
}

export const RUN_COLUMNS = Object.keys(
  runRow({
    id: "x",
    createdAt: new Date(0),
    doc: normalizeRunDocument({ format: "servebench/v1", engine: "x", model: "x", results: [{ concurrency: 1 }] }),
  }),
);
export const POINT_COLUMNS = [
  "runId",
  "position",
  "sourcesJson",
  "percentilesJson",
  "concurrency",
  "request_rate",
  "request_rate_infinite",
  "repeat",
  ...POINT_NUMBER_KEYS,
];

/**
 * The insert triggers of the Run table that a bulk load replaces by one statement each at the end (the run total,
 * the FTS5 search indexes). Any other trigger stays in place, so its work is done as the app would have it done.
 */
const BULK_EQUIVALENT: Record<string, string> = {
  Run_total_after_insert: `UPDATE "RunTotal" SET "runs" = (SELECT count(*) FROM "Run") WHERE "id" = 1`,
  Run_search_after_insert: `INSERT INTO "RunSearch" ("RunSearch") VALUES ('rebuild')`,
  Run_pairs_after_insert: `INSERT INTO "RunPairs" ("RunPairs") VALUES ('rebuild')`,
  Run_triples_after_insert: `INSERT INTO "RunTriples" ("RunTriples") VALUES ('rebuild')`,
};

function deferRunTriggers(database: Database.Database): { finish(): void } {
  const triggers = database
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'Run'`)
    .all() as { name: string; sql: string }[];
  const deferred = triggers.filter((trigger) => trigger.name in BULK_EQUIVALENT);
  for (const trigger of deferred) database.exec(`DROP TRIGGER "${trigger.name}"`);
  return {
    finish() {
      for (const trigger of deferred) {
        database.exec(BULK_EQUIVALENT[trigger.name]!);
        database.exec(trigger.sql);
      }
    },
  };
}

/** Every row createRun writes for one run: its series (inserted when new), the run, its points and its tags. */
export interface RunRows {
  series: Row;
  run: Row;
  points: Row[];
  tags: Row[];
}

export function rowsOf(run: SeedRun): RunRows {
  return {
    series: seriesRow(run),
    run: runRow(run),
    points: run.doc.results.map((result, position) => pointRow(run.id, result, position)),
    tags: run.doc.tags.map((tag) => ({ runId: run.id, tag })),
  };
}

/**
 * Prepared statements inserting one run's rows into a migrated SQLite database, in createRun's order (the series
 * when new, the run, its points, its tags); the caller holds the transaction. The Run table's triggers fire as
 * they do for the app's inserts unless the caller dropped them (writeDatabase's bulk load).
 */
export function sqliteRunInserter(database: Database.Database): (rows: RunRows) => void {
  const insertRun = inserter(database, "Run", RUN_COLUMNS, new Set(["contentHash"]));
  const insertPoint = inserter(database, "ResultPoint", POINT_COLUMNS, new Set());
  const insertTag = inserter(database, "RunTag", ["runId", "tag"], new Set());
  const insertSeries = database.prepare(
    `INSERT OR IGNORE INTO "Series" ("id", "key", "name", "explicit", "createdAt") VALUES (@id, @key, @name, @explicit, @createdAt)`,
  );
  return (rows) => {
    insertSeries.run(rows.series);
    insertRun(rows.run);
    for (const point of rows.points) insertPoint(point);
    for (const tag of rows.tags) insertTag(tag);
  };
}

/** Create the database with the real migrations and insert the runs, committing every 10,000. */
export function writeDatabase(file: string, runs: Iterable<SeedRun>, migrationsDir: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  migrateDatabase(file, migrationsDir);
  const database = new Database(file);
  try {
    database.pragma("journal_mode = WAL");
    // A throwaway database being filled: no fsync per commit (a setting of this connection only).
    database.pragma("synchronous = OFF");
    // A bulk load: the search index and the run total are made once at the end instead of by a trigger per run.
    const deferred = deferRunTriggers(database);
    const insertRows = sqliteRunInserter(database);
    // Committed every 10,000 runs: a million runs in one transaction would grow the WAL to gigabytes.
    const insertBatch = database.transaction((batch: SeedRun[]) => {
      for (const run of batch) insertRows(rowsOf(run));
    });
    let batch: SeedRun[] = [];
    for (const run of runs) {
      batch.push(run);
      if (batch.length === 10_000) {
        insertBatch(batch);
        batch = [];
      }
    }
    if (batch.length > 0) insertBatch(batch);
    deferred.finish();
    database.pragma("wal_checkpoint(TRUNCATE)");
    database.exec("ANALYZE");
  } finally {
    database.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Checking the rows against createRun

function dump(file: string): { runs: Row[]; points: Row[]; tags: Row[]; series: Row[] } {
  const database = new Database(file, { readonly: true });
  try {
    return {
      // The series by its key: its id is random in the app and derived in the benchmark.
      runs: database
        .prepare(
          `SELECT "Run".*, "Series"."key" AS "seriesId" FROM "Run" LEFT JOIN "Series" ON "Series"."id" = "Run"."seriesId" ORDER BY "Run".rowid`,
        )
        .all() as Row[],
      points: database.prepare(`SELECT * FROM "ResultPoint" ORDER BY id`).all() as Row[],
      tags: database.prepare(`SELECT * FROM "RunTag" ORDER BY runId, tag`).all() as Row[],
      // Every column but the id (random in the app, derived from the key in the benchmark).
      series: (database.prepare(`SELECT * FROM "Series" ORDER BY "key"`).all() as Row[]).map(
        ({ id: _id, ...row }) => row,
      ),
    };
  } finally {
    database.close();
  }
}

/**
 * Store a few generated runs with the application's createRun (Prisma) and with writeDatabase, then compare
 * every column of every row. Returns the differences; empty when the benchmark writes what the app writes.
 * Sets DATABASE_URL for this process (the Prisma client reads it once), so call it before anything else uses it.
 */
export async function checkAgainstCreateRun(
  directory: string,
  runs: readonly SeedRun[],
  migrationsDir: string,
): Promise<string[]> {
  const viaApp = path.join(directory, "check-create-run.db");
  const viaBench = path.join(directory, "check-direct.db");
  migrateDatabase(viaApp, migrationsDir);
  process.env.DATABASE_URL = `file:${viaApp}`;
  const { createRun } = await import("@/lib/runs/store");
  const { db } = await import("@/lib/db/client");
  try {
    for (const run of runs) await createRun(run.doc, { createdAt: run.createdAt });
  } finally {
    await db().$disconnect();
  }
  const app = dump(viaApp);
  // createRun makes its own random ids: give the direct rows the same ones.
  const ids = app.runs.map((row) => String(row.id));
  writeDatabase(
    viaBench,
    runs.map((run, index) => ({ ...run, id: ids[index] ?? run.id })),
    migrationsDir,
  );
  const bench = dump(viaBench);

  const differences: string[] = [];
  for (const table of ["runs", "points", "tags", "series"] as const) {
    const left = app[table];
    const right = bench[table];
    if (left.length !== right.length)
      differences.push(`${table}: createRun wrote ${left.length} rows, the benchmark ${right.length}`);
    for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
      for (const column of new Set([...Object.keys(left[index]!), ...Object.keys(right[index]!)])) {
        const a = left[index]![column];
        const b = right[index]![column];
        if (a !== b)
          differences.push(
            `${table}[${index}].${column}: createRun ${JSON.stringify(a)}, benchmark ${JSON.stringify(b)}`,
          );
      }
    }
  }
  for (const file of [viaApp, viaBench])
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  return differences;
}
