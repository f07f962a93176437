import { NextResponse } from "next/server";
import { AppError, type ErrorCode, type ErrorIssue } from "@/lib/errors";
import { WWW_AUTHENTICATE } from "./auth";

export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  unsupported_format: 422,
  conflicting_files: 422,
  internal_error: 500,
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

/** Every error response has this one shape; a 500 never carries the underlying exception. */
export function errorResponse(error: unknown, context: string): NextResponse<ErrorBody> {
  if (error instanceof AppError) {
    const status = ERROR_STATUS[error.code];
    console.warn(`[servebench] ${context} → ${status} ${error.code}: ${error.message}`);
    // A 401 says how to authenticate, whichever way the request came in.
    const headers: Record<string, string> =
      error.code === "unauthorized" ? { "WWW-Authenticate": WWW_AUTHENTICATE } : {};
    return NextResponse.json(errorBody(error), { status, headers });
  }
  console.error(`[servebench] ${context} → 500`, error);
  const generic = new AppError("internal_error", "Something went wrong on the server; the details are in its log.");
  return NextResponse.json(errorBody(generic), { status: 500 });
}
