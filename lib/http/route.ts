/**
 * The wrapper every API route handler goes through: it turns thrown errors into the one error shape, a ZodError
 * into 422 validation_failed with its issues.
 */
import { ZodError } from "zod";
import { AppError } from "@/lib/errors";
import { zodIssues } from "@/lib/zod-issues";
import { errorResponse } from "./errors";

/** A ZodError a handler let through (a schema parsed with `.parse`): 422 naming every field, like parseBody. */
function validationFailure(error: ZodError): AppError {
  const issues = zodIssues(error);
  return new AppError("validation_failed", `${issues[0]?.path || "body"}: ${issues[0]?.message}`, issues);
}

export function apiRoute<Context>(
  handler: (request: Request, context: Context) => Promise<Response>,
): (request: Request, context: Context) => Promise<Response> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      const answered = error instanceof ZodError ? validationFailure(error) : error;
      return errorResponse(answered, `${request.method} ${new URL(request.url).pathname}`);
    }
  };
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * Handlers for the methods a route does not take: 405 in the one error shape with an `Allow` header (Next's own
 * 405 has no body). `export const { PUT, PATCH } = methodsNotAllowed(["GET", "POST"])`.
 */
export function methodsNotAllowed(allowed: readonly (typeof METHODS)[number][]) {
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const handler = apiRoute(async (request) => {
    const response = errorResponse(
      new AppError(
        "method_not_allowed",
        `${request.method} is not allowed here; this address takes ${allowed.join(", ")}.`,
      ),
      `${request.method} ${new URL(request.url).pathname}`,
    );
    response.headers.set("Allow", allow);
    return response;
  });
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}
