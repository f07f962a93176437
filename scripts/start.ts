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

/** Polls the server's health route until it answers: only then is the address worth opening. */
async function waitUntilServing(url: string, server: ReturnType<typeof spawn>): Promise<boolean> {
  while (server.exitCode === null) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function main(): Promise<void> {
  const started = Date.now();
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  console.log("servebench: starting — database, demo data, build (first time only), then the server");
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
  await ensureBuild();

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
  const url = `http://localhost:${settings.PORT}`;
  if (await waitUntilServing(url, server)) {
    console.log(`servebench: serving ${url} (ready ${Math.round((Date.now() - started) / 1000)} s after start)`);
  }
}

main().catch((error: unknown) => {
  console.error(`servebench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
