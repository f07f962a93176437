/**
 * `npm run lighthouse`: builds the app when the build is not of the current code, serves it with `next start`
 * on a fresh database filled with real benchmark output (scripts/lighthouse/real-data.ts), runs Lighthouse on
 * every main page with its default mobile emulation (or `--desktop`) in Debian's Chromium, and prints one
 * table. A benchmark, not a test: the figures vary with the machine's load, so `--runs N` takes each page's
 * median of N runs by performance score.
 *
 *   npm run lighthouse                       # every page, mobile, one run each
 *   npm run lighthouse -- --runs 3 --desktop # median of three, desktop preset
 *   npm run lighthouse -- --only compare,run # some pages
 *   npm run lighthouse -- --json out.json    # also write the figures as JSON
 *   npm run lighthouse -- --url http://localhost:3000  # a running instance, as its users' first visit sees it
 *
 * With --url nothing is built, started or stored: the pages are found through the instance's own API (the newest
 * runs, its first saved comparison and series), and each page is audited as a first visit (a new browser
 * profile; the server not warmed first), which is what someone opening a link meets.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { RunnerResult } from "lighthouse";
import { migrateDatabase } from "@/lib/db/migrate";
import { ensureBuild } from "../build-state";
import { seedRealData } from "./real-data";

const CHROME_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";
// Headless, no sandbox (root in a container) and nothing that reaches the network on its own.
const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

interface Options {
  runs: number;
  desktop: boolean;
  only: string[] | null;
  json: string | null;
  url: string | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 1, desktop: false, only: null, json: null, url: null };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const next = () => {
      const value = argv[++index];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      return value;
    };
    if (arg === "--runs") options.runs = Math.max(1, Number.parseInt(next(), 10) || 1);
    else if (arg === "--desktop") options.desktop = true;
    else if (arg === "--only") options.only = next().split(",");
    else if (arg === "--json") options.json = next();
    else if (arg === "--url") options.url = new URL(next()).origin;
    else throw new Error(`unknown option ${arg} (see the top of scripts/lighthouse/run.ts)`);
  }
  return options;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function startServer(databaseFile: string, logFile: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const log = fs.openSync(logFile, "w");
  const child = spawn(
    path.join(process.cwd(), "node_modules", ".bin", "next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    {
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: `file:${databaseFile}`,
        SERVEBENCH_DEMO: "0",
        SERVEBENCH_WRITE_TOKEN: "",
      },
      stdio: ["ignore", log, log],
    },
  );
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited:\n${fs.readFileSync(logFile, "utf8")}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`next start did not answer within 60 s:\n${fs.readFileSync(logFile, "utf8")}`);
}

interface PageResult {
  page: string;
  path: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  /** Accessibility audits that failed, by id. */
  failedA11y: string[];
  /**
   * Lighthouse's own measure of the CPU it ran on (higher is faster): its mobile emulation multiplies the time
   * of the page's main-thread work by 4, so a machine busy with other work shows in TBT four times over.
   */
  benchmarkIndex: number;
  /** The machine's 1-minute load average when the page was audited, beside its number of cores. */
  loadAverage: number;
}

function score(result: RunnerResult, category: string): number {
  return Math.round((result.lhr.categories[category]?.score ?? 0) * 100);
}

function metric(result: RunnerResult, audit: string): number {
  return result.lhr.audits[audit]?.numericValue ?? Number.NaN;
}

/**
 * One Lighthouse run through its own command line (which launches Chromium with chrome-launcher). The CLI
 * rather than the Node API: under tsx, the functions Lighthouse serialises into the page would carry
 * esbuild's name helpers, which the page does not have.
 */
