/**
 * Bytes of an uploaded file → a SourceFile: JSON, JSON lines, YAML or CSV, tried in that order. The
 * decoder never looks at the file name; the content decides.
 */
import { isUtf8 } from "node:buffer";
import { parse as parseCsv } from "csv-parse/sync";
import { parse as parseYaml } from "yaml";
import type { LargeNumber, SkippedLine, SourceFile } from "./types";

export class DecodeError extends Error {
  /**
   * True when the text read as none of the formats at all (rather than being empty, binary, not UTF-8, too deep or
   * with a key twice): a file of another kind, or JSON broken somewhere.
   */
  readonly noFormat: boolean;
  /** True for a binary file (an image, an archive of another kind): in a folder, a file that is no results. */
  readonly binary: boolean;
  constructor(message: string, options: { noFormat?: boolean; binary?: boolean } = {}) {
    super(message);
    this.name = "DecodeError";
    this.noFormat = options.noFormat ?? false;
    this.binary = options.binary ?? false;
  }
}

const NON_FINITE = ["-Infinity", "Infinity", "NaN"] as const;

/** No results file nests deeper than this; a deeper one is hostile or broken, and deep values are costly to walk. */
export const MAX_NESTING_DEPTH = 64;

/** The nesting depth of a parsed value, walked without recursion; stops counting past the limit. */
export function nestingDepth(value: unknown, limit = MAX_NESTING_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, level]);
    }
  }
  return deepest;
}

/** Where the JSON string opened by the quote at `open` ends: its closing quote's index, -1 when it has none. */
function closingQuote(text: string, open: number): number {
  let end = open + 1;
  for (;;) {
    end = text.indexOf('"', end);
    if (end < 0) return -1;
    // A quote after an odd number of backslashes is escaped.
    let backslashes = 0;
    for (let back = end - 1; text.charCodeAt(back) === 92; back -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end += 1;
  }
}

/**
 * The first key that appears twice in one object of a JSON text, or null. JSON.parse silently keeps the last
 * one, so `{"engine": "vllm", "engine": "sglang"}` would say two things at once: such a file is refused.
 */
export function findDuplicateKey(text: string): string | null {
  const frames: { keys: Set<string> | null; awaitingKey: boolean }[] = [];
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      const end = closingQuote(text, index);
      if (end < 0) return null;
      const top = frames[frames.length - 1];
      if (top?.keys && top.awaitingKey) {
        // Compared unescaped: "\u0061" and "a" are the same key.
        const written = text.slice(index + 1, end);
        const key = written.includes("\\") ? unescapeJsonString(written) : written;
        if (top.keys.has(key)) return key;
        top.keys.add(key);
        top.awaitingKey = false;
      }
      index = end + 1;
      continue;
    }
    if (code === 123) frames.push({ keys: new Set(), awaitingKey: true });
    else if (code === 91) frames.push({ keys: null, awaitingKey: false });
    else if (code === 125 || code === 93) frames.pop();
    else if (code === 44) {
      const top = frames[frames.length - 1];
      if (top?.keys) top.awaitingKey = true;
    }
    index += 1;
  }
  return null;
}

/** 2^53: past it, not every integer is a double, so JSON.parse rounds what a text states (…993 reads as …992). */
export const MAX_EXACT_JSON_INTEGER = 2 ** 53;
const MAX_EXACT_DIGITS = String(MAX_EXACT_JSON_INTEGER);

/**
 * Whether a JSON number literal is beyond ±2^53: a whole number of more digits than 2^53 has, or as many and larger,
 * or any other spelling (a fraction, an exponent) of 2^53 or more, all of which reads rounded.
 */
function isBeyondExactIntegers(literal: string): boolean {
  const digits = literal.startsWith("-") ? literal.slice(1) : literal;
  if (/^[0-9]+$/.test(digits)) {
    const significant = digits.replace(/^0+(?=[0-9])/, "");
    return (
      significant.length > MAX_EXACT_DIGITS.length ||
      (significant.length === MAX_EXACT_DIGITS.length && significant > MAX_EXACT_DIGITS)
    );
  }
  const value = Math.abs(Number(literal));
  return !Number.isNaN(value) && value >= MAX_EXACT_JSON_INTEGER;
}

/**
 * Every number of a JSON (or JSON-lines) text beyond ±2^53, with its path: JSON.parse keeps a double of it, not its
 * digits, so only the text says what it was. One pass over the text, and none when it holds no run of 16 digits
 * nor an exponent (the text of almost every file).
 */
