/**
 * An upload request → runs ready to store. Accepts a raw body (a servebench/v1 document or any file a
 * supported benchmark tool writes, a zip of a results folder included) or a multipart form with one or
 * more `file` fields plus context fields that fill or override what the files say.
 */

import { z } from "zod";
import { canonicalEngine, engineOfCommand, UNKNOWN_ENGINE } from "@/lib/document/engine-of";
import { engineDisplayName } from "@/lib/document/names";
import { defaultRunName, fittedName, normalizeRunDocument, type RunDocument } from "@/lib/document/normalize";
import { RUN_FORMAT, type Workload } from "@/lib/document/schema";
import { AppError, type ErrorIssue, excerpt } from "@/lib/errors";
import { ACCURACY_PARSERS, modelMismatchWarning } from "@/lib/formats/accuracy";
import { expandArchives } from "@/lib/formats/archive";
import { type ParsedUpload, readUploads, type UploadFile } from "@/lib/formats/import";
import { conflictError, type Plan, planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import type { GivenLevel } from "@/lib/formats/types";
import { checkUploadFiles } from "@/lib/formats/upload-checks";
import { decodeUtf8, mediaTypeOf, readBodyWithLimit } from "@/lib/http/body";
import { parseMultipart } from "@/lib/http/multipart";
import { ownValue } from "@/lib/own-value";
import { documentDerived } from "@/lib/runs/derived-columns";
import type { RunToStore } from "@/lib/runs/store";
import { SERIES_FORMAT } from "@/lib/series/export-schema";
import { COMPARISON_FORMAT } from "./restore-lines";

/** Form fields that may accompany uploaded files. Empty fields are ignored. */
export const UPLOAD_CONTEXT_FIELDS = [
  "name",
  "engine",
  "engine_version",
  "model",
  "gpu",
  "gpu_count",
  "command",
  "tags",
  "notes",
  "series",
  "series_override",
  "git_commit",
  "git_branch",
  "ci_url",
] as const;
export type UploadContextField = (typeof UPLOAD_CONTEXT_FIELDS)[number];
export type UploadContext = Partial<Record<UploadContextField, string>>;

/** Apply form context over a parsed file. Runs before validation, so bad values are named like file fields. */
export function applyUploadContext(raw: unknown, context: UploadContext): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const doc: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const set = (field: UploadContextField, apply: (value: string) => void) => {
    const value = context[field]?.trim();
    if (value) apply(value);
  };
  set("name", (value) => (doc.name = value));
  set("engine", (value) => (doc.engine = value));
  set("engine_version", (value) => (doc.engine_version = value));
  set("model", (value) => (doc.model = value));
  set("command", (value) => (doc.command = value));
  set("notes", (value) => (doc.notes = value));
  set("series", (value) => (doc.series = value));
  // "1" or "true" as a form field; anything else reaches validation as text and is refused naming the field.
  set("series_override", (value) => (doc.series_override = value === "1" || value === "true" ? true : value));
  set("git_commit", (value) => (doc.git_commit = value));
  set("git_branch", (value) => (doc.git_branch = value));
  set("ci_url", (value) => (doc.ci_url = value));
  set("tags", (value) => {
    doc.tags = value
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
  });
  const hardwareOverride: Record<string, unknown> = {};
  set("gpu", (value) => (hardwareOverride.gpu = value));
  set("gpu_count", (value) => (hardwareOverride.gpu_count = /^\d+$/.test(value) ? Number(value) : value));
  if (Object.keys(hardwareOverride).length > 0) {
    const existing = doc.hardware;
    const base = typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {};
    doc.hardware = { ...base, ...hardwareOverride };
  }
  return doc;
}

/** Media types of a raw (non-multipart) upload body. Anything else is a 415 that says what to send. */
const RAW_MEDIA_TYPES = new Set([
  "application/json",
  "application/x-ndjson",
  "application/jsonl",
  "application/json-lines",
  "application/x-jsonlines",
  "text/csv",
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
  "text/x-yaml",
  "application/zip",
  "application/x-zip-compressed",
  "application/octet-stream",
]);

