/**
 * The answer to an upload's dry run: what the files were recognized as, the runs they would become, and
 * what is missing or in conflict, so the upload page can show it before anything is stored.
 */
import { levelOf } from "@/lib/analysis/levels";
import type { ErrorIssue } from "@/lib/errors";
import { formatLoadLevel } from "@/lib/format";
import type { SkippedFile } from "@/lib/formats/import";
import { type Headline, headline } from "./derived";
import type { PreparedUpload } from "./ingest";
import type { ResultPoint } from "./schema";

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
  /** The run as it would be stored (canonical when valid, as planned otherwise). */
  document: Record<string, unknown>;
  valid: boolean;
  issues: ErrorIssue[];
  fragments: number[];
  /** Context the run still lacks that comparisons rely on. */
  missing: string[];
}

export interface UploadPreview {
  runs: PreviewRun[];
  fragments: FragmentSummary[];
  skipped: SkippedFile[];
  duplicates: { file: string; part: string; same_as: string }[];
  conflicts: string[];
  split: boolean;
  /** Some configuration measured a load level more than once (repeats). */
  has_repeats: boolean;
  /** Those repeats are stored as one run with repeats (`repeats=one_run`). */
  repeats_one_run: boolean;
}

function missingContext(document: Record<string, unknown>): string[] {
  const hardware = (document.hardware ?? {}) as Record<string, unknown>;
  const missing: string[] = [];
  if (!document.engine) missing.push("engine");
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
      const document = (run.document ?? run.raw) as unknown as Record<string, unknown>;
      const points = Array.isArray(document.results) ? (document.results as ResultPoint[]) : [];
      return {
        document,
        valid: run.document !== null,
        issues: run.issues,
        fragments: run.fragments,
        missing: missingContext(document),
        ...headline(points),
      };
    }),
    fragments: prepared.parsed.fragments.map((fragment) => ({
      index: fragment.index,
      file: fragment.file,
      part: fragment.part,
      format: fragment.format,
      format_label: fragment.formatLabel,
      model: fragment.context.model ?? null,
      levels: fragment.points.map((point) => formatLoadLevel(levelOf(point))),
      warnings: fragment.warnings,
    })),
    skipped: prepared.parsed.skipped,
    duplicates: prepared.parsed.duplicates.map((duplicate) => ({
      file: duplicate.file,
      part: duplicate.part,
      same_as: duplicate.sameAs,
    })),
    conflicts: prepared.plan.conflicts,
    split: prepared.options.split,
    has_repeats: prepared.plan.hasRepeats,
    repeats_one_run: prepared.options.combineRepeats,
  };
}