export function findLargeNumbers(text: string): LargeNumber[] {
  if (!/[0-9]{16}|[0-9][eE]/.test(text)) return [];
  const found: LargeNumber[] = [];
  const frames: { key: string | null; index: number; awaitingKey: boolean; object: boolean }[] = [];
  let ordinal = 0;
  const valueDone = () => {
    if (frames.length === 0) ordinal += 1;
  };
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      const end = closingQuote(text, index);
      if (end < 0) return found;
      const top = frames[frames.length - 1];
      if (top?.object && top.awaitingKey) {
        const written = text.slice(index + 1, end);
        top.key = written.includes("\\") ? unescapeJsonString(written) : written;
        top.awaitingKey = false;
      } else valueDone();
      index = end + 1;
      continue;
    }
    if (code === 123 || code === 91) {
      frames.push({ key: null, index: 0, awaitingKey: code === 123, object: code === 123 });
    } else if (code === 125 || code === 93) {
      frames.pop();
      valueDone();
    } else if (code === 44) {
      const top = frames[frames.length - 1];
      if (top?.object) top.awaitingKey = true;
      else if (top) top.index += 1;
    } else if (code === 45 || (code >= 48 && code <= 57)) {
      // A number: its characters are digits, the sign, the decimal point and the exponent.
      let end = index + 1;
      for (; end < length; end += 1) {
        const next = text.charCodeAt(end);
        if (!((next >= 48 && next <= 57) || next === 43 || next === 45 || next === 46 || next === 69 || next === 101))
          break;
      }
      const literal = text.slice(index, end);
      if (isBeyondExactIntegers(literal)) {
        const path: (string | number)[] = [ordinal];
        for (const frame of frames) path.push(frame.object ? (frame.key ?? "") : frame.index);
        found.push({ path, literal });
      }
      valueDone();
      index = end;
      continue;
    }
    index += 1;
  }
  return found;
}

function unescapeJsonString(written: string): string {
  try {
    return JSON.parse(`"${written}"`) as string;
  } catch {
    return written;
  }
}

function checkDuplicateKeys(name: string, text: string): void {
  const key = findDuplicateKey(text);
  if (key !== null)
    throw new DecodeError(`"${name}" has the key "${key.slice(0, 100)}" twice in one object; which one is meant?`);
}

function checkDepth(name: string, value: unknown): void {
  if (nestingDepth(value) > MAX_NESTING_DEPTH) {
    throw new DecodeError(`"${name}" is nested more than ${MAX_NESTING_DEPTH} levels deep; no results file is.`);
  }
}

/**
 * Python's json module writes bare NaN, Infinity and -Infinity, which JSON.parse rejects. Outside strings,
 * turn them into the strings "NaN", "Infinity" and "-Infinity" so the parsers can see and handle them.
 */
export function quoteNonFiniteLiterals(text: string): string {
  let out = "";
  let inString = false;
  let index = 0;
  let last = 0;
  while (index < text.length) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 2;
      else {
        if (char === '"') inString = false;
        index += 1;
      }
      continue;
    }
    if (char === '"') {
      inString = true;
      index += 1;
      continue;
    }
    const literal = NON_FINITE.find((word) => text.startsWith(word, index));
    if (literal) {
      const before = text[index - 1] ?? " ";
      const after = text[index + literal.length] ?? " ";
      if (!/[\w.]/.test(before) && !/[\w.]/.test(after)) {
        out += `${text.slice(last, index)}"${literal}"`;
        index += literal.length;
        last = index;
        continue;
      }
    }
    index += 1;
  }
  return out + text.slice(last);
}

/** JSON.parse that also accepts Python's NaN/Infinity literals. Throws SyntaxError when it is not JSON. */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
    return JSON.parse(quoteNonFiniteLiterals(text)) as unknown;
  }
}

function tryJsonLines(text: string): unknown[] | null {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length < 2) return null;
  const values: unknown[] = [];
  for (const line of lines) {
    try {
      values.push(parseLenientJson(line));
    } catch {
      return null;
    }
  }
  return values.every((value) => typeof value === "object" && value !== null && !Array.isArray(value)) ? values : null;
}

/** More skipped lines than this, and the file is a log with some JSON in it, not the tool's output with its log. */
const MAX_LOG_LINES = 200;

/**
 * A JSON or JSON-lines body with the tool's log lines before and after it: what `tool -o json 2>&1 | tee out` saves.
 * llama.cpp writes `ggml_cuda_init: found 1 ROCm devices:` and the like to stderr before the results and
 * `build: <sha> (<n>)` after a markdown table. Lines before the first line that opens a JSON value (`{` or `[`) and
 * after the last one that closes it are skipped, when what is left decodes as JSON or JSON lines. Null otherwise.
 */
export function withoutLogLines(text: string): { body: string; skipped: SkippedLine[] } | null {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((line) => /^\s*[[{]/.test(line));
  if (first < 0) return null;
  let last = lines.length - 1;
  while (last > first && !/[\]}]\s*$/.test(lines[last] ?? "")) last -= 1;
  const skipped: SkippedLine[] = [];
  lines.forEach((line, index) => {
    if ((index < first || index > last) && line.trim() !== "") skipped.push({ line: index + 1, text: line });
  });
  if (skipped.length === 0 || skipped.length > MAX_LOG_LINES) return null;
  return { body: lines.slice(first, last + 1).join("\n"), skipped };
}

