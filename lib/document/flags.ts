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
  /** Flag names always begin with a dash, so none is a property every object has. */
  flags: Flags;
  /**
   * The `VAR=value` prefix, in an object with no prototype: a variable may have any name, `__proto__` and
   * `constructor` included, and each is kept as data (normalizeRunDocument refuses the names a document cannot hold).
   */
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
  const env = Object.create(null) as Record<string, string>;
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
 * The command with the values of secret flags (`--api-key x`, `--hf-token=x`) and variables (`HF_TOKEN=x`), the
 * credentials of headers (`-H "Authorization: Bearer x"`, `--header Authorization=x`) and the passwords of URLs
 * (`https://user:x@host/`) replaced by "(redacted)". Passes over the text, no regular expression over the command
 * itself: the time is linear in its length whatever it holds (a nested-quantifier pattern used here took 15 s on 64
 * characters).
 */
export function redactCommand(command: string): string {
  return redactUrlPasswords(redactHeaders(redactSecretWords(command)));
}

/** The values of secret flags and variables, redacted (one pass). */
function redactSecretWords(command: string): string {
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

// ---------------------------------------------------------------------------------------------------------
// Headers and URLs

/**
 * A header whose value is a credential, as written with `separator`: Authorization, Proxy-Authorization and Cookie
 * with `:` or `=` (`--header Authorization=…`), a secret name (X-Api-Key) with `:`. A secret name with `=` is a
 * variable (`HF_TOKEN=x`), which redactSecretWords and the variable's own redaction handle.
 */
export function isCredentialHeader(name: string, separator: string): boolean {
  const lower = name.toLowerCase();
  if (lower === "authorization" || lower === "proxy-authorization" || lower === "cookie") {
    return separator === ":" || separator === "=";
  }
  return separator === ":" && SECRET_NAME.test(name);
}

/** An authentication scheme kept in front of the credential it introduces (`Bearer`, `Basic`, `Token`). */
function isSchemeWord(word: string): boolean {
  if (word === "" || !/^[A-Za-z]/.test(word)) return false;
  for (let index = 0; index < word.length; index += 1) {
    const code = word.charCodeAt(index);
    if (!isWordCode(code) && code !== 45) return false;
  }
  return true;
}

/** Where a header's name at `start` ends: letters, digits, `-` and `_`. */
function headerNameEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && (isWordCode(text.charCodeAt(end)) || text[end] === "-")) end += 1;
  return end;
}

/**
 * A header's value (what follows `Name:`), whole: its scheme kept, the rest redacted. `Bearer abc` → `Bearer
 * (redacted)`, `abc` → `(redacted)`, empty stays empty.
 */
function redactCredential(value: string): string {
  let first = 0;
  while (first < value.length && isSpace(value.charCodeAt(first))) first += 1;
  if (first === value.length) return value;
  let wordEnd = first;
  while (wordEnd < value.length && !isSpace(value.charCodeAt(wordEnd))) wordEnd += 1;
  let next = wordEnd;
  while (next < value.length && isSpace(value.charCodeAt(next))) next += 1;
  const scheme = next < value.length && isSchemeWord(value.slice(first, wordEnd));
  return `${value.slice(0, scheme ? next : first)}${REDACTED}`;
}

/**
 * One header written as a whole value (a flag's value, a quoted word): `Authorization: Bearer abc` →
 * `Authorization: Bearer (redacted)`; `X-Api-Key=abc` → `X-Api-Key=(redacted)`. Anything else unchanged.
 */
export function redactHeaderLine(value: string): string {
  let start = 0;
  while (start < value.length && isSpace(value.charCodeAt(start))) start += 1;
  const nameEnd = headerNameEnd(value, start);
  if (nameEnd === start) return value;
  let separator = nameEnd;
  while (separator < value.length && isSpace(value.charCodeAt(separator))) separator += 1;
  if (!isCredentialHeader(value.slice(start, nameEnd), value[separator] ?? "")) return value;
  return `${value.slice(0, separator + 1)}${redactCredential(value.slice(separator + 1))}`;
}

/**
 * Header credentials in a text: `-H "Authorization: Bearer x"`, `--header Authorization=x`,
 * `-H Authorization: Bearer x` (three words), `{"Authorization": "Bearer x"}` (JSON in a flag's value). A header
 * begins a word, follows a quote or a flag's `=`; its value runs to the closing quote when it is quoted, else it is
 * the next word, after a scheme word when one comes first. Linear: each header's scans stop where the next one's
 * begin, and a quote that never closes is searched for once.
 */
