// npm's postinstall. In a clone it generates the Prisma clients (SQLite and PostgreSQL, scripts/generate-clients.ts); in the published package (the CLI bundle
// alone, see package.json "files") there is no schema and nothing to do.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (fs.existsSync(path.join(root, "prisma", "schema.prisma"))) {
  const tsx = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");
  const result = spawnSync(process.execPath, [tsx, path.join("scripts", "generate-clients.ts")], {
    stdio: "inherit",
    cwd: root,
  });
  process.exit(result.status ?? 1);
}
