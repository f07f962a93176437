/**
 * llama.cpp `llama-bench -o json|jsonl|csv`: one record per test. A test is prompt processing (pp: n_prompt > 0,
 * n_gen = 0), text generation (tg: n_gen > 0, n_prompt = 0) or both (pg), optionally at a prefilled context
 * depth (n_depth). The tests of one launch configuration (same options, build, model and GPU; the test shape
 * is not part of it) become one fragment with a single point at concurrency 1, whose output throughput is the
 * speed of the representative generation test (tg128 at depth 0 when it was run); every test's speed is kept
 * as metadata (`pp512_tok_s`, `tg128@d4096_tok_s`).
 */
import { canonicalFlagName } from "@/lib/document/flags";
import { asRecord, describeValue, isNaNValue, isoTimestamp, PointBuilder, toCount, toNumber } from "./common";
import { isLlamaBenchMarkdown, readMarkdownTable } from "./llama-bench-markdown";
import { skippedLinesWarning } from "./report";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  type NotImported,
  type RunContext,
  type SourceFile,
} from "./types";

const SIGNATURE = ["build_commit", "n_prompt", "n_gen", "avg_ts"] as const;

/**
 * llama-bench record field → the llama-bench command-line option that sets it. All but n_depth are launch
 * options (flags of the run); `-d` sets the context depth of a test, which is part of the test's shape.
 */
export const LLAMA_BENCH_FLAGS: Readonly<Record<string, string>> = {
  n_batch: "-b",
  n_ubatch: "-ub",
  type_k: "-ctk",
  type_v: "-ctv",
  n_threads: "-t",
  cpu_mask: "-C",
  cpu_strict: "--cpu-strict",
  poll: "--poll",
  n_gpu_layers: "-ngl",
  n_cpu_moe: "-ncmoe",
  split_mode: "-sm",
  main_gpu: "-mg",
  no_kv_offload: "-nkvo",
  flash_attn: "-fa",
  devices: "-dev",
  tensor_split: "-ts",
  tensor_buft_overrides: "-ot",
  use_mmap: "-mmp",
  use_direct_io: "-dio",
  load_mode: "-lm",
  embeddings: "-embd",
  no_op_offload: "-nopo",
  no_host: "--no-host",
  moe_cache: "--moe-cache",
  repack: "--repack",
  n_gen_warmup: "--n-gen-warmup",
  n_depth: "-d",
};

/**
 * Fields llama-bench writes as 0/1 (CSV) or false/true (JSON): stored as booleans either way. (Newer builds
 * write flash_attn as "on"/"off"/"auto", which stays a string.)
 */
const BOOLEAN_FIELDS = new Set([
  "flash_attn",
  "cpu_strict",
  "no_kv_offload",
  "use_mmap",
  "use_direct_io",
  "embeddings",
  "no_op_offload",
  "no_host",
  "repack",
]);

interface Test {
  record: Record<string, unknown>;
  /** Where the record is in the file, for messages and FormatError paths: "[3]", "line 4", "row 2". */
  where: string;
  /** How a person names that place: "test 4", "line 4", "row 2". */
  label: string;
}

function hasSignature(value: unknown): boolean {
  const record = asRecord(value);
  return record !== undefined && SIGNATURE.every((key) => key in record);
}

function csvHasSignature(rows: unknown): boolean {
  if (!Array.isArray(rows) || rows.length < 2) return false;
  const header = rows[0];
  return Array.isArray(header) && SIGNATURE.every((key) => header.includes(key));
}

function detect(file: SourceFile): boolean {
  const { data } = file;
  if (file.kind === "text") return isLlamaBenchMarkdown(String(data));
  if (file.kind === "csv") return csvHasSignature(data);
  if (file.kind !== "json" && file.kind !== "jsonl") return false;
  if (Array.isArray(data)) {
    return data.length > 0 && data.every((item) => asRecord(item) !== undefined) && hasSignature(data[0]);
  }
  return hasSignature(data);
}

/** CSV rows → records keyed by the header. A repeated header row (appended runs) starts a new section. */
function csvRecords(rows: string[][]): Test[] {
  const tests: Test[] = [];
  let header: string[] | undefined;
  rows.forEach((row, index) => {
    if (SIGNATURE.every((key) => row.includes(key))) {
      header = row;
      return;
    }
    if (!header) return;
    const record: Record<string, unknown> = {};
    header.forEach((name, column) => {
      const cell = row[column];
      if (cell !== undefined) record[name] = cell;
    });
    tests.push({ record, where: `row ${index + 1}`, label: `row ${index + 1}` });
  });
  return tests;
}

