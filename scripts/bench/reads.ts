/**
 * Heavy reads that anyone may send, each while /api/health is asked every 100 ms and the server's peak memory is
 * watched: the page and the API of a 10,000-run series (8 at a time), the same after its settings are set to the
 * most they may be (window 100, rolling 30, all 11 figures), /compare of 12 runs of 1,000 load levels (8 at a
 * time), and a text search no index can narrow down (`?q=§§`) over a history of 23,000 runs, 20 at a time.
 * Part of `npm run bench`; also runs alone against a server started on a database it writes:
 *
 *   npx tsx scripts/bench/reads.ts --db /tmp/reads.db   (writes the database, then prints the next steps)
 *   npx tsx scripts/bench/reads.ts --url http://127.0.0.1:3000 [--pid <server pid>] [--only series-api,compare-long]
 */
import http from "node:http";
import path from "node:path";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { ResultPoint } from "@/lib/document/schema";
import { SERIES_FIGURES } from "@/lib/series/metrics";
import { option, printTable, runWhenMain } from "./alone";
import { type HealthFigures, listeningPid, whileSamplingHealth } from "./hostile";
import { median } from "./http";
import { type SeedRun, streamRuns, writeDatabase } from "./seed";
import { nightlySeries, SERIES_ID } from "./series";

export const READS_SERIES_RUNS = 10_000;
export const READS_HISTORY_RUNS = 23_000;
export const LONG_SWEEP_RUNS = 12;
export const LONG_SWEEP_LEVELS = 1_000;

export interface ReadResult {
  key: string;
  label: string;
  requests: number;
  statuses: string;
  p50Ms: number;
  maxMs: number;
  /** The median answer's size. */
  bytes: number;
  health: HealthFigures;
  peakRssBytes: number | null;
}

