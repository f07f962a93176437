/**
 * Where each database's schema and migrations live. The models are written once, in prisma/schema.prisma, whose
 * datasource is SQLite; the PostgreSQL schema is derived from it (scripts/generate-clients.ts) and generates a
 * client of its own. Migrations are SQL per database: prisma/migrations (SQLite) and
 * prisma/postgresql/migrations (PostgreSQL), each the counterpart of the other (docs/development.md).
 */
import path from "node:path";

export type Provider = "sqlite" | "postgresql";

/** The derived PostgreSQL schema, written by `npm run db:generate` (not committed: it is made from the models). */
export const POSTGRESQL_SCHEMA_FILE = path.join("lib", "generated", "postgresql.prisma");

export function migrationsDirOf(provider: Provider, root: string = process.cwd()): string {
  return provider === "sqlite"
    ? path.join(/*turbopackIgnore: true*/ root, "prisma", "migrations")
    : path.join(/*turbopackIgnore: true*/ root, "prisma", "postgresql", "migrations");
}

const DATASOURCE = /datasource\s+db\s*\{[^}]*\}/;
const OUTPUT = /(generator\s+client\s*\{[^}]*output\s*=\s*)"[^"]*"/;

/** prisma/schema.prisma with the PostgreSQL datasource and the PostgreSQL client's output folder. */
export function postgresqlSchemaOf(sqliteSchema: string): string {
  if (!DATASOURCE.test(sqliteSchema) || !OUTPUT.test(sqliteSchema)) {
    throw new Error("prisma/schema.prisma needs a `datasource db { … }` block and a `generator client` with an output");
  }
  return [
    "// Generated from prisma/schema.prisma by `npm run db:generate`: edit that file, not this one.",
    sqliteSchema
      .replace(DATASOURCE, 'datasource db {\n  provider = "postgresql"\n}')
      .replace(OUTPUT, '$1"./prisma-postgresql"'),
  ].join("\n");
}
