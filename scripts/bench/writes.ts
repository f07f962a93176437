/**
 * Big writes, each while /api/health is asked every 100 ms and the server's peak memory is watched: restores
 * (a history of 10,000 runs, 40 runs of 1,000 load levels, a million unreadable lines, and the largest body the
 * restore limit allows), stored uploads (40 runs of 1,000 levels at once, 8 such runs in parallel, the largest
 * vLLM file), and writes per second while 8 readers load the history page. Part of `npm run bench`; also runs
 * alone against any server:
 *
 *   npx tsx scripts/bench/writes.ts --url http://127.0.0.1:3000 [--pid <server pid>] [--only restore-runs,upload-parallel]
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { option, printTable, runWhenMain } from "./alone";
import { type HealthFigures, listeningPid, whileSamplingHealth } from "./hostile";
import { median, multipartBody } from "./http";
import { writeVllmDetailedFile } from "./vllm-file";

export interface WriteResult {
  key: string;
  label: string;
  bodyBytes: number;
  answer: string;
  ms: number;
  /** What was written per second (runs, lines or uploads), as `rateUnit` says. */
  rate: number | null;
  rateUnit: string;
  health: HealthFigures;
  peakRssBytes: number | null;
  /** Anything else worth a line (the answer's size, the page's median under writes). */
  detail?: string;
}

interface Answer {
  status: number | "timeout" | "error";
  body: string;
}

// ---------------------------------------------------------------------------------------------------------
// Bodies

