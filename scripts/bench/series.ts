/**
 * Series and the comparison at their heaviest, on SQLite and PostgreSQL. Into a database holding the benchmark's
 * generated history, it writes straight (like the rest of the benchmark's rows):
 *
 * - a nightly series of 1,000 runs over ~3 years: one run a night at ~2% noise, three repeats at one commit
 *   every other Sunday, nights without a run, engine upgrades (one of them +8%, marked as an expected change),
 *   single-night flakes and a −10% regression that lasts a fortnight before it is fixed;
 * - 8 runs to compare, made so that every figure of the compare page has something to compute: GPU counts of
 *   2, 4 and 8 (throughput per GPU), TPOT rising through the SLO between load levels (goodput interpolated,
 *   violating levels marked, cost at the SLO point), overlapping interactivity ranges (a frontier each and the
 *   change at equal interactivity), repeats stored in the runs (3 or 2 per level: 95% intervals and ranges) and
 *   two runs of one configuration (repeats across runs).
 *
 * Then it serves each database with `next start` (both at once) and measures, one request to each database in
 * turns: GET /series/<id>; /compare of the 8 runs with a p99 statistic, SLO targets and a price; and the time
 * judging adds to an upload, as the difference between an upload into the series and the same document uploaded
 * right after it into a new series of its own (nothing to judge it against). Each page is checked to hold what
 * it should (the runs, the detected regression, the expected change, every figure) before it is timed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { ResultPoint, RunDocumentInput } from "@/lib/document/schema";
import { seededUniform } from "@/lib/seeded-random";
import { type Cluster, findPostgresBin, startCluster } from "../../tests/support/postgresql";
import { measure, measurePair, median, quantile, type Series, type Timing, timedRequest } from "./http";
import { type SeedRun, seriesIdOf, streamRuns, writeDatabase } from "./seed";
import { writePostgresql } from "./seed-postgresql";
import { type DatabaseKind, type Server, startServer, stopServer, type Workspace } from "./workspace";

export const SERIES_TARGET = { pageMs: 150, judgeMs: 50, compareMs: 100 };
export const SERIES_RUNS = 1_000;
/**
 * The history the series and the compared runs are written into: the benchmark's generated runs, as many as the
 * largest history the scale measurement serves by default, so the pages are timed in a history of that size.
 */
export const SERIES_HISTORY_RUNS = 100_000;
const SAMPLES = 30;
const WARMUPS = 5;
/** Uploads timed into the series and, in turns, into a fresh series each. */
const UPLOAD_SAMPLES = 30;
const UPLOAD_WARMUPS = 3;

/**
 * The compare page's every figure: p99 latencies (interactivity from p99 TPOT), SLO targets (goodput and its
 * interpolation, violating levels), a GPU-hour price (cost per level and at the SLO point). Throughput per GPU
 * and the change at equal interactivity need no parameter: they follow from the runs' GPU counts.
 */
export const COMPARE_EVERY_FIGURE_QUERY = "stat=p99&slo_ttft=2000&slo_tpot=50&price=2.5";

const DAY_MS = 86_400_000;
const SERIES_END = Date.parse("2026-11-29T02:00:00Z");
const SERIES_START = SERIES_END - 3 * 365 * DAY_MS;
export const SERIES_NAME = "nightly-h100-llama-3.1-8b";
export const SERIES_ID = seriesIdOf(`name:${SERIES_NAME}`);
const SERIES_MODEL = "meta-llama/Llama-3.1-8B-Instruct";
const SERIES_COMMAND = `vllm serve ${SERIES_MODEL} --max-num-seqs 256 --gpu-memory-utilization 0.92`;
const SERIES_LEVELS = [1, 2, 4, 8, 16, 32, 64, 128];
/** Engine versions over the three years; the upgrade to the one at UPGRADE_VERSION made it 8% faster. */
const VERSIONS = ["0.3.3", "0.4.2", "0.5.4", "0.6.3", "0.7.3", "0.8.5", "0.9.2", "0.10.1.1", "0.11.0"];
const UPGRADE_VERSION = "0.6.3";
const OUTPUT_LEN = 256;
const INPUT_LEN = 1024;

function stableId(text: string): string {
  return createHash("sha256").update(text).digest().subarray(0, 9).toString("base64url");
}

