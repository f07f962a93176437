/**
 * The one Prisma client of the process, on the database DATABASE_URL names: SQLite (better-sqlite3) for a `file:`
 * URL or none, PostgreSQL (pg) for a `postgresql://` URL. This is the only place that knows there are two.
 *
 * The whole code base is typed against the SQLite client, so a query feature PostgreSQL has and SQLite lacks
 * (scalar lists, native types, case-insensitive `mode`) is a compile error rather than a PostgreSQL-only path.
 * Both clients are generated from the same models (scripts/generate-clients.ts), so their query API is the same;
 * the single cast below is where the PostgreSQL client is seen through the SQLite client's type.
 */
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { type DatabaseTarget, databaseTarget, env } from "@/lib/env";
import { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import {
  Prisma as PostgresqlPrisma,
  PrismaClient as PostgresqlPrismaClient,
} from "@/lib/generated/prisma-postgresql/client";
import type { Provider } from "./schema-files";
import { registerRowsFunction } from "./sqlite-rows";
import { closeSqliteWriter } from "./sqlite-writer";

type SqliteConnection = Parameters<typeof registerRowsFunction>[0];

// Connections each app instance keeps to PostgreSQL (pg's default). Several instances share one server: size the
// server's max_connections for instances × this (docs/deploy.md).
const POSTGRESQL_POOL_SIZE = 10;
// A PostgreSQL server that does not answer within this long is reported as unavailable instead of hanging requests.
const POSTGRESQL_CONNECT_TIMEOUT_MS = 5_000;
/**
 * SQLite's page cache for the app's connection, in KiB (negative: a size, not a page count). Its default, 2 MiB,
 * is smaller than what one history page reads at a million runs (a search's ~800 candidate rows are ~800 pages),
 * so each page was read again from the operating system: the search's queries took 2.4 ms with it, 1.1 ms with
 * 16 MiB (scripts/bench; docs/benchmarks.md). Memory used only as pages are read.
 */
export const SQLITE_CACHE_KIB = 32 * 1024;
/**
 * How many compiled query plans Prisma keeps (its default: 1,000). A plan is kept per query shape, and a batch's
 * shape depends on how many rows and ids it holds, so a restore of 10,000 runs filled the cache with plans of
 * hundreds of kB each: 420 MB of the server's heap still held after the restore ended. The pages' and the API's
 * own queries are a few dozen shapes.
 */
const QUERY_PLAN_CACHE_SIZE = 100;
/** How long one write transaction may run before it is abandoned (and answered busy): far above any the app makes. */
const TRANSACTION_TIMEOUT_MS = 60_000;

interface Holder {
  servebenchPrisma?: PrismaClient;
  servebenchProvider?: Provider;
  /** Whether the SQLite connection of each client has servebench_rows (lib/db/sqlite-rows.ts). */
  servebenchRowsReady?: WeakMap<PrismaClient, boolean>;
  /** The better-sqlite3 connection of each SQLite client, for the writes that go to it directly (sqlite-writes.ts). */
  servebenchSqliteConnections?: WeakMap<PrismaClient, SqliteConnection>;
}
const globalForPrisma = globalThis as unknown as Holder;

/** The PostgreSQL client must have been generated from the same models as the SQLite one. */
function checkPostgresqlClientIsCurrent(): void {
  for (const model of Object.values(Prisma.ModelName)) {
    const key = `${model}ScalarFieldEnum` as const;
    const sqlite = Object.keys((Prisma as unknown as Record<string, object>)[key] ?? {});
    const postgresql = Object.keys((PostgresqlPrisma as unknown as Record<string, object>)[key] ?? {});
    if (sqlite.join() !== postgresql.join()) {
      throw new Error(
        `The PostgreSQL Prisma client is older than prisma/schema.prisma (model ${model} differs): run \`npm run db:generate\``,
      );
    }
  }
}

/**
 * A client for the database `target` names. The app uses the one of db(); `servebench db copy` opens two.
 * Writers wait up to SERVEBENCH_LOCK_TIMEOUT_MS for a lock on both databases (SQLite's busy timeout,
 * PostgreSQL's lock_timeout) and then fail with "busy" (lib/db/database-errors.ts), rather than hang.
 */
export function openDatabase(target: DatabaseTarget): PrismaClient {
  const lockTimeoutMs = env().SERVEBENCH_LOCK_TIMEOUT_MS;
  // Prisma's own defaults (2 s to start a transaction, 5 s to finish it) are shorter than the lock wait, so on a
  // loaded machine a write that would have got its lock failed first with a 500: a transaction waits for its
  // connection as long as a writer waits for a lock, and may take a minute before it is abandoned (a busy 503).
  const transactionOptions = { maxWait: lockTimeoutMs, timeout: TRANSACTION_TIMEOUT_MS };
  if (target.provider === "sqlite") {
    const factory = new PrismaBetterSqlite3({ url: target.file, timeout: lockTimeoutMs });
    globalForPrisma.servebenchRowsReady ??= new WeakMap();
    globalForPrisma.servebenchSqliteConnections ??= new WeakMap();
    const ready = globalForPrisma.servebenchRowsReady;
    const connections = globalForPrisma.servebenchSqliteConnections;
    // The adapter opens its connection itself; it is given servebench_rows as it opens (the adapter's `client`
    // is the better-sqlite3 connection). Without it (an adapter that keeps it elsewhere) rows go as JSON.
    const adapter: Pick<typeof factory, "provider" | "adapterName" | "connect" | "connectToShadowDb"> = {
      provider: factory.provider as typeof factory.provider,
      adapterName: factory.adapterName,
      connect: async () => {
        const connected = await factory.connect();
        const connection = (connected as unknown as { client?: unknown }).client;
        if (connection && typeof (connection as { table?: unknown }).table === "function") {
          registerRowsFunction(connection as SqliteConnection);
          ready.set(client, true);
          connections.set(client, connection as SqliteConnection);
        }
        return connected;
      },
      connectToShadowDb: () => factory.connectToShadowDb(),
    };
    const client: PrismaClient = new PrismaClient({
      adapter,
      queryPlanCacheMaxSize: QUERY_PLAN_CACHE_SIZE,
      transactionOptions,
    });
    // The adapter keeps one connection, so this holds for every query after it. A failure here only costs speed,
    // and the first query reports whatever is wrong with the database.
    client.$executeRawUnsafe(`PRAGMA cache_size = -${SQLITE_CACHE_KIB}`).catch(() => {});
    return client;
  }
  checkPostgresqlClientIsCurrent();
  const adapter = new PrismaPg({
    connectionString: target.url,
    max: POSTGRESQL_POOL_SIZE,
    connectionTimeoutMillis: POSTGRESQL_CONNECT_TIMEOUT_MS,
    lock_timeout: lockTimeoutMs,
  });
  return new PostgresqlPrismaClient({
    adapter,
    queryPlanCacheMaxSize: QUERY_PLAN_CACHE_SIZE,
    transactionOptions,
  }) as unknown as PrismaClient;
}

export function db(): PrismaClient {
  if (!globalForPrisma.servebenchPrisma) {
    const target = databaseTarget();
    globalForPrisma.servebenchPrisma = openDatabase(target);
    globalForPrisma.servebenchProvider = target.provider;
  }
  return globalForPrisma.servebenchPrisma;
}

/** Whether the app's SQLite connection reads rows set aside for it (lib/db/sqlite-rows.ts). */
export function sqliteRowsReady(): boolean {
  return globalForPrisma.servebenchRowsReady?.get(db()) === true;
}

/**
 * The app's SQLite connection (the one Prisma's adapter opened), once it is open; null on PostgreSQL. The bulk write
 * paths use it directly (lib/db/sqlite-writes.ts).
 */
export async function sqliteConnection(): Promise<SqliteConnection | null> {
  if (provider() !== "sqlite") return null;
  const client = db();
  const connections = globalForPrisma.servebenchSqliteConnections;
  if (!connections?.has(client)) await client.$connect();
  return connections?.get(client) ?? null;
}

/** Which database the process runs on, for the few queries written per database (the text search, lib/runs/search.ts). */
export function provider(): Provider {
  if (!globalForPrisma.servebenchProvider) db();
  return globalForPrisma.servebenchProvider as Provider;
}

/** Close the connections (scripts and tests); the next db() opens a new client. */
export async function disconnectDb(): Promise<void> {
  await closeSqliteWriter();
  const client = globalForPrisma.servebenchPrisma;
  globalForPrisma.servebenchPrisma = undefined;
  globalForPrisma.servebenchProvider = undefined;
  await client?.$disconnect();
}
