/**
 * The one rule for ids a document may carry and a restore or an upload keeps: run ids, saved comparisons' slugs,
 * series ids, and the ids of a series' alerts and annotations. 1 to 64 base64url characters: what servebench makes
 * (lib/random-id.ts) and ids of the same alphabet from elsewhere. An id kept by a restore may begin with "-" or
 * "_" (new ones never do). Any such text is an id, "constructor" included: ids are data, looked up in Maps and by
 * the database, never as properties of an object.
 */
import { z } from "zod";

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const ID_RULE = 'must be 1–64 letters, digits, "-" or "_"';

/** A string holding one id, refused with ID_RULE otherwise. */
export function idSchema() {
  return z.string().regex(ID_PATTERN, ID_RULE);
}

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
