/**
 * Uploaded files → fragments: each file is decoded, its format detected by content, and parsed into fragments,
 * which planRuns (lib/formats/import-plan.ts) makes into runs.
 */

import { keepsExactDigits, type ResultPoint, RUN_FORMAT } from "@/lib/document/schema";
import { AppError, excerpt } from "@/lib/errors";
import { detectAccuracyFormat, parseAccuracyFile } from "./accuracy";
import type { AccuracyImport, AccuracyParser } from "./accuracy-types";
import { levelFromFolders } from "./aiperf-folder";
import { expandArchives } from "./archive";
import {
  DecodeError,
  decodeAsText,
  decodeFile,
  findDuplicateKey,
  largeNumbersField,
  MAX_NESTING_DEPTH,
  nestingDepth,
  parseLenientJson,
} from "./decode";
import { placeLargeNumbers } from "./large-numbers";
import { accountFile, collapse, skippedLinesWarning } from "./report";
import {
  FormatError,
  type FormatId,
  type FormatParser,
  type Fragment,
  type GivenLevel,
  NeedsLevelError,
  NoResultsError,
  type SourceFile,
  type Supplement,
} from "./types";

export interface UploadFile {
  name: string;
  bytes: Uint8Array;
  /** Set for a raw request body sent as application/json: it is decoded as JSON only, and errors say so. */
  declaredJson?: boolean;
}

export interface IndexedFragment extends Fragment {
  index: number;
  formatLabel: string;
}

export interface SkippedFile {
  file: string;
  format: FormatId;
  reason: string;
  /** The file could be a load point if its level were given (`level` with the upload). */
  needs_level?: true;
  /** The file holds no results at all (every request failed). */
  no_results?: true;
}

export interface ReadOptions {
  /** Levels the person gave, by file name as uploaded (a path inside a folder or zip). */
  levels?: ReadonlyMap<string, GivenLevel>;
  /** Parsers of evaluators' accuracy results (lib/formats/accuracy.ts): their files become the run's accuracy scores. */
  accuracyParsers?: readonly AccuracyParser[];
}

/** "concurrency 8", "2.5 req/s", "concurrency 8 at 2.5 req/s". */
export function describeGivenLevel(level: Pick<GivenLevel, "concurrency" | "request_rate">): string {
  const parts: string[] = [];
  if (level.concurrency !== undefined) parts.push(`concurrency ${level.concurrency}`);
  if (level.request_rate !== undefined) parts.push(`${level.request_rate} req/s`);
  return parts.join(" at ");
}

export interface ParsedUpload {
  /** servebench/v1 documents: complete runs, taken as they are. */
  documents: { file: string; raw: Record<string, unknown> }[];
  fragments: IndexedFragment[];
  /** Files recognized but holding no load points of their own (a sweep's aggregate, server-side metrics). */
  skipped: SkippedFile[];
  /** Fragments dropped because another file holds exactly the same figures (a sweep summary repeating its runs). */
  duplicates: { file: string; part: string; sameAs: string }[];
  /** Evaluators' results files (lm-eval, lighteval): accuracy scores for the run the upload makes. */
  accuracy: AccuracyImport[];
  /**
   * Files of a folder or zip that no tool's format matches (a tool's log, its inputs, a plot): left out, and said,
   * when other files of the upload are results. Alone, such a file is the upload's refusal.
   */
  ignored: { file: string; reason: string }[];
}

export function describe(fragment: Pick<Fragment, "file" | "part">): string {
  return fragment.part ? `${fragment.file} (${fragment.part})` : fragment.file;
}

function isServebenchDocument(data: unknown): data is Record<string, unknown> {
  return (
    typeof data === "object" &&
    data !== null &&
    !Array.isArray(data) &&
    (data as Record<string, unknown>).format === RUN_FORMAT
  );
}

