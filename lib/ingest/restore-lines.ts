/**
 * Restoring an export (GET /api/export → POST /api/restore), line by line. Each line is read and validated on
 * its own, so one broken or refused line never stops the rest: the answer says, line by line, what was stored,
 * what was there already, and what was refused and why. This part runs in the upload worker
 * (lib/ingest/upload-task.ts); storing happens on the server's thread (lib/runs/restore.ts, restoreRuns).
 */
import {
  SaveComparisonSchema,
  SLUG_PATTERN,
  type StoredComparisonView,
  storedComparisonView,
} from "@/lib/comparisons/schema";
import { contentHash } from "@/lib/document/content-hash";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { keepsExactDigits, RUN_FORMAT } from "@/lib/document/schema";
import { AppError } from "@/lib/errors";
import { decodeUtf8, parseWriteJson } from "@/lib/http/body";
import { ID_RULE } from "@/lib/ids";
import { restoreIdentity } from "@/lib/runs/restore-identity";
import { type ExportedSeries, exportedSeriesOf, SERIES_FORMAT } from "@/lib/series/export-schema";
import { zodIssues } from "@/lib/zod-issues";

/** The format of an export's saved-comparison lines. */
export const COMPARISON_FORMAT = "servebench/comparison-v1" as const;

/** The most entries a restore's answer lists (lib/backup/restore-report.ts). */
export const MAX_REPORTED_LINES = 1_000;

/** A run document is at most about 2 MB (1,000 points, 200 metadata values); a longer line is not one. */
export const MAX_LINE_BYTES = 8_000_000;

export interface RestoreError {
  code: string;
  message: string;
  issues?: { path: string; message: string }[];
}

/** A saved comparison as an export line holds it. */
export interface ExportedComparison extends StoredComparisonView {
  slug: string;
  title: string;
  created_at: string;
}

export type RestoreLine =
  | {
      line: number;
      kind: "run";
      /** The id the line asks to keep (absent: the run gets a new one). */
      id: string | undefined;
      createdAt: string | undefined;
      /** The canonical document as JSON text: compact to hand from the worker to the server's thread. */
      documentJson: string;
      /** Its content hash and its identity as a restore compares it (lib/runs/restore.ts), made here, off the server's thread. */
      hash: string;
      identity: string;
    }
  | { line: number; kind: "comparison"; comparison: ExportedComparison }
  | { line: number; kind: "series"; series: ExportedSeries }
  | { line: number; kind: "run" | "comparison" | "series" | "unknown"; id?: string; error: RestoreError };

function errorOf(error: unknown): RestoreError {
  if (error instanceof AppError) {
    return { code: error.code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) };
  }
  throw error;
}

function isoDate(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function comparisonOf(raw: Record<string, unknown>): ExportedComparison {
  const { format: _format, slug, created_at: createdAt, url: _url, ...rest } = raw;
  const problems: { path: string; message: string }[] = [];
  if (typeof slug !== "string" || !SLUG_PATTERN.test(slug)) {
    problems.push({ path: "slug", message: ID_RULE });
  }
  const created = isoDate(createdAt);
  if (created === undefined) problems.push({ path: "created_at", message: "must be an ISO 8601 date" });
  const parsed = SaveComparisonSchema.safeParse({
    ...rest,
    baseline: rest.baseline ?? undefined,
    notes: rest.notes ?? undefined,
  });
  if (!parsed.success) problems.push(...zodIssues(parsed.error));
  if (problems.length > 0 || !parsed.success || typeof slug !== "string" || created === undefined) {
    const first = problems[0];
    throw new AppError(
      "validation_failed",
      `The saved comparison is invalid. ${first ? `${first.path}: ${first.message}` : ""}`,
      problems,
    );
  }
  const input = parsed.data;
  if (input.title === undefined) {
    throw new AppError("validation_failed", "The saved comparison is invalid. title: is required", [
      { path: "title", message: "is required" },
    ]);
  }
  return { slug, title: input.title, ...storedComparisonView(input), created_at: created };
}

function readLine(text: string, line: number): RestoreLine {
  let raw: unknown;
  try {
    raw = parseWriteJson(text, `Line ${line}`, keepsExactDigits);
  } catch (error) {
    return { line, kind: "unknown", error: errorOf(error) };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      line,
      kind: "unknown",
      error: { code: "validation_failed", message: `Line ${line} is not a JSON object.` },
    };
  }
  const record = raw as Record<string, unknown>;
  const id = typeof record.id === "string" ? record.id : typeof record.slug === "string" ? record.slug : undefined;
  if (record.format === COMPARISON_FORMAT) {
    try {
      return { line, kind: "comparison", comparison: comparisonOf(record) };
    } catch (error) {
      return { line, kind: "comparison", ...(id ? { id } : {}), error: errorOf(error) };
    }
  }
  if (record.format === SERIES_FORMAT) {
    try {
      return { line, kind: "series", series: exportedSeriesOf(record) };
    } catch (error) {
      return { line, kind: "series", ...(id ? { id } : {}), error: errorOf(error) };
    }
  }
  if (record.format !== RUN_FORMAT) {
    const format = typeof record.format === "string" ? `"${record.format.slice(0, 60)}"` : "none";
    return {
      line,
      kind: "unknown",
      ...(id ? { id } : {}),
      error: {
        code: "unsupported_format",
        message: `Line ${line} is neither a run (${RUN_FORMAT}), a saved comparison (${COMPARISON_FORMAT}) nor a series (${SERIES_FORMAT}); its format is ${format}.`,
      },
    };
  }
  try {
    const document = normalizeRunDocument(record);
    return {
      line,
      kind: "run",
      id,
      createdAt: isoDate(record.created_at),
      documentJson: JSON.stringify(document),
      hash: contentHash(document),
      identity: restoreIdentity(document),
    };
  } catch (error) {
    return { line, kind: "run", ...(id ? { id } : {}), error: errorOf(error) };
  }
}

