/**
 * The history's query parameters, shared by GET /api/runs (strict: a bad value is a 400) and the history
 * page (lenient: a bad value falls back to its default so a mistyped link still shows the runs).
 */
import { z } from "zod";
import { forbiddenCharacter } from "@/lib/document/schema";
import { decimalInteger, isOwnKey } from "@/lib/http/query";
import { type RunListQuery, SORT_KEYS } from "./history";

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

/** A text parameter as the page reads it: whatever its characters (one that no run holds matches none). */
const text = (max: number) => z.string().trim().max(max);

/**
 * A text parameter as the API reads it, under the character rules of what it is matched against: a filter as one
 * line (engine, model, GPU and tag are one-line fields), the search as free text (notes and commands hold tabs and
 * line breaks, nothing else of the controls). So `q=ab%00cd` is a 400 naming q rather than a search no run can match.
 */
const storedTextParameter = (max: number, multiline: boolean) =>
  text(max).superRefine((value, context) => {
    const problem = forbiddenCharacter(value, multiline);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });

const fields = {
  engine: text(64).optional(),
  model: text(200).optional(),
  gpu: text(200).optional(),
  tag: text(40).optional(),
  q: text(200).optional(),
  page: decimalInteger(1, 1_000_000).default(1),
  per_page: decimalInteger(1, MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
  sort: z.enum(SORT_KEYS).default("date"),
  dir: z.enum(["asc", "desc"]).default("desc"),
};

export const ListQuerySchema = z.strictObject({
  ...fields,
  engine: storedTextParameter(64, false).optional(),
  model: storedTextParameter(200, false).optional(),
  gpu: storedTextParameter(200, false).optional(),
  tag: storedTextParameter(40, false).optional(),
  q: storedTextParameter(200, true).optional(),
});

type RawParams = Record<string, string | string[] | undefined>;

function firstValues(params: RawParams): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(params)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first.trim() !== "") out[key] = first;
  }
  return out;
}

/** Strict parse; unknown parameters are ignored, invalid ones reported. */
export function parseListQuery(params: RawParams) {
  const known = Object.fromEntries(Object.entries(firstValues(params)).filter(([key]) => isOwnKey(fields, key)));
  return ListQuerySchema.safeParse(known);
}

/**
 * Lenient parse for pages: each invalid parameter falls back to its default. Text is taken whatever its characters:
 * a search holding a NUL shows no runs (lib/runs/history.ts answers it without asking the database).
 */
export function parseListQueryLenient(params: RawParams): RunListQuery {
  const values = firstValues(params);
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(fields)) {
    const parsed = (schema as z.ZodType).safeParse(values[key]);
    out[key] = parsed.success ? parsed.data : (schema as z.ZodType).safeParse(undefined).data;
  }
  return out as unknown as RunListQuery;
}

/** The history URL for a query, with defaults left out so links stay short. */
export function historyHref(query: Partial<RunListQuery>): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.engine) params.set("engine", query.engine);
  if (query.model) params.set("model", query.model);
  if (query.gpu) params.set("gpu", query.gpu);
  if (query.tag) params.set("tag", query.tag);
  if (query.sort && query.sort !== "date") params.set("sort", query.sort);
  if (query.dir && query.dir !== "desc") params.set("dir", query.dir);
  if (query.per_page && query.per_page !== DEFAULT_PER_PAGE) params.set("per_page", String(query.per_page));
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const text = params.toString();
  return text ? `/?${text}` : "/";
}
