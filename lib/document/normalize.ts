/**
 * Raw upload → the canonical run document: validated, engine and tags lower-cased, the command parsed into
 * flags and env, extra top-level keys moved into metadata. The canonical form is what is stored and what
 * GET /api/runs/{id} returns, so normalizing it again changes nothing.
 */
import type { z } from "zod";
import { AppError, type ErrorIssue } from "@/lib/errors";
import { FORBIDDEN_KEYS, forbiddenKeyPath } from "@/lib/forbidden-keys";
import { zodIssues } from "@/lib/zod-issues";
import {
  normalizeFlagObject,
  parseCommand,
  parseFlagTokens,
  REDACTED,
  redactCommand,
  redactUrlPasswords,
  redactValue,
  redactValues,
  SECRET_NAME,
} from "./flags";
import { defaultRunName } from "./names";
import {
  type AccuracyScore,
  DOCUMENT_KEYS,
  type Flags,
  type Hardware,
  LIMITS,
  type ModelSize,
  type NotImportedEntry,
  type ResultPoint,
  RUN_FORMAT,
  RunDocumentSchema,
  SERVER_KEYS,
  type Speculative,
  type Workload,
} from "./schema";

/** A run as stored and served: the servebench/v1 document in canonical form. */
export interface RunDocument {
  format: typeof RUN_FORMAT;
  name: string;
  engine: string;
  engine_version?: string;
  model: string;
  hardware?: Hardware;
  command?: string;
  flags: Flags;
  env: Record<string, string>;
  workload?: Workload;
  speculative?: Speculative;
  /** The model's size as the run states it; the validity checks read it from the model's name otherwise. */
  model_size?: ModelSize;
  server_startup_s?: number;
  tags: string[];
  notes?: string;
  measured_at?: string;
  /** The series named explicitly; without it the run joins the series of its configuration (lib/series/key.ts). */
  series?: string;
  /** Stored in its named series despite a different configuration: marked, never judged with it. */
  series_override?: true;
  git_commit?: string;
  git_branch?: string;
  ci_url?: string;
  metadata: Record<string, string | number | boolean>;
  warnings: string[];
  /** The import report: stated numbers the run does not keep, with the reason (empty for documents written by hand). */
  not_imported: NotImportedEntry[];
  /** The tool format the run came from; "servebench/v1" for documents written by hand or by servebench. */
  source_format: string;
  results: ResultPoint[];
  /** Accuracy scores measured with the run, in evaluator, task, metric, filter order. */
  accuracy?: AccuracyScore[];
}

export { defaultRunName };

/**
 * zod issues of a run document → `{ path, message }` pairs that name every violated field: an unknown top-level
 * field is an extra field kept as metadata, so its issue says what such a field may hold.
 */
export function issuesFromZod(error: z.ZodError): ErrorIssue[] {
  return zodIssues(error, (issue, converted) => {
    if (
      issue.path.length === 1 &&
      typeof issue.path[0] === "string" &&
      !DOCUMENT_KEYS.has(issue.path[0]) &&
      issue.code !== "custom"
    ) {
      return {
        path: converted.path,
        message: "unknown top-level field: extra fields are kept as metadata and must be a string, number or boolean",
      };
    }
    if (issue.code === "invalid_value" && converted.path === "format") {
      return { path: converted.path, message: `must be "${RUN_FORMAT}"` };
    }
    return converted;
  });
}

export function validationError(issues: ErrorIssue[]): AppError {
  const first = issues[0];
  const summary = first ? `${first.path || "document"}: ${first.message}` : "invalid document";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new AppError("validation_failed", `The run document is invalid. ${summary}${more}`, issues);
}

export { REDACTED, redactCommand } from "./flags";

/**
 * Credentials out of flags: a secret flag's whole value (`--api-key`), and in any other value the credentials it
 * holds (a header's, `-H "Authorization: Bearer x"`; a URL's password), as redactCommand does in the command.
 */
function redactFlags(flags: Flags): Flags {
  return Object.fromEntries(
    Object.entries(flags).map(([name, value]) => [
      name,
      typeof value === "boolean"
        ? value
        : SECRET_NAME.test(name)
          ? REDACTED
          : Array.isArray(value)
            ? redactValues(value)
            : redactValue(value),
    ]),
  );
}

/** A secret variable's whole value (`HF_TOKEN`), and in any other the credentials it holds (a URL's password). */
function redactEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, SECRET_NAME.test(name) ? REDACTED : redactValue(value)]),
  );
}

/**
 * A variable of the command's `VAR=value` prefix that no document can hold: `__proto__`, `constructor` and
 * `prototype` are refused as keys of every write (a stored run must upload and restore again), so the command that
 * sets one is refused, by name, rather than the variable dropped.
 */
function unstorableEnvName(env: Record<string, string>): string | undefined {
  return Object.keys(env).find((name) => FORBIDDEN_KEYS.has(name));
}

function canonicalTags(tags: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  for (const tag of tags ?? []) seen.add(tag.trim().toLowerCase());
  return [...seen];
}

function definedOnly<T extends object>(value: T | undefined): T | undefined {
  if (!value) return undefined;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}

