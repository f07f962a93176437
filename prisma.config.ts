import path from "node:path";
import { defineConfig } from "prisma/config";

// Prisma's CLI downloads a native schema engine before any command unless this points at a file. We never
// use that engine (migrations are applied by scripts/migrate.ts), so any existing file will do.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(process.cwd(), "prisma", "schema.prisma");

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  datasource: { url: process.env.DATABASE_URL ?? "file:./data/servebench.db" },
});
