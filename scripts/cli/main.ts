/**
 * `servebench <command>`: the command line of servebench, for scripts and CI.
 */
import { BENCH_USAGE, runBench } from "./bench";
import { COMPARE_USAGE, runCompare } from "./compare";
import { DB_USAGE } from "./db-usage";
import { EXPORT_RUN_USAGE, runExportRun } from "./export-run";
import { MCP_USAGE, runMcp } from "./mcp";
import { RESTORE_USAGE, runRestore } from "./restore";
import { terminalSafe } from "./server-text";
import { runUpload, UPLOAD_USAGE } from "./upload";

const USAGE = `Usage: servebench <command> [options]

Commands:
  upload   send benchmark results files to a servebench server
  compare  a run against a baseline: headline, deltas and what changed, as markdown or JSON
  export-run  one run as a file: llm-d benchmark reports v0.2.1 (one per load point) or its servebench/v1 document
  bench    measure an OpenAI-compatible inference server and write (or upload) the run
  restore  restore an export (GET /api/export) into a servebench, with progress; run again to resume
  db copy  copy a whole history from one database to another (SQLite → PostgreSQL)
  mcp      servebench's read-only MCP tools over stdio, for agent clients

Exit codes: 0 done, 1 rejected or unreachable, 2 bad usage, 3 a regression (upload --fail-on-regression),
130 interrupted (bench, restore).

${UPLOAD_USAGE}

${COMPARE_USAGE}

${EXPORT_RUN_USAGE}

${BENCH_USAGE}

${RESTORE_USAGE}

${DB_USAGE}

${MCP_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "upload") return runUpload(rest);
  if (command === "bench") return runBench(rest);
  if (command === "compare") return runCompare(rest);
  if (command === "mcp") return runMcp(rest);
  if (command === "export-run") return runExportRun(rest);
  if (command === "restore") return runRestore(rest);
  // Loaded only when asked for: it needs the database drivers of a servebench installation, which the one-file
  // CLI (scripts/cli/bundle.ts) leaves out.
  if (command === "db") return (await import("./db-copy")).runDb(rest);
  process.stderr.write(`servebench: unknown command "${command}"\n\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // An unexpected error's message may quote a server's answer.
    process.stderr.write(`${terminalSafe(`servebench: ${error instanceof Error ? error.message : String(error)}`)}\n`);
    process.exit(1);
  },
);