/** A servebench/v1 run with `levels` load levels, unique by its index (so nothing is a duplicate). */
export function runDocument(index: number, levels: number, id?: string): Record<string, unknown> {
  const results = Array.from({ length: levels }, (_, level) => {
    const concurrency = level + 1;
    return {
      concurrency,
      output_throughput: Math.round((40 * concurrency) / (1 + concurrency / 64) + (index % 97)) / 1,
      mean_tpot_ms: 12 + concurrency * 0.05 + (index % 13) / 10,
      p99_tpot_ms: 15 + concurrency * 0.07,
      mean_ttft_ms: 40 + concurrency * 0.8,
      p99_ttft_ms: 90 + concurrency * 1.3,
      request_throughput: concurrency / 20,
    };
  });
  return {
    format: "servebench/v1",
    ...(id ? { id } : {}),
    name: `bench write ${index}`,
    engine: index % 2 === 0 ? "vllm" : "sglang",
    engine_version: `0.${10 + (index % 5)}.0`,
    model: "meta-llama/Llama-3.1-8B-Instruct",
    hardware: { gpu: "H100 80GB HBM3", gpu_count: 1 + (index % 8) },
    command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs ${64 + (index % 193)}`,
    measured_at: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
    tags: ["bench", `batch-${index % 50}`],
    results,
  };
}

/** An export: `count` runs of `levels` levels, one per line, each with an id to keep. */
function exportOf(count: number, levels: number, offset: number): Buffer {
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1) {
    lines.push(JSON.stringify(runDocument(offset + index, levels, `bw${offset + index}`)));
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Requests

export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | ((request: http.ClientRequest) => Promise<void>) | null,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise((resolve) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: "timeout", body: "" });
    }, timeoutMs);
    request.on("error", () => resolve({ status: "error", body: "" }));
    request.on("close", () => clearTimeout(timer));
    if (body === null) request.end();
    else if (Buffer.isBuffer(body)) request.end(body);
    else void body(request).then(() => request.end());
  });
}

interface JobView {
  status: string;
  received: { lines: number };
  counts: { runs: Record<string, number>; unreadable: number };
  report?: { lines: unknown[]; lines_omitted?: number };
  error?: { code: string; message: string };
}

/** Post an export as a job, then poll the job until it ends: the job as it ended, and the answer's size. */
async function restoreJob(
  url: string,
  body: Buffer | ((request: http.ClientRequest) => Promise<void>),
  bytes: number,
  timeoutMs: number,
) {
  const posted = await send(
    `${url}/api/restore`,
    "POST",
    { "content-type": "application/x-ndjson", "content-length": String(bytes), prefer: "respond-async" },
    body,
    timeoutMs,
  );
  if (posted.status !== 202) return { answer: describe(posted), job: null as JobView | null, reportBytes: 0 };
  const location = (JSON.parse(posted.body) as { url: string }).url;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const polled = await send(`${url}${location}`, "GET", {}, null, timeoutMs);
    if (polled.status !== 200) return { answer: describe(polled), job: null, reportBytes: 0 };
    const job = JSON.parse(polled.body) as JobView;
    if (job.status === "done" || job.status === "failed" || Date.now() > deadline) {
      const answer =
        job.status === "done"
          ? `done: ${job.counts.runs.stored ?? 0} stored, ${job.counts.runs.already_present ?? 0} present, ${job.counts.unreadable} unreadable`
          : job.status === "failed"
            ? `failed: ${job.error?.code}`
            : `still ${job.status}`;
      return { answer, job, reportBytes: Buffer.byteLength(polled.body) };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function describe(answer: Answer): string {
  if (answer.status === "timeout") return "no answer (stopped)";
  if (answer.status === "error") return "connection dropped";
  const code = /"code":"([a-z_]+)"/.exec(answer.body)?.[1];
  return code ? `${answer.status} ${code}` : String(answer.status);
}

// ---------------------------------------------------------------------------------------------------------
// Cases

interface Case {
  key: string;
  label: string;
  /**
   * Made before /api/health is sampled: the body (a 97 MB file takes seconds to write, during which this
   * process could not time /api/health's answers, and its wait would be counted against the server).
   */
  prepare?: () => void;
  run: (
    url: string,
    timeoutMs: number,
  ) => Promise<Omit<WriteResult, "key" | "label" | "health" | "peakRssBytes" | "ms"> & { ms?: number }>;
}

function restoreCase(key: string, label: string, count: number, levels: number, offset: number): Case {
  let body: Buffer = Buffer.alloc(0);
  return {
    key,
    label,
    prepare: () => {
      body = exportOf(count, levels, offset);
    },
    run: async (url, timeoutMs) => {
      const started = performance.now();
      const { answer, job } = await restoreJob(url, body, body.length, timeoutMs);
      const seconds = (performance.now() - started) / 1000;
      return {
        bodyBytes: body.length,
        answer,
        rate: job ? (job.counts.runs.stored ?? 0) / seconds : null,
        rateUnit: "runs/s",
      };
    },
  };
}

/** A body of `totalBytes` streamed from a generator: `1,000` real runs, then lines of blanks up to the size. */
function largestRestoreCase(totalBytes: number): Case {
  let runs: Buffer = Buffer.alloc(0);
  return {
    key: "restore-largest",
    label: `restore: the largest body the limit allows (${(totalBytes / 1e6).toFixed(0)} MB: 1,000 runs, then blank lines)`,
    prepare: () => {
      runs = exportOf(1_000, 8, 900_000);
    },
    run: async (url, timeoutMs) => {
      const blankLine = Buffer.from(`${" ".repeat(999)}\n`);
      const block = Buffer.concat(Array.from({ length: 1_000 }, () => blankLine));
      const write = async (request: http.ClientRequest) => {
        const push = (chunk: Buffer) =>
          new Promise<void>((resolve) => (request.write(chunk) ? resolve() : request.once("drain", () => resolve())));
        await push(runs);
        let left = totalBytes - runs.length;
        while (left > 0) {
          const chunk = left >= block.length ? block : block.subarray(0, left);
          await push(chunk);
          left -= chunk.length;
        }
      };
      const started = performance.now();
      const { answer, job } = await restoreJob(url, write, totalBytes, timeoutMs);
      const seconds = (performance.now() - started) / 1000;
      return {
        bodyBytes: totalBytes,
        answer,
        rate: totalBytes / 1e6 / seconds,
        rateUnit: "MB/s",
        detail: job ? `${job.received.lines.toLocaleString("en-US")} lines` : undefined,
      };
    },
  };
}

function unreadableLinesCase(): Case {
  let body: Buffer = Buffer.alloc(0);
  return {
    key: "restore-ones",
    label: "restore: 1,000,000 lines of `1`",
    prepare: () => {
      body = Buffer.from("1\n".repeat(1_000_000));
    },
    run: async (url, timeoutMs) => {
      const started = performance.now();
      const { answer, reportBytes } = await restoreJob(url, body, body.length, timeoutMs);
      const seconds = (performance.now() - started) / 1000;
      return {
        bodyBytes: body.length,
        answer,
        rate: 1_000_000 / seconds,
        rateUnit: "lines/s",
        detail: `report ${(reportBytes / 1000).toFixed(0)} kB`,
      };
    },
  };
}

function uploadBody(count: number, levels: number, offset: number): Buffer {
  const lines = Array.from({ length: count }, (_, index) => JSON.stringify(runDocument(offset + index, levels)));
  return Buffer.from(`${lines.join("\n")}\n`);
}

function uploadManyLevelsCase(): Case {
  let body: Buffer = Buffer.alloc(0);
  return {
    key: "upload-levels",
    label: "upload: 40 runs × 1,000 levels in one body (stored, split=1)",
    prepare: () => {
      body = uploadBody(40, 1_000, 700_000);
    },
    run: async (url, timeoutMs) => {
      const started = performance.now();
      const answer = await send(
        `${url}/api/runs?split=1`,
        "POST",
        { "content-type": "application/x-ndjson" },
        body,
        timeoutMs,
      );
      const seconds = (performance.now() - started) / 1000;
      return {
        bodyBytes: body.length,
        answer: describe(answer),
        rate: answer.status === 201 ? 40 / seconds : null,
        rateUnit: "runs/s",
      };
    },
  };
}

function parallelUploadsCase(): Case {
  let bodies: Buffer[] = [];
  return {
    key: "upload-parallel",
    label: "upload: 8 runs × 1,000 levels, in parallel",
    prepare: () => {
      bodies = Array.from({ length: 8 }, (_, index) => uploadBody(1, 1_000, 710_000 + index));
    },
    run: async (url, timeoutMs) => {
      const started = performance.now();
      const answers = await Promise.all(
        bodies.map((body) =>
          send(`${url}/api/runs`, "POST", { "content-type": "application/x-ndjson" }, body, timeoutMs),
        ),
      );
      const seconds = (performance.now() - started) / 1000;
      const created = answers.filter((answer) => answer.status === 201).length;
      const others = answers.filter((answer) => answer.status !== 201).map(describe);
      return {
        bodyBytes: bodies.reduce((sum, body) => sum + body.length, 0),
        answer: `${created} × 201${others.length ? `, ${others.join(", ")}` : ""}`,
        rate: created / seconds,
        rateUnit: "uploads/s",
      };
    },
  };
}

function largestUploadCase(scratch: string): Case {
  let upload: { body: Buffer; contentType: string } = { body: Buffer.alloc(0), contentType: "" };
  return {
    key: "upload-largest",
    label: "upload: the largest vLLM --save-detailed file (stored)",
    prepare: () => {
      const file = writeVllmDetailedFile(path.join(scratch, "vllm-largest.json"), 29_000, 11);
      upload = multipartBody(
        { engine: "vllm", gpu: "H100 80GB HBM3", gpu_count: "1" },
        { name: "vllm-largest.json", type: "application/json", bytes: fs.readFileSync(file.path) },
      );
    },
    run: async (url, timeoutMs) => {
      const { body, contentType } = upload;
      const started = performance.now();
      const answer = await send(`${url}/api/runs`, "POST", { "content-type": contentType }, body, timeoutMs);
      const seconds = (performance.now() - started) / 1000;
      return { bodyBytes: body.length, answer: describe(answer), rate: body.length / 1e6 / seconds, rateUnit: "MB/s" };
    },
  };
}

/** Small uploads one after another while 8 readers load the history page over and over. */
function writesUnderReadsCase(): Case {
  return {
    key: "writes-under-reads",
    label: "writes/s under read load (200 one-run uploads; 8 readers of /)",
    run: async (url, timeoutMs) => {
      let reading = true;
      const pageMs: number[] = [];
      const readers = Array.from({ length: 8 }, async () => {
        while (reading) {
          const started = performance.now();
          await send(`${url}/`, "GET", {}, null, timeoutMs);
          pageMs.push(performance.now() - started);
        }
      });
      const started = performance.now();
      let created = 0;
      for (let index = 0; index < 200; index += 1) {
        const body = Buffer.from(JSON.stringify(runDocument(720_000 + index, 8)));
        const answer = await send(`${url}/api/runs`, "POST", { "content-type": "application/json" }, body, timeoutMs);
        if (answer.status === 201) created += 1;
      }
      const seconds = (performance.now() - started) / 1000;
      reading = false;
      await Promise.all(readers);
      return {
        bodyBytes: 0,
        answer: `${created} × 201`,
        rate: created / seconds,
        rateUnit: "writes/s",
        detail: `history page p50 ${median(pageMs).toFixed(0)} ms under writes (${pageMs.length} loads)`,
      };
    },
  };
}

export function writeCases(scratch: string, only?: string, largestRestoreBytes = 1_000_000_000): Case[] {
  const cases: Case[] = [
    restoreCase("restore-runs", "restore: 10,000 runs × 8 levels", 10_000, 8, 0),
    restoreCase("restore-levels", "restore: 40 runs × 1,000 levels", 40, 1_000, 600_000),
    unreadableLinesCase(),
    largestRestoreCase(largestRestoreBytes),
    uploadManyLevelsCase(),
    parallelUploadsCase(),
    largestUploadCase(scratch),
    writesUnderReadsCase(),
  ];
  return only ? cases.filter((item) => only.split(",").includes(item.key)) : cases;
}

export async function measureWrites(
  url: string,
  pid: number | null,
  cases: readonly Case[],
  timeoutMs: number,
  log: (line: string) => void = () => undefined,
): Promise<WriteResult[]> {
  const results: WriteResult[] = [];
  for (const item of cases) {
    log(`${item.label}…`);
    item.prepare?.();
    const measured = await whileSamplingHealth(url, pid, timeoutMs, () => item.run(url, timeoutMs));
    const result: WriteResult = {
      key: item.key,
      label: item.label,
      ...measured.result,
      ms: measured.ms,
      health: measured.health,
      peakRssBytes: measured.peakRssBytes,
    };
    results.push(result);
    log(
      `  → ${result.answer} in ${(result.ms / 1000).toFixed(1)} s; health worst ${result.health.maxMs.toFixed(0)} ms`,
    );
  }
  return results;
}

export function writesTable(results: readonly WriteResult[]): string[][] {
  const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
  return [
    ["Write", "body", "answer", "time", "rate", "/api/health max / median (samples)", "peak RSS", ""],
    ...results.map((result) => [
      result.label,
      result.bodyBytes ? `${(result.bodyBytes / 1e6).toFixed(1)} MB` : "",
      result.answer,
      seconds(result.ms),
      result.rate === null ? "" : `${result.rate.toFixed(result.rate < 10 ? 1 : 0)} ${result.rateUnit}`,
      `${result.health.unanswered ? "≥ " : ""}${seconds(result.health.maxMs)} / ${seconds(result.health.medianMs)} (${result.health.samples})`,
      result.peakRssBytes === null ? "?" : `${(result.peakRssBytes / 1e6).toFixed(0)} MB`,
      result.detail ?? "",
    ]),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Alone: `npx tsx scripts/bench/writes.ts --url … [--pid …] [--only …]`

async function main(): Promise<void> {
  const url = option("--url");
  if (!url) throw new Error("usage: writes.ts --url http://127.0.0.1:PORT [--pid PID] [--only a,b] [--largest-mb N]");
  const pid = option("--pid") ? Number(option("--pid")) : listeningPid(Number(new URL(url).port));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-writes-"));
  try {
    const largest = Number(option("--largest-mb") ?? "1000") * 1_000_000;
    const results = await measureWrites(url, pid, writeCases(scratch, option("--only"), largest), 1_800_000, (line) =>
      process.stdout.write(`· ${line}\n`),
    );
    printTable(writesTable(results));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runWhenMain(__filename, "writes", main);