const SUPPORTED_TYPES =
  "application/json (a servebench/v1 document or a benchmark tool's results), another raw results file " +
  "(application/x-ndjson, text/csv, application/yaml, application/zip), or multipart/form-data with one or more `file` fields";

export interface UploadOptions {
  split: boolean;
  pick: number[] | undefined;
  /** `repeats=one_run`: a configuration's repeated load levels are stored as one run with repeats. */
  combineRepeats: boolean;
  /** `level=FILE=concurrency:8`: the load level of a file that states none, by the file's name as uploaded. */
  levels: Map<string, GivenLevel>;
}

/** Where a level the person gave came from, in the point's `sources`. */
export const GIVEN_LEVEL_SOURCE = "given with the upload (level)";

/** `concurrency:8` or `rate:2.5`: what a `level` field gives, after the file name. */
const LevelValueSchema = z.union([
  z.object({
    kind: z.literal("concurrency"),
    value: z.string().regex(/^[1-9]\d{0,6}$/, "a concurrency is a whole number from 1 to 1000000"),
  }),
  z.object({
    kind: z.literal("rate"),
    value: z
      .string()
      .regex(/^(\d+(\.\d*)?|\.\d+)$/, "a request rate is a positive number of requests per second, such as 2.5")
      .refine((text) => Number(text) > 0, "a request rate is a positive number of requests per second, such as 2.5"),
  }),
]);

const LEVEL_SHAPE = "FILE=concurrency:N or FILE=rate:R (requests per second), FILE being the file's name as uploaded";

function invalidLevel(text: string, why: string): AppError {
  return new AppError("validation_failed", `level "${excerpt(text, 200)}" is not ${LEVEL_SHAPE}: ${why}.`, [
    { path: "level", message: `${why} (expected ${LEVEL_SHAPE})` },
  ]);
}

/**
 * The `level` fields (form or query, repeatable): `FILE=concurrency:8`, `FILE=rate:2.5`. A request of one file may
 * leave out `FILE=`. A malformed one, or two for one file, is a 422 naming `level`.
 */
export function parseLevels(values: readonly string[], fileNames: readonly string[]): Map<string, GivenLevel> {
  const levels = new Map<string, GivenLevel>();
  for (const raw of values) {
    const text = raw.trim();
    if (text === "") continue;
    const match = /^(?:(.*)=)?(concurrency|rate):(.*)$/s.exec(text);
    if (!match) throw invalidLevel(text, "it does not end in concurrency:N or rate:R");
    const [, named, kind, value] = match;
    let file = named?.trim();
    if (file === undefined) {
      if (fileNames.length !== 1) throw invalidLevel(text, "the upload has several files, so say which one (FILE=)");
      file = fileNames[0]!;
    }
    if (file === "") throw invalidLevel(text, "the file name before = is empty");
    const parsed = LevelValueSchema.safeParse({ kind, value: value?.trim() });
    if (!parsed.success) throw invalidLevel(text, parsed.error.issues[0]?.message ?? "invalid value");
    if (levels.has(file)) throw invalidLevel(text, `"${excerpt(file)}" is given a level twice`);
    const number = Number(parsed.data.value);
    levels.set(
      file,
      parsed.data.kind === "concurrency"
        ? { concurrency: number, source: GIVEN_LEVEL_SOURCE, byPerson: true }
        : { request_rate: number, source: GIVEN_LEVEL_SOURCE, byPerson: true },
    );
  }
  return levels;
}

/** `repeats=one_run` (or a true value): store repeats as one run; anything else keeps them apart. */
function parseRepeats(value: string | null): boolean {
  if (value === null) return false;
  const text = value.trim().toLowerCase();
  return text === "one_run" || parseBoolean(text);
}

export interface UploadRequest {
  files: UploadFile[];
  context: UploadContext;
  options: UploadOptions;
}

