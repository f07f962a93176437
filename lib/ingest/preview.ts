/**
 * The answer to an upload's dry run: what the files were recognized as, the runs they would become, and
 * what is missing or in conflict, so the upload page can show it before anything is stored.
 */
import { levelOf } from "@/lib/analysis/levels";
import { type Headline, headline } from "@/lib/document/derived";
import { isUnknownEngine } from "@/lib/document/names";
import { LIMITS, type ResultPoint } from "@/lib/document/schema";
import type { ErrorIssue } from "@/lib/errors";
import { formatLoadLevel } from "@/lib/format";
import type { SkippedFile } from "@/lib/formats/import";
import type { EngineFrom, PreparedUpload } from "./ingest";

export interface FragmentSummary {
  index: number;
  file: string;
  part: string;
  format: string;
  format_label: string;
  model: string | null;
  levels: string[];
  warnings: string[];
}

export interface PreviewRun extends Headline {
  /** The run as it would be stored (canonical when valid, as planned otherwise); at most 1,001 of its points. */
  document: Record<string, unknown>;
  /** How many points the run has. */
  points_total: number;
  valid: boolean;
  issues: ErrorIssue[];
  fragments: number[];
  /**
   * Where the engine came from: "person" (typed), "command" (the launch command's program), "file" (the file's own
   * word), "not_stated" (nothing said it: stored as "unknown"); null for a servebench/v1 document.
   */
  engine_from: EngineFrom | null;
  /** Context the run still lacks that comparisons rely on. */
  missing: string[];
}

export interface UploadPreview {
  runs: PreviewRun[];
  /** The first PREVIEW_LIMITS.listed fragments; `fragments_total` says how many there are. */
  fragments: FragmentSummary[];
  fragments_total: number;
  skipped: SkippedFile[];
  skipped_total: number;
  duplicates: { file: string; part: string; same_as: string }[];
  duplicates_total: number;
  conflicts: string[];
  split: boolean;
  /** Some configuration measured a load level more than once (repeats). */
  has_repeats: boolean;
  /** Those repeats are stored as one run with repeats (`repeats=one_run`). */
  repeats_one_run: boolean;
  /** Evaluators' results files: their scores go with the run (`document.accuracy`). */
  accuracy_files: { file: string; format: string; model: string | null; scores: number; warnings: string[] }[];
  /** Files of a folder or zip that no tool's format matches: left out, beside the results. */
  ignored: { file: string; reason: string }[];
  ignored_total: number;
}

/**
 * How much of a huge upload the preview shows: it answers in proportion to what was sent, but a JSON-lines file of
 * 100,000 load levels needs no 100,000-row table, and a run of more points than a run may hold is refused anyway.
 */
export const PREVIEW_LIMITS = {
  /** Fragments, skipped files and duplicates listed, each. */
  listed: 2_000,
  /** Points of a run's document shown (one more than a run may hold, so the preview shows it is too many). */
  points: LIMITS.points + 1,
  /** Characters of one conflict's description. */
  conflictChars: 4_000,
} as const;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function missingContext(document: Record<string, unknown>): string[] {
  const hardware = (document.hardware ?? {}) as Record<string, unknown>;
  const missing: string[] = [];
  if (typeof document.engine !== "string" || isUnknownEngine(document.engine)) missing.push("engine");
  if (!document.engine_version) missing.push("engine version");
  if (!document.model) missing.push("model");
  if (!hardware.gpu) missing.push("GPU");
  if (!hardware.gpu_count) missing.push("GPU count");
  if (!document.command && Object.keys((document.flags as object | undefined) ?? {}).length === 0)
    missing.push("launch command");
  return missing;
}

export function previewOf(prepared: PreparedUpload): UploadPreview {
  return {
    runs: prepared.runs.map((run) => {
      const full = (run.document ?? run.raw) as unknown as Record<string, unknown>;
      const points = Array.isArray(full.results) ? (full.results as ResultPoint[]) : [];
      const document =
        points.length > PREVIEW_LIMITS.points ? { ...full, results: points.slice(0, PREVIEW_LIMITS.points) } : full;
      return {
        document,
        points_total: points.length,
        valid: run.document !== null,
        issues: run.issues,
        fragments: run.fragments,
        engine_from: run.engineFrom,
        missing: missingContext(document),
        ...headline(points),
      };
    }),
    fragments: prepared.parsed.fragments.slice(0, PREVIEW_LIMITS.listed).map((fragment) => ({
      index: fragment.index,
      file: fragment.file,
      part: fragment.part,
      format: fragment.format,
      format_label: fragment.formatLabel,
      model: fragment.context.model ?? null,
      levels: fragment.points.map((point) => formatLoadLevel(levelOf(point))),
      warnings: fragment.warnings,
    })),
    fragments_total: prepared.parsed.fragments.length,
    skipped: prepared.parsed.skipped.slice(0, PREVIEW_LIMITS.listed),
    skipped_total: prepared.parsed.skipped.length,
    duplicates: prepared.parsed.duplicates.slice(0, PREVIEW_LIMITS.listed).map((duplicate) => ({
      file: duplicate.file,
      part: duplicate.part,
      same_as: duplicate.sameAs,
    })),
    duplicates_total: prepared.parsed.duplicates.length,
    conflicts: prepared.plan.conflicts.map((conflict) => cut(conflict, PREVIEW_LIMITS.conflictChars)),
    split: prepared.options.split,
    has_repeats: prepared.plan.hasRepeats,
    repeats_one_run: prepared.options.combineRepeats,
    ignored: prepared.parsed.ignored.slice(0, PREVIEW_LIMITS.listed),
    ignored_total: prepared.parsed.ignored.length,
    accuracy_files: prepared.parsed.accuracy.map((item) => ({
      file: item.file,
      format: item.format,
      model: item.model ?? null,
      scores: item.scores.length,
      warnings: item.warnings,
    })),
  };
}