function commitOf(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** A normal deviate from two uniform ones (Box–Muller). */
function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * One load level of a server whose per-stream speed is `singleTokS` at concurrency 1 and falls as the batch
 * grows past `knee`; `noise` multiplies the speed (a run's or a repeat's own deviation).
 */
function levelPoint(
  rand: () => number,
  concurrency: number,
  singleTokS: number,
  knee: number,
  extra: Partial<ResultPoint> = {},
): ResultPoint {
  const wobble = () => 1 + gaussian(rand) * 0.005;
  const perStream = (singleTokS / (1 + (concurrency - 1) / knee)) * wobble();
  const tpot = 1000 / perStream;
  const ttft = (18 + INPUT_LEN / 60) * (1 + concurrency / 10) * wobble();
  const e2el = ttft + tpot * (OUTPUT_LEN - 1);
  const completed = Math.max(100, concurrency * 10);
  const duration = (completed / concurrency) * (e2el / 1000);
  return {
    concurrency,
    request_rate: "inf",
    completed,
    failed: 0,
    duration_s: round(duration, 4),
    total_input_tokens: completed * INPUT_LEN,
    total_output_tokens: completed * OUTPUT_LEN,
    request_throughput: round(completed / duration, 4),
    output_throughput: round((completed * OUTPUT_LEN) / duration, 3),
    total_token_throughput: round((completed * (INPUT_LEN + OUTPUT_LEN)) / duration, 3),
    mean_ttft_ms: round(ttft, 3),
    median_ttft_ms: round(ttft * 0.93, 3),
    p99_ttft_ms: round(ttft * 2.4, 3),
    mean_tpot_ms: round(tpot, 3),
    median_tpot_ms: round(tpot * 0.98, 3),
    p99_tpot_ms: round(tpot * 1.3, 3),
    mean_itl_ms: round(tpot * 1.01, 3),
    median_itl_ms: round(tpot * 0.95, 3),
    p99_itl_ms: round(tpot * 3.1, 3),
    mean_e2el_ms: round(e2el, 3),
    median_e2el_ms: round(e2el * 0.97, 3),
    p99_e2el_ms: round(e2el * 1.5, 3),
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The nightly series

interface Night {
  index: number;
  at: number;
  version: string;
  commit: string;
  /** Runs that night: 1, or 3 repeats at the commit. */
  runs: number;
  /** What the night's code does to the speed: 1, the upgrade's 1.08, the regression's 0.9, a flake's 0.85. */
  factor: number;
}

export interface NightlySeries {
  runs: SeedRun[];
  /** The first run on the faster engine version: where the expected change is marked. */
  upgradeRunId: string;
  /** The regression's first night, and the nights of single flakes. */
  regressionFrom: string;
  flakeNights: string[];
  lastAt: number;
  lastVersion: string;
}

function nightDoc(night: Night, repeat: number, speed: number, rand: () => number): RunDocumentInput {
  const date = new Date(night.at + repeat * 25 * 60_000);
  return {
    format: "servebench/v1",
    name: `nightly ${date.toISOString().slice(0, 10)} · vLLM ${night.version}${night.runs > 1 ? ` · repeat ${repeat + 1}` : ""}`,
    engine: "vllm",
    engine_version: night.version,
    model: SERIES_MODEL,
    hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1, gpu_memory_mib: 81559 },
    command: SERIES_COMMAND,
    workload: { dataset: "random", input_len: INPUT_LEN, output_len: OUTPUT_LEN, num_prompts: 1280 },
    tags: ["nightly", "ci"],
    series: SERIES_NAME,
    git_commit: night.commit,
    git_branch: "main",
    ci_url: `https://ci.example.com/inference/nightly/${night.index + 1}`,
    measured_at: date.toISOString(),
    results: SERIES_LEVELS.map((concurrency) => levelPoint(rand, concurrency, speed, 32)),
  };
}

/** The series: nights from three years back until it holds `count` runs. */
export function nightlySeries(count = SERIES_RUNS): NightlySeries {
  // Its regression starts 55 nights before the end and its last flake 20: fewer runs cannot hold that shape.
  if (count < 200) throw new Error(`a nightly series of ${count} runs is too short for the benchmark's (≥ 200)`);
  const rand = seededUniform(20231201);
  const nights: Night[] = [];
  let total = 0;
  for (let index = 0; total < count; index += 1) {
    // CI was down, or skipped the night, about one night in five.
    if (rand() < 0.2) continue;
    const at = SERIES_START + index * DAY_MS + Math.floor(rand() * 10 * 60_000);
    const sunday = new Date(at).getUTCDay() === 0 && Math.floor(index / 7) % 2 === 0;
    const runs = Math.min(sunday ? 3 : 1, count - total);
    nights.push({ index, at, version: "", commit: commitOf(`nightly ${index}`), runs, factor: 1 });
    total += runs;
  }
  const span = nights[nights.length - 1]!.at - SERIES_START;
  for (const night of nights) {
    const share = (night.at - SERIES_START) / span;
    night.version = VERSIONS[Math.min(VERSIONS.length - 1, Math.floor(share * VERSIONS.length))]!;
  }
  const upgrade = nights.findIndex((night) => night.version === UPGRADE_VERSION);
  for (const night of nights.slice(upgrade)) night.factor = 1.08;
  // A regression merged ~two months before the end, fixed a fortnight later; flakes of one night each.
  const regression = nights.length - 55;
  for (const night of nights.slice(regression, regression + 14)) night.factor *= 0.9;
  const flakes = [Math.floor(nights.length * 0.3), Math.floor(nights.length * 0.55), nights.length - 20];
  for (const flake of flakes) {
    const night = nights[flake]!;
    if (night.runs === 1) night.factor *= 0.85;
  }

  const runs: SeedRun[] = [];
  const firstRunOf = new Map<Night, string>();
  for (const night of nights) {
    for (let repeat = 0; repeat < night.runs; repeat += 1) {
      // Every run (and repeat) deviates by ~2% from the night's level.
      const speed = 150 * night.factor * (1 + gaussian(rand) * 0.02);
      const input = nightDoc(night, repeat, speed, rand);
      const id = stableId(`series ${night.index} ${repeat}`);
      if (!firstRunOf.has(night)) firstRunOf.set(night, id);
      runs.push({
        id,
        doc: normalizeRunDocument(input),
        createdAt: new Date(Date.parse(input.measured_at!) + 20 * 60_000),
      });
    }
  }
  const last = nights[nights.length - 1]!;
  return {
    runs,
    upgradeRunId: firstRunOf.get(nights[upgrade]!)!,
    regressionFrom: new Date(nights[regression]!.at).toISOString().slice(0, 10),
    flakeNights: flakes.map((flake) => new Date(nights[flake]!.at).toISOString().slice(0, 10)),
    lastAt: last.at,
    lastVersion: last.version,
  };
}

/** An upload into the series: the night after `after`, at the series' normal level. */
function uploadIntoSeries(series: NightlySeries, sample: number, seriesName: string): string {
  const rand = seededUniform(9000 + sample);
  const night: Night = {
    index: 100_000 + sample,
    at: series.lastAt + (sample + 1) * DAY_MS,
    version: series.lastVersion,
    commit: commitOf(`upload ${process.pid} ${Date.now()} ${sample} ${seriesName}`),
    runs: 1,
    factor: 1.08,
  };
  const doc = nightDoc(night, 0, 150 * night.factor * (1 + gaussian(rand) * 0.02), rand);
  doc.series = seriesName;
  return JSON.stringify(doc);
}

// ---------------------------------------------------------------------------------------------------------
// The 8 runs to compare

interface CompareConfig {
  engine: string;
  version: string;
  command: string;
  tp: number;
  singleTokS: number;
  knee: number;
  /** Repeats stored in the run: points numbered 1..repeats at each level. */
  repeats: number;
  levels?: number[];
}

const COMPARE_MODEL = "meta-llama/Llama-3.3-70B-Instruct";
const vllm = (tp: number, extra = "") =>
  `vllm serve ${COMPARE_MODEL} --tensor-parallel-size ${tp} --max-num-seqs 256 --gpu-memory-utilization 0.92${extra}`;
const sglang = (tp: number, extra = "") =>
  `python -m sglang.launch_server --model-path ${COMPARE_MODEL} --tp ${tp} --mem-fraction-static 0.88${extra}`;

const COMPARED: CompareConfig[] = [
  { engine: "vllm", version: "0.11.0", command: vllm(2), tp: 2, singleTokS: 40, knee: 32, repeats: 3 },
  {
    engine: "vllm",
    version: "0.11.0",
    command: vllm(2, " --kv-cache-dtype fp8"),
    tp: 2,
    singleTokS: 43,
    knee: 34,
    repeats: 3,
  },
  { engine: "vllm", version: "0.11.0", command: vllm(4), tp: 4, singleTokS: 52, knee: 36, repeats: 3 },
  {
    engine: "vllm",
    version: "0.11.0",
    command: vllm(4, " --enable-chunked-prefill --max-num-batched-tokens 8192"),
    tp: 4,
    singleTokS: 53,
    knee: 40,
    repeats: 2,
  },
  // Not measured at 128: its line bridges the level.
  {
    engine: "sglang",
    version: "0.5.4",
    command: sglang(2),
    tp: 2,
    singleTokS: 42,
    knee: 30,
    repeats: 3,
    levels: [1, 2, 4, 8, 16, 32, 64],
  },
  {
    engine: "sglang",
    version: "0.5.4",
    command: sglang(4, " --enable-torch-compile"),
    tp: 4,
    singleTokS: 56,
    knee: 36,
    repeats: 3,
  },
];
/** Two runs of one configuration on 8 GPUs: repeats across runs. */
const COMPARED_TWICE: CompareConfig = {
  engine: "tensorrt-llm",
  version: "1.0.0",
  command: `trtllm-serve ${COMPARE_MODEL} --tp_size 8 --max_batch_size 256`,
  tp: 8,
  singleTokS: 62,
  knee: 36,
  repeats: 1,
};

export function comparedRuns(): SeedRun[] {
  const rand = seededUniform(20261101);
  const configs = [...COMPARED, COMPARED_TWICE, COMPARED_TWICE];
  return configs.map((config, index) => {
    const results: ResultPoint[] = [];
    for (const concurrency of config.levels ?? SERIES_LEVELS) {
      for (let repeat = 1; repeat <= config.repeats; repeat += 1) {
        const speed = config.singleTokS * (1 + gaussian(rand) * 0.02);
        results.push(levelPoint(rand, concurrency, speed, config.knee, config.repeats > 1 ? { repeat } : {}));
      }
    }
    const at = new Date(Date.parse("2026-11-20T10:00:00Z") + index * 3_600_000);
    const input: RunDocumentInput = {
      format: "servebench/v1",
      engine: config.engine,
      engine_version: config.version,
      model: COMPARE_MODEL,
      hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: config.tp, gpu_memory_mib: 81559 },
      command: config.command,
      workload: { dataset: "random", input_len: INPUT_LEN, output_len: OUTPUT_LEN, num_prompts: 1280 },
      tags: ["bench-compare"],
      measured_at: at.toISOString(),
      results,
    };
    return { id: stableId(`compare ${index}`), doc: normalizeRunDocument(input), createdAt: at };
  });
}

/** A few runs of each kind, for the check that the direct inserts write what createRun writes. */
export function seriesCheckRuns(): SeedRun[] {
  const series = nightlySeries();
  // The first nights, and the three repeats of the first night that has them.
  const repeated = series.runs.findIndex((run) => run.doc.name.endsWith("repeat 1"));
  return [...series.runs.slice(0, 3), ...series.runs.slice(repeated, repeated + 3), ...comparedRuns().slice(0, 2)];
}

// ---------------------------------------------------------------------------------------------------------
// Checking what the pages hold

function count(html: string, pattern: RegExp): number {
  return [...html.matchAll(new RegExp(pattern.source, "g"))].length;
}

/** What the series page must show: its runs, the regression, the expected change. Empty when it does. */
function checkSeriesPage(html: string, runs: number): string[] {
  const problems: string[] = [];
  if (!html.includes(`data-testid="series-name"`)) problems.push("no series name");
  // React separates the text pieces of `{count} run{s}` with comments.
  if (!new RegExp(`${runs}(<!-- -->)? run(<!-- -->)?s`).test(html)) problems.push(`does not say ${runs} runs`);
  if (count(html, /data-kind="regression"/) === 0) problems.push("no detected regression");
  if (!html.includes(`data-testid="series-annotations"`)) problems.push("no expected change");
  if (!html.includes(`data-testid="series-chart"`)) problems.push("no chart");
  return problems;
}

export interface CompareCheck {
  series: number;
  withRepeats: number;
  sloPartial: number;
  sloCosts: number;
  atEqualInteractivity: number;
  intervals: number;
  overSlo: number;
  problems: string[];
}

/** Every figure of the compare page, found on the served page. */
function checkComparePage(html: string): CompareCheck {
  const series = count(html, /data-testid="headline-card"/);
  const withRepeats = count(html, /data-testid="repeats"/);
  const sloPartial = count(html, /data-testid="slo-delta" data-status="partial"/);
  const sloCosts = count(html, /data-testid="slo-cost"/);
  const atEqualInteractivity = count(html, /data-testid="interactivity-delta"><span [^>]*data-verdict=/);
  const intervals = count(html, /data-testid="cell-spread" title="mean of 3 repeats: range [^"]*95% interval/);
  const overSlo = count(html, /data-testid="over-slo"/);
  const problems: string[] = [];
  const expectedSeries = COMPARED.length + 1;
  if (series !== expectedSeries) problems.push(`${series} cards, not ${expectedSeries}`);
  if (withRepeats !== expectedSeries) problems.push(`${withRepeats} of ${expectedSeries} cards say their repeats`);
  if (sloPartial !== expectedSeries) problems.push(`${sloPartial} of ${expectedSeries} have an interpolated SLO point`);
  if (sloCosts !== expectedSeries) problems.push(`${sloCosts} of ${expectedSeries} have a cost at the SLO`);
  if (atEqualInteractivity !== expectedSeries - 1)
    problems.push(`${atEqualInteractivity} of ${expectedSeries - 1} compared at equal interactivity`);
  if (intervals === 0) problems.push("no 95% interval in the delta tables");
  if (overSlo === 0) problems.push("no level marked over the SLO");
  for (const text of ["Output throughput per GPU", "Cost per million output tokens"])
    if (!html.includes(text)) problems.push(`no "${text}" table`);
  if (!html.includes(`data-testid="chart-efficiency"`)) problems.push("no throughput-per-GPU chart");
  if (!html.includes(`data-testid="verdict-line"`)) problems.push("no verdict line");
  return { series, withRepeats, sloPartial, sloCosts, atEqualInteractivity, intervals, overSlo, problems };
}

