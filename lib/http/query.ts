/**
 * Query strings read as data: own keys only (`constructor`, `toString` or `__proto__` in a URL are parameters
 * like any other, never properties of every object), and numbers as plain decimal integers.
 */
import { z } from "zod";

/** The first value of each query parameter, in an object with no prototype. */
export function queryParams(request: Request | URL): Record<string, string> {
  const url = request instanceof URL ? request : new URL(request.url);
  const out = Object.create(null) as Record<string, string>;
  for (const [key, value] of url.searchParams) {
    if (!Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}

/** Whether `key` is one of `known`'s own keys (not one every object has, like `constructor`). */
export function isOwnKey(known: object, key: string): boolean {
  return Object.hasOwn(known, key);
}

/**
 * A whole number written in decimal digits, from `min` to `max`: `per_page=0x10`, `1e1`, `16.0` or ` 16` are
 * refused, not read as 16.
 */
export function decimalInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,9}$/, "must be a whole number written in decimal digits")
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max.toLocaleString("en-US")}`),
    );
}

/** A page's `searchParams` as Next hands them over. */
export type PageSearchParams = Record<string, string | string[] | undefined>;

/**
 * A page's `searchParams` as data: an object with no prototype holding only the strings of the URL. Next builds
 * a page's parameters in a plain object, so a parameter named after a property every object has arrives mixed
 * with that property (`?constructor=1` as `[Object, "1"]`); every page reads its parameters through this first.
 */
export function pageSearchParams(params: PageSearchParams): PageSearchParams {
  const out = Object.create(null) as PageSearchParams;
  for (const key of Object.keys(params)) {
    const value: unknown = params[key];
    const strings = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === "string");
    if (strings.length === 1) out[key] = strings[0];
    else if (strings.length > 1) out[key] = strings;
  }
  return out;
}
