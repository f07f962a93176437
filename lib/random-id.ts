import { randomBytes } from "node:crypto";

/** The base64url characters an id may begin with: a letter or a digit. */
const LEADING_CHARACTER = /^[A-Za-z0-9]/;

/**
 * A short, URL-safe, unguessable id of `length` base64url characters whose first character is a letter or
 * a digit. base64url also has "-" and "_"; an id that begins with "-" reads as an option on a command line
 * (`servebench compare -abc…`) and as a formula to a spreadsheet (so CSV exports have to quote it), so new
 * ids never begin with one. Drawing again when the first character is one of them keeps every other
 * character uniform; it costs log2(64/62) ≈ 0.05 bits of the id's randomness.
 */
export function randomId(length: number): string {
  for (;;) {
    const id = randomBytes(Math.ceil((length * 3) / 4))
      .toString("base64url")
      .slice(0, length);
    if (LEADING_CHARACTER.test(id)) return id;
  }
}
