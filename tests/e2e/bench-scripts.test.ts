/**
 * The benchmark's parts that docs/benchmarks.md shows running alone against any server do run as written there,
 * and print their table: the hostile uploads, the big writes and the heavy reads (on the database reads.ts writes).
 * One case of each, on a server of their own: what is timed is `npm run bench`'s business, not a test's.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrate";
import { type RunningServer, startServer, stopServer } from "./server";

const run = promisify(execFile);
let dir: string;
const servers: RunningServer[] = [];

/** A command of docs/benchmarks.md's "Running it", its placeholders filled in. */
function documented(script: string): string {
  const text = fs.readFileSync(path.join(process.cwd(), "docs", "benchmarks.md"), "utf8");
  const line = text.split("\n").find((candidate) => candidate.startsWith(`npx tsx scripts/bench/${script}`));
  expect(line, `docs/benchmarks.md shows scripts/bench/${script}`).toBeDefined();
  return line!.replace(/\s+#.*$/, "").trim();
}

/** Run `command` (its options in brackets left out, `extra` added): its standard output. */
async function runDocumented(command: string, replacements: Record<string, string>, extra: string[]) {
  let filled = command.replace(/\s*\[[^\]]*\]/g, "");
  for (const [from, to] of Object.entries(replacements)) filled = filled.replaceAll(from, to);
  const [program, ...args] = filled.split(/\s+/);
  const { stdout } = await run(program!, [...args, ...extra], { maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
  return stdout;
}

async function serve(name: string, dbFile: string): Promise<RunningServer> {
  const server = await startServer(dbFile, path.join(dir, `${name}.log`), { SERVEBENCH_DEMO: "0" });
  servers.push(server);
  return server;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-bench-scripts-"));
});

afterAll(async () => {
  for (const server of servers) await stopServer(server);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the benchmark's parts, run alone", () => {
  it("hostile.ts and writes.ts against a running server", async () => {
    const dbFile = path.join(dir, "writes.db");
    migrateDatabase(dbFile);
    const server = await serve("writes", dbFile);
    const url = { "http://127.0.0.1:3000": server.url };

    const hostile = await runDocumented(documented("hostile.ts"), url, ["--only", "command"]);
    expect(hostile).toMatch(/\| launch command `--a` \+ 46 `_` \(64 characters\) \| [0-9.]+ MB \| 200 preview \|/);

    const writes = await runDocumented(documented("writes.ts"), url, ["--only", "upload-parallel"]);
    expect(writes).toMatch(/\| upload: 8 runs × 1,000 levels, in parallel \| 1\.3 MB \| 8 × 201 \|/);
    const listed = (await (await fetch(`${server.url}/api/runs?per_page=100`)).json()) as { total: number };
    expect(listed.total).toBe(8);
  });

  it("reads.ts writes its database, then measures a server on it", async () => {
    const dbFile = path.join(dir, "reads.db");
    const wrote = await runDocumented(documented("reads.ts --db"), { "/tmp/reads.db": dbFile }, []);
    expect(wrote).toContain(`wrote ${dbFile}`);
    const server = await serve("reads", dbFile);
    const listed = (await (await fetch(`${server.url}/api/runs?per_page=1`)).json()) as { total: number };
    expect(listed.total).toBe(10_000 + 12 + 23_000);

    const reads = await runDocumented(documented("reads.ts --url"), { "http://127.0.0.1:3000": server.url }, [
      "--only",
      "series-api",
    ]);
    expect(reads).toMatch(/\| GET \/api\/series\/<id>, 10,000 runs \| 24 \| 24 × 200 \|/);
  }, 900_000);
});
