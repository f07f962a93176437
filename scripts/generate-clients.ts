/**
 * `npm run db:generate` (and `npm install`): the Prisma clients, one per database. The models are written once,
 * in prisma/schema.prisma (SQLite); the PostgreSQL schema is derived from it here, with only the datasource's
 * provider and the client's output folder changed, so the two can never list different models. Both clients are
 * generated; lib/db/client.ts picks one at run time from DATABASE_URL.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { POSTGRESQL_SCHEMA_FILE, postgresqlSchemaOf } from "@/lib/db/schema-files";

const root = process.cwd();
const source = fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8");
const derived = path.join(root, POSTGRESQL_SCHEMA_FILE);
fs.mkdirSync(path.dirname(derived), { recursive: true });
fs.writeFileSync(derived, postgresqlSchemaOf(source));

const prisma = path.join(root, "node_modules", ".bin", "prisma");
for (const schema of [path.join("prisma", "schema.prisma"), POSTGRESQL_SCHEMA_FILE]) {
  const result = spawnSync(prisma, ["generate", "--schema", schema], { stdio: "inherit", cwd: root });
  if (result.status !== 0) {
    console.error(`prisma generate --schema ${schema} failed`);
    process.exit(result.status ?? 1);
  }
}
