/**
 * The environment, read and validated once. Nothing else in the project reads process.env for its settings.
 */
import path from "node:path";
import { z } from "zod";

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default("file:./data/servebench.db"),
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  /** Largest accepted request body, in MB (10^6 bytes). */
  // A vLLM result saved with --save-detailed (per-request arrays) runs to tens of MB.
  SERVEBENCH_MAX_BODY_MB: z.coerce.number().positive().max(1024).default(100),
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

let cached: Env | undefined;

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

/** The SQLite file path behind DATABASE_URL (`file:./data/x.db` → absolute path). */
export function databaseFilePath(url: string = env().DATABASE_URL): string {
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file URL such as file:./data/servebench.db (got "${url}")`);
  }
  const file = url.slice("file:".length);
  // Resolved at run time against the working directory; not a build input to trace.
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), file);
}

export function maxBodyBytes(): number {
  return Math.round(env().SERVEBENCH_MAX_BODY_MB * 1_000_000);
}
