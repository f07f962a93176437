/**
 * Launch commands → flags and environment variables, so runs can be diffed flag by flag.
 *
 * Handles what people paste from their shells: `VAR=value` prefixes, `python -m module`, `vllm serve MODEL`,
 * `--flag value`, `--flag=value`, switches, `--no-x` negations, repeated flags, flags with several values
 * (`--cuda-graph-bs 1 2 4`), quoted and JSON values, line continuations, and trailing pipes or redirects.
 */
import { parse as shellParse } from "shell-quote";
import type { Flags, FlagValue } from "./schema";

export interface ParsedCommand {
  /** The program and its subcommands or positional arguments before the first flag, e.g. ["vllm", "serve", "MODEL"]. */
  program: string[];
  flags: Flags;
  env: Record<string, string>;
}

const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const WRAPPERS = new Set(["env", "nohup", "time", "exec", "sudo", "command"]);
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?([eE][+-]?\d+)?$/;

function isFlagToken(token: string): boolean {
  return token.startsWith("-") && token !== "-" && token !== "--" && !NEGATIVE_NUMBER.test(token);
}

/**
 * The one spelling of a flag name: leading dashes as written, underscores as dashes (SGLang's `server_info`
 * says `disable_cuda_graph` where its command line says `--disable-cuda-graph`). A bare name gets `--`.
 */
export function canonicalFlagName(name: string): string {
  const match = /^(-*)(.*)$/s.exec(name.trim());
  const dashes = match?.[1] ?? "";
  const body = (match?.[2] ?? "").replace(/_/g, "-");
  return `${dashes === "" ? "--" : dashes}${body}`;
}

/** Split a command line into words the way a POSIX shell would, stopping at the first pipe, redirect or `;`. */
export function tokenizeCommand(command: string): string[] {
  const joined = command.replace(/\\\r?\n/g, " ");
  // Keep `$VAR` as typed instead of substituting from our own environment.
  const entries = shellParse(joined, (key: string) => `$${key}`);
  const tokens: string[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") {
      tokens.push(entry);
      continue;
    }
    if ("comment" in entry) break;
    if ("op" in entry) {
      if (entry.op === "glob" && "pattern" in entry) {
        tokens.push(entry.pattern);
        continue;
      }
      // `2>&1` arrives as the word "2" then the operator: the file descriptor is part of the redirect.
      const previous = tokens[tokens.length - 1];
      if (
        /^[<>]/.test(entry.op) &&
        previous !== undefined &&
        /^\d+$/.test(previous) &&
        joined.includes(`${previous}${entry.op}`)
      ) {
        tokens.pop();
      }
      break;
    }
  }
  return tokens;
}

function addFlagValue(flags: Flags, name: string, value: FlagValue): void {
  const existing = flags[name];
  if (existing === undefined || typeof existing === "boolean" || typeof value === "boolean") {
    flags[name] = value;
    return;
  }
  // A repeated flag (`--lora-modules a --lora-modules b`) keeps every value, in order.
  const before = Array.isArray(existing) ? existing : [existing];
  const after = Array.isArray(value) ? value : [value];
  flags[name] = [...before, ...after];
}

/** Flags from a list of command-line tokens (no program part). */
export function parseFlagTokens(tokens: readonly string[]): Flags {
  const flags: Flags = {};
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] ?? "";
    index += 1;
    if (!isFlagToken(token)) continue; // stray positional: not a flag, still visible in the command
    const equals = token.indexOf("=");
    if (equals > 0) {
      addFlagValue(flags, canonicalFlagName(token.slice(0, equals)), token.slice(equals + 1));
      continue;
    }
    const values: string[] = [];
    while (index < tokens.length && !isFlagToken(tokens[index] ?? "")) {
      values.push(tokens[index] ?? "");
      index += 1;
    }
    const name = canonicalFlagName(token);
    if (values.length === 0) {
      const negated = /^--no-(.+)$/.exec(name);
      if (negated) addFlagValue(flags, `--${negated[1]}`, false);
      else addFlagValue(flags, name, true);
    } else {
      addFlagValue(flags, name, values.length === 1 ? (values[0] ?? "") : values);
    }
  }
  return flags;
}

export function parseCommand(command: string): ParsedCommand {
  const tokens = tokenizeCommand(command);
  const env: Record<string, string> = {};
  let index = 0;
  for (; index < tokens.length; index += 1) {
    const token = tokens[index] ?? "";
    const assignment = ENV_ASSIGNMENT.exec(token);
    if (assignment) {
      env[assignment[1] ?? ""] = assignment[2] ?? "";
      continue;
    }
    if (WRAPPERS.has(token)) continue;
    break;
  }

  const program: string[] = [];
  const first = tokens[index];
  if (first !== undefined && /(^|\/)python[\d.]*$/.test(first)) {
    // `python -u -m sglang.launch_server …`: the interpreter's own options are not server flags.
    program.push(first);
    index += 1;
    while (index < tokens.length) {
      const token = tokens[index] ?? "";
      if (token === "-m" && index + 1 < tokens.length) {
        program.push(token, tokens[index + 1] ?? "");
        index += 2;
        break;
      }
      if (!token.startsWith("-")) {
        program.push(token);
        index += 1;
        break;
      }
      program.push(token);
      index += 1;
    }
  }
  while (index < tokens.length && !isFlagToken(tokens[index] ?? "")) {
    program.push(tokens[index] ?? "");
    index += 1;
  }
  const flags = parseFlagTokens(tokens.slice(index));
  // `vllm serve MODEL` and `trtllm-serve MODEL` take the model as a positional argument: it is their --model.
  const positionalModel = modelArgument(program);
  if (positionalModel !== undefined && flags["--model"] === undefined) flags["--model"] = positionalModel;
  return { program, flags, env };
}

