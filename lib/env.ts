/**
 * The environment, read and validated once. Nothing else in the project reads process.env for its settings.
 */
import path from "node:path";
import { z } from "zod";

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default("file:./data/servebench.db"),
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  /**
   * How long a write waits for a lock held by another writer before it is answered 503 database_busy, in ms:
   * SQLite's busy timeout and PostgreSQL's lock_timeout alike.
   */
  SERVEBENCH_LOCK_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  /** Largest accepted request body, in MB (10^6 bytes). */
  // A vLLM result saved with --save-detailed (per-request arrays) runs to tens of MB.
  SERVEBENCH_MAX_BODY_MB: z.coerce.number().positive().max(1024).default(100),
  /**
   * Largest export POST /api/restore takes as its raw body, in MB. It is stored in parts as it arrives (memory
   * holds about one), so the limit is disk, not memory: a team's export of 23,000 runs is ~136 MB.
   */
  SERVEBENCH_MAX_RESTORE_MB: z.coerce.number().positive().max(100_000).default(2_000),
  /** "0" keeps an empty database empty instead of loading the demo runs. */
  SERVEBENCH_DEMO: z.enum(["0", "1"]).default("1"),
  /**
   * The address people reach the dashboard at (https://bench.example.com), for the absolute links of link
   * previews (og:image). Unset: taken from each request's Host / X-Forwarded-* headers.
   */
  SERVEBENCH_PUBLIC_URL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://bench.example.com" }).optional(),
  ),
  /**
   * When set, creating, editing and deleting (runs and saved comparisons) need `Authorization: Bearer <token>`
   * (lib/http/auth.ts); reading stays open. Unset or empty: anyone who reaches the server may write.
   */
  SERVEBENCH_WRITE_TOKEN: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z
      .string()
      .min(16, { error: "must be at least 16 characters (generate one with: openssl rand -hex 32)" })
      .regex(/^[A-Za-z0-9._~+/-]+=*$/, {
        error: "must be a bearer token: letters, digits and - . _ ~ + / only (generate one with: openssl rand -hex 32)",
      })
      .optional(),
  ),
  /**
   * Where new regressions are announced: comma-separated http(s) URLs, each sent one JSON POST per regression
   * (Slack's incoming-webhook `text` and `blocks`, plus generic fields). Unset: no notifications.
   */
  SERVEBENCH_WEBHOOK_URLS: z.preprocess(
    (value) =>
      typeof value === "string"
        ? value
            .split(",")
            .map((url) => url.trim())
            .filter(Boolean)
        : [],
    z.array(z.url({ protocol: /^https?$/, error: "must be comma-separated http(s) URLs" })).max(20),
  ),
  /** The first retry of a failed webhook delivery waits this long (ms); each later one four times longer. */
  SERVEBENCH_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every variable servebench reads (the README and docs/deploy.md list each). */
export const ENV_VARIABLES = Object.keys(EnvSchema.shape);

let cached: Env | undefined;

/** Read the environment again on the next env() (scripts and tests that change process.env). */
export function reloadEnv(): void {
  cached = undefined;
}

export function env(): Env {
  if (cached) return cached;
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  cached = parsed.data;
  return cached;
}

/** Where the data lives, read from DATABASE_URL: a SQLite file (the default) or a PostgreSQL database. */
export type DatabaseTarget =
  | { provider: "sqlite"; url: string; file: string }
  | { provider: "postgresql"; url: string; host: string; port: number; database: string; user: string };

const SQLITE_EXAMPLE = "file:./data/servebench.db";
const POSTGRESQL_EXAMPLE = "postgresql://user:password@db.example.com:5432/servebench";

/**
 * DATABASE_URL → the database behind it. `file:<path>` (relative paths resolve against the working directory) is
 * SQLite; `postgresql://` or `postgres://` is PostgreSQL. Anything else is refused with both forms as examples.
 */
export function databaseTarget(url: string = env().DATABASE_URL): DatabaseTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith("file:")) {
    const file = trimmed.slice("file:".length);
    if (file === "") throw new Error(`DATABASE_URL "file:" names no file; use e.g. ${SQLITE_EXAMPLE}`);
    // Resolved at run time against the working directory; not a build input to trace.
    return { provider: "sqlite", url: trimmed, file: path.resolve(/*turbopackIgnore: true*/ process.cwd(), file) };
  }
  if (/^postgres(ql)?:\/\//i.test(trimmed)) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new Error(`DATABASE_URL is not a valid PostgreSQL URL; expected e.g. ${POSTGRESQL_EXAMPLE}`);
    }
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
    if (database === "" || database.includes("/")) {
      throw new Error(`DATABASE_URL names no database after the host; expected e.g. ${POSTGRESQL_EXAMPLE}`);
    }
    return {
      provider: "postgresql",
      url: trimmed,
      host: decodeURIComponent(parsed.hostname) || "localhost",
      port: parsed.port === "" ? 5432 : Number(parsed.port),
      database,
      user: decodeURIComponent(parsed.username),
    };
  }
  throw new Error(
    `DATABASE_URL must be a SQLite file URL such as ${SQLITE_EXAMPLE} or a PostgreSQL URL such as ${POSTGRESQL_EXAMPLE} (got "${redactedDatabaseUrl(trimmed)}")`,
  );
}

/** The SQLite file path behind DATABASE_URL (`file:./data/x.db` → absolute path); an error for PostgreSQL. */
export function databaseFilePath(url: string = env().DATABASE_URL): string {
  const target = databaseTarget(url);
  if (target.provider !== "sqlite") throw new Error("DATABASE_URL names a PostgreSQL database, not a SQLite file");
  return target.file;
}

/** DATABASE_URL with its password replaced by "***", for logs and messages. */
export function redactedDatabaseUrl(url: string = env().DATABASE_URL): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

/** What the logs say about the database: the file, or the server and database without the password. */
export function describeDatabase(target: DatabaseTarget = databaseTarget()): string {
  return target.provider === "sqlite"
    ? `SQLite ${target.file}`
    : `PostgreSQL ${target.host}:${target.port}/${target.database}`;
}

export function maxBodyBytes(): number {
  return Math.round(env().SERVEBENCH_MAX_BODY_MB * 1_000_000);
}

export function maxRestoreBytes(): number {
  return Math.round(env().SERVEBENCH_MAX_RESTORE_MB * 1_000_000);
}
