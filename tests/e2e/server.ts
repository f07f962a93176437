/** Serving the production build with `next start` on a SQLite file, for tests that need a server of their own. */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export async function waitForHealth(url: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error(`next start exited (${server.exitCode ?? server.signalCode})`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server at ${url} did not become healthy within ${timeoutMs} ms`);
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  logFile: string;
}

/** Start `next start` on a free port against `dbFile` (already migrated) and wait until it answers. */
export async function startServer(
  dbFile: string,
  logFile: string,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const log = fs.openSync(logFile, "a");
  const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "next"), ["start", "-p", String(port)], {
    env: {
      ...process.env,
      DATABASE_URL: `file:${dbFile}`,
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      ...env,
    },
    stdio: ["ignore", log, log],
  });
  try {
    await waitForHealth(url, child, 300_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${fs.readFileSync(logFile, "utf8")}`);
  }
  return { url, process: child, logFile };
}

export async function stopServer(server: RunningServer, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return;
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill(signal);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
  if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill("SIGKILL");
}
