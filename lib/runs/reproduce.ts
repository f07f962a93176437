/**
 * What a colleague needs to measure a run again, as one block of text to copy: the engine, its version and commit,
 * the model and hardware, the server's environment and launch command, and the benchmark command (the one
 * `servebench bench` recorded, or the one the imported file states), with the files the run came from. Every line
 * that is not a command is a `#` comment, so the block can be pasted into a shell as it is. Nothing is added that
 * the run does not hold: what is not recorded is said to be missing, never guessed.
 */
import { shellWord } from "@/lib/bench/reproduce";
import { isUnknownEngine } from "@/lib/document/names";
import type { StoredRun } from "@/lib/document/stored-run";
import { formatHardware } from "@/lib/format";
import { formatName } from "@/lib/formats/names";

/** Metadata keys that hold the command a benchmark tool was run with. */
const BENCHMARK_COMMAND_KEYS = ["bench_command", "benchmark_command"] as const;

export interface Reproduction {
  /** The benchmark command, when the run holds one. */
  benchmarkCommand: string | null;
  /** The whole block. */
  text: string;
}

function benchmarkCommandOf(run: StoredRun): string | null {
  for (const key of BENCHMARK_COMMAND_KEYS) {
    const value = run.metadata[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

/** A value on a comment line: one line, whatever the run holds. */
function oneLine(text: string): string {
  // Each run of white space once, as a whole: `\s*[\r\n]+\s*` rescanned a long run of spaces from every start.
  return text.replace(/\s+/g, (space) => (/[\r\n]/.test(space) ? " " : space));
}

function flagWords(flags: StoredRun["flags"]): string[] {
  const words: string[] = [];
  for (const [name, value] of Object.entries(flags)) {
    if (value === false) continue;
    words.push(name);
    if (value === true) continue;
    for (const item of Array.isArray(value) ? value : [value]) words.push(shellWord(String(item)));
  }
  return words;
}

export function reproductionOf(run: StoredRun): Reproduction {
  const lines: string[] = [`# ${oneLine(run.name)} (servebench run ${run.id})`];
  const engine = isUnknownEngine(run.engine) ? "not stated" : run.engine;
  const commit = run.git_commit
    ? `, commit ${run.git_commit}${run.git_branch ? ` on ${oneLine(run.git_branch)}` : ""}`
    : "";
  lines.push(`# Engine: ${oneLine(engine)} ${oneLine(run.engine_version ?? "(version not recorded)")}${commit}`);
  lines.push(`# Model: ${oneLine(run.model)}`);
  lines.push(
    `# Hardware: ${run.hardware?.gpu || run.hardware?.gpu_count ? formatHardware(run.hardware) : "not recorded"}`,
  );
  const files = run.metadata.source_files;
  if (typeof files === "string" && files !== "")
    lines.push(`# From: ${formatName(run.source_format)} file(s) ${oneLine(files)}`);
  else if (run.source_format !== "servebench/v1") lines.push(`# From: ${formatName(run.source_format)}`);
  if (run.measured_at) lines.push(`# Measured: ${run.measured_at}`);

  lines.push("", "# The server's environment");
  const env = Object.entries(run.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (env.length === 0) lines.push("# (no environment variables recorded)");
  for (const [name, value] of env) lines.push(`export ${name}=${shellWord(value)}`);

  lines.push("", "# The server's launch command");
  if (run.command) lines.push(run.command);
  else {
    const words = flagWords(run.flags);
    lines.push(
      words.length > 0
        ? `# not recorded; the flags it was launched with: ${oneLine(words.join(" "))}`
        : "# not recorded",
    );
  }

  lines.push("", "# The benchmark");
  const benchmarkCommand = benchmarkCommandOf(run);
  if (benchmarkCommand) lines.push(benchmarkCommand);
  else
    lines.push(
      run.source_format === "servebench/v1"
        ? "# not recorded (the run was sent as a servebench/v1 document without its command)"
        : `# not recorded: the ${formatName(run.source_format)} file does not state the command it was run with`,
    );
  return { benchmarkCommand, text: `${lines.join("\n")}\n` };
}