/** An object clearly trying to be a run document (another servebench version, or a list of results without a format). */
// Keys only a run document has together: a `results` list alone is common to many tools' files (lm-eval, genai-bench,
// …), and reading one of those as a broken servebench document answers with a thousand irrelevant issues.
const RUN_DOCUMENT_KEYS = ["engine", "engine_version", "model", "hardware", "command", "workload", "flags"];

function looksLikeRunDocument(data: unknown): data is Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
  const record = data as Record<string, unknown>;
  if (typeof record.format === "string" && record.format.startsWith("servebench")) return true;
  if (!Array.isArray(record.results)) return false;
  return RUN_DOCUMENT_KEYS.filter((key) => Object.hasOwn(record, key)).length >= 2;
}

/** A file its name or first character says is meant as JSON: a broken one is answered with where it broke. */
function meantAsJson(name: string, bytes: Uint8Array): boolean {
  if (/\.(json|jsonl|ndjson)$/i.test(name)) return true;
  for (const byte of bytes.subarray(0, 4096)) {
    // Whitespace and a byte-order mark come before the first character that matters.
    if (
      byte === 0x20 ||
      byte === 0x09 ||
      byte === 0x0a ||
      byte === 0x0d ||
      byte === 0xef ||
      byte === 0xbb ||
      byte === 0xbf
    )
      continue;
    return byte === 0x7b || byte === 0x5b; // { or [
  }
  return false;
}

export function supportedFormatsText(parsers: readonly FormatParser[]): string {
  const labels = [...new Set(parsers.map((parser) => parser.label))];
  return ["servebench/v1 JSON", ...labels].join("; ");
}

/** Files in one upload, zip entries included: more is a mistake or an attack, not a benchmark. */
export const MAX_UPLOAD_FILES = 1_000;

function expandUploads(files: readonly UploadFile[]): UploadFile[] {
  if (files.length > MAX_UPLOAD_FILES) {
    throw new AppError(
      "payload_too_large",
      `The upload holds ${files.length} files; at most ${MAX_UPLOAD_FILES} are taken at once.`,
    );
  }
  // One expansion budget for all the archives of the upload.
  const expanded = expandArchives(files);
  if (expanded.length > MAX_UPLOAD_FILES) {
    throw new AppError(
      "payload_too_large",
      `The upload holds ${expanded.length} files once unzipped; at most ${MAX_UPLOAD_FILES} are taken at once.`,
    );
  }
  return expanded;
}