// ---------------------------------------------------------------------------------------------------------
// Measuring

export interface UploadSample {
  /** Time to the response's headers, as the client sees it. */
  responseMs: number;
  /** The Server-Timing `judge` duration: the span around judging in the upload's handler. */
  judgeMs: number;
}

export interface UploadFigures {
  samples: UploadSample[];
  responseMs: number;
  judgeMs: number;
  judgeP90Ms: number;
}

export interface SeriesDatabaseFigures {
  kind: DatabaseKind;
  writeSeconds: number;
  page: Series;
  /** Uploads into the 1,000-run series, and in turns with them each into a new series of its own. */
  intoSeries: UploadFigures;
  intoNewSeries: UploadFigures;
  /**
   * What judging against the series adds to an upload: the median, over the turns, of (the upload into the
   * series − the same upload into a new series right after it), both as the client sees them.
   */
  judgingAddsMs: number;
  /** How the uploads into the series were judged (their verdicts, counted). */
  verdicts: Record<string, number>;
  compare: Series;
  compareCheck: CompareCheck;
}

export interface SeriesFigures {
  historyRuns: number;
  seriesRuns: number;
  databases: SeriesDatabaseFigures[];
  /** Whether both databases were measured in turns (one request to each, alternately). */
  inTurns: boolean;
  postgresqlNote: string | null;
  regressionFrom: string;
  flakeNights: string[];
}