function parseBoolean(value: string | null): boolean {
  return value !== null && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

function parsePick(value: string | null): number[] | undefined {
  if (value === null || value.trim() === "") return undefined;
  const parts = value.split(",").map((part) => part.trim());
  if (!parts.every((part) => /^\d+$/.test(part))) {
    throw new AppError(
      "bad_request",
      "fragments must be a comma-separated list of fragment numbers from the preview.",
      [{ path: "fragments", message: "expected numbers such as 0,2,3" }],
    );
  }
  return parts.map(Number);
}

function isRawUploadType(mediaType: string): boolean {
  return RAW_MEDIA_TYPES.has(mediaType) || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** The request's media type when an upload may have it; a 415 that says what to send otherwise. Reads no body. */
export function uploadMediaType(request: Request): string {
  const mediaType = mediaTypeOf(request);
  if (mediaType === "multipart/form-data" || isRawUploadType(mediaType)) return mediaType;
  throw new AppError(
    "unsupported_media_type",
    `Content-Type ${mediaType ? `"${excerpt(mediaType, 100)}"` : "(none)"} is not supported; send ${SUPPORTED_TYPES}.`,
  );
}

/** Longest file name kept from a request; longer ones are cut, so messages and logs stay short. */
const MAX_FILE_NAME_CHARS = 200;

/**
 * A file name as the request gave it, made safe to repeat in messages and logs and to store as one line of text
 * (an import report names its file): control characters, bidi overrides and marks and line separators shown as
 * `?`, and at most 200 characters.
 */
export function displayFileName(name: string): string {
  const clean = name.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu,
    "?",
  );
  return clean.length > MAX_FILE_NAME_CHARS ? `${clean.slice(0, MAX_FILE_NAME_CHARS)}…` : clean;
}

/** Read the files, form context and options of an upload request. Does not parse the files. */
export async function readUploadRequest(request: Request, limitBytes: number): Promise<UploadRequest> {
  uploadMediaType(request);
  const bytes = await readBodyWithLimit(request, limitBytes);
  return uploadRequestFromBytes(new URL(request.url), request.headers.get("content-type") ?? "", bytes);
}

/**
 * The files, form context and options of an upload whose body is read already. The files are views into the
 * body, not copies. Does not parse them.
 */
export function uploadRequestFromBytes(url: URL, contentType: string, bytes: Uint8Array): UploadRequest {
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (mediaType === "multipart/form-data") {
    const parts = parseMultipart(bytes, contentType);
    const entries = parts.filter((part) => part.name === "file");
    if (entries.length === 0) {
      throw new AppError("bad_request", "The multipart body has no `file` field; attach the results file as `file`.", [
        { path: "file", message: "is required" },
      ]);
    }
    const files: UploadFile[] = entries.map((entry, index) => ({
      name:
        entry.filename === null
          ? entries.length > 1
            ? `file ${index + 1}`
            : "file"
          : displayFileName(entry.filename || `file ${index + 1}`),
      bytes: entry.bytes,
    }));
    const field = (name: string): string | undefined => {
      const part = parts.find((candidate) => candidate.name === name && candidate.filename === null);
      return part ? decodeUtf8(part.bytes, `The form field ${name}`) : undefined;
    };
    const levelTexts = [
      ...parts
        .filter((part) => part.name === "level" && part.filename === null)
        .map((part) => decodeUtf8(part.bytes, "The form field level")),
      ...url.searchParams.getAll("level"),
    ];
    const context: UploadContext = {};
    for (const name of UPLOAD_CONTEXT_FIELDS) {
      const value = field(name);
      if (value !== undefined) context[name] = value;
    }
    return {
      files,
      context,
      options: {
        split: parseBoolean(field("split") ?? url.searchParams.get("split")),
        pick: parsePick(field("fragments") ?? url.searchParams.get("fragments")),
        combineRepeats: parseRepeats(field("repeats") ?? url.searchParams.get("repeats")),
        levels: parseLevels(
          levelTexts,
          files.map((file) => file.name),
        ),
      },
    };
  }
  const declaredJson = mediaType === "application/json" || mediaType.endsWith("+json");
  const name = displayFileName(url.searchParams.get("filename") ?? "request body");
  return {
    files: [{ name, bytes, declaredJson }],
    context: {},
    options: {
      split: parseBoolean(url.searchParams.get("split")),
      pick: parsePick(url.searchParams.get("fragments")),
      combineRepeats: parseRepeats(url.searchParams.get("repeats")),
      levels: parseLevels(url.searchParams.getAll("level"), [name]),
    },
  };
}

/**
 * Where a run's engine came from: typed by the person (the form, `--engine`), the launch command's program, the
 * file itself, or nothing (stored as "unknown"). null for a servebench/v1 document, whose engine is its own.
 */
export type EngineFrom = "person" | "command" | "file" | "not_stated";

export interface PlannedRunResult {
  /** The planned document with the form context applied, before validation: what the preview shows. */
  raw: Record<string, unknown>;
  engineFrom: EngineFrom | null;
  /** The canonical document, or null when the run is not valid yet (see issues). */
  document: RunDocument | null;
  issues: ErrorIssue[];
  fragments: number[];
}

export interface PreparedUpload {
  parsed: ParsedUpload;
  plan: Plan;
  runs: PlannedRunResult[];
  context: UploadContext;
  options: UploadOptions;
}

const MISSING_HINT: Record<string, string> = {
  model: "is required: the file does not name the model; fill in the model",
};

interface EngineDecision {
  from: EngineFrom;
  /** The command and the file name different engines: reported, never settled by picking one. */
  contradiction?: ErrorIssue;
}

/**
 * The engine of an imported run: what the person typed wins; otherwise the file's own word and the launch
 * command's program, which must agree; otherwise "unknown", so an upload from CI is never refused for lack of it.
 * A vLLM bench file's `backend` is the client's API style and is never read as the engine (the parsers do not).
 */
function decideEngine(raw: Record<string, unknown>, fileEngine: unknown, context: UploadContext): EngineDecision {
  if (context.engine?.trim()) return { from: "person" };
  const command = engineOfCommand(typeof raw.command === "string" ? raw.command : undefined);
  const stated = typeof fileEngine === "string" && fileEngine.trim() !== "" ? fileEngine : undefined;
  if (stated !== undefined) {
    if (command && canonicalEngine(command.engine) !== canonicalEngine(stated)) {
      return {
        from: "file",
        contradiction: {
          path: "engine",
          message: `the launch command starts ${engineDisplayName(command.engine)} (${command.evidence}) but the file says ${engineDisplayName(stated)}; fill in the engine that served the benchmark`,
        },
      };
    }
    return { from: "file" };
  }
  if (command) {
    raw.engine = command.engine;
    return { from: "command" };
  }
  raw.engine = UNKNOWN_ENGINE;
  return { from: "not_stated" };
}

/**
 * Name an imported run once its engine and model are known (from the files or the form): "vLLM 0.25.1 ·
 * opt-125m · random 1024→128", plus what tells it apart from the other runs of the same upload
 * ("--max-num-seqs 4"), in the words of lib/document/names.ts.
 */
function nameRun(raw: Record<string, unknown>, suffix: string, namedByPerson: boolean): void {
  if (typeof raw.name === "string" && raw.name.trim() !== "") {
    if (namedByPerson && suffix) raw.name = fittedName(`${raw.name.trim()} (${suffix})`);
    return;
  }
  if (typeof raw.engine !== "string" || typeof raw.model !== "string") return;
  const version = typeof raw.engine_version === "string" ? raw.engine_version : undefined;
  const workload =
    typeof raw.workload === "object" && raw.workload !== null && !Array.isArray(raw.workload)
      ? (raw.workload as Workload)
      : undefined;
  const base = defaultRunName(raw.engine.trim().toLowerCase(), version, raw.model.trim(), workload);
  raw.name = fittedName(suffix ? `${base} (${suffix})` : base);
}

/** Validate each planned run with the form context applied, keeping every run's issues. */
function validatePlannedRuns(plan: Plan, context: UploadContext): PlannedRunResult[] {
  return plan.runs.map((run) => {
    const raw = applyUploadContext(run.document, context) as Record<string, unknown>;
    const imported = typeof raw.source_format === "string" && raw.source_format !== RUN_FORMAT;
    // A servebench/v1 document states its engine itself: its writer knows it, and the schema requires it.
    const engine = imported ? decideEngine(raw, (run.document as Record<string, unknown>).engine, context) : null;
    const engineFrom = engine?.from ?? null;
    nameRun(raw, run.nameSuffix, Boolean(context.name?.trim()));
    try {
      const document = normalizeRunDocument(raw);
      if (engine?.contradiction) {
        return { raw, engineFrom, document: null, issues: [engine.contradiction], fragments: run.fragments };
      }
      return { raw, engineFrom, document, issues: [], fragments: run.fragments };
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "validation_failed") throw error;
      const issues = (error.issues ?? []).map((issue) => {
        const hint = imported && issue.message === "is required" ? ownValue(MISSING_HINT, issue.path) : undefined;
        return { path: issue.path, message: hint ?? issue.message };
      });
      if (engine?.contradiction) issues.unshift(engine.contradiction);
      return { raw, engineFrom, document: null, issues, fragments: run.fragments };
    }
  });
}