/** Decode, detect and parse every file. Throws AppErrors naming the file (and field) that could not be read. */
export function readUploads(
  files: readonly UploadFile[],
  parsers: readonly FormatParser[],
  options: ReadOptions = {},
): ParsedUpload {
  const result: ParsedUpload = {
    documents: [],
    fragments: [],
    skipped: [],
    duplicates: [],
    accuracy: [],
    ignored: [],
  };
  const expanded = expandUploads(files);
  if (expanded.length === 0) throw new AppError("bad_request", "The upload holds no files.");
  const givenLevels = options.levels ?? new Map<string, GivenLevel>();
  checkLevelNames(givenLevels, expanded);
  const parsedFragments: { fragment: Fragment; parser: FormatParser }[] = [];

  const supplements: IndexedSupplement[] = [];
  const unrecognized: { file: string; error: AppError }[] = [];
  for (const upload of expanded) {
    let source: SourceFile | null = null;
    let decodeError: DecodeError | null = null;
    try {
      source = upload.declaredJson ? decodeJsonBody(upload) : decodeFile(upload.name, upload.bytes);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      decodeError = error;
    }
    if (!source || !parsers.some((candidate) => detects(candidate, source as SourceFile))) {
      // A printed report (llama-bench's markdown table, trtllm-bench's report) decodes as nothing, or as YAML that
      // nothing claims: read it as text when a parser of printed reports knows it.
      const text = upload.declaredJson ? null : decodeAsText(upload.name, upload.bytes);
      if (text && parsers.some((candidate) => detects(candidate, text))) source = text;
    }
    if (!source) {
      // Text that is not meant as JSON and that no parser knows (a printed summary, a log) is a format servebench
      // does not read, not broken JSON.
      if (decodeError && !upload.declaredJson && decodeError.noFormat && !meantAsJson(upload.name, upload.bytes)) {
        unrecognized.push({
          file: upload.name,
          error: new AppError(
            "unsupported_format",
            `"${upload.name}" is not a results file servebench recognizes: it is text, but not JSON, JSON lines, YAML, CSV or a printed report servebench reads. Supported: ${supportedFormatsText(parsers)}.`,
          ),
        });
        continue;
      }
      // A binary file beside results (a plot, a tool's cache) is left out like any file no format matches; alone,
      // it is the upload's refusal as before.
      if (decodeError?.binary && !upload.declaredJson) {
        unrecognized.push({ file: upload.name, error: new AppError("invalid_json", decodeError.message) });
        continue;
      }
      throw new AppError("invalid_json", decodeError?.message ?? `"${upload.name}" could not be read.`);
    }
    const decodedSource = source;
    const accuracyParser = options.accuracyParsers
      ? detectAccuracyFormat(decodedSource, options.accuracyParsers)
      : undefined;
    if (accuracyParser) {
      if (givenLevels.has(upload.name)) {
        throw new AppError(
          "validation_failed",
          `"${upload.name}" is ${accuracyParser.label}: accuracy scores have no load level to give.`,
          [{ path: `level.${upload.name}`, message: "is given for an accuracy results file, which has no load level" }],
        );
      }
      result.accuracy.push(parseAccuracyFile(accuracyParser, decodedSource, upload.name));
      continue;
    }
    const given = givenLevels.get(upload.name);
    const level = given ?? levelFromFolders(upload.name);
    if (level) source.level = level;
    const documentData = source.data;
    if (
      given &&
      (isServebenchDocument(documentData) ||
        (Array.isArray(documentData) && documentData.length > 0 && documentData.every(isServebenchDocument)) ||
        (!parsers.some((candidate) => detects(candidate, source as SourceFile)) && looksLikeRunDocument(documentData)))
    ) {
      throw levelConflict(upload.name, given, "a servebench run document states the level of each of its points");
    }
    if (isServebenchDocument(source.data)) {
      result.documents.push({ file: upload.name, raw: withExactDigits(source, source.data, [0], upload.name) });
      continue;
    }
    // A list of run documents: what servebench's comparison export writes.
    if (Array.isArray(source.data) && source.data.length > 0 && source.data.every(isServebenchDocument)) {
      const list = source;
      source.data.forEach((raw, index) => {
        const file = `${upload.name} [${index}]`;
        const place = list.kind === "jsonl" ? [index] : [0, index];
        result.documents.push({ file, raw: withExactDigits(list, raw, place, file) });
      });
      continue;
    }
    const decoded = source;
    const parser = parsers.find((candidate) => detects(candidate, decoded));
    if (!parser && looksLikeRunDocument(source.data)) {
      // No tool's file, but shaped like a run document: validation will name what is wrong with it.
      result.documents.push({ file: upload.name, raw: withExactDigits(source, source.data, [0], upload.name) });
      continue;
    }
    if (!parser) {
      const resultsOnly =
        typeof source.data === "object" &&
        source.data !== null &&
        Array.isArray((source.data as { results?: unknown }).results);
      unrecognized.push({
        file: upload.name,
        error: new AppError(
          resultsOnly ? "not_a_run_document" : "unsupported_format",
          `"${upload.name}" is not a results file servebench recognizes${
            resultsOnly
              ? ' (it has a "results" list, but no "format": "servebench/v1" nor the engine, model and hardware of a run document)'
              : ""
          }. Supported: ${supportedFormatsText(parsers)}.`,
        ),
      });
      continue;
    }
    let fragments: Fragment[];
    try {
      fragments = parser.parse(source);
    } catch (error) {
      if (error instanceof NeedsLevelError || error instanceof NoResultsError) {
        result.skipped.push({
          file: upload.name,
          format: parser.id,
          reason: error.message,
          ...(error instanceof NeedsLevelError ? { needs_level: true as const } : { no_results: true as const }),
        });
        continue;
      }
      if (error instanceof FormatError) {
        throw new AppError(
          "validation_failed",
          `"${upload.name}" (${parser.label}) could not be imported: ${error.path}: ${error.message}`,
          [{ path: error.path, message: `${error.message} (in "${upload.name}")` }],
        );
      }
      throw error;
    }
    if (source.skippedLines && source.skippedLines.length > 0) {
      const warning = skippedLinesWarning(upload.name, source.skippedLines);
      for (const fragment of fragments) fragment.warnings.unshift(warning);
    }
    accountFile(source, fragments, parser);
    if (given && !takesLevel(fragments, given)) throw refusedLevel(upload.name, given, fragments, parser);
    if (fragments.length === 0) {
      result.skipped.push({
        file: upload.name,
        format: parser.id,
        reason: `${parser.label}: holds no load points of its own`,
      });
      continue;
    }
    for (const fragment of fragments) parsedFragments.push({ fragment, parser });
  }
  // A file no format matches is the refusal of an upload that holds nothing else; beside results it is left out.
  const recognized =
    result.documents.length + parsedFragments.length + result.skipped.length + result.accuracy.length > 0;
  if (unrecognized.length > 0 && !recognized) throw unrecognized[0]!.error;
  result.ignored = unrecognized.map(({ file }) => ({ file, reason: "no tool's results format servebench reads" }));
  const seen = new Map<string, string>();
  for (const { fragment, parser } of withoutCopies(parsedFragments, result)) {
    if (fragment.supplement) {
      supplements.push({ fragment, supplement: fragment.supplement, format: parser.id });
      continue;
    }
    if (fragment.points.length === 0) {
      // A part of the file with no load level to file its figures under (a trace replay, say).
      const why = fragment.warnings.length > 0 ? fragment.warnings.join(" ") : "no load points";
      result.skipped.push({ file: describe(fragment), format: parser.id, reason: why });
      continue;
    }
    const key = JSON.stringify([fragment.format, fragment.context, stripSources(fragment.points)]);
    const first = seen.get(key);
    if (first !== undefined) {
      result.duplicates.push({ file: fragment.file, part: fragment.part, sameAs: first });
      continue;
    }
    seen.set(key, describe(fragment));
    result.fragments.push({ ...fragment, index: result.fragments.length, formatLabel: parser.label });
  }
  attachSupplements(result, supplements);
  return result;
}

function folderOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash === -1 ? "" : file.slice(0, slash);
}

/**
 * Fragments that repeat another file of the same run (AIPerf's CSV beside its JSON summary) are dropped, with their
 * reason, when that file is in the same folder and gave points. Loose files (no folder) are never paired.
 */
function withoutCopies<Entry extends { fragment: Fragment }>(entries: readonly Entry[], result: ParsedUpload): Entry[] {
  const primaries = new Set(
    entries
      .filter(({ fragment }) => !fragment.copyOf && fragment.points.length > 0 && folderOf(fragment.file) !== "")
      .map(({ fragment }) => JSON.stringify([fragment.format, folderOf(fragment.file)])),
  );
  return entries.filter(({ fragment }) => {
    const copyOf = fragment.copyOf;
    if (!copyOf || !primaries.has(JSON.stringify([copyOf.format, folderOf(fragment.file)]))) return true;
    result.skipped.push({ file: describe(fragment), format: fragment.format, reason: copyOf.why });
    return false;
  });
}

/** Every level given for a file names a file of the upload (zip entries by their path, "run.zip/c8/x.csv"). */
function checkLevelNames(levels: ReadonlyMap<string, GivenLevel>, files: readonly UploadFile[]): void {
  const names = new Set(files.map((file) => file.name));
  for (const name of levels.keys()) {
    if (names.has(name)) continue;
    const shown = files
      .slice(0, 5)
      .map((file) => `"${file.name}"`)
      .join(", ");
    throw new AppError(
      "validation_failed",
      `level: the upload has no file named "${excerpt(name)}"; name a file as the upload names it (${shown}${files.length > 5 ? ", …" : ""}).`,
      [{ path: "level", message: `names no file of the upload: "${excerpt(name)}"` }],
    );
  }
}

