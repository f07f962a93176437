/**
 * `npm run db:migrate`: create or upgrade the database DATABASE_URL names: a SQLite file (default
 * ./data/servebench.db) or a PostgreSQL database. Safe to run from several instances at once on PostgreSQL.
 */
import { describeFilled, migrate } from "@/lib/db/migrate";
import { databaseTarget, describeDatabase } from "@/lib/env";

async function main(): Promise<void> {
  const target = databaseTarget();
  const result = await migrate(target);
  const applied = result.applied.length > 0 ? `applied ${result.applied.join(", ")}` : "already up to date";
  console.log(`servebench: database ${describeDatabase(target)}: ${applied}${describeFilled(result)}`);
}

main().catch((error: unknown) => {
  console.error(`servebench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
