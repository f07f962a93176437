import { NextResponse } from "next/server";
import { databaseErrorOf } from "@/lib/db/database-errors";
import { noteStorageProblem, refineStorageProblem, storageError, storageProblemOf } from "@/lib/db/storage";
import { AppError, type ErrorCode, type ErrorIssue } from "@/lib/errors";
import { WWW_AUTHENTICATE } from "./auth";

/** Seconds a client should wait before retrying a 503 (the database busy or unreachable). */
const RETRY_AFTER_S = 2;

export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  unsupported_format: 422,
  not_a_run_document: 422,
  conflicting_files: 422,
  no_results: 422,
  conflict: 409,
  database_busy: 503,
  database_unavailable: 503,
  internal_error: 500,
  disk_full: 503,
  database_read_only: 503,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; issues?: ErrorIssue[] };
}

export function errorBody(error: AppError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.issues ? { issues: error.issues } : {}),
    },
  };
}

/** Longest piece of request text a log line repeats. */
const MAX_LOGGED_CHARS = 2_000;

/**
 * Text a request supplied, made safe for one log line: control characters (a newline, ESC), bidi overrides
 * and unpaired surrogates written as \n, \u001b, …, and long text cut, so nobody can forge or scramble the
 * server's log lines through a file name, a path or a key.
 */
export function logText(text: string, max = MAX_LOGGED_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString("en-US")} characters)` : text;
  return cut.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\\]/gu,
    (char) => {
      if (char === "\\") return "\\\\";
      if (char === "\n") return "\\n";
      if (char === "\r") return "\\r";
      if (char === "\t") return "\\t";
      return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
    },
  );
}

/** Every error response has this one shape; a 500 never carries the underlying exception. */
export function errorResponse(error: unknown, context: string): NextResponse<ErrorBody> {
  if (error instanceof AppError) {
    const status = ERROR_STATUS[error.code];
    console.warn(`[servebench] ${logText(context, 300)} → ${status} ${error.code}: ${logText(error.message)}`);
    // A 401 says how to authenticate, whichever way the request came in.
    const headers: Record<string, string> =
      error.code === "unauthorized" ? { "WWW-Authenticate": WWW_AUTHENTICATE } : {};
    return NextResponse.json(errorBody(error), { status, headers });
  }
  const found = storageProblemOf(error);
  if (found) {
    const storage = refineStorageProblem(found);
    // A full disk or a read-only database: the person can do something about it, so the answer says what.
    noteStorageProblem(storage);
    const mapped = storageError(storage);
    const reason = error instanceof Error ? error.message.split("\n").filter(Boolean).pop() : String(error);
    console.error(`[servebench] ${logText(context, 300)} → 503 ${mapped.code}: ${logText(reason ?? "")}`);
    return NextResponse.json(errorBody(mapped), { status: ERROR_STATUS[mapped.code] });
  }
  const database = databaseErrorOf(error);
  if (database) {
    const status = ERROR_STATUS[database.code];
    // The underlying error goes to the log only: it can name hosts, files and queries.
    console.error(
      `[servebench] ${logText(context, 300)} → ${status} ${database.code}: ${logText(error instanceof Error ? error.message : String(error))}`,
    );
    const headers: Record<string, string> = status === 503 ? { "Retry-After": String(RETRY_AFTER_S) } : {};
    return NextResponse.json(errorBody(database), { status, headers });
  }
  // The stack keeps its lines (indented, so no line of it reads as one of the server's own); the rest is escaped.
  const details = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const lines = details.split("\n").map((line) => logText(line));
  console.error(`[servebench] ${logText(context, 300)} → 500 ${lines.join("\n    | ")}`);
  const generic = new AppError("internal_error", "Something went wrong on the server; the details are in its log.");
  return NextResponse.json(errorBody(generic), { status: 500 });
}

/**
 * The AppError a thrown error stands for, as errorResponse answers it: for work that ends after its request was
 * answered (a restore job), whose failure is shown later. Nothing of an unexpected error's text is kept.
 */
export function publicError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const found = storageProblemOf(error);
  if (found) return storageError(refineStorageProblem(found));
  return (
    databaseErrorOf(error) ??
    new AppError("internal_error", "Something went wrong on the server; the details are in its log.")
  );
}
