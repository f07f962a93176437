/**
 * `npm start`: create or migrate the database, load the demo runs into an empty one, build when the build is
 * missing or stale, then serve the dashboard on PORT.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { disconnectDb } from "@/lib/db/client";
import { describeFilled, migrate } from "@/lib/db/migrate";
import { seedDemoRunsIfEmpty } from "@/lib/demo/seed";
import { databaseTarget, describeDatabase, env } from "@/lib/env";
import { ensureBuild } from "./build-state";

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const settings = env();
  const target = databaseTarget();
  // On PostgreSQL several instances may start at once: the migrations run under a lock, once.
  const migration = await migrate(target);
  const applied = migration.applied.length > 0 ? ` (applied ${migration.applied.join(", ")})` : "";
  console.log(`servebench: database ${describeDatabase(target)}${applied}${describeFilled(migration)}`);
  if (settings.SERVEBENCH_DEMO === "1") {
    const loaded = await seedDemoRunsIfEmpty();
    if (loaded > 0) console.log(`servebench: loaded ${loaded} demo runs (SERVEBENCH_DEMO=0 to start empty)`);
    await disconnectDb();
  }
  ensureBuild();

  const server = spawn(
    path.join(process.cwd(), "node_modules", ".bin", "next"),
    ["start", "-p", String(settings.PORT)],
    {
      stdio: "inherit",
      // A relative SQLite path is resolved here once, so the server opens the very file that was migrated.
      env: { ...process.env, DATABASE_URL: target.provider === "sqlite" ? `file:${target.file}` : target.url },
    },
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => server.kill(signal));
  }
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  console.log(`servebench: serving http://localhost:${settings.PORT}`);
}

main().catch((error: unknown) => {
  console.error(`servebench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
