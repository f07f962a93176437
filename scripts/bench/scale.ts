/**
 * The history at scale, on both databases: the same generated runs in SQLite and in PostgreSQL at 100, 10,000,
 * 100,000 (and with --runs N, N) runs; for each, the history page in each form, GET /api/runs and /compare of 8
 * runs, TTFB medians; then uploads from 2 app instances on one database at 32 connections. Before measuring,
 * both databases must answer the same documents and the same orders for the same queries.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pg from "pg";
import { type Cluster, findPostgresBin, startCluster } from "../../tests/support/postgresql";
import { measure, measurePair, quantile, type Series, timedRequest } from "./http";
import { type SeedRun, streamRuns, writeDatabase } from "./seed";
import { writePostgresql } from "./seed-postgresql";
import { COMPARE_EVERY_FIGURE_QUERY } from "./series";
import { type DatabaseKind, type Server, startServer, stopServer, type Workspace } from "./workspace";

export interface Form {
  key: string;
  label: string;
  path: string;
}

/**
 * The history page as people use it: plain, filtered, searched (a word, a run's name), sorted by a figure. Then the
 * run-name search once more with one row shown: at 100 runs the name matches one run, at a million 431, so its page
 * shows 1 row where the larger one shows 25; with the rows shown equal, what is left of the ratio is the search.
 */
export function historyForms(firstRunName: string): Form[] {
  const name = encodeURIComponent(firstRunName);
  return [
    { key: "plain", label: "history, plain", path: "/" },
    { key: "filtered", label: "history, engine + tag filter", path: "/?engine=sglang&tag=no-cuda-graphs" },
    { key: "search-word", label: "history, search a word", path: "/?q=cuda-graph" },
    { key: "search-name", label: "history, search a run's name", path: `/?q=${name}` },
    { key: "sorted", label: "history, sorted by single stream", path: "/?sort=single_stream" },
    { key: "search-name-one-row", label: "history, search a run's name, 1 row shown", path: `/?q=${name}&per_page=1` },
  ];
}

export interface SizeFigures {
  runs: number;
  forms: Record<string, Series>;
  api: Series;
  compare: Series;
  /** The 100-run server measured in turns with this one (absent for the 100-run size itself): the ratio's base. */
  baseline?: { forms: Record<string, Series>; api: Series };
}

export interface UploadFigures {
  connections: number;
  seconds: number;
  requests: number;
  created: number;
  non2xx: number;
  /** The answers other than 201, by status: what "other" was. */
  otherStatuses: Record<string, number>;
  errors: number;
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  /** Runs the uncounted warm-up stored before the measured load (0 without one). */
  warmupCreated: number;
  storedBefore: number;
  storedAfter: number;
  /**
   * The servers' CPU time during the measured load per upload stored, in ms: every thread of each server process,
   * and the main thread alone (the one every request, storing and judging run on; the upload worker is another).
   * A rate moves with whatever else the machine does; the CPU an upload costs the server moves far less.
   */
  serverCpuMsPerUpload: number;
  mainThreadCpuMsPerUpload: number;
}

export interface DatabaseFigures {
  kind: DatabaseKind;
  sizes: SizeFigures[];
  uploads: UploadFigures | null;
}

/** Servers this module started and has not stopped: on Ctrl-C they go down with the benchmark. */
const live = new Set<Server>();

async function start(workspace: Workspace, repo: string, database: string, label: string): Promise<Server> {
  const server = await startServer(workspace, repo, database, label);
  live.add(server);
  return server;
}

async function stop(server: Server): Promise<void> {
  await stopServer(server);
  live.delete(server);
}

// A page's time to first byte spreads widely on a shared machine (p25 to p75 is ±20% of the median), and the
// median of 30 moved the million-run ratios by ±0.15 from one run to the next; 100 pairs, measured in turns,
// halve that. It costs seconds beside the minutes of writing a history.
export const SCALE_SAMPLES = 100;
export const SCALE_WARMUPS = 10;
export const UPLOAD_CONNECTIONS = 32;
export const UPLOAD_SECONDS = 10;

