/**
 * The one Prisma client of the process. Only the query modules (lib/runs/queries.ts) use it.
 */
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { databaseFilePath } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";

// Writers wait this long for SQLite's write lock instead of failing with "database is locked".
const BUSY_TIMEOUT_MS = 10_000;

const globalForPrisma = globalThis as unknown as { servebenchPrisma?: PrismaClient };

function createClient(): PrismaClient {
  const adapter = new PrismaBetterSqlite3({ url: databaseFilePath(), timeout: BUSY_TIMEOUT_MS });
  return new PrismaClient({ adapter });
}

export function db(): PrismaClient {
  globalForPrisma.servebenchPrisma ??= createClient();
  return globalForPrisma.servebenchPrisma;
}