function auditOnce(url: string, desktop: boolean): RunnerResult {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-lighthouse-profile-"));
  try {
    const args = [
      url,
      "--output=json",
      "--output-path=stdout",
      "--quiet",
      "--only-categories=performance,accessibility,best-practices,seo",
      `--chrome-flags=${[...CHROME_FLAGS, `--user-data-dir=${profile}`].join(" ")}`,
      ...(desktop ? ["--preset=desktop"] : []),
    ];
    const result = spawnSync(path.join(process.cwd(), "node_modules", ".bin", "lighthouse"), args, {
      env: { ...process.env, CHROME_PATH },
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (result.status !== 0) throw new Error(`lighthouse ${url} failed (${result.status}): ${result.stderr}`);
    const lhr = JSON.parse(result.stdout) as RunnerResult["lhr"];
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    return { lhr } as RunnerResult;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function auditPage(name: string, base: string, pagePath: string, options: Options): Promise<PageResult> {
  const results: RunnerResult[] = [];
  for (let run = 0; run < options.runs; run++) results.push(auditOnce(`${base}${pagePath}`, options.desktop));
  results.sort((a, b) => score(a, "performance") - score(b, "performance"));
  const median = results[Math.floor((results.length - 1) / 2)]!;
  const failedA11y = Object.values(median.lhr.audits)
    .filter(
      (audit) => audit.score === 0 && median.lhr.categories.accessibility?.auditRefs.some((r) => r.id === audit.id),
    )
    .map((audit) => audit.id);
  return {
    page: name,
    path: pagePath,
    performance: score(median, "performance"),
    accessibility: score(median, "accessibility"),
    bestPractices: score(median, "best-practices"),
    seo: score(median, "seo"),
    fcpMs: metric(median, "first-contentful-paint"),
    lcpMs: metric(median, "largest-contentful-paint"),
    tbtMs: metric(median, "total-blocking-time"),
    cls: metric(median, "cumulative-layout-shift"),
    failedA11y,
    benchmarkIndex: median.lhr.environment?.benchmarkIndex ?? Number.NaN,
    loadAverage: os.loadavg()[0]!,
  };
}

function table(rows: PageResult[]): string {
  const header = ["page", "perf", "a11y", "best pr.", "SEO", "FCP ms", "LCP ms", "TBT ms", "CLS"];
  const lines = rows.map((row) => [
    `${row.page} (${row.path.length > 28 ? `${row.path.slice(0, 27)}…` : row.path})`,
    String(row.performance),
    String(row.accessibility),
    String(row.bestPractices),
    String(row.seo),
    row.fcpMs.toFixed(0),
    row.lcpMs.toFixed(0),
    row.tbtMs.toFixed(0),
    row.cls.toFixed(3),
  ]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(" | ")} |`;
  return [format(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...lines.map(format)].join(
    "\n",
  );
}

type PageList = [string, string][];

/** The pages of a running instance, found through its API: nothing is written to it. */
async function pagesOf(base: string): Promise<{ pages: PageList; runs: number }> {
  const get = async <T>(route: string): Promise<T> => {
    const response = await fetch(`${base}${route}`);
    if (!response.ok) throw new Error(`${base}${route} answered ${response.status}`);
    return (await response.json()) as T;
  };
  const { runs, total } = await get<{ runs: { id: string }[]; total: number }>("/api/runs?per_page=5");
  const { comparisons } = await get<{ comparisons: { slug: string }[] }>("/api/comparisons?per_page=1");
  const { series } = await get<{ series: { id: string }[] }>("/api/series?per_page=1");
  const ids = runs.map((run) => run.id);
  const pages: PageList = [["history", "/"]];
  if (ids[0]) pages.push(["run", `/runs/${ids[0]}`]);
  if (ids.length >= 2) pages.push(["compare", `/compare?runs=${ids.join(",")}`]);
  if (comparisons[0]) pages.push(["saved", `/c/${comparisons[0].slug}`]);
  pages.push(["upload", "/upload"], ["comparisons", "/comparisons"], ["series list", "/series"]);
  if (series[0]) pages.push(["series", `/series/${series[0].id}`]);
  pages.push(["alerts", "/alerts"]);
  return { pages, runs: total };
}

async function auditAll(base: string, pages: PageList, options: Options, described: string): Promise<void> {
  const chosen = options.only ? pages.filter(([name]) => options.only?.some((only) => name.startsWith(only))) : pages;
  const rows: PageResult[] = [];
  for (const [name, pagePath] of chosen) {
    console.error(`lighthouse: ${name} ${pagePath}`);
    rows.push(await auditPage(name, base, pagePath, options));
  }
  console.log(
    `Lighthouse ${options.desktop ? "desktop preset" : "default mobile emulation"}, ${options.runs === 1 ? "one run" : `median of ${options.runs} runs`} per page, ${described}`,
  );
  console.log(table(rows));
  const indexes = rows.map((row) => row.benchmarkIndex).filter(Number.isFinite);
  const loads = rows.map((row) => row.loadAverage);
  console.log(
    `CPU: Lighthouse benchmark index ${Math.min(...indexes).toFixed(0)}–${Math.max(...indexes).toFixed(0)}, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${os.cpus().length} cores (TBT grows with both; compare figures taken at like ones)`,
  );
  for (const row of rows) {
    if (row.failedA11y.length > 0)
      console.log(`${row.page}: failed accessibility audits: ${row.failedA11y.join(", ")}`);
  }
  if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(rows, null, 2)}\n`);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.url) {
    const { pages, runs } = await pagesOf(options.url);
    await auditAll(options.url, pages, options, `${options.url} as it is (${runs} runs)`);
    return;
  }
  await ensureBuild((line) => console.error(line));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-lighthouse-"));
  const databaseFile = path.join(dir, "lighthouse.db");
  migrateDatabase(databaseFile);
  const server = await startServer(databaseFile, path.join(dir, "server.log"));
  try {
    const data = await seedRealData(server.url);
    const { vllm, noGraphs, graphs } = data.campaign;
    const sweep = data.runIds.slice(3, 5);
    const pages: PageList = [
      ["history", "/"],
      ["run", `/runs/${data.runIds[5] ?? graphs}`],
      ["run, 2 levels", `/runs/${graphs}`],
      ["compare", `/compare?runs=${[vllm, noGraphs, graphs, ...sweep].join(",")}&baseline=${noGraphs}`],
      ["saved", `/c/${data.slug}`],
      ["upload", "/upload"],
      ["comparisons", "/comparisons"],
      ["series list", "/series"],
      ...(data.seriesId ? ([["series", `/series/${data.seriesId}`]] as PageList) : []),
      // Lighthouse refuses to audit a 404 answer, so the not-found page is left to the browser tests.
      ["alerts", "/alerts"],
    ];
    await auditAll(server.url, pages, options, `${data.runIds.length} runs of real data`);
  } finally {
    server.child.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