/** One 422 for every invalid run: each issue names its field and, when there are several runs, the run. */
export function invalidRunsError(runs: readonly PlannedRunResult[]): AppError | null {
  const issues: ErrorIssue[] = [];
  for (const [index, run] of runs.entries()) {
    const name = typeof run.raw.name === "string" ? `: "${run.raw.name}"` : "";
    const label = runs.length > 1 ? ` (run ${index + 1} of ${runs.length}${name})` : "";
    for (const issue of run.issues) {
      const text = `${issue.message}${label}`;
      if (!issues.some((existing) => existing.path === issue.path && existing.message === text)) {
        issues.push({ path: issue.path, message: text });
      }
    }
  }
  if (issues.length === 0) return null;
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new AppError(
    "validation_failed",
    `The run document is invalid. ${first.path || "document"}: ${first.message}${more}`,
    issues,
  );
}

/** How an export's saved-comparison and series lines begin (JSON.stringify writes no spaces). */
const EXPORT_MARKS = [`{"format":"${COMPARISON_FORMAT}"`, `{"format":"${SERIES_FORMAT}"`];

/**
 * The upload's accuracy results files go with the one run it makes: their scores become the run's `accuracy`, their
 * warnings its warnings. An upload of accuracy files alone, or of several runs (which run would the scores be of?),
 * is refused with the way to attach them instead.
 */