function canonicalPoint(point: ResultPoint): ResultPoint {
  const canonical = definedOnly(point) ?? {};
  if (canonical.sources && Object.keys(canonical.sources).length === 0) delete canonical.sources;
  return canonical;
}

/** A generated name cut to the name limit, so the stored document validates as an upload would. */
export function fittedName(name: string): string {
  return name.length <= LIMITS.nameChars ? name : `${name.slice(0, LIMITS.nameChars - 1).trimEnd()}…`;
}

/**
 * Validate and normalize an upload. Throws a 422 AppError naming every violated field. The canonical document
 * is validated again, so what is stored always passes the rules an upload of it would meet: a backup of the
 * server's own documents restores (a command that redaction made longer than its limit, a tag that lower-casing
 * made longer, too many flags once the command is parsed are refused here, not later).
 */
export function normalizeRunDocument(raw: unknown): RunDocument {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw validationError([{ path: "", message: "a run document must be a JSON object" }]);
  }
  const forbidden = forbiddenKeyPath(raw);
  if (forbidden) throw validationError([forbidden]);
  const parsed = RunDocumentSchema.safeParse(raw);
  if (!parsed.success) throw validationError(issuesFromZod(parsed.error));
  const doc = parsed.data;

  const fromCommand = doc.command ? parseCommand(doc.command) : { flags: {}, env: {} };
  const unstorable = unstorableEnvName(fromCommand.env);
  if (unstorable !== undefined) {
    throw validationError([
      {
        path: "command",
        message: `sets the environment variable "${unstorable}", a name servebench cannot store (every JavaScript object has a property of that name): rename the variable or leave it out of the command`,
      },
    ]);
  }
  const explicitFlags =
    doc.flags === undefined
      ? {}
      : Array.isArray(doc.flags)
        ? parseFlagTokens(doc.flags.map(String))
        : normalizeFlagObject(doc.flags);
  const env: Record<string, string> = { ...fromCommand.env };
  for (const [key, value] of Object.entries(doc.env ?? {})) env[key] = String(value);

  const metadata: Record<string, string | number | boolean> = { ...(doc.metadata ?? {}) };
  const ignored = new Set<string>(SERVER_KEYS);
  for (const [key, value] of Object.entries(doc)) {
    if (DOCUMENT_KEYS.has(key) || ignored.has(key)) continue;
    metadata[key] = value as string | number | boolean;
  }

  const engine = doc.engine.toLowerCase();
  const result: RunDocument = {
    format: RUN_FORMAT,
    name: doc.name ?? fittedName(defaultRunName(engine, doc.engine_version, doc.model, doc.workload)),
    engine,
    model: doc.model,
    flags: redactFlags({ ...fromCommand.flags, ...explicitFlags }),
    env: redactEnv(env),
    tags: canonicalTags(doc.tags),
    metadata,
    warnings: doc.warnings ?? [],
    not_imported: doc.not_imported ?? [],
    source_format: doc.source_format ?? RUN_FORMAT,
    results: doc.results.map(canonicalPoint),
  };
  if (doc.engine_version !== undefined) result.engine_version = doc.engine_version;
  const hardware = definedOnly(doc.hardware);
  if (hardware) result.hardware = hardware;
  if (doc.command !== undefined) result.command = redactCommand(doc.command);
  const workload = definedOnly(doc.workload);
  if (workload) result.workload = workload;
  const speculative = definedOnly(doc.speculative);
  if (speculative) result.speculative = speculative;
  const modelSize = definedOnly(doc.model_size);
  if (modelSize) result.model_size = modelSize;
  if (doc.accuracy !== undefined && doc.accuracy.length > 0) result.accuracy = canonicalAccuracy(doc.accuracy);
  if (doc.server_startup_s !== undefined) result.server_startup_s = doc.server_startup_s;
  if (doc.notes !== undefined && doc.notes.trim() !== "") result.notes = doc.notes;
  if (doc.measured_at !== undefined) result.measured_at = new Date(doc.measured_at).toISOString();
  if (doc.series !== undefined) result.series = doc.series;
  if (doc.series_override === true) result.series_override = true;
  if (doc.git_commit !== undefined) result.git_commit = doc.git_commit.toLowerCase();
  if (doc.git_branch !== undefined) result.git_branch = doc.git_branch;
  if (doc.ci_url !== undefined) result.ci_url = redactUrlPasswords(doc.ci_url);
  const again = RunDocumentSchema.safeParse(result);
  if (!again.success) {
    throw validationError(
      issuesFromZod(again.error).map((issue) => ({ path: issue.path, message: `${issue.message} (once normalized)` })),
    );
  }
  return result;
}

/** The scores in one order whatever order the files listed them in, each without its unset fields. */
function canonicalAccuracy(scores: readonly AccuracyScore[]): AccuracyScore[] {
  const key = (score: AccuracyScore) => [score.evaluator, score.task, score.metric, score.filter ?? ""];
  return scores
    .map((score) => definedOnly(score) as AccuracyScore)
    .sort((a, b) => {
      const left = key(a);
      const right = key(b);
      for (let index = 0; index < left.length; index++) {
        if (left[index] !== right[index]) return left[index]! < right[index]! ? -1 : 1;
      }
      return 0;
    });
}
