#!/usr/bin/env node
// The `servebench` command. The commands are TypeScript that share the app's modules; this launcher runs
// them with tsx (a dependency of the package), so `npx servebench …` works from a clone with no build step.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsxCli = require.resolve("tsx/cli");
const main = path.join(root, "scripts", "cli", "main.ts");

// Ctrl-C reaches the child too (same process group): let it finish writing what it measured, then exit
// with its code, instead of dying first and handing the terminal back while it still writes.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

const result = spawnSync(
  process.execPath,
  [tsxCli, "--tsconfig", path.join(root, "tsconfig.json"), main, ...process.argv.slice(2)],
  {
    stdio: "inherit",
    env: process.env,
  },
);
process.exit(result.status ?? 1);