/** 12 runs of 1,000 load levels (concurrency 1 to 1,000), as a long sweep's tool writes them. */
function longSweeps(): SeedRun[] {
  return Array.from({ length: LONG_SWEEP_RUNS }, (_, index) => {
    const results: ResultPoint[] = Array.from({ length: LONG_SWEEP_LEVELS }, (_, level) => {
      const concurrency = level + 1;
      const single = 60 + index * 3;
      return {
        concurrency,
        completed: 200,
        output_throughput: (single * concurrency) / (1 + concurrency / 48),
        mean_tpot_ms: (1000 / single) * (1 + concurrency / 48),
        p99_tpot_ms: (1300 / single) * (1 + concurrency / 40),
        mean_ttft_ms: 40 + concurrency * 0.9,
        p99_ttft_ms: 90 + concurrency * 1.4,
        request_throughput: concurrency / 25,
      } as ResultPoint;
    });
    const at = new Date(Date.parse("2026-11-25T10:00:00Z") + index * 60_000);
    const doc = normalizeRunDocument({
      format: "servebench/v1",
      name: `long sweep ${index + 1}`,
      engine: index % 2 === 0 ? "vllm" : "sglang",
      engine_version: "0.12.0",
      model: "meta-llama/Llama-3.1-8B-Instruct",
      hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 1 },
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs ${256 + index}`,
      tags: ["long-sweep"],
      measured_at: at.toISOString(),
      results,
    });
    return { id: `longsweep${String(index).padStart(2, "0")}`, doc, createdAt: at };
  });
}

export const LONG_SWEEP_IDS = longSweeps().map((run) => run.id);

/** The database the reads are measured on: the series, the long sweeps and a history of generated runs. */
export function writeReadsDatabase(file: string, migrationsDir: string): void {
  function* all(): Generator<SeedRun> {
    yield* nightlySeries(READS_SERIES_RUNS).runs;
    yield* longSweeps();
    yield* streamRuns(READS_HISTORY_RUNS);
  }
  writeDatabase(file, all(), migrationsDir);
}

function request(
  url: string,
  method = "GET",
  body?: string,
  timeoutMs = 600_000,
): Promise<{ status: number | string; bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const outgoing = http.request(
      url,
      { method, agent: false, headers: body ? { "content-type": "application/json" } : {} },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes, ms: performance.now() - started }));
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve({ status: "timeout", bytes: 0, ms: performance.now() - started });
    }, timeoutMs);
    outgoing.on("error", () => resolve({ status: "error", bytes: 0, ms: performance.now() - started }));
    outgoing.on("close", () => clearTimeout(timer));
    outgoing.end(body);
  });
}

interface ReadCase {
  key: string;
  label: string;
  path: string;
  parallel: number;
  rounds: number;
  /** Done once before the case (and not timed): a settings change. */
  before?: (url: string) => Promise<void>;
}

function readCases(): ReadCase[] {
  const series = `/series/${SERIES_ID}`;
  const compare = `/compare?runs=${LONG_SWEEP_IDS.join(",")}`;
  const widest = async (url: string) => {
    const answer = await request(
      `${url}/api/series/${SERIES_ID}`,
      "PATCH",
      JSON.stringify({ settings: { window: 100, rolling: 30, min_samples: 100, figures: [...SERIES_FIGURES] } }),
    );
    if (answer.status !== 200) throw new Error(`PATCH of the series' settings answered ${answer.status}`);
  };
  return [
    {
      key: "series-page",
      label: `series page, ${READS_SERIES_RUNS.toLocaleString("en-US")} runs`,
      path: series,
      parallel: 8,
      rounds: 3,
    },
    {
      key: "series-api",
      label: `GET /api/series/<id>, ${READS_SERIES_RUNS.toLocaleString("en-US")} runs`,
      path: `/api/series/${SERIES_ID}`,
      parallel: 8,
      rounds: 3,
    },
    {
      key: "series-widest",
      label: "series page, settings at their bounds (window 100, rolling 30, 11 figures)",
      path: series,
      parallel: 8,
      rounds: 3,
      before: widest,
    },
    {
      key: "compare-long",
      label: `/compare, ${LONG_SWEEP_RUNS} runs × ${LONG_SWEEP_LEVELS.toLocaleString("en-US")} levels`,
      path: compare,
      parallel: 8,
      rounds: 2,
    },
    {
      key: "search-page",
      label: `history page ?q=§§ over ${(READS_SERIES_RUNS + READS_HISTORY_RUNS).toLocaleString("en-US")} runs`,
      path: `/?q=${encodeURIComponent("§§")}`,
      parallel: 20,
      rounds: 1,
    },
    {
      key: "search-api",
      label: "GET /api/runs?q=§§",
      path: `/api/runs?q=${encodeURIComponent("§§")}`,
      parallel: 20,
      rounds: 1,
    },
  ];
}

export async function measureReads(
  url: string,
  pid: number | null,
  timeoutMs: number,
  log: (line: string) => void = () => undefined,
  only?: string,
): Promise<ReadResult[]> {
  const results: ReadResult[] = [];
  const cases = readCases().filter((item) => !only || only.split(",").includes(item.key));
  for (const item of cases) {
    log(`${item.label}, ${item.parallel} at a time × ${item.rounds}…`);
    await item.before?.(url);
    // One request first, not timed: the page compiled and its data cached as a reader's first visit leaves it.
    await request(`${url}${item.path}`, "GET", undefined, timeoutMs);
    const measured = await whileSamplingHealth(url, pid, timeoutMs, async () => {
      const answers: Awaited<ReturnType<typeof request>>[] = [];
      for (let round = 0; round < item.rounds; round += 1) {
        answers.push(
          ...(await Promise.all(
            Array.from({ length: item.parallel }, () => request(`${url}${item.path}`, "GET", undefined, timeoutMs)),
          )),
        );
      }
      return answers;
    });
    const answers = measured.result;
    const counts = new Map<string, number>();
    for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
    const result: ReadResult = {
      key: item.key,
      label: item.label,
      requests: answers.length,
      statuses: [...counts].map(([status, count]) => `${count} × ${status}`).join(", "),
      p50Ms: median(answers.map((answer) => answer.ms)),
      maxMs: Math.max(...answers.map((answer) => answer.ms)),
      bytes: median(answers.map((answer) => answer.bytes)),
      health: measured.health,
      peakRssBytes: measured.peakRssBytes,
    };
    results.push(result);
    log(
      `  → p50 ${result.p50Ms.toFixed(0)} ms, max ${result.maxMs.toFixed(0)} ms; health worst ${result.health.maxMs.toFixed(0)} ms`,
    );
  }
  return results;
}

export function readsTable(results: readonly ReadResult[]): string[][] {
  const time = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  const size = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} kB`);
  return [
    ["Read", "requests", "answers", "p50 / max", "size", "/api/health max / median (samples)", "peak RSS"],
    ...results.map((result) => [
      result.label,
      String(result.requests),
      result.statuses,
      `${time(result.p50Ms)} / ${time(result.maxMs)}`,
      size(result.bytes),
      `${result.health.unanswered ? "≥ " : ""}${time(result.health.maxMs)} / ${time(result.health.medianMs)} (${result.health.samples})`,
      result.peakRssBytes === null ? "?" : `${(result.peakRssBytes / 1e6).toFixed(0)} MB`,
    ]),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Alone

async function main(): Promise<void> {
  const dbFile = option("--db");
  if (dbFile) {
    writeReadsDatabase(path.resolve(dbFile), path.join(process.cwd(), "prisma", "migrations"));
    process.stdout.write(
      `wrote ${dbFile}; serve it (DATABASE_URL=file:${path.resolve(dbFile)} SERVEBENCH_DEMO=0 npm start) and run --url against it\n`,
    );
    return;
  }
  const url = option("--url");
  if (!url) throw new Error("usage: reads.ts --db FILE | --url http://127.0.0.1:PORT [--pid PID] [--only a,b]");
  const pid = option("--pid") ? Number(option("--pid")) : listeningPid(Number(new URL(url).port));
  const results = await measureReads(
    url,
    pid,
    600_000,
    (line) => process.stdout.write(`· ${line}\n`),
    option("--only"),
  );
  printTable(readsTable(results));
}

runWhenMain(__filename, "reads", main);