export function uploadBody(): string {
  // `[<id>]` is replaced by a counter in every request: every upload is new content.
  return JSON.stringify({
    format: "servebench/v1",
    name: "upload load [<id>]",
    engine: "vllm",
    engine_version: "0.11.0",
    model: "Qwen/Qwen3-32B",
    hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 2 },
    command: "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2",
    tags: ["bench-upload"],
    notes: "id [<id>]",
    results: [1, 2, 4, 8, 16, 32, 64, 128].map((concurrency) => ({
      concurrency,
      request_rate: "inf",
      completed: 1280,
      output_throughput: 60 * concurrency,
      mean_ttft_ms: 40 + concurrency,
      mean_tpot_ms: 12 + concurrency / 10,
      p99_ttft_ms: 90 + concurrency,
    })),
  });
}

interface UploadLoad {
  requests: number;
  created: number;
  non2xx: number;
  otherStatuses: Record<string, number>;
  errors: number;
  latenciesMs: number[];
}

/**
 * `connections` uploaders, each POSTing a new run document after the previous answer, spread over the servers
 * round-robin, for `seconds`. Every document is new content (a counter in its name), so every upload must be
 * stored: 201. Written here rather than with autocannon, whose one fixed body would be the same content each time.
 */
/** Every upload of this process is new content: the counter runs on across loads (a warm-up and the measured one). */
let counter = 0;

async function uploadLoad(urls: readonly string[], connections: number, seconds: number): Promise<UploadLoad> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const template = uploadBody();
  const load: UploadLoad = { requests: 0, created: 0, non2xx: 0, otherStatuses: {}, errors: 0, latenciesMs: [] };
  const deadline = performance.now() + seconds * 1000;
  const post = (url: string, body: string) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", reject);
        },
      );
      request.setTimeout(60_000, () => request.destroy(new Error("timeout")));
      request.on("error", reject);
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      const url = `${urls[index % urls.length]}/api/runs`;
      while (performance.now() < deadline) {
        counter += 1;
        const body = template.replaceAll("[<id>]", `${process.pid}-${index}-${counter}`);
        const started = performance.now();
        try {
          const status = await post(url, body);
          load.latenciesMs.push(performance.now() - started);
          load.requests += 1;
          if (status === 201) load.created += 1;
          else {
            load.non2xx += 1;
            load.otherStatuses[String(status)] = (load.otherStatuses[String(status)] ?? 0) + 1;
          }
        } catch {
          load.errors += 1;
        }
      }
    }),
  );
  agent.destroy();
  return load;
}

export async function totalRuns(server: Server): Promise<number> {
  const response = await timedRequest(`${server.url}/api/runs?per_page=1`);
  return (JSON.parse(response.body.toString("utf8")) as { total: number }).total;
}

/** Uploads from 2 app instances on one database, 16 connections each: nothing lost, nothing doubled. */
async function measureUploads(
  workspace: Workspace,
  repo: string,
  database: string,
  label: string,
  connections: number,
  seconds: number,
): Promise<UploadFigures> {
  const servers = [
    await start(workspace, repo, database, `${label}-a`),
    await start(workspace, repo, database, `${label}-b`),
  ];
  try {
    return await uploadFigures(servers, connections, seconds);
  } finally {
    for (const server of servers) await stop(server);
  }
}

/**
 * The upload load on running servers (round-robin over them): runs stored before (asked of the first) and after
 * (asked of the last), uploads stored per second (201s / the load's seconds), latency of every answer.
 */
export async function uploadFigures(
  servers: readonly Server[],
  connections: number,
  seconds: number,
  /** Uploads before the measured ones, not counted: a new server's first requests load its code and connections. */
  warmupSeconds = 0,
): Promise<UploadFigures> {
  const warmup =
    warmupSeconds > 0
      ? await uploadLoad(
          servers.map((server) => server.url),
          connections,
          warmupSeconds,
        )
      : null;
  const storedBefore = await totalRuns(servers[0]!);
  const cpuBefore = servers.map(serverCpuMs);
  const started = performance.now();
  const load = await uploadLoad(
    servers.map((server) => server.url),
    connections,
    seconds,
  );
  const elapsedS = (performance.now() - started) / 1000;
  const cpuAfter = servers.map(serverCpuMs);
  const storedAfter = await totalRuns(servers[servers.length - 1]!);
  const cpuSpent = (part: "process" | "main") =>
    cpuAfter.reduce((sum, after, index) => sum + after[part] - cpuBefore[index]![part], 0);
  return {
    connections,
    seconds,
    requests: load.requests,
    created: load.created,
    non2xx: load.non2xx,
    otherStatuses: load.otherStatuses,
    errors: load.errors,
    requestsPerSecond: load.created / elapsedS,
    latencyP50: Math.round(quantile(load.latenciesMs, 0.5)),
    latencyP99: Math.round(quantile(load.latenciesMs, 0.99)),
    warmupCreated: warmup?.created ?? 0,
    storedBefore,
    storedAfter,
    serverCpuMsPerUpload: cpuSpent("process") / load.created,
    mainThreadCpuMsPerUpload: cpuSpent("main") / load.created,
  };
}