function attachAccuracy(parsed: ParsedUpload, plan: Plan): void {
  if (parsed.accuracy.length === 0) return;
  const files = parsed.accuracy.map((item) => `"${item.file}"`).join(", ");
  const attach =
    "attach them to a stored run: POST /api/runs/{id}/accuracy, or `servebench upload --eval FILE --run ID`";
  if (plan.runs.length === 0) {
    throw new AppError(
      "no_results",
      `Nothing to store: ${files} ${parsed.accuracy.length === 1 ? "holds" : "hold"} accuracy scores but no benchmark results. Upload ${parsed.accuracy.length === 1 ? "it" : "them"} with the benchmark files of the run, or ${attach}.`,
      parsed.accuracy.map((item) => ({
        path: "files",
        message: `${item.file}: accuracy scores without a benchmark run`,
      })),
    );
  }
  if (plan.runs.length > 1) {
    throw new AppError(
      "validation_failed",
      `The upload makes ${plan.runs.length} runs and holds accuracy scores (${files}): they cannot be given to one of them by guess. Upload them with one run, or ${attach}.`,
      [{ path: "files", message: `accuracy scores for ${plan.runs.length} runs` }],
    );
  }
  const run = plan.runs[0]!;
  const scores = [...(Array.isArray(run.document.accuracy) ? run.document.accuracy : [])];
  const warnings = [...(Array.isArray(run.document.warnings) ? run.document.warnings : [])];
  for (const item of parsed.accuracy) {
    scores.push(...item.scores);
    warnings.push(...item.warnings.map((warning) => `${item.file}: ${warning}`));
    const mismatch = typeof run.document.model === "string" ? modelMismatchWarning(item, run.document.model) : null;
    if (mismatch) warnings.push(mismatch);
  }
  run.document.accuracy = scores;
  if (warnings.length > 0) run.document.warnings = warnings;
}

