/**
 * Is the production build in .next built from the code on disk? `npm start` and the browser tests ask this
 * so a `git pull` never leaves an old build serving: the build is stamped with a hash of every input file.
 */

import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const ROOT = process.cwd();
// scripts/cli is the source of public/cli/servebench.mjs, which next build serves from public/.
const INPUT_DIRS = ["app", "components", "lib", "public", "prisma", "scripts/cli"];
const INPUT_FILES = [
  "package.json",
  "package-lock.json",
  "next.config.js",
  "postcss.config.mjs",
  "tsconfig.json",
  "proxy.ts",
];
const SKIP_DIRS = new Set(["generated", "node_modules", ".next"]);
const STAMP = path.join(ROOT, ".next", "servebench-source-hash");

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(full, out);
    } else if (entry.isFile()) {
      out.push(full);
    }
  }
}

export function sourceHash(): string {
  const files: string[] = [];
  for (const dir of INPUT_DIRS) walk(path.join(ROOT, dir), files);
  for (const file of INPUT_FILES) if (fs.existsSync(path.join(ROOT, file))) files.push(path.join(ROOT, file));
  files.sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(path.relative(ROOT, file));
    hash.update("\0");
    hash.update(fs.readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

export function buildIsCurrent(): boolean {
  return (
    fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) &&
    fs.existsSync(STAMP) &&
    fs.readFileSync(STAMP, "utf8") === sourceHash()
  );
}

/** Bundle the CLI (public/cli/servebench.mjs): first, because next build serves what public/ holds then. */
function bundleCli(log: (line: string) => void): void {
  const result = spawnSync(
    process.execPath,
    [path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), path.join(ROOT, "scripts", "cli", "bundle.ts")],
    {
      stdio: ["ignore", "pipe", "inherit"],
      encoding: "utf8",
    },
  );
  if (result.status !== 0) throw new Error(`bundling the CLI failed with exit code ${result.status}`);
  log(result.stdout.trim());
}

function minutesAndSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

// One build at a time per checkout: two servers started together on a stale build (two instances of one database)
// would each run next build, and next refuses the second ("Another next build process is already running").
const BUILD_LOCK = path.join(ROOT, ".servebench-build.lock");

/** Whether a process with this id is running (EPERM: it is, but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs `work` holding the lock file; waits (however long the other build takes) while another process holds it. */
export async function withBuildLock(
  lockFile: string,
  log: (line: string) => void,
  work: () => Promise<void>,
): Promise<void> {
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let holder = 0;
      try {
        holder = Number(fs.readFileSync(lockFile, "utf8"));
      } catch {
        continue; // released between the two calls
      }
      // A lock left by a process that died (killed mid-build) is nobody's.
      if (!Number.isInteger(holder) || holder <= 0 || !processAlive(holder)) {
        fs.rmSync(lockFile, { force: true });
        continue;
      }
      if (!told) log(`servebench: another start (process ${holder}) is building the app; waiting for it`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    await work();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/**
 * Build with `next build` unless the existing build is of the current code. A first build takes minutes on a
 * small machine and next prints little meanwhile, so a line every 30 s says it is still going.
 */
export async function ensureBuild(log: (line: string) => void = console.log): Promise<void> {
  // Deterministic: over an unchanged tree this rewrites nothing, and the hash below stays the same.
  bundleCli(log);
  if (buildIsCurrent()) {
    log("servebench: the build is current");
    return;
  }
  await withBuildLock(BUILD_LOCK, log, () => build(log));
}

async function build(log: (line: string) => void): Promise<void> {
  // Another start may have built it while this one waited for the lock.
  if (buildIsCurrent()) {
    log("servebench: the build is current");
    return;
  }
  log(
    "servebench: building the app for production (the code changed or no build exists): about 3 to 6 minutes " +
      "on 2 cores, once; later starts reuse the build",
  );
  const hash = sourceHash();
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`servebench: still building… ${minutesAndSeconds(Date.now() - started)}`),
    30_000,
  );
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], {
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      });
      child.on("error", reject);
      child.on("exit", (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw new Error(`next build failed with exit code ${code}`);
  } finally {
    clearInterval(heartbeat);
  }
  fs.writeFileSync(STAMP, hash);
  log(`servebench: built in ${minutesAndSeconds(Date.now() - started)}`);
}
