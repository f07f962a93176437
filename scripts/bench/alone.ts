/** What the benchmark's parts share when one runs alone (`npx tsx scripts/bench/<part>.ts --url …`). */
import path from "node:path";

/** The value after `--name` on the command line, if given. */
export function option(name: string, args: readonly string[] = process.argv.slice(2)): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/** Print a table as Markdown rows. */
export function printTable(rows: readonly (readonly string[])[]): void {
  for (const row of rows) process.stdout.write(`| ${row.join(" | ")} |\n`);
}

/** Run `main` when `file` is the script node was started with; an error is one line on stderr and exit 1. */
export function runWhenMain(file: string, name: string, main: () => Promise<void>): void {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== path.resolve(file)) return;
  main().catch((error: unknown) => {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
