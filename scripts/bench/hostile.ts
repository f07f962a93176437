/**
 * Uploads built to freeze the server or run it out of memory, each posted as an upload preview
 * (`POST /api/runs?dry_run=1`) while /api/health is asked over and over on connections of its own: how long the
 * upload takes, how long /api/health waits meanwhile, and the server process's peak memory (VmHWM, reset before
 * each upload). Part of `npm run bench`; also runs alone against any server, to measure an older build:
 *
 *   npx tsx scripts/bench/hostile.ts --url http://127.0.0.1:3000 --pid <server pid> [--timeout 120] [--only jsonl]
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import { option, printTable, runWhenMain } from "./alone";
import { writeVllmDetailedFile } from "./vllm-file";

export interface HostileCase {
  key: string;
  label: string;
  contentType: string;
  body: Buffer;
}

export interface HostileResult {
  key: string;
  label: string;
  bodyBytes: number;
  status: number | "timeout" | "error";
  answer: string;
  ms: number;
  health: HealthFigures;
  peakRssBytes: number | null;
}

// ---------------------------------------------------------------------------------------------------------
// Bodies

/** One SGLang bench_serving line per load level: the file whose planning was quadratic. */
function sglangLine(index: number): string {
  return JSON.stringify({
    backend: "sglang",
    dataset_name: "random",
    request_rate: index + 1,
    max_concurrency: null,
    total_input_tokens: 152612,
    total_output_tokens: 160347,
    mean_e2e_latency_ms: 7840.616212638561,
    median_ttft_ms: 85.74514742940664,
    median_itl_ms: 13.638956006616354,
    output_throughput: 537.4142851849319,
    random_input_len: 1024,
    random_output_len: 1024,
    duration: 298.3675805060193,
    completed: 300,
  });
}

function jsonLines(lines: number): Buffer {
  return Buffer.from(Array.from({ length: lines }, (_, index) => sglangLine(index)).join("\n"));
}

/** JSON lines up to `bytes`. */
function jsonLinesOfSize(bytes: number): Buffer {
  const line = sglangLine(999_999).length + 1;
  return jsonLines(Math.floor(bytes / line));
}

function commandDocument(underscores: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      command: `vllm serve m --a${"_".repeat(underscores)} 1`,
      results: [{ concurrency: 1, output_throughput: 10 }],
    }),
  );
}

/** A zip of one file, deflated at level 9. */
function zipOf(name: string, content: Buffer): Buffer {
  return Buffer.from(zipSync({ [name]: [content, { level: 9 }] }));
}

function multipart(files: { name: string; bytes: Buffer }[]): { body: Buffer; contentType: string } {
  const boundary = "----servebench-hostile";
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/zip\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The uploads, built on demand (the largest are 100 MB). */
export function hostileCases(scratchDir: string, only?: string): HostileCase[] {
  const want = (key: string) => !only || only.split(",").includes(key);
  const cases: HostileCase[] = [];
  if (want("jsonl")) {
    const body = jsonLines(100_000);
    cases.push({ key: "jsonl", label: "JSON lines, 100,000 load levels", contentType: "application/x-ndjson", body });
  }
  if (want("command")) {
    cases.push({
      key: "command",
      label: "launch command `--a` + 46 `_` (64 characters)",
      contentType: "application/json",
      body: commandDocument(46),
    });
  }
  if (want("command-long")) {
    cases.push({
      key: "command-long",
      label: "launch command `--a` + 19,990 `_`",
      contentType: "application/json",
      body: commandDocument(19_990),
    });
  }
  if (want("zips")) {
    const zip = zipOf("spaces.json", Buffer.alloc(199_000_000, 0x20));
    const form = multipart(Array.from({ length: 16 }, (_, index) => ({ name: `bomb-${index}.zip`, bytes: zip })));
    cases.push({
      key: "zips",
      label: `16 zips of ${Math.round(zip.length / 1000)} kB, 199 MB each inflated`,
      contentType: form.contentType,
      body: form.body,
    });
  }
  if (want("objects")) {
    const body = Buffer.from(`[${"{},".repeat(33_000_000)}{}]`);
    cases.push({ key: "objects", label: "100 MB of `[{},{},…]`", contentType: "application/json", body });
  }
  if (want("jsonl-limit")) {
    cases.push({
      key: "jsonl-limit",
      label: "JSON lines, 149,000 load levels (just under the line limit)",
      contentType: "application/x-ndjson",
      body: jsonLines(149_000),
    });
  }
  if (want("largest-jsonl")) {
    cases.push({
      key: "largest-jsonl",
      label: "the largest body: 99 MB of JSON lines",
      contentType: "application/x-ndjson",
      body: jsonLinesOfSize(99_000_000),
    });
  }
  if (want("largest-vllm")) {
    const file = writeVllmDetailedFile(path.join(scratchDir, "vllm-99mb.json"), 29_000);
    cases.push({
      key: "largest-vllm",
      label: `the largest body: a ${(file.bytes / 1e6).toFixed(0)} MB vLLM --save-detailed file`,
      contentType: "application/json",
      body: fs.readFileSync(file.path),
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------------
// Measuring

/** The pid listening on a port (the server process, whatever launched it). */
export function listeningPid(port: number): number | null {
  const result = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const match = /pid=(\d+)/.exec(result.stdout ?? "");
  return match ? Number(match[1]) : null;
}

export function peakRss(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Linux keeps the peak since start; writing 5 to clear_refs resets it to the current use. */
export function resetPeak(pid: number): void {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Not Linux, or not allowed: the peak is then the process's since it started.
  }
}

function post(
  url: string,
  item: HostileCase,
  timeoutMs: number,
): Promise<{ status: number | "timeout" | "error"; body: string }> {
  return new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": item.contentType, "content-length": String(item.body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept < 4_000) chunks.push(chunk);
          kept += chunk.length;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: "timeout", body: "" });
    }, timeoutMs);
    request.on("error", () => resolve({ status: "error", body: "" }));
    request.on("close", () => clearTimeout(timer));
    request.end(item.body);
  });
}

