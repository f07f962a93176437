/**
 * `servebench <command>`: the command line of servebench, for scripts and CI.
 */
import { BENCH_USAGE, runBench } from "./bench";
import { DB_USAGE, runDb } from "./db-copy";
import { runUpload, UPLOAD_USAGE } from "./upload";

const USAGE = `Usage: servebench <command> [options]

Commands:
  upload   send benchmark results files to a servebench server
  bench    measure an OpenAI-compatible inference server and write (or upload) the run
  db copy  copy a whole history from one database to another (SQLite → PostgreSQL)

${UPLOAD_USAGE}

${BENCH_USAGE}

${DB_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "upload") return runUpload(rest);
  if (command === "bench") return runBench(rest);
  if (command === "db") return runDb(rest);
  process.stderr.write(`servebench: unknown command "${command}"\n\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`servebench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
