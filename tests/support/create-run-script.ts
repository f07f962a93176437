/**
 * A script that stores one run with createRun and ends: tests/integration/sqlite-writer.test.ts runs it to show
 * that a process whose writes went to the writer thread ends when its own work does. Prints the run's id.
 * Usage: DATABASE_URL=file:… tsx tests/support/create-run-script.ts FILE.json
 */
import fs from "node:fs";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { createRun } from "@/lib/runs/store";

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error("usage: create-run-script.ts FILE.json");
  const { id } = await createRun(normalizeRunDocument(JSON.parse(fs.readFileSync(file, "utf8"))));
  process.stdout.write(`${id}\n`);
}

void main();