function testsOf(file: SourceFile): Test[] {
  const { data } = file;
  if (file.kind === "text") {
    const table = readMarkdownTable(file);
    return table.records.map((record, index) => ({
      record,
      where: table.rows[index] ?? "",
      label: table.rows[index] ?? "",
    }));
  }
  if (file.kind === "csv") return csvRecords(data as string[][]);
  const items = Array.isArray(data) ? data : [data];
  return items.map((item, index) => {
    const record = asRecord(item);
    const where = file.kind === "jsonl" ? `line ${index + 1}` : Array.isArray(data) ? `[${index}]` : "";
    if (!record) throw new FormatError(where || "(root)", "each llama-bench test must be an object");
    const label = file.kind === "jsonl" ? `line ${index + 1}` : `test ${index + 1}`;
    return { record, where, label };
  });
}

/** The path of a record's field in the import report's terms: "[3].avg_ts", "line 4.avg_ts", "row 2.avg_ts". */
function reportPath(where: string, key: string): string {
  if (where === "") return key;
  return where.startsWith("[") ? `${where}.${key}` : `${where}.${key}`;
}

function fieldPath(where: string, key: string): string {
  return where === "" ? key : where.startsWith("[") ? `${where}.${key}` : `${where}: ${key}`;
}

/** A required token count (n_prompt, n_gen). */
function requiredCount(test: Test, key: string): number {
  const value = test.record[key];
  const count = toCount(value);
  if (count === null) {
    throw new FormatError(
      fieldPath(test.where, key),
      `${key} must be a whole number of tokens, got ${describeValue(value)}`,
    );
  }
  return count;
}

/** A scalar flag value as the file states it; CSV cells become numbers or booleans where they are ones. */
function flagValue(key: string, value: unknown): string | number | boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (BOOLEAN_FIELDS.has(key)) {
    if (value === true || value === 1 || value === "1" || value === "true") return true;
    if (value === false || value === 0 || value === "0" || value === "false") return false;
  }
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  // Keep strings that only look numeric in part ("0x0", "0.00/1.00", "q8_0") as written.
  const number = /^-?\d+(\.\d+)?$/.test(value.trim()) ? toNumber(value) : null;
  if (number !== null && key !== "tensor_split") return number;
  return value.trim();
}

function text(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function engineVersion(record: Record<string, unknown>): string | undefined {
  const number = toCount(record.build_number);
  const commit = text(record.build_commit);
  if (number !== null && commit) return `b${number} (${commit})`;
  if (number !== null) return `b${number}`;
  return commit;
}

/**
 * The model, from the model file's name only. `model_type` (all the markdown table shows) is llama.cpp's description
 * of the architecture, size and quantization ("deepseek2 30B.A3B Q8_0" for GLM-4.7-Flash): it names no model, so it is
 * kept in the metadata and the run's name, and the model is left for the person to state.
 */
function modelName(record: Record<string, unknown>): string | undefined {
  const filename = text(record.model_filename);
  if (!filename) return undefined;
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const name = base.replace(/\.gguf$/i, "");
  return name === "" ? undefined : name;
}

/**
 * The GPU that served the test: gpu_info lists the devices llama-bench found (", "-separated). Nothing is
 * claimed when no layer was offloaded (-ngl 0). The count is the devices named by -dev when given, one with
 * -sm none, else every listed device (layer and row split use them all).
 */
function hardware(record: Record<string, unknown>): RunContext["hardware"] {
  const info = text(record.gpu_info);
  if (!info) return undefined;
  if (toNumber(record.n_gpu_layers) === 0) return undefined;
  const names = info
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) return undefined;
  const gpu = names.every((name) => name === names[0]) ? names[0] : names.join(", ");
  const devices = text(record.devices);
  let count = names.length;
  if (devices && !["auto", "none"].includes(devices.toLowerCase())) count = devices.split("/").filter(Boolean).length;
  else if (text(record.split_mode) === "none") count = 1;
  const result: NonNullable<RunContext["hardware"]> = {};
  if (gpu) result.gpu = gpu.slice(0, 200);
  if (count >= 1) result.gpu_count = count;
  return result;
}

/** The launch options a test ran with: every field of LLAMA_BENCH_FLAGS but n_depth, which is the test's shape. */
function flags(record: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, option] of Object.entries(LLAMA_BENCH_FLAGS)) {
    if (key === "n_depth") continue;
    const value = flagValue(key, record[key]);
    if (value !== undefined) out[canonicalFlagName(option)] = value;
  }
  return out;
}

