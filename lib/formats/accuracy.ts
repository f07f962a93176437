/**
 * Every accuracy format servebench imports, in the order detection tries them. Each detector looks for keys only
 * its evaluator writes (lighteval's `config_general`, lm-eval's "<metric>,<filter>" scores), so at most one claims
 * a file, and none claims a benchmark tool's file (tests/unit/accuracy-formats.test.ts checks both).
 */

import { AppError } from "@/lib/errors";
import type { AccuracyImport, AccuracyParser } from "./accuracy-types";
import { lightevalParser } from "./lighteval";
import { lmEvalParser } from "./lm-eval";
import { FormatError, type SourceFile } from "./types";

export const ACCURACY_PARSERS: readonly AccuracyParser[] = [lmEvalParser, lightevalParser];

/** The parser of an evaluator's results file, or undefined when the file is none of theirs. A detector that throws claims nothing. */
export function detectAccuracyFormat(
  file: SourceFile,
  parsers: readonly AccuracyParser[] = ACCURACY_PARSERS,
): AccuracyParser | undefined {
  return parsers.find((parser) => {
    try {
      return parser.detect(file);
    } catch {
      return false;
    }
  });
}

/** The file's scores; a recognized but broken file is a 422 naming the field inside it and the file. */
export function parseAccuracyFile(parser: AccuracyParser, source: SourceFile, name: string): AccuracyImport {
  try {
    return parser.parse(source);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    throw new AppError(
      "validation_failed",
      `"${name}" (${parser.label}) could not be imported: ${error.path}: ${error.message}`,
      [{ path: error.path, message: `${error.message} (in "${name}")` }],
    );
  }
}

/** "Meta-Llama-3-8B-Instruct" of "meta-llama/Meta-Llama-3-8B-Instruct", lower-cased: how two namings of a model meet. */
function modelStem(model: string): string {
  return (model.split("/").pop() ?? model).trim().toLowerCase();
}

/**
 * A warning when the evaluated model is plainly not the served one (neither name's last part holds the other's):
 * scores of another model would judge this run's accuracy. Served names and checkpoint ids often differ in their
 * prefix or a quantization suffix, which this lets pass.
 */
export function modelMismatchWarning(item: AccuracyImport, runModel: string): string | null {
  if (!item.model) return null;
  const evaluated = modelStem(item.model);
  const served = modelStem(runModel);
  if (evaluated === "" || served === "" || evaluated.includes(served) || served.includes(evaluated)) return null;
  return `${item.file}: the accuracy results evaluated ${item.model}, but the run serves ${runModel}; check they belong to this run`;
}
