/**
 * A private PostgreSQL cluster for tests and the benchmark: `initdb` into a temporary folder, `pg_ctl start` on a
 * free loopback port (its socket in the same folder), stopped and removed afterwards. Nothing assumes a server
 * that is already running. As root (CI), the server runs as the `postgres` user, which PostgreSQL insists on.
 *
 * The binaries are found through SERVEBENCH_PG_BIN, then PATH, then Debian's /usr/lib/postgresql/<version>/bin
 * (the newest), where Debian's packages put them without adding them to PATH.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface Cluster {
  dir: string;
  port: number;
  bin: string;
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  urlFor(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

function hasInitdb(dir: string): boolean {
  return fs.existsSync(path.join(dir, "initdb"));
}

/** The real folder of a link such as /usr/local/bin/initdb → /usr/lib/postgresql/15/bin, where pg_ctl sits too. */
function realBin(dir: string): string {
  return path.dirname(fs.realpathSync(path.join(dir, "initdb")));
}

/** The folder holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function findPostgresBin(): string | null {
  const fromEnv = process.env.SERVEBENCH_PG_BIN;
  if (fromEnv) return hasInitdb(fromEnv) ? realBin(fromEnv) : null;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && hasInitdb(dir)) return realBin(dir);
  }
  const debian = "/usr/lib/postgresql";
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((name) => /^\d+$/.test(name) && hasInitdb(path.join(debian, name, "bin")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], "bin");
  }
  return null;
}

async function freePort(): Promise<number> {
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

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Run a PostgreSQL binary, as the postgres user when we are root. */
function run(bin: string, program: string, args: string[]): string {
  const file = path.join(bin, program);
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  const result = spawnSync(command, argv, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

export interface StartOptions {
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

export async function startCluster(options: StartOptions = {}): Promise<Cluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-pg-"));
  if (asRoot) {
    fs.chmodSync(dir, 0o700);
    execFileSync("chown", ["postgres:postgres", dir]);
  }
  const data = path.join(dir, "data");
  // C.UTF-8 rather than C: a default locale whose collation differs from byte order would show that the
  // columns' own COLLATE "C" is what keeps the ordering the same as SQLite's.
  run(bin, "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: dir,
    // A test cluster: durability is not the point, and fsync on a shared 2-core machine is slow.
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    max_connections: "200",
    ...options.settings,
  };
  const serverOptions = Object.entries(settings)
    .map(([key, value]) => `-c ${key}=${value}`)
    .join(" ");
  run(bin, "pg_ctl", [
    "-D",
    data,
    "-l",
    path.join(dir, "server.log"),
    "-o",
    `-p ${port} ${serverOptions}`,
    "-w",
    "start",
  ]);
  let stopped = false;
  const cluster: Cluster = {
    dir,
    port,
    bin,
    urlFor: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: cluster.urlFor("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } finally {
        await client.end();
      }
      return cluster.urlFor(name);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}