function modelArgument(program: readonly string[]): string | undefined {
  const names = program.map((token) => token.split("/").pop() ?? token);
  const serve = names.findIndex((name, i) => (name === "vllm" && names[i + 1] === "serve") || name === "trtllm-serve");
  if (serve < 0) return undefined;
  const offset = names[serve] === "vllm" ? 2 : 1;
  const model = program[serve + offset];
  // `trtllm-serve serve MODEL` is the same command spelled with its subcommand.
  if (model === "serve") return program[serve + offset + 1];
  return model;
}

/** Normalize flags given as an object: canonical names, numbers as strings. */
export function normalizeFlagObject(input: Record<string, string | number | boolean | (string | number)[]>): Flags {
  const flags: Flags = {};
  for (const [rawName, rawValue] of Object.entries(input)) {
    const name = canonicalFlagName(rawName);
    if (typeof rawValue === "boolean") flags[name] = rawValue;
    else if (Array.isArray(rawValue)) flags[name] = rawValue.map(String);
    else flags[name] = String(rawValue);
  }
  return flags;
}

export { formatFlag, formatFlagValue } from "./flag-format";

// ---------------------------------------------------------------------------------------------------------
// Credentials

/**
 * Flag and variable names whose values are credentials: kept as present, never stored. A whole word of the
 * name: `--hf-token`, `OPENAI_API_KEY`; not `--max-num-batched-tokens`, `--tokenizer` or `MAX_TOKENS`.
 */
export const SECRET_NAME = /(^|[-_])(api[-_]?key|token|secret|password|passwd|credentials?)($|[-_])/i;
export const REDACTED = "(redacted)";

function isSpace(code: number): boolean {
  // What `\s` matches in the ASCII range and the common Unicode spaces; a command is split on these.
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 // _
  );
}

/** Per quote character, a position after which the command holds no such quote (so none closes there). */
type QuoteScan = Record<'"' | "'", number>;

/**
 * The end of a value starting at `start`: a quoted string (quotes included) or a run of characters up to the
 * next space (for flags also up to a quote). -1 when there is no value there. `scan` remembers where a search
 * for a closing quote failed, so unclosed quotes cost one scan of the command in all, not one each.
 */
function valueEnd(text: string, start: number, stopAtQuote: boolean, scan: QuoteScan): number {
  const first = text[start];
  if (first === undefined || isSpace(text.charCodeAt(start))) return -1;
  if (first === '"' || first === "'") {
    const close = start >= scan[first] ? -1 : text.indexOf(first, start + 1);
    if (close < 0) {
      scan[first] = Math.min(scan[first], start);
      return stopAtQuote ? -1 : unquotedEnd(text, start, false);
    }
    return close + 1;
  }
  return unquotedEnd(text, start, stopAtQuote);
}

function unquotedEnd(text: string, start: number, stopAtQuote: boolean): number {
  let end = start;
  while (end < text.length) {
    const char = text[end]!;
    if (isSpace(text.charCodeAt(end)) || (stopAtQuote && (char === '"' || char === "'"))) break;
    end += 1;
  }
  return end > start ? end : -1;
}

/** Where the value of a secret flag (`--api-key x`, `--hf-token=x`) or variable (`HF_TOKEN=x`) at `start` is. */
function secretValueAt(text: string, start: number, scan: QuoteScan): [number, number] | null {
  let index = start;
  if (text[index] === "-") {
    // A flag: one or two dashes, then a name of word characters and dashes, then `=` or spaces, then the value.
    index += text[index + 1] === "-" ? 2 : 1;
    if (!isWordCode(text.charCodeAt(index))) return null;
    const nameStart = index;
    while (index < text.length && (isWordCode(text.charCodeAt(index)) || text[index] === "-")) index += 1;
    if (!SECRET_NAME.test(text.slice(nameStart, index))) return null;
    if (text[index] === "=") index += 1;
    else {
      const spacesFrom = index;
      while (index < text.length && isSpace(text.charCodeAt(index))) index += 1;
      if (index === spacesFrom) return null;
    }
    const end = valueEnd(text, index, true, scan);
    return end < 0 ? null : [index, end];
  }
  // A variable: a name of letters, digits, `_` (and the `-` of `API-KEY`), then `=` and the value.
  const nameStart = index;
  while (index < text.length && (isWordCode(text.charCodeAt(index)) || text[index] === "-")) index += 1;
  if (index === nameStart || text[index] !== "=" || !SECRET_NAME.test(text.slice(nameStart, index))) return null;
  index += 1;
  const end = valueEnd(text, index, false, scan);
  return end < 0 ? null : [index, end];
}

/**
 * The command with the values of secret flags (`--api-key x`, `--hf-token=x`) and variables (`HF_TOKEN=x`)
 * replaced by "(redacted)". One pass over the text, no regular expression over the command itself: the time
 * is linear in its length whatever it holds (a nested-quantifier pattern used here took 15 s on 64 characters).
 */
export function redactCommand(command: string): string {
  let out = "";
  let copied = 0;
  const scan: QuoteScan = { '"': Number.POSITIVE_INFINITY, "'": Number.POSITIVE_INFINITY };
  let index = 0;
  while (index < command.length) {
    const wordStart = index === 0 || isSpace(command.charCodeAt(index - 1));
    if (wordStart && !isSpace(command.charCodeAt(index))) {
      const value = secretValueAt(command, index, scan);
      if (value) {
        out += `${command.slice(copied, value[0])}${REDACTED}`;
        copied = value[1];
        index = value[1];
        continue;
      }
    }
    index += 1;
  }
  return out + command.slice(copied);
}