function tryYaml(text: string): unknown {
  // A YAML document of ours is a mapping: `key: value` on its first content line.
  if (!/^\s*(#.*\n\s*)*(---\s*\n\s*)?[\w"'-][^\n]*:(\s|$)/.test(text)) return null;
  try {
    const value: unknown = parseYaml(text, { maxAliasCount: 100 });
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function tryCsv(text: string): string[][] | null {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  if ((firstLine.match(/,/g) ?? []).length < 1) return null;
  try {
    // Rows as written, header included: some tools write several sections with their own headers.
    const rows = parseCsv(text, {
      skip_empty_lines: true,
      trim: true,
      bom: true,
      relax_column_count: true,
    }) as string[][];
    return rows.length > 1 ? rows : null;
  } catch {
    return null;
  }
}

export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control += 1;
  }
  return sample.length > 0 && control / sample.length > 0.05;
}

/**
 * The byte offset of the first byte that breaks UTF-8 (a stray continuation byte, an overlong form, an encoded
 * surrogate, a code point past U+10FFFF, a sequence cut short), or null when the bytes are valid UTF-8. A
 * decoder would turn such bytes into U+FFFD silently; a write refuses them, saying where they are.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number | null {
  if (isUtf8(bytes)) return null;
  let index = 0;
  while (index < bytes.length) {
    const first = bytes[index]!;
    if (first < 0x80) {
      index += 1;
      continue;
    }
    let length: number;
    let min: number;
    if (first >= 0xc2 && first <= 0xdf) [length, min] = [2, 0x80];
    else if (first >= 0xe0 && first <= 0xef) [length, min] = [3, 0x800];
    else if (first >= 0xf0 && first <= 0xf4) [length, min] = [4, 0x10000];
    else return index;
    let codePoint = first & (0xff >> (length + 1));
    for (let next = 1; next < length; next += 1) {
      const byte = bytes[index + next];
      if (byte === undefined || (byte & 0xc0) !== 0x80) return index;
      codePoint = (codePoint << 6) | (byte & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return index;
    index += length;
  }
  return null;
}

export function decodeFile(name: string, bytes: Uint8Array): SourceFile {
  if (looksBinary(bytes)) {
    throw new DecodeError(`"${name}" is a binary file, not JSON, JSON lines, YAML or CSV.`, { binary: true });
  }
  const text = new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
  if (text.trim() === "") throw new DecodeError(`"${name}" is empty.`);
  let json: unknown;
  try {
    json = parseLenientJson(text);
  } catch (jsonError) {
    const lines = tryJsonLines(text);
    if (lines) {
      checkDepth(name, lines);
      checkDuplicateKeys(name, text);
      return { name, kind: "jsonl", data: lines, bytes: bytes.byteLength, ...largeNumbersField(text) };
    }
    const withLog = decodeWithoutLogLines(name, text, bytes.byteLength);
    if (withLog) return withLog;
    const yaml = tryYaml(text);
    if (yaml) {
      checkDepth(name, yaml);
      return { name, kind: "yaml", data: yaml, bytes: bytes.byteLength };
    }
    const csv = tryCsv(text);
    if (csv) return { name, kind: "csv", data: csv, bytes: bytes.byteLength };
    const detail = jsonError instanceof Error ? jsonError.message : String(jsonError);
    throw new DecodeError(`"${name}" is not valid JSON (${detail}), nor JSON lines, YAML or CSV.`, { noFormat: true });
  }
  checkDepth(name, json);
  checkDuplicateKeys(name, text);
  return { name, kind: "json", data: json, bytes: bytes.byteLength, ...largeNumbersField(text) };
}

/** `largeNumbers` of a SourceFile decoded from `text`, left out when there are none. */
export function largeNumbersField(text: string): { largeNumbers?: LargeNumber[] } {
  const found = findLargeNumbers(text);
  return found.length > 0 ? { largeNumbers: found } : {};
}

/** The JSON or JSON-lines body of a file captured with the tool's log around it, or null. */
function decodeWithoutLogLines(name: string, text: string, byteLength: number): SourceFile | null {
  const stripped = withoutLogLines(text);
  if (!stripped) return null;
  let data: unknown;
  let kind: "json" | "jsonl" = "json";
  try {
    data = parseLenientJson(stripped.body);
  } catch {
    const lines = tryJsonLines(stripped.body);
    if (!lines) return null;
    data = lines;
    kind = "jsonl";
  }
  if (typeof data !== "object" || data === null) return null;
  checkDepth(name, data);
  checkDuplicateKeys(name, stripped.body);
  return { name, kind, data, bytes: byteLength, skippedLines: stripped.skipped, ...largeNumbersField(stripped.body) };
}

/**
 * The file as plain text, for the parsers of printed reports. Only for a file that decodes as nothing else, or whose
 * decoded form no parser claims (a log whose first line happens to read as YAML).
 */
export function decodeAsText(name: string, bytes: Uint8Array): SourceFile | null {
  if (looksBinary(bytes)) return null;
  const text = new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
  return text.trim() === "" ? null : { name, kind: "text", data: text, bytes: bytes.byteLength };
}

/** For tests and scripts: decode a string as if it were an uploaded file. */
export function decodeText(name: string, text: string): SourceFile {
  return decodeFile(name, new TextEncoder().encode(text));
}
