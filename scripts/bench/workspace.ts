/**
 * The benchmark's own copy of the app: the checkout's files (tracked plus new, not ignored, as they are on
 * disk) copied into a temporary directory, node_modules and the generated Prisma client symlinked, built
 * there with `next build` and served from there with `next start`. The checkout's own .next is never touched,
 * so `npm run bench` does not disturb a developer's build or another engineer building at the same time.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The databases the benchmark measures. */
export type DatabaseKind = "sqlite" | "postgresql";

export interface Workspace {
  /** The temporary directory holding everything the benchmark makes. */
  root: string;
  /** The copy of the app inside it. */
  app: string;
}

/**
 * Files of the checkout as git sees them: tracked ones and new ones that are not ignored, except tests/ (but for
 * tests/support, whose PostgreSQL cluster helper the benchmark uses). The
 * build does not use the tests, but `next build` type-checks every file tsconfig includes, and a test another
 * engineer is halfway through writing must not stop a benchmark of the app.
 */
function checkoutFiles(repo: string): string[] {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repo,
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${repo}: ${listed.stderr.toString().trim()}`);
  const names = listed.stdout.toString("utf8").split("\0").filter(Boolean);
  // A tracked file deleted on disk is still listed; copy what exists.
  return [...new Set(names)].filter((name) => {
    // tests/support holds the PostgreSQL cluster helper the benchmark itself uses.
    if (name.startsWith("tests/") && !name.startsWith("tests/support/")) return false;
    try {
      return fs.lstatSync(path.join(repo, name)).isFile();
    } catch {
      return false;
    }
  });
}

/** The deepest directory that contains both paths: Turbopack compiles only files under its root. */
function commonAncestor(a: string, b: string): string {
  const left = path.resolve(a).split(path.sep);
  const right = path.resolve(b).split(path.sep);
  const shared: string[] = [];
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    if (left[index] !== right[index]) break;
    shared.push(left[index]!);
  }
  return shared.length <= 1 ? path.sep : shared.join(path.sep);
}

export function createWorkspace(repo: string): Workspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-bench-"));
  const app = path.join(root, "app");
  fs.mkdirSync(app);
  for (const name of checkoutFiles(repo)) {
    const target = path.join(app, name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(repo, name), target);
  }
  fs.symlinkSync(fs.realpathSync(path.join(repo, "node_modules")), path.join(app, "node_modules"), "dir");
  const generated = path.join(repo, "lib", "generated");
  if (!fs.existsSync(generated))
    throw new Error("lib/generated is missing: run `npm install` (or `npx prisma generate`) first.");
  fs.mkdirSync(path.join(app, "lib"), { recursive: true });
  fs.symlinkSync(fs.realpathSync(generated), path.join(app, "lib", "generated"), "dir");
  return { root, app };
}

export function removeWorkspace(workspace: Workspace): void {
  fs.rmSync(workspace.root, { recursive: true, force: true });
}

/**
 * `npm run bench -- --cpu-prof DIR` sets this: every server is started under Node's CPU profiler (a profile of each
 * thread written to DIR when it stops) from a build that keeps the server's function names.
 */
export const PROFILE_DIR_VARIABLE = "SERVEBENCH_BENCH_PROFILE_DIR";

function buildEnv(workspace: Workspace, repo: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(process.env[PROFILE_DIR_VARIABLE] ? { SERVEBENCH_SERVER_UNMINIFIED: "1" } : {}),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    // The symlinked node_modules resolves outside the copy; Turbopack refuses files outside its root, which it
    // otherwise takes to be the copy (it has its own package-lock.json). Next reads this variable as the root.
    NEXT_PRIVATE_OUTPUT_TRACE_ROOT: commonAncestor(workspace.app, fs.realpathSync(path.join(repo, "node_modules"))),
  };
}

/** `next build` in the copy. Returns the build's output (the route table) and how long it took. */
export function buildApp(workspace: Workspace, repo: string): { seconds: number; log: string } {
  const started = performance.now();
  const result = spawnSync(path.join(workspace.app, "node_modules", ".bin", "next"), ["build"], {
    cwd: workspace.app,
    env: buildEnv(workspace, repo),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const log = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  fs.writeFileSync(path.join(workspace.root, "next-build.log"), log);
  if (result.status !== 0) {
    throw new Error(
      `next build failed (exit ${result.status ?? result.signal}). Its output:\n${log.split("\n").slice(-40).join("\n")}`,
    );
  }
  return { seconds: (performance.now() - started) / 1000, log };
}

export async function freePort(): Promise<number> {
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

export interface Server {
  url: string;
  port: number;
  child: ChildProcess;
  logFile: string;
}

async function waitUntilUp(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`next start exited with ${child.exitCode}:\n${fs.readFileSync(logFile, "utf8").slice(-3000)}`);
    }
    try {
      const response = await fetch(`${url}/api/health`);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(
    `next start did not answer /api/health within ${timeoutMs / 1000} s:\n${fs.readFileSync(logFile, "utf8").slice(-3000)}`,
  );
}

/** `next start` of the copy's build on a free port, against the given database (a SQLite file or a URL). */
export async function startServer(
  workspace: Workspace,
  repo: string,
  database: string,
  label: string,
  /** More settings of the app's environment (e.g. a restore limit above the default for a larger export). */
  extraEnv: Record<string, string> = {},
): Promise<Server> {
  const port = await freePort();
  const logFile = path.join(workspace.root, `next-start-${label}.log`);
  const log = fs.openSync(logFile, "w");
  const profileDir = process.env[PROFILE_DIR_VARIABLE];
  const startArgs = ["start", "-p", String(port), "-H", "127.0.0.1"];
  // Node takes --cpu-prof on its command line only (not in NODE_OPTIONS): next's script is run by node itself.
  const child = spawn(
    profileDir ? process.execPath : path.join(workspace.app, "node_modules", ".bin", "next"),
    profileDir
      ? [
          "--cpu-prof",
          `--cpu-prof-dir=${profileDir}`,
          path.join(workspace.app, "node_modules", "next", "dist", "bin", "next"),
          ...startArgs,
        ]
      : startArgs,
    {
      cwd: workspace.app,
      env: {
        ...buildEnv(workspace, repo),
        DATABASE_URL: /^postgres(ql)?:/.test(database) ? database : `file:${database}`,
        PORT: String(port),
        // The largest vLLM file the benchmark posts is ~35 MB; the default limit is 25 MB.
        SERVEBENCH_MAX_BODY_MB: "100",
        SERVEBENCH_DEMO: "0",
        // A write token in the developer's environment would refuse the benchmark's one real upload.
        SERVEBENCH_WRITE_TOKEN: "",
        ...extraEnv,
      },
      stdio: ["ignore", log, log],
    },
  );
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(url, child, logFile, 60_000);
  } catch (error) {
    await stopServer({ url, port, child, logFile });
    throw error;
  }
  return { url, port, child, logFile };
}

export async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
