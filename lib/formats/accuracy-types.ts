/**
 * The contract between the upload pipeline and the accuracy parsers: a results file of an evaluator
 * (lm-evaluation-harness, lighteval…) becomes the run's accuracy scores. A parser is pure, like the benchmark
 * parsers (lib/formats/types.ts): it recognizes its format from the decoded data, never from the file's name.
 */
import type { AccuracyScore } from "@/lib/document/schema";
import type { SourceFile } from "./types";

export type AccuracyFormatId = "lm-eval" | "lighteval";

/** What one evaluator's results file holds. */
export interface AccuracyImport {
  format: AccuracyFormatId;
  /** The file it came from, as uploaded. */
  file: string;
  /** One per task × metric × filter, in the file's order; none twice. */
  scores: AccuracyScore[];
  /** The model the file says it evaluated (lm-eval's `model_name`, or `pretrained=` of its `model_args`). */
  model?: string;
  /** When the evaluation ran, ISO 8601, when the file says. */
  measured_at?: string;
  /** Things a person should know: a metric without a standard error, a task skipped because its value was NaN. */
  warnings: string[];
}

export interface AccuracyParser {
  id: AccuracyFormatId;
  /** The tool and output, as a person would name it: "lm-evaluation-harness results JSON". */
  label: string;
  /** The keys that identify the format, in words. */
  signature: string;
  /** True when the decoded file has this format's signature keys. Must not throw. */
  detect(file: SourceFile): boolean;
  /** The file's scores. Throws FormatError (lib/formats/types.ts) when it is recognized but broken, naming the field. */
  parse(file: SourceFile): AccuracyImport;
}
