/**
 * One way to read a request: `parseQuery` for query strings, `parseBody` for JSON bodies, both from a zod schema,
 * both answering in the one error shape (400 naming the parameter, 422 naming every field). A ZodError that escapes
 * a handler anyway is answered 422 by apiRoute (lib/http/route.ts).
 */
import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { zodIssues } from "@/lib/zod-issues";
import { isOwnKey } from "./query";

export type RawParams = Record<string, string | string[] | undefined>;

/**
 * The first non-blank value of each parameter the schema knows, in an object with no prototype: a parameter named
 * `constructor`, `toString` or `__proto__` is unknown like any other (as on GET /api/runs) and ignored.
 */
function knownValues(shape: object, params: RawParams): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(params)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first.trim() !== "" && isOwnKey(shape, key)) out[key] = first;
  }
  return out;
}

/**
 * Strict parse of query parameters (`queryParams(request)`, lib/http/query.ts): unknown ones are ignored, invalid
 * ones a 400 naming them. Numbers are decimal digits only, as on GET /api/runs.
 */
export function parseQuery<T extends z.ZodObject>(schema: T, params: RawParams): z.output<T> {
  const known = knownValues(schema.shape, params);
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("bad_request", `Invalid query parameter ${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  return parsed.data;
}

/** Parse a JSON body: a 422 naming every violated field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError("validation_failed", `${what}: expected a JSON object.`, [
      { path: "", message: "expected a JSON object" },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new AppError("validation_failed", `${what}. ${issues[0]?.path || "body"}: ${issues[0]?.message}`, issues);
  }
  return parsed.data;
}