/** The parser put the given level into a point: the file had none of its own. */
function takesLevel(fragments: readonly Fragment[], level: GivenLevel): boolean {
  return fragments.some((fragment) =>
    fragment.points.some(
      (point) => point.sources?.concurrency === level.source || point.sources?.request_rate === level.source,
    ),
  );
}

function levelConflict(file: string, given: GivenLevel, states: string): AppError {
  return new AppError(
    "validation_failed",
    `level: "${file}" was given ${describeGivenLevel(given)}, but ${states}; a file's own level is kept, so give no level for it.`,
    [{ path: "level", message: `"${file}" states its own load level; ${describeGivenLevel(given)} was given` }],
  );
}

/** A level given for a file that does not take one: it states its own, or it holds no load point at all. */
function refusedLevel(file: string, given: GivenLevel, fragments: readonly Fragment[], parser: FormatParser): AppError {
  const points = fragments.flatMap((fragment) => fragment.points);
  if (points.length === 0) {
    return new AppError(
      "validation_failed",
      `level: "${file}" (${parser.label}) holds no load point a level could be given to.`,
      [{ path: "level", message: `"${file}" holds no load point of its own` }],
    );
  }
  const stated = [
    ...new Set(
      points.map((point) => {
        const level = describeGivenLevel({
          concurrency: point.concurrency,
          request_rate: typeof point.request_rate === "number" ? point.request_rate : undefined,
        });
        const where = point.sources?.concurrency ?? point.sources?.request_rate;
        return point.request_rate === "inf" ? "an unlimited request rate" : where ? `${level} (${where})` : level;
      }),
    ),
  ];
  const shown = stated.slice(0, 3).join(", ") + (stated.length > 3 ? `, and ${stated.length - 3} more` : "");
  return levelConflict(file, given, `the file states its own load level: ${shown}`);
}

/**
 * A run document of a decoded file with its numbers beyond ±2^53 as their digits where a document keeps them
 * (metadata, flags, env), and refused, naming the field, anywhere else (lib/document/schema.ts, keepsExactDigits).
 * `place` is where the document is in the file: [0] a JSON file's value, [0, i] its i-th element, [i] the i-th line.
 */
function withExactDigits(
  source: SourceFile,
  raw: Record<string, unknown>,
  place: readonly number[],
  file: string,
): Record<string, unknown> {
  const found = (source.largeNumbers ?? [])
    .filter((entry) => place.every((step, depth) => entry.path[depth] === step))
    .map((entry) => ({ path: entry.path.slice(place.length), literal: entry.literal }));
  if (found.length > 0) placeLargeNumbers(raw, found, keepsExactDigits, `The run document "${file}"`);
  return raw;
}

function detects(parser: FormatParser, file: SourceFile): boolean {
  try {
    return parser.detect(file);
  } catch {
    return false;
  }
}

interface IndexedSupplement {
  fragment: Fragment;
  supplement: Supplement;
  format: FormatId;
}

/**
 * Merge each supplement (server-side figures from a file of their own) into the one point of the fragment it
 * pairs with. One without a partner among the uploaded files is reported as skipped, saying why.
 */
