import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./.", import.meta.url)).replace(/\/$/, "");

// Timeouts are guards against a test that never finishes, never a judgement of speed (that is `npm run bench`):
// every one sits far above what its work takes on a machine whose both cores are busy with other work. The
// tests themselves wait for a state (polling), never for a fixed time. A file may raise its own guard for work
// known to be longer; none lowers it.
const GUARD_MS = { unit: 120_000, integration: 300_000, e2e: 600_000 };

/**
 * Browser test files running at once, each with a `next start` of its own (tests/e2e/global-setup.ts). The files
 * wait on servers and browsers far more than on the CPU, and two at a time took the phase from ~600 s to ~370 s.
 */
const E2E_WORKERS = 2;

// The integration suite runs on both databases. Without PostgreSQL installed (a laptop), the PostgreSQL half is
// left out and the summary says so (tests/support/summary-reporter.ts); in CI it always runs, and a missing
// PostgreSQL fails the run (tests/integration/postgresql-global-setup.ts).
// The same search as findPostgresBin in tests/support/postgresql.ts, which the config cannot import (a config
// loads before TypeScript modules can).
function postgresqlInstalled(): boolean {
  const fromEnv = process.env.SERVEBENCH_PG_BIN;
  if (fromEnv) return fs.existsSync(path.join(fromEnv, "initdb"));
  const dirs = (process.env.PATH ?? "").split(path.delimiter);
  const debian = "/usr/lib/postgresql";
  if (fs.existsSync(debian)) for (const version of fs.readdirSync(debian)) dirs.push(path.join(debian, version, "bin"));
  return dirs.some((dir) => dir && fs.existsSync(path.join(dir, "initdb")));
}
const runPostgresql = postgresqlInstalled() || Boolean(process.env.CI);
if (!runPostgresql) process.env.SERVEBENCH_POSTGRESQL_SUITE = "not-run";

const integration = {
  include: ["tests/integration/**/*.test.ts"],
  environment: "node" as const,
  // Each test file gets its own database, migrated with the real migrations.
  setupFiles: ["tests/integration/setup.ts"],
  pool: "forks" as const,
  testTimeout: GUARD_MS.integration,
  hookTimeout: GUARD_MS.integration,
};

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    // Vitest's default is one worker less than the cores: a single worker on a 2-core CI machine, which ran every
    // file one after another while much of the suite waits on servers, browsers and timeouts rather than on the
    // CPU. Half again as many workers as cores keeps both busy (the browser tests stay one file at a time, below).
    maxWorkers: "150%",
    // expect.poll's own default (1 s) is a budget, not a guard: a poll waits for its state as long as the test may.
    expect: { poll: { timeout: GUARD_MS.e2e, interval: 50 } },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          testTimeout: GUARD_MS.unit,
          hookTimeout: GUARD_MS.unit,
        },
      },
      {
        extends: true,
        test: { name: "integration", ...integration, exclude: ["tests/integration/postgresql-*.test.ts"] },
      },
      ...(runPostgresql
        ? [
            {
              extends: true as const,
              test: {
                name: "integration-postgresql",
                ...integration,
                // SQLite's own migration tests stay in the SQLite project (PostgreSQL's have a file of their own),
                // and so does the inference-server bench runner's, which touches no database.
                // SQLite's storage limits (max_page_count, query_only) have their PostgreSQL counterpart in
                // postgresql-storage.test.ts.
                // The CLI against a hostile server and the bench's open loop touch no servebench database either.
                exclude: [
                  "tests/integration/migrations.test.ts",
                  "tests/integration/bench-measure.test.ts",
                  "tests/integration/storage.test.ts",
                  "tests/integration/cli-hostile-server.test.ts",
                  "tests/integration/bench-open-loop.test.ts",
                ],
                globalSetup: ["tests/integration/postgresql-global-setup.ts"],
                env: { SERVEBENCH_TEST_DATABASE: "postgresql" },
              },
            },
          ]
        : []),
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          // Several instances on one PostgreSQL: where PostgreSQL is installed (always in CI).
          exclude: runPostgresql ? [] : ["tests/e2e/postgresql-*.test.ts"],
          environment: "node",
          // Builds the app when needed and serves it with `next start`, one server and database per worker.
          globalSetup: ["tests/e2e/global-setup.ts"],
          // After the other projects' files (their group, 0, comes first), E2E_WORKERS at a time, each file on a
          // server it has to itself while it runs (a lease: tests/e2e/worker-server.ts).
          maxWorkers: E2E_WORKERS,
          sequence: { groupOrder: 1 },
          testTimeout: GUARD_MS.e2e,
          hookTimeout: GUARD_MS.e2e,
        },
      },
    ],
  },
});
