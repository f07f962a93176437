/**
 * Reading request bodies safely: a byte limit enforced while streaming (not after buffering everything),
 * JSON parse errors reported as 400s, and content types checked before anything is parsed.
 */
import { AppError, excerpt } from "@/lib/errors";
import { forbiddenKeyPath } from "@/lib/forbidden-keys";
import { findDuplicateKey, invalidUtf8Offset, MAX_NESTING_DEPTH, nestingDepth } from "@/lib/formats/decode";
import { type KeepsExactDigits, placeLargeNumbersOfText, refuseEveryLargeNumber } from "@/lib/formats/large-numbers";

export async function readBodyWithLimit(request: Request, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new AppError(
      "payload_too_large",
      `The request body is larger than the limit of ${formatBytes(limitBytes)} (set SERVEBENCH_MAX_BODY_MB to change it).`,
    );
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);

  const reader = request.body.getReader();
  // With a declared length the body goes straight into one buffer of that size: a 100 MB upload costs 100 MB
  // here, not its chunks plus their concatenation. Without one, chunks are kept and joined at the end.
  const exact = Number.isSafeInteger(declared) && declared >= 0 ? new Uint8Array(declared) : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limitBytes || (exact && total + value.byteLength > exact.byteLength)) {
      await reader.cancel().catch(() => undefined);
      if (total + value.byteLength > limitBytes) throw tooLarge();
      throw new AppError("bad_request", "The request body is longer than its Content-Length says.");
    }
    if (exact) exact.set(value, total);
    else chunks.push(value);
    total += value.byteLength;
  }
  if (exact) return total === exact.byteLength ? exact : exact.slice(0, total);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(bytes % 1_000_000 === 0 ? 0 : 1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(0)} kB`;
  return `${bytes} bytes`;
}

/** The media type of a request without its parameters, lower-cased: `application/json`. */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** Parse JSON text, turning a syntax error into a 400 that says where the text broke. */
export function parseJsonText(text: string, what: string): unknown {
  if (text.trim() === "") throw new AppError("invalid_json", `${what} is empty; expected a JSON object.`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new AppError("invalid_json", `${what} is not valid JSON: ${detail}`);
  }
}

/** UTF-8 bytes → text; a 400 naming the first byte that is not UTF-8 (a decoder would make it U+FFFD silently). */
export function decodeUtf8(bytes: Uint8Array, what = "The request body"): string {
  const offset = invalidUtf8Offset(bytes);
  if (offset !== null) {
    const byte = bytes[offset];
    const shown = byte === undefined ? "end" : `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    throw new AppError(
      "invalid_json",
      `${what} is not UTF-8 text: byte ${offset.toLocaleString("en-US")} (${shown}) does not begin a valid character.`,
    );
  }
  return new TextDecoder("utf-8").decode(bytes);
}

/**
 * Parse JSON text the way every write does: a key twice in one object, nesting deeper than any results file,
 * and `__proto__` / `constructor` / `prototype` keys are refused, each with a message that names it. A number
 * beyond ±2^53 (JSON.parse would round it) is kept as its digits where `keepsDigits` says (a run document's
 * metadata), and refused naming its field everywhere else.
 */
export function parseWriteJson(
  text: string,
  what: string,
  keepsDigits: KeepsExactDigits = refuseEveryLargeNumber,
): unknown {
  const value = parseJsonText(text, what);
  const duplicate = findDuplicateKey(text);
  if (duplicate !== null) {
    throw new AppError(
      "invalid_json",
      `${what} has the key "${duplicate.slice(0, 100)}" twice in one object; which one is meant?`,
    );
  }
  if (nestingDepth(value) > MAX_NESTING_DEPTH) {
    throw new AppError("invalid_json", `${what} is nested more than ${MAX_NESTING_DEPTH} levels deep.`);
  }
  const forbidden = forbiddenKeyPath(value);
  if (forbidden)
    throw new AppError("validation_failed", `${what}: ${forbidden.path}: ${forbidden.message}`, [forbidden]);
  placeLargeNumbersOfText(value, text, keepsDigits, what);
  return value;
}

export async function readJsonBody(request: Request, limitBytes: number, what = "The request body"): Promise<unknown> {
  const mediaType = mediaTypeOf(request);
  if (!isJsonMediaType(mediaType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type ${mediaType ? `"${excerpt(mediaType, 100)}"` : "(none)"} is not supported here; send application/json.`,
    );
  }
  const bytes = await readBodyWithLimit(request, limitBytes);
  return parseWriteJson(decodeUtf8(bytes, what), what);
}