function redactHeaders(text: string): string {
  let out = "";
  let copied = 0;
  const scan: QuoteScan = { '"': Number.POSITIVE_INFINITY, "'": Number.POSITIVE_INFINITY };
  const closingQuote = (quote: '"' | "'", from: number): number => {
    if (from > scan[quote]) return -1;
    const close = text.indexOf(quote, from);
    if (close < 0) scan[quote] = Math.min(scan[quote], from);
    return close;
  };
  let index = 0;
  while (index < text.length) {
    const before = index === 0 ? " " : text[index - 1]!;
    const opensQuote = before === '"' || before === "'" ? (before as '"' | "'") : null;
    const atStart = index === 0 || isSpace(text.charCodeAt(index - 1)) || before === "=" || opensQuote !== null;
    if (!atStart || !/[A-Za-z]/.test(text[index]!)) {
      index += 1;
      continue;
    }
    const nameEnd = headerNameEnd(text, index);
    // `"Authorization": "x"`: the name's own closing quote, as JSON writes it.
    let cursor = nameEnd;
    const quotedName = opensQuote !== null && text[cursor] === opensQuote;
    if (quotedName) cursor += 1;
    while (cursor < text.length && isSpace(text.charCodeAt(cursor))) cursor += 1;
    if (!isCredentialHeader(text.slice(index, nameEnd), text[cursor] ?? "")) {
      index = Math.max(nameEnd, index + 1);
      continue;
    }
    cursor += 1;
    let valueStart = cursor;
    while (valueStart < text.length && isSpace(text.charCodeAt(valueStart))) valueStart += 1;
    let valueEnd: number;
    const valueQuote = text[valueStart];
    if (valueQuote === '"' || valueQuote === "'") {
      // A quoted value (JSON's, or `Authorization='Bearer x'`): what is inside the quotes.
      const close = closingQuote(valueQuote, valueStart + 1);
      if (close < 0) {
        index = valueStart + 1;
        continue;
      }
      valueStart += 1;
      valueEnd = close;
    } else if (opensQuote !== null && !quotedName) {
      // `"Authorization: Bearer x"`: the header is the quoted word, its value runs to the closing quote.
      const close = closingQuote(opensQuote, cursor);
      valueStart = cursor;
      valueEnd = close < 0 ? unquotedWordEnd(text, valueStart) : close;
    } else {
      // Unquoted words: a scheme, then the credential (which is not the next flag).
      valueStart = cursor;
      let first = cursor;
      while (first < text.length && isSpace(text.charCodeAt(first))) first += 1;
      const firstEnd = unquotedWordEnd(text, first);
      let second = firstEnd;
      while (second < text.length && isSpace(text.charCodeAt(second))) second += 1;
      const secondEnd = unquotedWordEnd(text, second);
      const schemeFirst = isSchemeWord(text.slice(first, firstEnd)) && secondEnd > second && text[second] !== "-";
      valueEnd = schemeFirst ? secondEnd : firstEnd;
      if (valueEnd === first) {
        index = cursor;
        continue;
      }
    }
    const value = text.slice(valueStart, valueEnd);
    out += `${text.slice(copied, valueStart)}${redactCredential(value)}`;
    copied = valueEnd;
    index = Math.max(valueEnd, index + 1);
  }
  return out + text.slice(copied);
}

/** The end of the word at `start` (to the next space or quote), `start` itself when there is none. */
function unquotedWordEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && !isSpace(text.charCodeAt(end)) && text[end] !== '"' && text[end] !== "'") end += 1;
  return end;
}

/** Where a URL's authority ends: at `/`, `?`, `#`, a space, a quote or a bracket. */
function isAuthorityEnd(char: string, code: number): boolean {
  return (
    isSpace(code) ||
    char === "/" ||
    char === "?" ||
    char === "#" ||
    char === '"' ||
    char === "'" ||
    char === "`" ||
    char === "<" ||
    char === ">" ||
    char === "\\"
  );
}

/**
 * The passwords of URLs in a text redacted: `https://user:secret@host/x` → `https://user:(redacted)@host/x`,
 * whatever the scheme (`postgresql://`, `redis://`). The user name and the host stay: they say where, not how to
 * get in. Each authority is read once (it ends at the next `/`, so no two overlap).
 */
export function redactUrlPasswords(text: string): string {
  let out = "";
  let copied = 0;
  let from = 0;
  for (;;) {
    const marker = text.indexOf("://", from);
    if (marker < 0) break;
    const start = marker + 3;
    let end = start;
    let lastAt = -1;
    let colon = -1;
    while (end < text.length && !isAuthorityEnd(text[end]!, text.charCodeAt(end))) {
      if (text[end] === "@") lastAt = end;
      else if (text[end] === ":" && colon < 0) colon = end;
      end += 1;
    }
    from = Math.max(end, start);
    // The user information is what comes before the last `@`; its password follows its first `:`.
    if (lastAt < 0 || colon < 0 || colon > lastAt || colon + 1 === lastAt) continue;
    out += `${text.slice(copied, colon + 1)}${REDACTED}`;
    copied = lastAt;
  }
  return out + text.slice(copied);
}

/** A flag's or a variable's value with the credentials it holds redacted: a header, header JSON, URL passwords. */
export function redactValue(value: string): string {
  return redactUrlPasswords(redactHeaders(redactHeaderLine(value)));
}

/**
 * A flag's values as the shell split them: `-H Authorization: Bearer x` gives `["Authorization:", "Bearer", "x"]`, so
 * a word that is a credential header's name and separator alone redacts the words after it as redactCommand does the
 * command (the scheme kept). Every value is redacted on its own too.
 */
export function redactValues(values: readonly string[]): string[] {
  const out = values.map(redactValue);
  values.forEach((word, index) => {
    const match = /^([A-Za-z][A-Za-z0-9_-]*)\s*([:=])$/.exec(word);
    if (!match || !isCredentialHeader(match[1]!, match[2]!)) return;
    const next = values[index + 1];
    if (next === undefined) return;
    const after = values[index + 2];
    const schemeFirst = isSchemeWord(next) && after !== undefined && !after.startsWith("-");
    out[schemeFirst ? index + 2 : index + 1] = REDACTED;
  });
  return out;
}
