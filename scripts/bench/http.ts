/**
 * Timing HTTP requests with node:http: time to the response headers, to the first body byte (TTFB) and to the
 * last byte, one request at a time over a kept-alive connection. And autocannon for load.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";

export interface Timing {
  status: number;
  headersMs: number;
  /** Time to the first body byte: what "TTFB" means in this benchmark. */
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export function timedRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent },
      (response) => {
        const headersMs = elapsed();
        let ttfbMs: number | null = null;
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => {
          ttfbMs ??= elapsed();
          chunks.push(chunk);
        });
        response.on("end", () => {
          const totalMs = elapsed();
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            headersMs,
            ttfbMs: ttfbMs ?? totalMs,
            totalMs,
            bytes: body.byteLength,
            body,
            headers: response.headers,
          });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    if (options.body) request.setHeader("content-length", String(options.body.byteLength));
    request.end(options.body);
  });
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export interface Series {
  label: string;
  url: string;
  samples: Timing[];
  ttfb: { median: number; p90: number; min: number; max: number };
  total: { median: number };
  bytes: number;
}

function seriesOf(label: string, url: string, samples: Timing[]): Series {
  const ttfbs = samples.map((sample) => sample.ttfbMs);
  return {
    label,
    url,
    samples,
    ttfb: { median: median(ttfbs), p90: quantile(ttfbs, 0.9), min: Math.min(...ttfbs), max: Math.max(...ttfbs) },
    total: { median: median(samples.map((sample) => sample.totalMs)) },
    bytes: samples[0]?.bytes ?? 0,
  };
}

/**
 * Two URLs measured in turns, A B A B …: whatever else the machine is doing meanwhile slows both alike, so their
 * ratio holds on a busy machine where two series taken minutes apart would not.
 */
export async function measurePair(
  label: string,
  urls: [string, string],
  count: number,
  warmups: number,
): Promise<[Series, Series]> {
  const samples: [Timing[], Timing[]] = [[], []];
  for (let index = 0; index < warmups + count; index += 1) {
    for (const side of [0, 1] as const) {
      const sample = await timedRequest(urls[side]);
      if (sample.status !== 200) {
        throw new Error(
          `${label}: GET ${urls[side]} answered ${sample.status}: ${sample.body.toString("utf8").slice(0, 300)}`,
        );
      }
      if (index >= warmups) samples[side].push({ ...sample, body: Buffer.alloc(0) });
    }
  }
  return [seriesOf(label, urls[0], samples[0]), seriesOf(label, urls[1], samples[1])];
}

/** `warmups` requests thrown away, then `count` sequential requests; every one must answer 200. */
export async function measure(label: string, url: string, count: number, warmups: number): Promise<Series> {
  for (let index = 0; index < warmups; index += 1) {
    const warm = await timedRequest(url);
    if (warm.status !== 200)
      throw new Error(`${label}: GET ${url} answered ${warm.status}: ${warm.body.toString("utf8").slice(0, 300)}`);
  }
  const samples: Timing[] = [];
  for (let index = 0; index < count; index += 1) {
    const sample = await timedRequest(url);
    if (sample.status !== 200) throw new Error(`${label}: GET ${url} answered ${sample.status}`);
    samples.push({ ...sample, body: Buffer.alloc(0) });
  }
  const ttfbs = samples.map((sample) => sample.ttfbMs);
  return {
    label,
    url,
    samples,
    ttfb: { median: median(ttfbs), p90: quantile(ttfbs, 0.9), min: Math.min(...ttfbs), max: Math.max(...ttfbs) },
    total: { median: median(samples.map((sample) => sample.totalMs)) },
    bytes: samples[0]?.bytes ?? 0,
  };
}

/** A multipart/form-data body: text fields, then one file. */
export function multipartBody(
  fields: Record<string, string>,
  file: { name: string; type: string; bytes: Buffer },
): { body: Buffer; contentType: string } {
  const boundary = `----servebench-bench-${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  latencyMean: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** autocannon (its CLI, in a process of its own) against one URL. */
export function autocannon(repo: string, url: string, connections: number, seconds: number): Promise<LoadResult> {
  const cli = path.join(repo, "node_modules", "autocannon", "autocannon.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "-c", String(connections), "-d", String(seconds), "-j", "-n", url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${stderr.slice(-2000)}`));
      try {
        const result = JSON.parse(stdout) as {
          requests: { average: number; total: number };
          latency: { p50: number; p99: number; average: number };
          non2xx: number;
          errors: number;
          timeouts: number;
        };
        resolve({
          requestsPerSecond: result.requests.average,
          latencyP50: result.latency.p50,
          latencyP99: result.latency.p99,
          latencyMean: result.latency.average,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      } catch (error) {
        reject(new Error(`autocannon's output was not JSON (${String(error)}): ${stdout.slice(0, 500)}`));
      }
    });
  });
}