function uploadFigures(samples: UploadSample[]): UploadFigures {
  return {
    samples,
    responseMs: median(samples.map((sample) => sample.responseMs)),
    judgeMs: median(samples.map((sample) => sample.judgeMs)),
    judgeP90Ms: quantile(
      samples.map((sample) => sample.judgeMs),
      0.9,
    ),
  };
}

function judgeDuration(timing: Timing): number {
  const header = timing.headers["server-timing"];
  const match = /judge;dur=([\d.]+)/.exec(Array.isArray(header) ? header.join(", ") : (header ?? ""));
  if (!match) throw new Error(`the upload answered ${timing.status} without a Server-Timing judge duration`);
  return Number(match[1]);
}

/** One upload, which must be stored (201) with a verdict; into SERIES_NAME it must join the seeded series. */
async function upload(server: Server, body: string, into: string): Promise<{ sample: UploadSample; verdict: string }> {
  const timing = await timedRequest(`${server.url}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: Buffer.from(body),
  });
  if (timing.status !== 201)
    throw new Error(`an upload into ${into} answered ${timing.status}: ${timing.body.toString("utf8").slice(0, 400)}`);
  const answer = JSON.parse(timing.body.toString("utf8")) as {
    series?: { verdict: string; series: { id: string } };
  };
  if (!answer.series) throw new Error(`an upload into ${into} came back without a verdict`);
  if (into === SERIES_NAME && answer.series.series.id !== SERIES_ID)
    throw new Error(`an upload into ${SERIES_NAME} joined series ${answer.series.series.id}, not ${SERIES_ID}`);
  return { sample: { responseMs: timing.headersMs, judgeMs: judgeDuration(timing) }, verdict: answer.series.verdict };
}

interface UploadResults {
  intoSeries: UploadFigures;
  intoNewSeries: UploadFigures;
  judgingAddsMs: number;
  verdicts: Record<string, number>;
}

/**
 * Uploads in turns: on each server, the night's run into the series (judged against its newest runs), then the
 * same document into a new series of its own (judged against nothing: the upload without the series' judging);
 * then the next server, and so on. Every upload is new content (its own commit) and must be stored.
 */
async function measureUploads(servers: Server[], series: NightlySeries): Promise<UploadResults[]> {
  const results = servers.map(() => ({
    intoSeries: [] as UploadSample[],
    intoNewSeries: [] as UploadSample[],
    differences: [] as number[],
    verdicts: {} as Record<string, number>,
  }));
  for (let index = 0; index < UPLOAD_WARMUPS + UPLOAD_SAMPLES; index += 1) {
    for (const [position, server] of servers.entries()) {
      const own = `bench-new-series-${process.pid}-${index}`;
      const intoSeries = await upload(server, uploadIntoSeries(series, index, SERIES_NAME), SERIES_NAME);
      const intoNew = await upload(server, uploadIntoSeries(series, index, own), own);
      if (index < UPLOAD_WARMUPS) continue;
      const result = results[position]!;
      result.intoSeries.push(intoSeries.sample);
      result.intoNewSeries.push(intoNew.sample);
      result.differences.push(intoSeries.sample.responseMs - intoNew.sample.responseMs);
      result.verdicts[intoSeries.verdict] = (result.verdicts[intoSeries.verdict] ?? 0) + 1;
    }
  }
  return results.map((result) => ({
    intoSeries: uploadFigures(result.intoSeries),
    intoNewSeries: uploadFigures(result.intoNewSeries),
    judgingAddsMs: median(result.differences),
    verdicts: result.verdicts,
  }));
}

/** GETs of one page on each server, in turns when there are two (see measurePair). */
async function measureOnEach(label: string, urls: string[]): Promise<Series[]> {
  if (urls.length === 2) return measurePair(label, [urls[0]!, urls[1]!], SAMPLES, WARMUPS);
  return Promise.all(urls.map((url) => measure(label, url, SAMPLES, WARMUPS)));
}

const live = new Set<Server>();

export interface SeriesOptions {
  workspace: Workspace;
  repo: string;
  kinds: DatabaseKind[];
  log: (line: string) => void;
}

/**
 * Writes the databases, serves each, and measures them in turns: the machine is shared, and two figures taken
 * minutes apart would compare the neighbours' load more than the databases.
 */
export async function measureSeries(options: SeriesOptions): Promise<SeriesFigures> {
  const { workspace, repo, log } = options;
  const kinds = [...options.kinds];
  let postgresqlNote: string | null = null;
  if (kinds.includes("postgresql") && !findPostgresBin()) {
    postgresqlNote = "PostgreSQL is not installed here: its figures were NOT measured (apt-get install -y postgresql)";
    kinds.splice(kinds.indexOf("postgresql"), 1);
  }
  const series = nightlySeries();
  const compared = comparedRuns();
  const everyRun = function* (): Generator<SeedRun> {
    yield* streamRuns(SERIES_HISTORY_RUNS);
    yield* series.runs;
    yield* compared;
  };
  let cluster: Cluster | null = null;
  // Ctrl-C: run.ts stops its own servers and exits; this module's servers and cluster must go too.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const server of live) server.child.kill("SIGKILL");
      cluster?.stop();
    });
  }
  const sqliteFile = path.join(workspace.root, "data", "series.db");
  const servers: Server[] = [];
  try {
    const writeSeconds: number[] = [];
    for (const kind of kinds) {
      const started = performance.now();
      let database: string;
      if (kind === "sqlite") {
        database = sqliteFile;
        fs.mkdirSync(path.dirname(database), { recursive: true });
        writeDatabase(database, everyRun(), path.join(workspace.app, "prisma", "migrations"));
      } else {
        // Durable as a real server is, like the scale measurement's cluster.
        cluster = await startCluster({
          settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "1GB" },
        });
        database = await cluster.createDatabase("series_bench");
        await writePostgresql(database, everyRun());
      }
      writeSeconds.push((performance.now() - started) / 1000);
      log(
        `${kind}-series: wrote ${SERIES_HISTORY_RUNS} runs, the series' ${series.runs.length} and ${compared.length} to compare in ${writeSeconds.at(-1)!.toFixed(1)} s`,
      );
      const server = await startServer(workspace, repo, database, `${kind}-series`);
      live.add(server);
      servers.push(server);
    }

    const compareQuery = `runs=${compared.map((run) => run.id).join(",")}&${COMPARE_EVERY_FIGURE_QUERY}`;
    const compareChecks: CompareCheck[] = [];
    for (const [position, server] of servers.entries()) {
      const kind = kinds[position]!;
      // The engine upgrade marked as an expected change: the API judges the series, storing what it finds.
      const marked = await timedRequest(`${server.url}/api/series/${SERIES_ID}/annotations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify({ run_id: series.upgradeRunId, note: `vLLM ${UPGRADE_VERSION}` })),
      });
      if (marked.status !== 201)
        throw new Error(
          `${kind}: marking the expected change answered ${marked.status}: ${marked.body.toString("utf8")}`,
        );
      const first = await timedRequest(`${server.url}/series/${SERIES_ID}`);
      const problems = first.status === 200 ? checkSeriesPage(first.body.toString("utf8"), series.runs.length) : [];
      if (first.status !== 200 || problems.length > 0)
        throw new Error(`${kind}: GET /series/${SERIES_ID} answered ${first.status}: ${problems.join("; ")}`);
      const comparePage = await timedRequest(`${server.url}/compare?${compareQuery}`);
      const compareCheck = checkComparePage(comparePage.body.toString("utf8"));
      if (comparePage.status !== 200 || compareCheck.problems.length > 0)
        throw new Error(
          `${kind}: the compare page (${comparePage.status}) lacks figures: ${compareCheck.problems.join("; ")}`,
        );
      compareChecks.push(compareCheck);
    }
    const turns = servers.length > 1 ? `, ${kinds.join(" and ")} in turns` : "";

    const pages = await measureOnEach(
      "series page",
      servers.map((server) => `${server.url}/series/${SERIES_ID}`),
    );
    log(
      `GET /series/<id> of ${series.runs.length} runs${turns}: TTFB median ${pages.map((page) => ms(page.ttfb.median)).join(" / ")}`,
    );
    const compares = await measureOnEach(
      "compare",
      servers.map((server) => `${server.url}/compare?${compareQuery}`),
    );
    log(
      `/compare of 8 runs with every figure${turns}: TTFB median ${compares.map((page) => ms(page.ttfb.median)).join(" / ")}`,
    );
    const uploads = await measureUploads(servers, series);
    log(
      `uploads into the series and into a new series${turns}: judging adds ${uploads.map((u) => ms(u.judgingAddsMs)).join(" / ")} (median of ${UPLOAD_SAMPLES} pairs)`,
    );
    const databases = kinds.map(
      (kind, position): SeriesDatabaseFigures => ({
        kind,
        writeSeconds: writeSeconds[position]!,
        page: pages[position]!,
        ...uploads[position]!,
        compare: compares[position]!,
        compareCheck: compareChecks[position]!,
      }),
    );
    return {
      historyRuns: SERIES_HISTORY_RUNS,
      seriesRuns: series.runs.length,
      databases,
      inTurns: servers.length > 1,
      postgresqlNote,
      regressionFrom: series.regressionFrom,
      flakeNights: series.flakeNights,
    };
  } finally {
    for (const server of servers) {
      await stopServer(server);
      live.delete(server);
    }
    cluster?.stop();
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(sqliteFile + suffix, { force: true });
  }
}
// ---------------------------------------------------------------------------------------------------------
// Printing

const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
const kB = (bytes: number) => `${(bytes / 1000).toFixed(0)} kB`;

function result(value: number, limit: number): { met: boolean; text: string } {
  const met = value < limit;
  const pct = `${((Math.abs(value - limit) / limit) * 100).toFixed(0)}%`;
  return { met, text: met ? `met (${pct} under)` : `NOT MET (${pct} over)` };
}

/** The table of these figures, one column per database. Returns the verdicts (true: met). */
export function printSeries(
  figures: SeriesFigures,
  log: (line: string) => void,
  table: (rows: string[][]) => string,
): boolean[] {
  const verdicts: boolean[] = [];
  const dbs = figures.databases;
  const name = (kind: DatabaseKind) => (kind === "sqlite" ? "SQLite" : "PostgreSQL");
  log("");
  log(
    `Series, judging and the comparison with every figure (a nightly series of ${figures.seriesRuns} runs and 8 runs to compare among ${figures.historyRuns} others; TTFB medians of ${SAMPLES} requests after ${WARMUPS} warm-ups; uploads: medians of ${UPLOAD_SAMPLES} after ${UPLOAD_WARMUPS} warm-ups${figures.inTurns ? "; the databases measured in turns, one request to each alternately" : ""})`,
  );
  if (figures.postgresqlNote) log(figures.postgresqlNote);
  if (dbs.length === 0) return verdicts;
  const targeted = (label: string, target: number, pick: (d: SeriesDatabaseFigures) => number): string[] => {
    const results = dbs.map((d) => result(pick(d), target));
    verdicts.push(...results.map((r) => r.met));
    return [
      label,
      ...dbs.map((d) => ms(pick(d))),
      `< ${target} ms`,
      results.map((r, i) => (dbs.length > 1 ? `${name(dbs[i]!.kind)} ${r.text}` : r.text)).join("; "),
    ];
  };
  const plain = (label: string, cell: (d: SeriesDatabaseFigures) => string): string[] => [
    label,
    ...dbs.map(cell),
    "",
    "",
  ];
  log(
    table([
      ["Figure", ...dbs.map((d) => name(d.kind)), "Target", "Result"],
      targeted(`GET /series/<id>, ${figures.seriesRuns} runs (TTFB)`, SERIES_TARGET.pageMs, (d) => d.page.ttfb.median),
      plain(
        "  p90 / full response / size",
        (d) => `${ms(d.page.ttfb.p90)} / ${ms(d.page.total.median)} / ${kB(d.page.bytes)}`,
      ),
      targeted(
        "Judging: an upload into it − the same into a new series",
        SERIES_TARGET.judgeMs,
        (d) => d.judgingAddsMs,
      ),
      plain(
        "  the uploads: into it / into a new series (response)",
        (d) => `${ms(d.intoSeries.responseMs)} / ${ms(d.intoNewSeries.responseMs)}`,
      ),
      plain(
        "  Server-Timing judge: into it (p90) / into a new series",
        (d) => `${ms(d.intoSeries.judgeMs)} (${ms(d.intoSeries.judgeP90Ms)}) / ${ms(d.intoNewSeries.judgeMs)}`,
      ),
      targeted("/compare of 8 runs, every figure (TTFB)", SERIES_TARGET.compareMs, (d) => d.compare.ttfb.median),
      plain(
        "  p90 / full response / size",
        (d) => `${ms(d.compare.ttfb.p90)} / ${ms(d.compare.total.median)} / ${kB(d.compare.bytes)}`,
      ),
    ]),
  );
  for (const d of dbs) {
    const c = d.compareCheck;
    const judged = Object.entries(d.verdicts)
      .map(([verdict, n]) => `${verdict} ×${n}`)
      .join(", ");
    log(
      `  ${name(d.kind)}: the uploads into the series were judged ${judged}. The compare page showed ${c.series} series (${c.withRepeats} with repeats), ${c.sloPartial} SLO points interpolated between levels with their cost, ${c.atEqualInteractivity} changes at equal interactivity, ${c.intervals} cells with a 95% interval, ${c.overSlo} cells over the SLO.`,
    );
  }
  log(
    `  The series: ~2% noise, 3 repeats at one commit every other Sunday, an engine upgrade +8% marked expected, a −10% regression from ${figures.regressionFrom} for 14 nights, flakes on ${figures.flakeNights.join(", ")}. Compare query: ${COMPARE_EVERY_FIGURE_QUERY}.`,
  );
  return verdicts;
}
