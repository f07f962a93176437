/**
 * JSON numbers beyond ±2^53 in what a write parsed (lib/formats/decode.ts finds them in the text, since JSON.parse
 * keeps only a rounded double): kept as the string of their digits where the write keeps such values, refused
 * naming their field everywhere else.
 */
import { AppError, excerpt } from "@/lib/errors";
import { findLargeNumbers } from "./decode";
import type { LargeNumber } from "./types";

/** Where a write keeps a number beyond ±2^53 as its digits (a string); everywhere else it is refused. */
export type KeepsExactDigits = (path: readonly (string | number)[]) => boolean;

/** Where a write body that keeps no number as text (a saved comparison, a series' settings) keeps them: nowhere. */
export const refuseEveryLargeNumber: KeepsExactDigits = () => false;

/**
 * The numbers beyond ±2^53 of a parsed JSON value (found in its text, paths from the value down): each one where
 * `keepsDigits` says so becomes the string of its digits as written, so `9007199254740993` is stored as that and
 * not as …992; any other is refused, naming its field. Paths are walked through own properties only.
 */
export function placeLargeNumbers(
  value: unknown,
  found: readonly { path: readonly (string | number)[]; literal: string }[],
  keepsDigits: KeepsExactDigits,
  what: string,
): void {
  for (const { path, literal } of found) {
    const where = path.map(String).join(".");
    if (path.length === 0 || !keepsDigits(path)) {
      const message = `is ${excerpt(literal, 40)}, beyond ±2^53 (9,007,199,254,740,992): a JSON number that large loses digits as it is read, and no value here can be that large`;
      throw new AppError("validation_failed", `${what}: ${where || "(the value)"}: ${message}`, [
        { path: where, message },
      ]);
    }
    let parent: unknown = value;
    for (const key of path.slice(0, -1)) {
      parent =
        typeof parent === "object" && parent !== null && Object.hasOwn(parent, key)
          ? (parent as Record<string | number, unknown>)[key]
          : undefined;
    }
    const last = path[path.length - 1]!;
    if (typeof parent === "object" && parent !== null && Object.hasOwn(parent, last)) {
      (parent as Record<string | number, unknown>)[last] = literal;
    }
  }
}

/** The large numbers of one top-level value of a text (`findLargeNumbers`), with paths from that value down. */
export function largeNumbersOfValue(found: readonly LargeNumber[], ordinal: number): LargeNumber[] {
  return found.filter((entry) => entry.path[0] === ordinal).map((entry) => ({ ...entry, path: entry.path.slice(1) }));
}

/** placeLargeNumbers for the one JSON value parsed from `text`. */
export function placeLargeNumbersOfText(
  value: unknown,
  text: string,
  keepsDigits: KeepsExactDigits,
  what: string,
): void {
  placeLargeNumbers(value, largeNumbersOfValue(findLargeNumbers(text), 0), keepsDigits, what);
}
