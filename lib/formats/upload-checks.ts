/**
 * Checks on an upload's files before any of them is decoded or parsed, on their bytes alone: text must be UTF-8
 * (a decoder would turn a broken byte into U+FFFD silently), and the whole upload must not describe more
 * values than the server can hold in memory once parsed. A 100 MB body of `[{},{},…]` parses into 33 million
 * objects, several gigabytes; counting the brackets first refuses it in a fraction of a second.
 */
import { AppError } from "@/lib/errors";
import { forbiddenKeyPath } from "@/lib/forbidden-keys";
import { invalidUtf8Offset, looksBinary, parseLenientJson } from "./decode";

export const STRUCTURE_LIMITS = {
  /** Objects and lists (`{`, `[`, and YAML's `- `) across the files of one upload. */
  containers: 2_000_000,
  /** Separators between values (`,`, `:`, line breaks) across the files of one upload. */
  separators: 12_000_000,
  /**
   * Lines across the files of one upload: each line of a JSON-lines file becomes a record, a load level, a
   * fragment to plan. 149,000 load levels (58 MB) are planned in about 9 s in 800 MB of server memory; 200,000
   * would need more than the upload worker's heap (lib/ingest/upload-pool.ts). See docs/benchmarks.md.
   */
  lines: 150_000,
} as const;

function describeByte(byte: number | undefined): string {
  return byte === undefined ? "end of file" : `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
}

/** A 400 naming the file and where its bytes stop being UTF-8, or nothing. */
export function checkUtf8(name: string, bytes: Uint8Array): void {
  const offset = invalidUtf8Offset(bytes);
  if (offset === null) return;
  throw new AppError(
    "invalid_json",
    `"${name}" is not UTF-8 text: byte ${offset.toLocaleString("en-US")} (${describeByte(bytes[offset])}) does not begin a valid character; save the file as UTF-8.`,
  );
}

/** Upper bounds on the values a decoder could make of these bytes, counted without decoding them. */
function countStructure(bytes: Uint8Array): { containers: number; separators: number; lines: number } {
  let containers = 0;
  let separators = 0;
  let lines = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index];
    if (byte === 0x7b || byte === 0x5b) containers += 1;
    else if (byte === 0x2c || byte === 0x3a) separators += 1;
    else if (byte === 0x0a) {
      separators += 1;
      lines += 1;
    } else if (byte === 0x2d && bytes[index + 1] === 0x20) containers += 1;
  }
  return { containers, separators, lines };
}

const number = (value: number) => value.toLocaleString("en-US");

/** The keys every JavaScript object has, quoted as a JSON key is. */
const SUSPICIOUS = ['"__proto__"', '"constructor"', '"prototype"'].map((word) => Buffer.from(word));
const ESCAPE = Buffer.from("\\u00");

/** Whether the text escapes an ASCII letter or `_` (`\u005f`), as one would to hide a key from a plain search. */
function escapesALetter(buffer: Buffer): boolean {
  const hex = (byte: number | undefined) => (byte === undefined ? -1 : Number.parseInt(String.fromCharCode(byte), 16));
  for (let at = buffer.indexOf(ESCAPE); at >= 0; at = buffer.indexOf(ESCAPE, at + 1)) {
    const code = hex(buffer[at + 4]) * 16 + hex(buffer[at + 5]);
    if (code === 0x5f || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) return true;
  }
  return false;
}

/**
 * A `__proto__`, `constructor` or `prototype` key in a JSON or JSON-lines file: parsed into an object it would
 * vanish (or change the object) without a word, so the upload is refused naming it. Files that hold none of
 * those words (nor an escaped letter that could spell one) are not parsed here at all.
 */
function checkKeys(name: string, bytes: Uint8Array): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!SUSPICIOUS.some((word) => buffer.includes(word)) && !escapesALetter(buffer)) return;
  const text = new TextDecoder("utf-8").decode(bytes);
  const values: unknown[] = [];
  try {
    values.push(parseLenientJson(text));
  } catch {
    for (const line of text.split("\n")) {
      try {
        if (line.trim() !== "") values.push(parseLenientJson(line));
      } catch {
        return; // Not JSON nor JSON lines: the decoder decides what it is.
      }
    }
  }
  for (const value of values) {
    const forbidden = forbiddenKeyPath(value);
    if (forbidden) {
      throw new AppError(
        "validation_failed",
        `"${name}" has a key that is not allowed: ${forbidden.path}: ${forbidden.message}`,
        [{ path: forbidden.path, message: `${forbidden.message} (in "${name}")` }],
      );
    }
  }
}

/** Refuse an upload whose files are not UTF-8 text, or that would parse into more values than the limits. */
export function checkUploadFiles(files: readonly { name: string; bytes: Uint8Array }[]): void {
  let containers = 0;
  let separators = 0;
  let lines = 0;
  for (const file of files) {
    // A binary file is refused by the decoder, with a message that says binary.
    if (looksBinary(file.bytes)) continue;
    checkUtf8(file.name, file.bytes);
    const counted = countStructure(file.bytes);
    containers += counted.containers;
    separators += counted.separators;
    lines += counted.lines;
    const what =
      containers > STRUCTURE_LIMITS.containers
        ? `more than ${number(STRUCTURE_LIMITS.containers)} objects and lists`
        : separators > STRUCTURE_LIMITS.separators
          ? `more than ${number(STRUCTURE_LIMITS.separators)} values`
          : lines > STRUCTURE_LIMITS.lines
            ? `more than ${number(STRUCTURE_LIMITS.lines)} lines`
            : null;
    if (what) {
      throw new AppError(
        "payload_too_large",
        `The upload holds ${what} (counted up to "${file.name}"); no benchmark result comes near that. Upload fewer or smaller files.`,
      );
    }
    checkKeys(file.name, file.bytes);
  }
}
