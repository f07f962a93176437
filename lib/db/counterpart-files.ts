/**
 * Which SQLite migration each PostgreSQL migration stands for. Every PostgreSQL migration.sql opens with the line
 * `-- PostgreSQL counterpart of the SQLite migration(s): <name>, <name>`; every SQLite migration is named in
 * exactly one of them. tests/integration/migrations.test.ts holds the two folders to that rule.
 */
import fs from "node:fs";
import path from "node:path";

export const COUNTERPART_HEADER = "-- PostgreSQL counterpart of the SQLite migration(s): ";

export function migrationNames(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** PostgreSQL migration name → the SQLite migrations it is the counterpart of (empty: the header is missing). */
export function counterparts(postgresqlDir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of migrationNames(postgresqlDir)) {
    const first = fs.readFileSync(path.join(postgresqlDir, name, "migration.sql"), "utf8").split("\n")[0] ?? "";
    out.set(
      name,
      first.startsWith(COUNTERPART_HEADER)
        ? first
            .slice(COUNTERPART_HEADER.length)
            .split(",")
            .map((part) => part.trim())
            .filter(Boolean)
        : [],
    );
  }
  return out;
}

/** SQLite migrations that no PostgreSQL migration names as its counterpart. */
export function missingCounterparts(sqliteDir: string, postgresqlDir: string): string[] {
  const covered = new Set([...counterparts(postgresqlDir).values()].flat());
  return migrationNames(sqliteDir).filter((name) => !covered.has(name));
}