/** Linux's clock ticks per second in /proc's CPU times (USER_HZ: 100 on every architecture Node runs on). */
const CLOCK_TICKS_PER_S = 100;

/** The user + system CPU time in ms of a /proc stat line (fields 14 and 15, after the parenthesised name). */
function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S) * 1000;
}

/** A server's CPU time so far, in ms: the whole process and its main thread (the thread whose id is the pid). */
function serverCpuMs(server: Server): { process: number; main: number } {
  const pid = server.child.pid;
  if (pid === undefined) return { process: Number.NaN, main: Number.NaN };
  return {
    process: cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8")),
    main: cpuMsOfStat(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")),
  };
}

export interface ScaleOptions {
  workspace: Workspace;
  repo: string;
  sizes: number[];
  /** The 8 runs to compare: among the first 100, so every size has them. */
  compared: readonly SeedRun[];
  firstRunName: string;
  kinds: DatabaseKind[];
  log: (line: string) => void;
}

export interface ScaleFigures {
  databases: DatabaseFigures[];
  /** Requests whose JSON answer was compared between the two databases, and how many differed. */
  equivalence: { checked: number; differences: string[] };
  postgresqlNote: string | null;
}

export async function measureScale(options: ScaleOptions): Promise<ScaleFigures> {
  const { workspace, repo, sizes, compared, log } = options;
  const forms = historyForms(options.firstRunName);
  const kinds = [...options.kinds];
  let postgresqlNote: string | null = null;
  let cluster: Cluster | null = null;
  if (kinds.includes("postgresql") && !findPostgresBin()) {
    postgresqlNote = "PostgreSQL is not installed here: its figures were NOT measured (apt-get install -y postgresql)";
    kinds.splice(kinds.indexOf("postgresql"), 1);
  }
  const databases: DatabaseFigures[] = kinds.map((kind) => ({ kind, sizes: [], uploads: null }));
  const answers = new Map<string, string>();
  const equivalence = { checked: 0, differences: [] as string[] };
  const probes = [
    `/api/runs/${compared[0]!.id}`,
    `/api/runs/${compared[1]!.id}`,
    "/api/runs?per_page=100",
    "/api/runs?sort=single_stream&dir=asc&per_page=100&page=2",
    "/api/runs?sort=name&per_page=100",
    "/api/runs?q=cuda-graph&per_page=100",
    "/api/runs?engine=sglang&tag=no-cuda-graphs&per_page=100",
  ];
  // Ctrl-C: run.ts stops its servers and exits; this module's servers and the cluster must go too.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const server of live) server.child.kill("SIGKILL");
      cluster?.stop();
    });
  }
  try {
    if (kinds.includes("postgresql")) {
      // Durable as a real server is: fsync and synchronous commit on (unlike the test clusters).
      cluster = await startCluster({
        settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "1GB" },
      });
    }
    const writeSize = async (kind: DatabaseKind, size: number): Promise<string> => {
      const started = performance.now();
      let database: string;
      if (kind === "sqlite") {
        database = path.join(workspace.root, "data", `scale-${size}.db`);
        fs.mkdirSync(path.dirname(database), { recursive: true });
        writeDatabase(database, streamRuns(size), path.join(workspace.app, "prisma", "migrations"));
      } else {
        database = await cluster!.createDatabase(`scale_${size}`);
        await writePostgresql(database, streamRuns(size));
      }
      log(`${kind}-${size}: wrote ${size} runs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return database;
    };
    const dropSize = async (kind: DatabaseKind, size: number, database: string) => {
      if (kind === "sqlite") {
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(database + suffix, { force: true });
        return;
      }
      const admin = new pg.Client({ connectionString: cluster!.urlFor("postgres") });
      await admin.connect();
      await admin.query(`DROP DATABASE "scale_${size}" WITH (FORCE)`);
      await admin.end();
    };
    const checkAnswers = async (server: Server, size: number) => {
      for (const probe of probes) {
        const body = (await timedRequest(`${server.url}${probe}`)).body
          .toString("utf8")
          .replace(/"created_at":"[^"]*"/g, "");
        const key = `${size} ${probe}`;
        const other = answers.get(key);
        if (other === undefined) answers.set(key, body);
        else {
          equivalence.checked += 1;
          if (other !== body) equivalence.differences.push(`${size} runs, GET ${probe}`);
        }
      }
    };
    // With every figure the page computes (p99, SLO targets, a price), as the other compare figures.
    const compareUrl = (server: Server) =>
      `${server.url}/compare?runs=${compared.map((run) => run.id).join(",")}&${COMPARE_EVERY_FIGURE_QUERY}`;

    for (const figures of databases) {
      const kind = figures.kind;
      const [smallest, ...larger] = sizes;
      // The smallest history's server stays up: every larger size is measured in turns with it.
      const baseDatabase = await writeSize(kind, smallest!);
      const base = await start(workspace, repo, baseDatabase, `${kind}-${smallest}`);
      try {
        await checkAnswers(base, smallest!);
        const alone: SizeFigures = {
          runs: smallest!,
          forms: {},
          api: await measure(`${kind}-${smallest} api`, `${base.url}/api/runs`, SCALE_SAMPLES, SCALE_WARMUPS),
          compare: await measure(`${kind}-${smallest} compare`, compareUrl(base), SCALE_SAMPLES, SCALE_WARMUPS),
        };
        for (const form of forms) {
          alone.forms[form.key] = await measure(
            `${kind} ${form.key}`,
            `${base.url}${form.path}`,
            SCALE_SAMPLES,
            SCALE_WARMUPS,
          );
        }
        figures.sizes.push(alone);
        for (const size of larger) {
          const label = `${kind}-${size}`;
          const database = await writeSize(kind, size);
          const server = await start(workspace, repo, database, label);
          try {
            await checkAnswers(server, size);
            const [baseApi, api] = await measurePair(
              `${label} api`,
              [`${base.url}/api/runs`, `${server.url}/api/runs`],
              SCALE_SAMPLES,
              SCALE_WARMUPS,
            );
            const measured: SizeFigures = {
              runs: size,
              forms: {},
              api,
              compare: await measure(`${label} compare`, compareUrl(server), SCALE_SAMPLES, SCALE_WARMUPS),
              baseline: { forms: {}, api: baseApi },
            };
            for (const form of forms) {
              const [baseSeries, series] = await measurePair(
                `${label} ${form.key}`,
                [`${base.url}${form.path}`, `${server.url}${form.path}`],
                SCALE_SAMPLES,
                SCALE_WARMUPS,
              );
              measured.forms[form.key] = series;
              measured.baseline!.forms[form.key] = baseSeries;
            }
            figures.sizes.push(measured);
            log(
              `${label}: ${forms
                .map(
                  (form) =>
                    `${form.key} ${measured.forms[form.key]!.ttfb.median.toFixed(1)} (100: ${measured.baseline!.forms[form.key]!.ttfb.median.toFixed(1)})`,
                )
                .join(
                  ", ",
                )} ms; api ${measured.api.ttfb.median.toFixed(1)}, compare ${measured.compare.ttfb.median.toFixed(1)} ms`,
            );
          } finally {
            await stop(server);
          }
          // Uploads at 100,000 runs, from 2 app instances on the one database.
          if (size === 100_000) {
            log(`${label}: uploads from 2 app instances, ${UPLOAD_CONNECTIONS} connections for ${UPLOAD_SECONDS} s`);
            figures.uploads = await measureUploads(
              workspace,
              repo,
              database,
              label,
              UPLOAD_CONNECTIONS,
              UPLOAD_SECONDS,
            );
          }
          await dropSize(kind, size, database);
        }
      } finally {
        await stop(base);
      }
      await dropSize(kind, smallest!, baseDatabase);
    }
  } finally {
    cluster?.stop();
  }
  return { databases, equivalence, postgresqlNote };
}
