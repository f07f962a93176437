/**
 * `npx tsx scripts/bench/ingest-profile.ts [--runs N] [--uploads M] [--restore R]`: where the time of an upload and
 * of a restore goes, step by step, in this process (no server, no build). A SQLite database of N runs (default
 * 100,000) is written by the benchmark's seeder; then, on the app's own Prisma client over that file:
 *
 * - M uploads (default 300) of a new 8-level run each, through the steps POST /api/runs takes: the upload task
 *   the worker runs (parse, plan, validate), the series configuration check, storing, judging the series; then
 *   one judgement of that series, step by step (reading its newest runs, the window rule, the change points).
 * - R runs (default 5,000) restored from export lines, through the steps a restore job takes: reading and
 *   validating each ~1 MB part (the worker's task), storing its runs (restoreRuns), and the series judged at the end.
 *
 * Beside them, the database's own ceiling for the same rows: the seeder's inserts, one transaction per run, every
 * trigger live. Each step is printed as ms per run, so the steps add up to the whole.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { uploadBody } from "./scale";
import {
  POINT_COLUMNS,
  pointRow,
  RUN_COLUMNS,
  runRow,
  type SeedRun,
  seriesRow,
  streamRuns,
  writeDatabase,
} from "./seed";

interface Options {
  runs: number;
  uploads: number;
  restore: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { runs: 100_000, uploads: 300, restore: 5_000 };
  for (let index = 0; index < argv.length; index += 2) {
    const key = argv[index]?.replace(/^--/, "") as keyof Options;
    const value = Number(argv[index + 1]);
    if (!(key in options) || !Number.isInteger(value) || value < 1) throw new Error(`bad option ${argv[index]}`);
    options[key] = value;
  }
  return options;
}

/** The seeder's rows for each run, inserted with one transaction per run: what the database itself does. */
function insertRunsOneByOne(database: Database.Database, runs: readonly SeedRun[]): void {
  const insert = (table: string, columns: readonly string[]) => {
    const statement = database.prepare(
      `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    );
    return (row: Record<string, unknown>) => statement.run(columns.map((column) => row[column] ?? null));
  };
  const insertRun = insert("Run", RUN_COLUMNS);
  const insertPoint = insert("ResultPoint", POINT_COLUMNS);
  const insertTag = insert("RunTag", ["runId", "tag"]);
  const insertSeries = database.prepare(
    `INSERT OR IGNORE INTO "Series" ("id", "key", "name", "explicit", "createdAt") VALUES (@id, @key, @name, @explicit, @createdAt)`,
  );
  const one = database.transaction((run: SeedRun) => {
    insertSeries.run(seriesRow(run));
    insertRun(runRow(run));
    run.doc.results.forEach((result, position) => {
      insertPoint(pointRow(run.id, result, position));
    });
    for (const tag of run.doc.tags) insertTag({ runId: run.id, tag });
  });
  for (const run of runs) one(run);
}

const UPLOAD_TEMPLATE = uploadBody();

const perRun = (ms: number, count: number) => `${(ms / count).toFixed(2)} ms/run`;

/** The scale stage's upload (scripts/bench/scale.ts), a counter in place of its id: every upload new content. */
function uploadDocument(index: number): string {
  return UPLOAD_TEMPLATE.replaceAll("[<id>]", String(index));
}

/** Judgements of the uploads' series timed step by step, after the uploads: what every upload's answer waits for. */
const JUDGEMENTS_TIMED = 30;

/**
 * One judgement's steps (lib/series/judging.ts, judgeNow): reading the series' newest runs, the window rule over
 * every judged figure, the change points over them; and the whole judgement, which also stores what changed and the
 * series' summary. Each timed JUDGEMENTS_TIMED times over the same runs.
 */
async function profileJudgement(runId: string): Promise<void> {
  const { db } = await import("@/lib/db/client");
  const { JUDGE_TAIL_RUNS, judgeStoredSeries } = await import("@/lib/series/judging");
  const { judgedMetrics, judgeLoaded, loadSeries, shownMetrics } = await import("@/lib/series/load");
  const { seriesChangePoints } = await import("@/lib/series/change-points");
  const run = await db().run.findUnique({ where: { id: runId }, select: { seriesId: true } });
  const seriesId = run?.seriesId;
  if (!seriesId) throw new Error(`the uploaded run ${runId} joined no series`);
  const steps = { read: 0, rule: 0, changePoints: 0, whole: 0 };
  let figures = 0;
  let points = 0;
  for (let index = 0; index < JUDGEMENTS_TIMED; index += 1) {
    let at = performance.now();
    const loaded = await loadSeries(seriesId, JUDGE_TAIL_RUNS);
    steps.read += performance.now() - at;
    at = performance.now();
    const judgements = await judgeLoaded(loaded, judgedMetrics(loaded, shownMetrics(loaded)));
    steps.rule += performance.now() - at;
    at = performance.now();
    seriesChangePoints(
      judgements.map((judgement) => ({
        key: judgement.metric.key,
        better: judgement.metric.better,
        points: judgement.points,
      })),
      seriesId,
    );
    steps.changePoints += performance.now() - at;
    at = performance.now();
    await judgeStoredSeries(seriesId);
    steps.whole += performance.now() - at;
    figures = judgements.length;
    points = Math.max(0, ...judgements.map((judgement) => judgement.points.length));
  }
  const each = (ms: number) => `${(ms / JUDGEMENTS_TIMED).toFixed(2)} ms`;
  console.log(
    `\none judgement of that series (its newest ${JUDGE_TAIL_RUNS} runs, ${figures} figures judged, up to ${points} points each; ${JUDGEMENTS_TIMED} timed):`,
  );
  console.log(`  read the newest runs (loadSeries):     ${each(steps.read)}`);
  console.log(`  the window rule, every figure:         ${each(steps.rule)}`);
  console.log(`  the change points, every figure:       ${each(steps.changePoints)}`);
  console.log(`  whole (the above, what changed and the summary stored): ${each(steps.whole)}`);
}

/** In the child, on DATABASE_URL: the uploads, then the restore, step by step. */
async function profileApp(options: Options, exportFile: string): Promise<void> {
  const { performUploadTask } = await import("@/lib/ingest/upload-task");
  const { checkSeriesConfigurations } = await import("@/lib/series/consistency");
  const { storeRuns } = await import("@/lib/runs/store");
  const { judgeUploadedRuns } = await import("@/lib/series/judging");
  const { restoreRuns } = await import("@/lib/runs/restore");
  const { readRestoreLines } = await import("@/lib/ingest/restore-lines");
  const { ExportPartSplitter } = await import("@/lib/backup/export-parts");
  const { seriesJoinedBy } = await import("@/lib/backup/series");
  const { judgeStoredSeries } = await import("@/lib/series/judging");

  const steps = { task: 0, check: 0, store: 0, judge: 0 };
  let uploadedRunId = "";
  const started = performance.now();
  for (let index = 0; index < options.uploads; index += 1) {
    let at = performance.now();
    const outcome = await performUploadTask({
      kind: "store",
      url: "http://localhost/api/runs",
      contentType: "application/json",
      bytes: new TextEncoder().encode(uploadDocument(index)) as Uint8Array<ArrayBuffer>,
    });
    if (!outcome.ok || outcome.kind !== "store") throw new Error(`upload ${index}: ${JSON.stringify(outcome)}`);
    steps.task += performance.now() - at;
    at = performance.now();
    await checkSeriesConfigurations(outcome.runs.map((entry) => entry.document));
    steps.check += performance.now() - at;
    at = performance.now();
    const stored = await storeRuns(outcome.runs);
    steps.store += performance.now() - at;
    uploadedRunId = stored[0]!.id;
    at = performance.now();
    await judgeUploadedRuns(
      stored.map((run) => run.id),
      "http://localhost",
    );
    steps.judge += performance.now() - at;
  }
  const uploadsMs = performance.now() - started;
  console.log(`\n${options.uploads} uploads, one after another (a new 8-level run each, one series):`);
  console.log(`  whole:                                 ${perRun(uploadsMs, options.uploads)}`);
  console.log(`  upload task (parse, plan, validate):   ${perRun(steps.task, options.uploads)}`);
  console.log(`  series configuration check:            ${perRun(steps.check, options.uploads)}`);
  console.log(`  store (storeRuns):                     ${perRun(steps.store, options.uploads)}`);
  console.log(`  judge the series:                      ${perRun(steps.judge, options.uploads)}`);
  await profileJudgement(uploadedRunId);

  // The restore: parts of whole lines as the job stores them, each read in the task, then stored.
  const bytes = fs.readFileSync(exportFile);
  const splitter = new ExportPartSplitter();
  const parts = [...splitter.push(bytes), ...splitter.end()];
  const restore = { read: 0, store: 0, judge: 0 };
  let runs = 0;
  const storedIds: string[] = [];
  const seriesIds = new Set<string>();
  for (const part of parts) {
    let at = performance.now();
    const lines = readRestoreLines(part.bytes, { firstLine: part.firstLine });
    restore.read += performance.now() - at;
    at = performance.now();
    const entries = lines.flatMap((line) =>
      line.kind === "run" && "documentJson" in line
        ? [{ line: line.line, id: line.id, createdAt: undefined, documentJson: line.documentJson }]
        : [],
    );
    const results = await restoreRuns(entries);
    for (const result of results) if (result.status === "stored") storedIds.push(result.id);
    runs += results.filter((result) => result.status === "stored").length;
    restore.store += performance.now() - at;
  }
  // What the job's finish does: the series the restored runs joined (of two runs or more), each judged once.
  const at = performance.now();
  for (const id of await seriesJoinedBy(storedIds)) seriesIds.add(id);
  for (const id of seriesIds) await judgeStoredSeries(id);
  restore.judge += performance.now() - at;
  const whole = restore.read + restore.store + restore.judge;
  console.log(`\nrestore of ${runs} runs (${parts.length} parts of ~1 MB):`);
  console.log(
    `  whole:                                 ${perRun(whole, runs)} (${((runs / whole) * 1000).toFixed(0)} runs/s)`,
  );
  console.log(`  read the part (the worker's task):     ${perRun(restore.read, runs)}`);
  console.log(`  store (restoreRuns):                   ${perRun(restore.store, runs)}`);
  console.log(`  judge every series (${seriesIds.size}) at the end: ${perRun(restore.judge, runs)}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--child") {
    const options = JSON.parse(argv[1]!) as Options;
    return profileApp(options, argv[2]!);
  }
  const options = parseOptions(argv);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-ingest-profile-"));
  try {
    const migrations = path.join(process.cwd(), "prisma", "migrations");
    const all = streamRuns(options.runs + options.restore);
    const held: SeedRun[] = [];
    const extra: SeedRun[] = [];
    for (const run of all) (held.length < options.runs ? held : extra).push(run);
    const database = path.join(directory, "profile.db");
    let at = performance.now();
    writeDatabase(database, held, migrations);
    console.log(`wrote ${options.runs} runs in ${((performance.now() - at) / 1000).toFixed(1)} s`);

    // The ceiling: the same rows, one transaction per run, every trigger live, on a copy of the database.
    const ceilingFile = path.join(directory, "ceiling.db");
    fs.copyFileSync(database, ceilingFile);
    const ceiling = new Database(ceilingFile);
    ceiling.pragma("journal_mode = WAL");
    at = performance.now();
    insertRunsOneByOne(ceiling, extra);
    const ceilingMs = performance.now() - at;
    ceiling.close();
    console.log(
      `ceiling: ${extra.length} runs, one transaction each, triggers live: ${perRun(ceilingMs, extra.length)} (${((extra.length / ceilingMs) * 1000).toFixed(0)} runs/s)`,
    );

    const exportFile = path.join(directory, "export.jsonl");
    fs.writeFileSync(
      exportFile,
      extra
        .map((run) => JSON.stringify({ ...run.doc, id: run.id, created_at: run.createdAt.toISOString() }))
        .join("\n"),
    );
    spawnSync(process.execPath, [...process.execArgv, __filename, "--child", JSON.stringify(options), exportFile], {
      stdio: "inherit",
      env: { ...process.env, DATABASE_URL: `file:${database}` },
    });
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
