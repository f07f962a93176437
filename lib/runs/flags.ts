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
