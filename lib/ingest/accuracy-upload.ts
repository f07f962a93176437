/**
 * The body of POST /api/runs/{id}/accuracy: an evaluator's results files (lm-eval, lighteval), as a JSON body or
 * multipart `file` fields (zips included), parsed into their scores. Anything else is refused naming the file.
 */
import { AppError } from "@/lib/errors";
import { ACCURACY_PARSERS, detectAccuracyFormat, parseAccuracyFile } from "@/lib/formats/accuracy";
import type { AccuracyImport } from "@/lib/formats/accuracy-types";
import { expandArchives } from "@/lib/formats/archive";
import { DecodeError, decodeFile } from "@/lib/formats/decode";
import { checkUploadFiles } from "@/lib/formats/upload-checks";
import { readUploadRequest } from "./ingest";

/** An evaluator's results file is kilobytes (its per-sample logs are other files): 20 MB is far beyond any. */
export const ACCURACY_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

const SUPPORTED = ACCURACY_PARSERS.map((parser) => `${parser.label} (${parser.signature})`).join("; ");

/** The accuracy files of the request (a JSON body, or multipart `file` fields, zips included), parsed. */
export async function readAccuracyUpload(request: Request): Promise<AccuracyImport[]> {
  const upload = await readUploadRequest(request, ACCURACY_BODY_LIMIT_BYTES);
  const files = expandArchives(upload.files);
  checkUploadFiles(files);
  if (files.length === 0) throw new AppError("bad_request", "The request holds no files.");
  return files.map((file) => {
    let source: ReturnType<typeof decodeFile>;
    try {
      source = decodeFile(file.name, file.bytes);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      throw new AppError("invalid_json", error.message, [{ path: "file", message: `${file.name}: ${error.message}` }]);
    }
    const parser = detectAccuracyFormat(source);
    if (!parser) {
      throw new AppError(
        "unsupported_format",
        `"${file.name}" is not an accuracy results file servebench recognizes. Supported: ${SUPPORTED}.`,
        [{ path: "file", message: `${file.name}: not an accuracy results file` }],
      );
    }
    return parseAccuracyFile(parser, source, file.name);
  });
}