/** What marks a line that may be a series: its format's name (the bytes of "series-v1"). */
const SERIES_MARK = new TextEncoder().encode("series-v1");
const SERIES_MARK_BUFFER = Buffer.from(SERIES_MARK);

/** Whether some line of `bytes` may be a series line: none can be without its format's name in it. */
export function mayHoldSeries(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(SERIES_MARK_BUFFER);
}

export interface ReadLinesOptions {
  /** The number of the first line of `bytes` in the export (a part of it). */
  firstLine?: number;
  /**
   * Read only the lines that may be series (they name their format), skipping the rest unparsed: a restore
   * creates the series before it stores any run. A series line that spells its format otherwise is read with
   * the other lines and created then.
   */
  seriesOnly?: boolean;
}

function holds(haystack: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0]!;
  for (
    let at = haystack.indexOf(first);
    at >= 0 && at + needle.length <= haystack.length;
    at = haystack.indexOf(first, at + 1)
  ) {
    let index = 1;
    while (index < needle.length && haystack[at + index] === needle[index]) index += 1;
    if (index === needle.length) return true;
  }
  return false;
}

/** Every line of an export (or of a part of one), read and validated on its own. Blank lines are skipped. */
export function readRestoreLines(bytes: Uint8Array, options: ReadLinesOptions = {}): RestoreLine[] {
  const lines: RestoreLine[] = [];
  let start = 0;
  let number = (options.firstLine ?? 1) - 1;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    number += 1;
    const slice = bytes.subarray(start, end);
    start = end + 1;
    if (slice.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d)) continue;
    if (options.seriesOnly && !holds(slice, SERIES_MARK)) continue;
    if (slice.byteLength > MAX_LINE_BYTES) {
      lines.push(oversizeLine(number, slice.byteLength));
      continue;
    }
    let text: string;
    try {
      text = decodeUtf8(slice, `Line ${number}`);
    } catch (error) {
      lines.push({ line: number, kind: "unknown", error: errorOf(error) });
      continue;
    }
    const read = readLine(text.replace(/^\uFEFF/, ""), number);
    if (options.seriesOnly && read.kind !== "series") continue;
    lines.push(read);
  }
  return lines;
}

/** The entry of a line longer than any run document (it is never read). */
export function oversizeLine(line: number, byteLength: number): RestoreLine {
  return {
    line,
    kind: "unknown",
    error: {
      code: "payload_too_large",
      message: `Line ${line} is ${byteLength.toLocaleString("en-US")} bytes long; no run document is more than ${MAX_LINE_BYTES.toLocaleString("en-US")}.`,
    },
  };
}

/** Refused and unreadable lines of a part counted but not listed, by the kind of line. */
export type RefusalsCounted = Record<"run" | "comparison" | "series" | "unknown", number>;

/**
 * A part's lines with its refusals bounded: every line to store, and the first MAX_REPORTED_LINES refused or
 * unreadable ones; the rest only counted. The answer lists the earliest MAX_REPORTED_LINES lines that say something,
 * and a part's lines are in order, so no refusal past those of its part could be listed. A part of 500,000 lines
 * of `1` handed 500,000 entries from the worker to the server's thread, which held /api/health 1.2 s to take them.
 */
export function withRefusalsBounded(lines: readonly RestoreLine[]): { lines: RestoreLine[]; counted: RefusalsCounted } {
  const counted: RefusalsCounted = { run: 0, comparison: 0, series: 0, unknown: 0 };
  const kept: RestoreLine[] = [];
  let listed = 0;
  for (const line of lines) {
    if (!("error" in line)) kept.push(line);
    else if (listed < MAX_REPORTED_LINES) {
      kept.push(line);
      listed += 1;
    } else counted[line.kind] += 1;
  }
  return { lines: kept, counted };
}