/** Files of the upload no format matched are said on each run it makes: nothing is left out silently. */
function noteIgnoredFiles(parsed: ParsedUpload, plan: Plan): void {
  if (parsed.ignored.length === 0) return;
  const shown = 10;
  const names = parsed.ignored.slice(0, shown).map((item) => `"${item.file}"`);
  const more = parsed.ignored.length > shown ? ` and ${parsed.ignored.length - shown} more` : "";
  const warning = `Left out ${parsed.ignored.length === 1 ? "a file" : `${parsed.ignored.length} files`} of the upload that no tool's results format matches: ${names.join(", ")}${more}.`;
  for (const run of plan.runs) {
    const warnings = Array.isArray(run.document.warnings) ? run.document.warnings : [];
    run.document.warnings = [...warnings, warning];
  }
}

/** Parse, plan and validate an upload whose body is read already. */
export function prepareUploadRequest(upload: UploadRequest, options: { preview?: boolean } = {}): PreparedUpload {
  // Every archive of the upload against one expansion budget, then the bytes checked before anything is parsed.
  const files = expandArchives(upload.files);
  checkUploadFiles(files);
  // An export holds saved comparisons and series too, which an upload cannot store: restoring is its own request.
  if (
    files.some((file) => {
      const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
      return EXPORT_MARKS.some((mark) => bytes.includes(mark));
    })
  ) {
    throw new AppError(
      "validation_failed",
      "This is a servebench export with saved comparisons or series: restore it with POST /api/restore, which stores it line by line and keeps every id and link.",
      [{ path: "files", message: "is an export: send it to POST /api/restore" }],
    );
  }
  const parsed = readUploads(files, FORMAT_PARSERS, {
    levels: upload.options.levels,
    accuracyParsers: ACCURACY_PARSERS,
  });
  const plan = planRuns(parsed, {
    split: upload.options.split,
    pick: upload.options.pick,
    combineRepeats: upload.options.combineRepeats,
  });
  attachAccuracy(parsed, plan);
  noteIgnoredFiles(parsed, plan);
  if (plan.runs.length === 0) {
    const empty = parsed.skipped.filter((skipped) => skipped.no_results);
    if (empty.length > 0) {
      const named = empty.map((skipped) => `"${skipped.file}" is ${skipped.reason}`).join("; ");
      throw new AppError("no_results", `Nothing to store: ${named}.`, [
        ...empty.map((skipped) => ({ path: "files", message: `${skipped.file}: ${skipped.reason}` })),
      ]);
    }
    // A preview still answers when a file only lacks its level: the upload form asks for it there.
    if (options.preview && parsed.skipped.some((skipped) => skipped.needs_level)) {
      return { parsed, plan, runs: [], context: upload.context, options: upload.options };
    }
    const reasons = parsed.skipped.map((skipped) => `${skipped.file}: ${skipped.reason}`);
    const why = reasons.length > 0 ? ` Skipped ${reasons.join("; ")}.` : "";
    throw new AppError("validation_failed", `Nothing to store: no load points were found or kept.${why}`, [
      { path: "files", message: "no load points" },
    ]);
  }
  return {
    parsed,
    plan,
    runs: validatePlannedRuns(plan, upload.context),
    context: upload.context,
    options: upload.options,
  };
}

function restoredCreatedAt(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The runs to store, or the error that says why they cannot be stored as asked. Writes nothing. */
export function documentsToStore(prepared: PreparedUpload): RunToStore[] {
  if (prepared.plan.conflicts.length > 0 && !prepared.options.split) throw conflictError(prepared.plan);
  const invalid = invalidRunsError(prepared.runs);
  if (invalid) throw invalid;
  return prepared.runs.flatMap((run) =>
    run.document === null
      ? []
      : [
          {
            document: run.document,
            // Made here, in the upload worker: the server's thread only stores the rows.
            derived: documentDerived(run.document),
            // A document exported by a servebench keeps its id and upload time when restored elsewhere.
            restoreId: typeof run.raw.id === "string" ? run.raw.id : undefined,
            restoreCreatedAt: restoredCreatedAt(run.raw.created_at),
          },
        ],
  );
}

export { type RunPatchInput, RunPatchSchema } from "@/lib/document/schema";