function healthOnce(url: string, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const request = http.get(`${url}/api/health`, { agent: false }, (response) => {
      response.resume();
      response.on("end", () => resolve(performance.now() - started));
    });
    request.setTimeout(timeoutMs, () => {
      request.destroy();
      resolve(null);
    });
    request.on("error", () => resolve(null));
  });
}

/** The answer, summed up: status and error code, or the preview's shape. */
function describeAnswer(status: number | "timeout" | "error", body: string): string {
  if (status === "timeout") return "no answer (stopped)";
  if (status === "error") return "connection dropped";
  const code = /"code":"([a-z_]+)"/.exec(body)?.[1];
  if (code) return `${status} ${code}`;
  const runs = (body.match(/"valid":(true|false)/g) ?? []).length;
  return runs > 0 ? `${status} preview` : String(status);
}

export interface HealthFigures {
  samples: number;
  medianMs: number;
  maxMs: number;
  unanswered: number;
}

/**
 * Run `action` while /api/health is asked one request at a time, every 100 ms, on connections of its own (a
 * blocked server shows as one long wait); with the server's pid, its peak memory meanwhile (reset first).
 */
export async function whileSamplingHealth<T>(
  url: string,
  pid: number | null,
  timeoutMs: number,
  action: () => Promise<T>,
): Promise<{ result: T; ms: number; health: HealthFigures; peakRssBytes: number | null }> {
  if (pid) resetPeak(pid);
  const latencies: number[] = [];
  let unanswered = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const latency = await healthOnce(url, timeoutMs);
      // Unanswered by the deadline: it waited at least that long.
      if (latency === null) unanswered += 1;
      latencies.push(latency ?? timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  let result: T;
  try {
    result = await action();
  } finally {
    done = true;
    await sampler;
  }
  const ms = performance.now() - started;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    result,
    ms,
    health: {
      samples: latencies.length,
      medianMs: sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)]! : Number.NaN,
      maxMs: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
      unanswered,
    },
    peakRssBytes: pid ? peakRss(pid) : null,
  };
}

export async function measureHostile(
  url: string,
  pid: number | null,
  cases: readonly HostileCase[],
  timeoutMs: number,
  log: (line: string) => void = () => undefined,
): Promise<HostileResult[]> {
  const results: HostileResult[] = [];
  for (const item of cases) {
    log(`${item.label}: ${(item.body.length / 1e6).toFixed(1)} MB…`);
    const measured = await whileSamplingHealth(url, pid, timeoutMs, () =>
      post(`${url}/api/runs?dry_run=1`, item, timeoutMs),
    );
    const answer = measured.result;
    results.push({
      key: item.key,
      label: item.label,
      bodyBytes: item.body.length,
      status: answer.status,
      answer: describeAnswer(answer.status, answer.body),
      ms: measured.ms,
      health: measured.health,
      peakRssBytes: measured.peakRssBytes,
    });
    log(`  → ${describeAnswer(answer.status, answer.body)} in ${(measured.ms / 1000).toFixed(2)} s`);
    // Let a server that was stopped mid-work settle before the next upload.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return results;
}

export function hostileTable(results: readonly HostileResult[]): string[][] {
  const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  return [
    ["Upload (dry run)", "body", "answer", "time", "/api/health max / median (samples)", "peak RSS"],
    ...results.map((result) => [
      result.label,
      `${(result.bodyBytes / 1e6).toFixed(1)} MB`,
      result.answer,
      seconds(result.ms),
      `${result.health.unanswered ? "≥ " : ""}${seconds(result.health.maxMs)} / ${seconds(result.health.medianMs)} (${result.health.samples}${result.health.unanswered ? `, ${result.health.unanswered} unanswered` : ""})`,
      result.peakRssBytes === null ? "?" : `${(result.peakRssBytes / 1e6).toFixed(0)} MB`,
    ]),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Alone: `npx tsx scripts/bench/hostile.ts --url … --pid …`

async function main(): Promise<void> {
  const url = option("--url");
  if (!url)
    throw new Error("usage: hostile.ts --url http://127.0.0.1:PORT [--pid PID] [--timeout SECONDS] [--only a,b]");
  const port = Number(new URL(url).port);
  const pid = option("--pid") ? Number(option("--pid")) : listeningPid(port);
  const timeoutMs = Number(option("--timeout") ?? "120") * 1000;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-hostile-"));
  try {
    const results = await measureHostile(url, pid, hostileCases(scratch, option("--only")), timeoutMs, (line) =>
      process.stdout.write(`· ${line}\n`),
    );
    printTable(hostileTable(results));
    const json = option("--json");
    if (json) fs.writeFileSync(json, JSON.stringify(results, null, 2));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runWhenMain(__filename, "hostile", main);
