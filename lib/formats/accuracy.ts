/**
 * Every accuracy format servebench imports, in the order detection tries them. Each detector looks for keys only
 * its evaluator writes (lighteval's `config_general`, lm-eval's "<metric>,<filter>" scores), so at most one claims
 * a file, and none claims a benchmark tool's file (tests/unit/accuracy-formats.test.ts checks both).
 */
import type { AccuracyParser } from "./accuracy-types";
import { lightevalParser } from "./lighteval";
import { lmEvalParser } from "./lm-eval";
import type { SourceFile } from "./types";

export const ACCURACY_PARSERS: readonly AccuracyParser[] = [lmEvalParser, lightevalParser];

/** The parser of an evaluator's results file, or undefined when the file is none of theirs. */
export function detectAccuracyFormat(file: SourceFile): AccuracyParser | undefined {
  return ACCURACY_PARSERS.find((parser) => parser.detect(file));
}