function attachSupplements(result: ParsedUpload, supplements: readonly IndexedSupplement[]): void {
  const mismatches: { target: IndexedFragment; text: string }[] = [];
  for (const { fragment, supplement, format } of supplements) {
    const target = result.fragments.find(
      (candidate) => candidate.pairKey === supplement.pairKey && candidate.points.length === 1,
    );
    const point = target?.points[0];
    if (!target || !point) {
      result.skipped.push({
        file: describe(fragment),
        format,
        reason:
          supplement.missingPartner ??
          `server-side figures with no client-side file of the same load level beside it to attach them to (${supplement.pairKey.split("/").pop()})`,
      });
      continue;
    }
    const sources: Record<string, string> = { ...(point.sources ?? {}) };
    const merged = point as Record<string, unknown>;
    const notImported = [...(fragment.notImported ?? []), ...(fragment.fileNotImported ?? [])];
    for (const [field, value] of Object.entries(supplement.figures)) {
      if (value === undefined) continue;
      const source = supplement.sources[field];
      if (merged[field] !== undefined) {
        if (source !== undefined && typeof value === "number") {
          notImported.push({
            file: describe(fragment),
            field: source,
            value,
            reason: `the point already has ${field} from ${target.file}; that value is kept`,
          });
        }
        continue;
      }
      merged[field] = value;
      if (source !== undefined) sources[field] = source;
      // A nested figure (`percentiles`) has a source per entry: "percentiles.ttft.p66".
      for (const [key, nested] of Object.entries(supplement.sources))
        if (key.startsWith(`${field}.`)) sources[key] = nested;
    }
    // The server file's numbers that nobody imported belong to the run's import report like the client file's.
    if (notImported.length > 0) target.notImported = collapse([...(target.notImported ?? []), ...notImported]);
    if (Object.keys(sources).length > 0) point.sources = sources;
    target.warnings.push(...fragment.warnings);
    const completed = point.completed;
    const counted = supplement.serverRequests;
    if (
      counted !== undefined &&
      completed !== undefined &&
      completed > 0 &&
      (counted > 1.5 * completed || counted < 0.5 * completed)
    ) {
      mismatches.push({ target, text: `${fragment.file}: ${counted} vs ${completed}` });
    }
  }
  // One warning for all the levels whose server count is off, so a sweep of seven says it once.
  if (mismatches.length > 0) {
    // A run's warning is at most 1,000 characters: the first levels are named, the rest counted.
    const named = mismatches.slice(0, 6).map((item) => item.text);
    const more = mismatches.length > 6 ? `; and ${mismatches.length - 6} more` : "";
    const warning =
      `The server counted other numbers of requests over these load levels' windows than the client completed (server vs client: ${named.join("; ")}${more}): its figures there may include other traffic or a wider window than the level's.`.slice(
        0,
        1000,
      );
    for (const { target } of mismatches) if (!target.warnings.includes(warning)) target.warnings.push(warning);
  }
}

function decodeJsonBody(upload: UploadFile): SourceFile {
  const text = new TextDecoder("utf-8").decode(upload.bytes).replace(/^\uFEFF/, "");
  if (text.trim() === "") throw new AppError("invalid_json", "The request body is empty; expected a JSON object.");
  let data: unknown;
  try {
    data = parseLenientJson(text);
  } catch (error) {
    throw new AppError(
      "invalid_json",
      `The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (nestingDepth(data) > MAX_NESTING_DEPTH) {
    throw new AppError(
      "invalid_json",
      `The request body is nested more than ${MAX_NESTING_DEPTH} levels deep; no results file is.`,
    );
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== null) {
    throw new AppError(
      "invalid_json",
      `The request body has the key "${duplicate.slice(0, 100)}" twice in one object; which one is meant?`,
    );
  }
  return { name: upload.name, kind: "json", data, bytes: upload.bytes.byteLength, ...largeNumbersField(text) };
}

function stripSources(points: readonly ResultPoint[]): ResultPoint[] {
  return points.map(({ sources: _sources, ...rest }) => rest);
}
