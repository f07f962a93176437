/**
 * The one error type the application throws on purpose. Each code has one HTTP status (lib/http/errors.ts);
 * anything else that is thrown becomes a generic 500 whose details go only to the server log.
 */
export type ErrorCode =
  | "invalid_json"
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation_failed"
  | "unsupported_format"
  | "not_a_run_document"
  | "conflicting_files"
  | "no_results"
  | "conflict"
  | "database_busy"
  | "database_unavailable"
  | "disk_full"
  | "database_read_only"
  | "internal_error";

export interface ErrorIssue {
  /** Dotted path to the offending field, e.g. `results.0.concurrency`; empty for the document itself. */
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: ErrorIssue[] | undefined;

  constructor(code: ErrorCode, message: string, issues?: ErrorIssue[]) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.issues = issues;
  }
}

/** Request text repeated in a message, cut to `max` characters: a 1 MB name must not make a 1 MB error. */
export function excerpt(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function notFoundError(what: string): AppError {
  return new AppError("not_found", `${excerpt(what, 240)} not found`);
}
