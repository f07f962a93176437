#!/usr/bin/env node
// The `servebench` command. In a clone it runs the TypeScript sources (scripts/cli/main.ts) with tsx, so a
// change needs no build step; in the published package, which holds only the bundle, it runs
// public/cli/servebench.mjs (the same command in one file, the one every servebench serves at /cli/servebench.mjs).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const main = path.join(root, "scripts", "cli", "main.ts");

if (!fs.existsSync(main)) {
  await import(pathToFileURL(path.join(root, "public", "cli", "servebench.mjs")).href);
} else {
  const require = createRequire(import.meta.url);
  const tsxCli = require.resolve("tsx/cli");
  // Ctrl-C reaches the child too (same process group): let it finish writing what it measured, then exit
  // with its code, instead of dying first and handing the terminal back while it still writes.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});
  const result = spawnSync(
    process.execPath,
    [tsxCli, "--tsconfig", path.join(root, "tsconfig.json"), main, ...process.argv.slice(2)],
    { stdio: "inherit", env: process.env },
  );
  process.exit(result.status ?? 1);
}