/** "pp512", "tg128", "pp512+tg128", "tg128@d4096": the test's shape, also the stem of its metadata key. */
function testLabel(nPrompt: number, nGen: number, nDepth: number | null): string {
  const shape = nGen === 0 ? `pp${nPrompt}` : nPrompt === 0 ? `tg${nGen}` : `pp${nPrompt}+tg${nGen}`;
  return nDepth ? `${shape}@d${nDepth}` : shape;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * At most this many test speeds go into a run's metadata: the run document allows 200 metadata keys, and the
 * context keys of this parser plus the import pipeline's own (`source_files`) need a few.
 */
export const MAX_TEST_SPEEDS = 180;

/** A checked test: its shape and its speed. */
interface Measured {
  test: Test;
  /** Position in the file, from 0. */
  index: number;
  nPrompt: number;
  nGen: number;
  /** null for builds that do not write n_depth; read as depth 0. */
  nDepth: number | null;
  label: string;
  /** avg_ts in tok/s; null when the file says NaN. */
  ts: number | null;
}

/** Reads a test's shape and speed; throws FormatError naming the field when the record is broken. */
function measure(test: Test, index: number): Measured {
  const { record, where } = test;
  const nPrompt = requiredCount(test, "n_prompt");
  const nGen = requiredCount(test, "n_gen");
  const nDepth = record.n_depth === undefined ? null : toCount(record.n_depth);
  if (nPrompt === 0 && nGen === 0) {
    throw new FormatError(fieldPath(where, "n_prompt"), "a test with n_prompt 0 and n_gen 0 measures nothing");
  }
  const avgTs = record.avg_ts;
  if (avgTs === undefined || avgTs === null || (!isNaNValue(avgTs) && toNumber(avgTs) === null)) {
    throw new FormatError(
      fieldPath(where, "avg_ts"),
      `avg_ts must be a number of tokens per second, got ${describeValue(avgTs)}`,
    );
  }
  return { test, index, nPrompt, nGen, nDepth, label: testLabel(nPrompt, nGen, nDepth), ts: toNumber(avgTs) };
}

/** What a test was launched with; tests that agree on all of it are one configuration (one fragment). */
interface Launch {
  flags: Record<string, string | number | boolean>;
  engineVersion: string | undefined;
  model: string | undefined;
  /** llama.cpp's description of the architecture, size and quantization: tells configurations apart, names no model. */
  modelType: string | undefined;
  hardware: RunContext["hardware"];
}

interface Configuration {
  key: string;
  launch: Launch;
  tests: Measured[];
}

function launchOf(record: Record<string, unknown>): Launch {
  const hw = hardware(record);
  return {
    flags: flags(record),
    engineVersion: engineVersion(record),
    model: modelName(record)?.slice(0, 200),
    modelType: text(record.model_type)?.slice(0, 200),
    hardware: hw && Object.keys(hw).length > 0 ? hw : undefined,
  };
}

/** Tests grouped by launch configuration, in the order each configuration first appears in the file. */
function configurations(tests: readonly Measured[]): Configuration[] {
  const byKey = new Map<string, Configuration>();
  for (const measured of tests) {
    const launch = launchOf(measured.test.record);
    const key = JSON.stringify([
      launch.flags,
      launch.engineVersion ?? null,
      launch.model ?? null,
      launch.modelType ?? null,
      launch.hardware ?? null,
    ]);
    const existing = byKey.get(key);
    if (existing) existing.tests.push(measured);
    else byKey.set(key, { key, launch, tests: [measured] });
  }
  return [...byKey.values()];
}

const isGeneration = (test: Measured) => test.nGen > 0 && test.nPrompt === 0;
const depthOf = (test: Measured) => test.nDepth ?? 0;

/**
 * The test whose speed is the single-stream (C=1) figure: among pure generation tests, those at the smallest
 * depth, and among them n_gen 128 when present, else the smallest n_gen (the first such test in the file).
 */
function representative(tests: readonly Measured[]): Measured | undefined {
  const generation = tests.filter(isGeneration);
  if (generation.length === 0) return undefined;
  const depth = Math.min(...generation.map(depthOf));
  const shallowest = generation.filter((test) => depthOf(test) === depth);
  return (
    shallowest.find((test) => test.nGen === 128) ??
    shallowest.reduce((best, test) => (test.nGen < best.nGen ? test : best))
  );
}

/** A metadata value every test that states it agrees on; undefined when none states it or they differ. */
function agreed<T extends string | number>(values: readonly (T | undefined)[]): T | undefined {
  const stated = values.filter((value): value is T => value !== undefined);
  if (stated.length === 0) return undefined;
  return stated.every((value) => value === stated[0]) ? stated[0] : undefined;
}

function showFlag(value: string | number | boolean | undefined, name: string): string {
  if (value === undefined) return `no ${name}`;
  if (typeof value === "boolean") return `${name} ${value ? 1 : 0}`;
  return `${name} ${String(value)}`;
}

function showHardware(hw: RunContext["hardware"]): string {
  if (!hw?.gpu) return "no GPU";
  return hw.gpu_count && hw.gpu_count > 1 ? `${hw.gpu_count}× ${hw.gpu}` : hw.gpu;
}

/** "-fa 1, 42 tests": what sets a configuration apart from the file's other ones, and its number of tests. */
function configurationPart(config: Configuration, all: readonly Configuration[]): string {
  const others = all.filter((other) => other !== config);
  const { launch } = config;
  const parts: string[] = [];
  const differs = (pick: (l: Launch) => unknown) =>
    others.some((other) => JSON.stringify(pick(other.launch)) !== JSON.stringify(pick(launch)));
  if (differs((l) => l.model)) parts.push(launch.model ?? launch.modelType ?? "no model");
  else if (differs((l) => l.modelType)) parts.push(launch.modelType ?? "no model type");
  if (differs((l) => l.engineVersion)) parts.push(launch.engineVersion ?? "no build");
  if (differs((l) => l.hardware)) parts.push(showHardware(launch.hardware));
  const names = [...new Set(all.flatMap((c) => Object.keys(c.launch.flags)))];
  for (const name of names) {
    if (differs((l) => l.flags[name])) parts.push(showFlag(launch.flags[name], name));
  }
  const count = config.tests.length;
  parts.push(`${count} test${count === 1 ? "" : "s"}`);
  return parts.join(", ");
}

function parseConfiguration(file: SourceFile, config: Configuration, part: string): Fragment {
  const prefix = `${file.name}${part ? ` (${part})` : ""}`;
  const warnings: string[] = [];
  const { launch, tests } = config;
  const rep = representative(tests);
  const builder = new PointBuilder(prefix);
  builder.concurrency(1, "single sequence (llama-bench runs one sequence per test)");

  const metadata: Record<string, string | number | boolean> = {};
  if (rep) {
    metadata.single_stream_test = rep.label;
    if (rep.ts !== null && rep.ts > 0) {
      // Generation: tokens generated per second by one sequence.
      builder.set("output_throughput", rep.ts, "avg_ts");
      const record = rep.test.record;
      const tsStd = toNumber(record.stddev_ts);
      if (tsStd !== null) metadata.output_tok_s_stddev = tsStd;
      const avgNs = toNumber(record.avg_ns);
      if (avgNs !== null) metadata.single_stream_avg_ms = round(avgNs / 1e6, 6);
      const stdNs = toNumber(record.stddev_ns);
      if (stdNs !== null) metadata.single_stream_stddev_ms = round(stdNs / 1e6, 6);
    }
  } else {
    warnings.push(
      `${prefix}: no generation test (n_gen > 0, n_prompt 0) was run, so there is no single-stream speed; the tests' speeds are kept as metadata.`,
    );
  }
  metadata.tests = tests.length;
  const repetitions = agreed(
    tests.map(({ test }) => (Array.isArray(test.record.samples_ns) ? test.record.samples_ns.length : undefined)),
  );
  if (repetitions !== undefined) metadata.repetitions = repetitions;
  for (const key of ["model_type", "backends", "cpu_info"] as const) {
    const value = agreed(tests.map(({ test }) => text(test.record[key])?.slice(0, 2_000)));
    if (value !== undefined) metadata[key] = value;
  }
  for (const key of ["model_size", "model_n_params"] as const) {
    const value = agreed(tests.map(({ test }) => toCount(test.record[key]) ?? undefined));
    if (value !== undefined) metadata[key] = value;
  }

  // Every test's speed, as `<label>_tok_s`; NaN and 0 t/s are no data, a repeated test keeps its first speed.
  const speeds: Measured[] = [];
  const seen = new Map<string, Measured>();
  for (const test of tests) {
    const where = `${file.name} (${test.test.label}: ${test.label})`;
    const first = seen.get(test.label);
    if (first) {
      warnings.push(`${where}: the same test as ${first.test.label}; only the speed of ${first.test.label} is kept.`);
      continue;
    }
    seen.set(test.label, test);
    if (test.ts === null) warnings.push(`${where}: avg_ts is NaN; stored as no data.`);
    else if (test.ts <= 0)
      warnings.push(`${where}: avg_ts is ${test.ts} t/s; stored as no data, never a ${test.ts} tok/s figure.`);
    else speeds.push(test);
  }
  let kept = new Set(speeds);
  if (speeds.length > MAX_TEST_SPEEDS) {
    const rank = (test: Measured) => (test === rep ? 0 : depthOf(test) === 0 ? 1 : 2);
    const ordered = [...speeds].sort((a, b) => rank(a) - rank(b) || a.index - b.index);
    kept = new Set(ordered.slice(0, MAX_TEST_SPEEDS));
    warnings.push(
      `${prefix}: ${speeds.length - MAX_TEST_SPEEDS} of the ${speeds.length} test speeds were left out, as a run keeps at most ${MAX_TEST_SPEEDS}; the single-stream test and the tests at depth 0 were kept first.`,
    );
  }
  for (const test of speeds) {
    if (kept.has(test) && test.ts !== null) metadata[`${test.label}_tok_s`] = test.ts;
  }
  for (const key of ["model_size_as_written", "model_n_params_as_written"] as const) {
    const value = agreed(tests.map(({ test }) => text(test.record[key])));
    if (value !== undefined) metadata[key.replace("_as_written", "")] = value;
  }
  const point = builder.build();

  // What each test's record contributes: its shape, launch options and build are the run's context; its speed is
  // metadata (or, for the single-stream test, the point). The rest is reported.
  const used: string[] = [];
  const notImported: NotImported[] = [];
  for (const measured of tests) {
    const { where, record } = measured.test;
    for (const key of [
      ...Object.keys(LLAMA_BENCH_FLAGS),
      "n_prompt",
      "n_gen",
      "build_number",
      "model_size",
      "model_n_params",
    ])
      used.push(reportPath(where, key));
    const keptSpeed = kept.has(measured) && measured.ts !== null;
    if (keptSpeed || measured === rep) used.push(reportPath(where, "avg_ts"));
    else if (measured.ts !== null && measured.ts > 0) {
      notImported.push({
        file: file.name,
        field: reportPath(where, "avg_ts"),
        value: measured.ts,
        reason:
          seen.get(measured.label) !== measured
            ? `the same test (${measured.label}) as an earlier one; the run keeps the first one's speed`
            : `more test speeds than a run keeps (${MAX_TEST_SPEEDS})`,
      });
    }
    if (measured === rep) {
      for (const key of ["stddev_ts", "avg_ns", "stddev_ns"]) used.push(reportPath(where, key));
    } else {
      const std = toNumber(record.stddev_ts);
      if (std !== null)
        notImported.push({
          file: file.name,
          field: file.kind === "text" ? `${where}.t/s (± stddev)` : reportPath(where, "stddev_ts"),
          value: std,
          reason: "a test's standard deviation is kept for the single-stream test only (metadata output_tok_s_stddev)",
        });
    }
  }

  const context: RunContext = { engine: "llama.cpp", metadata };
  if (launch.engineVersion) context.engine_version = launch.engineVersion;
  if (launch.model) {
    context.model = launch.model;
    context.name = `llama-bench · ${launch.model}`.slice(0, 200);
  } else if (launch.modelType) {
    context.name = `llama-bench · ${launch.modelType}`.slice(0, 200);
  }
  if (launch.hardware) context.hardware = launch.hardware;
  if (Object.keys(launch.flags).length > 0) context.flags = launch.flags;
  if (rep) context.workload = { output_len: rep.nGen };
  const measured = tests
    .map(({ test }) => isoTimestamp(test.record.test_time))
    .filter((value): value is string => value !== undefined)
    .sort()[0];
  if (measured) context.measured_at = measured;

  return {
    format: "llama-bench",
    file: file.name,
    part,
    context,
    points: [point],
    warnings: [...warnings, ...builder.warnings],
    used,
    notImported,
  };
}

function parse(file: SourceFile): Fragment[] {
  const tests = testsOf(file).map(measure);
  const configs = configurations(tests);
  const fragments = configs.map((config) =>
    parseConfiguration(file, config, configs.length === 1 ? "" : configurationPart(config, configs)),
  );
  if (file.kind === "text") {
    const { logLines } = readMarkdownTable(file);
    if (logLines.length > 0)
      for (const fragment of fragments) fragment.warnings.unshift(skippedLinesWarning(file.name, logLines));
  }
  return fragments;
}

export const llamaBenchParser: FormatParser = {
  id: "llama-bench",
  label: "llama.cpp llama-bench (-o json, jsonl, csv or its markdown table)",
  signature:
    "a list of test records (JSON array, JSON lines or CSV rows) with build_commit, n_prompt, n_gen and avg_ts; or " +
    "llama-bench's markdown table (| model | … | test | t/s |), with or without its log lines and build line",
  detect(file) {
    try {
      return detect(file);
    } catch {
      return false;
    }
  },
  parse,
};
