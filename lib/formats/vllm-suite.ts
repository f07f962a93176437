/**
 * vLLM's performance benchmark suite (`.buildkite/nightly-benchmarks/` in older trees,
 * `.buildkite/performance-benchmarks/` in newer ones): `run-performance-benchmarks.sh` runs `vllm bench serve` (or
 * `benchmark_serving.py`) once per test and QPS (and max concurrency), then `convert-results-json-to-markdown.py`
 * gathers the per-test files into
 *
 * - `benchmark_results.md`: the suite's description with one markdown table (tabulate, `pipe` format) per kind of
 *   test: latency, throughput (both offline) and serving; newer versions add a platform table, and older ones a
 *   "json version of the benchmarking tables" block restating the tables.
 * - `benchmark_results.json`: a JSON list of the same rows, one object per row keyed by the column titles (newer
 *   versions list the latency, throughput and serving rows together).
 *
 * The column titles are the script's (`serving_column_mapping`): `Test name`, `Model`, `TP Size`, `qps`,
 * `# of max concurrency.`, `Tput (req/s)`, `Output Tput (tok/s)`, `Mean TTFT (ms)`, … Some versions title the TPOT
 * median and p99 only `Median` and `P99`. A serving row is one load point; rows of one test family
 * (the test name without its `_qps_N` / `_concurrency_N` suffix) at different levels are the points of one run.
 * See docs/formats/vllm-benchmark-suite.md.
 */

import type { FlagValue, ResultPoint, Workload } from "@/lib/document/schema";
import { asRecord, isNaNValue, PointBuilder, type PointField, requestRate, toConcurrency, toNumber } from "./common";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  type NotImported,
  type RunContext,
  type SourceFile,
} from "./types";

type Row = Record<string, unknown>;

/** Serving-table columns → point fields. Each title as the script (in some version) writes it. */
const FIGURES: Readonly<Record<string, PointField>> = {
  "# of req.": "completed",
  "Tput (req/s)": "request_throughput",
  "Output Tput (tok/s)": "output_throughput",
  "Total Token Tput (tok/s)": "total_token_throughput",
  "Total Tput (tok/s)": "total_token_throughput",
  "Total input tokens": "total_input_tokens",
  "Total output tokens": "total_output_tokens",
  "Mean TTFT (ms)": "mean_ttft_ms",
  "Median TTFT (ms)": "median_ttft_ms",
  "P99 TTFT (ms)": "p99_ttft_ms",
  "STD TTFT (ms)": "std_ttft_ms",
  "Mean TPOT (ms)": "mean_tpot_ms",
  "Median TPOT (ms)": "median_tpot_ms",
  "P99 TPOT (ms)": "p99_tpot_ms",
  "STD TPOT (ms)": "std_tpot_ms",
  // The script's newer mapping titles median_tpot_ms and p99_tpot_ms only "Median" and "P99".
  Median: "median_tpot_ms",
  P99: "p99_tpot_ms",
  "Mean ITL (ms)": "mean_itl_ms",
  "Median ITL (ms)": "median_itl_ms",
  "P99 ITL (ms)": "p99_itl_ms",
  "STD ITL (ms)": "std_itl_ms",
};

/** Columns that say what ran, not what was measured. */
const CONTEXT_COLUMNS = new Set([
  "Test name",
  "Model",
  "Dataset Name",
  "Input Len",
  "Output Len",
  "TP Size",
  "PP Size",
  "dtype",
  "GPU",
  "Placement",
  "qps",
  "QPS",
  "# of max concurrency.",
]);

/** Columns only a serving row has. */
const SERVING_MARKS = ["Mean TTFT (ms)", "Median TTFT (ms)", "Output Tput (tok/s)", "Mean ITL (ms)"];

function isServingRow(row: Row): boolean {
  return SERVING_MARKS.some((column) => column in row);
}

/** A row of any of the three tables: a test name and at least one figure the script writes. */
function isSuiteRow(value: unknown): value is Row {
  const row = asRecord(value);
  if (!row || typeof row["Test name"] !== "string") return false;
  return isServingRow(row) || "Mean latency (ms)" in row || "Tput (req/s)" in row || "Tput (tok/s)" in row;
}

const OFFLINE_REASON =
  "an offline test (vllm bench latency / throughput): it has no load level, so it is no point of a serving run";
const PLATFORM_REASON = "the machine the suite ran on (the report's platform table): no figure of a load point";

/* ------------------------------------------------------------------------------------------------------ */
/* Markdown tables                                                                                          */

function cells(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("|") || !trimmed.endsWith("|") || trimmed.length < 2) return null;
  return trimmed
    .slice(1, -1)
    .split("|")
    .map((cell) => cell.trim());
}

function isRule(row: readonly string[]): boolean {
  return row.length > 0 && row.every((cell) => /^:?-+:?$/.test(cell));
}

interface Table {
  header: string[];
  rows: { cells: string[]; line: number }[];
}

/** Every pipe table of the text: a header row, a rule row, then the rows up to the first line that is none. */
function markdownTables(text: string): Table[] {
  const lines = text.split(/\r?\n/);
  const tables: Table[] = [];
  let current: Table | null = null;
  lines.forEach((line, index) => {
    const row = cells(line);
    if (!row) {
      current = null;
      return;
    }
    const next = cells(lines[index + 1] ?? "");
    if (!current && next && isRule(next) && !isRule(row)) {
      current = { header: row, rows: [] };
      tables.push(current);
      return;
    }
    if (!current || isRule(row)) return;
    current.rows.push({ cells: row, line: index + 1 });
  });
  return tables;
}

/** True when the text holds a table of the suite: a `Test name` header with one of the script's figure columns. */
export function isSuiteMarkdown(text: string): boolean {
  return markdownTables(text).some((table) => {
    if (!table.header.includes("Test name")) return false;
    const probe = Object.fromEntries(table.header.map((title) => [title, ""]));
    probe["Test name"] = "";
    return isSuiteRow(probe);
  });
}

/* ------------------------------------------------------------------------------------------------------ */
/* Rows → fragments                                                                                         */

/** The load level a test name states: `…_qps_16`, `…_qps_inf`, `…_qps_1_concurrency_8`. */
function levelFromName(name: string): { qps?: string; concurrency?: string } {
  const qps = /_qps_(inf|\d+(?:\.\d+)?)(?=_|$)/.exec(name)?.[1];
  const concurrency = /_concurrency_(\d+)(?=_|$)/.exec(name)?.[1];
  return { ...(qps !== undefined ? { qps } : {}), ...(concurrency !== undefined ? { concurrency } : {}) };
}

/** The test family: the test name without the level the script appended to it. */
export function testFamily(name: string): string {
  return name.replace(/_qps_(inf|\d+(?:\.\d+)?)(?=_|$)/, "").replace(/_concurrency_\d+(?=_|$)/, "");
}

function text(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "" && !isNaNValue(value)) return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function context(row: Row): RunContext {
  const name = text(row["Test name"]) ?? "";
  const result: RunContext = { engine: "vllm", name: testFamily(name).slice(0, 200) };
  const model = text(row.Model);
  if (model) result.model = model.slice(0, 200);
  const flags: Record<string, FlagValue> = {};
  for (const [column, flag] of [
    ["TP Size", "--tensor-parallel-size"],
    ["PP Size", "--pipeline-parallel-size"],
    ["dtype", "--dtype"],
  ] as const) {
    const value = text(row[column]);
    if (value) flags[flag] = value;
  }
  if (Object.keys(flags).length > 0) result.flags = flags;
  const workload: Workload = {};
  const dataset = text(row["Dataset Name"]);
  if (dataset) workload.dataset = dataset;
  const input = toNumber(row["Input Len"]);
  if (input !== null && Number.isInteger(input) && input > 0) workload.input_len = input;
  const output = toNumber(row["Output Len"]);
  if (output !== null && Number.isInteger(output) && output > 0) workload.output_len = output;
  if (Object.keys(workload).length > 0) result.workload = workload;
  const metadata: Record<string, string> = {};
  const gpu = text(row.GPU);
  if (gpu) metadata.gpu = gpu.slice(0, 200);
  const placement = text(row.Placement);
  if (placement) metadata.placement = placement.slice(0, 200);
  if (Object.keys(metadata).length > 0) result.metadata = metadata;
  return result;
}

interface Located {
  row: Row;
  /** Prefix of the row's cells in messages and the report: `[3].` in the JSON list, `serving table row 2.` in text. */
  path: string;
  label: string;
}

function servingPoint(located: Located, file: string, warnings: string[], report: NotImported[]): ResultPoint {
  const { row, path, label } = located;
  const name = text(row["Test name"]) ?? "";
  const builder = new PointBuilder(label);
  const fromName = levelFromName(name);
  const concurrencyColumn = row["# of max concurrency."];
  if (toConcurrency(concurrencyColumn) !== null) builder.concurrency(concurrencyColumn, "# of max concurrency.");
  else if (fromName.concurrency !== undefined)
    builder.concurrency(fromName.concurrency, `Test name (_concurrency_${fromName.concurrency})`);
  const qpsColumn = "qps" in row ? "qps" : "QPS" in row ? "QPS" : undefined;
  if (qpsColumn && requestRate(row[qpsColumn]) !== null) builder.requestRate(row[qpsColumn], qpsColumn);
  else if (fromName.qps !== undefined) builder.requestRate(fromName.qps, `Test name (_qps_${fromName.qps})`);
  if (!builder.has("concurrency") && !builder.has("request_rate")) {
    throw new FormatError(
      `${path}Test name`,
      `no load level: the row has no qps or max concurrency, and its test name "${name.slice(0, 80)}" ends in no _qps_N`,
    );
  }
  for (const [column, value] of Object.entries(row)) {
    if (CONTEXT_COLUMNS.has(column)) continue;
    const field = FIGURES[column];
    const number = toNumber(value);
    if (field === undefined) {
      if (number !== null)
        report.push({
          file,
          field: `${path}${column}`,
          value: number,
          reason: "a column of the serving table that no servebench field holds",
        });
      continue;
    }
    if (value === null || value === undefined) continue;
    if (number === null && !isNaNValue(value)) {
      throw new FormatError(`${path}${column}`, `${column} must be a number, found "${String(value).slice(0, 40)}"`);
    }
    if (builder.has(field)) {
      if (number !== null)
        report.push({
          file,
          field: `${path}${column}`,
          value: number,
          reason: `the same figure as another column of the row, which the point keeps`,
        });
      continue;
    }
    builder.set(field, value, column);
  }
  const point = builder.build();
  warnings.push(...builder.warnings);
  report.push(...builder.notImported(file, path.replace(/\.$/, "")));
  return point;
}

function offlineReport(located: Located, file: string, reason: string): NotImported[] {
  const out: NotImported[] = [];
  for (const [column, value] of Object.entries(located.row)) {
    const number = toNumber(value);
    if (number !== null) out.push({ file, field: `${located.path}${column}`, value: number, reason });
  }
  return out;
}

function fragmentsOf(file: SourceFile, rows: Located[], extra: NotImported[], json: boolean): Fragment[] {
  const offline: NotImported[] = [...extra];
  const fragments: Fragment[] = [];
  for (const located of rows) {
    if (!isServingRow(located.row)) {
      // In the JSON list the pipeline reports them (notImportedReason); in text the parser must.
      if (!json) offline.push(...offlineReport(located, file.name, OFFLINE_REASON));
      continue;
    }
    const warnings: string[] = [];
    const notImported: NotImported[] = [];
    const point = servingPoint(located, file.name, warnings, notImported);
    fragments.push({
      format: "vllm-benchmark-suite",
      file: file.name,
      part: located.label.slice(file.name.length + 2),
      context: context(located.row),
      points: [point],
      warnings,
      // Column titles hold spaces and parentheses, which `sources` cannot name as paths: the row's columns are
      // declared read here instead.
      root: json ? located.path.replace(/\.$/, "") : "",
      used: json ? Object.keys(located.row) : [],
      notImported,
    });
  }
  // What the text states and no point keeps (offline rows, the platform table, the restated JSON) is the whole
  // file's, reported once.
  if (offline.length > 0) for (const fragment of fragments) fragment.fileNotImported = offline;
  return fragments;
}

/* ------------------------------------------------------------------------------------------------------ */
/* The two files                                                                                            */

function parseJson(file: SourceFile): Fragment[] {
  const data = file.data;
  if (!Array.isArray(data)) throw new FormatError("", "benchmark_results.json should be a JSON list of rows.");
  const rows: Located[] = data.map((item, index) => {
    const row = asRecord(item);
    if (!row) throw new FormatError(`[${index}]`, `[${index}] should be an object (one row of a table).`);
    const name = text(row["Test name"]) ?? `row ${index + 1}`;
    return { row, path: `[${index}].`, label: `${file.name}: ${name}` };
  });
  return fragmentsOf(file, rows, [], true);
}

function parseMarkdown(file: SourceFile): Fragment[] {
  const body = String(file.data);
  const rows: Located[] = [];
  const extra: NotImported[] = [];
  for (const table of markdownTables(body)) {
    if (!table.header.includes("Test name")) {
      // The platform table (Physical cores, Total cores, Total Memory, CPU Brand).
      for (const { cells: row, line } of table.rows) {
        row.forEach((cell, column) => {
          const number = toNumber(cell);
          if (number !== null)
            extra.push({
              file: file.name,
              field: `line ${line}.${row[0] || table.header[column] || `column ${column + 1}`}`,
              value: number,
              reason: PLATFORM_REASON,
            });
        });
      }
      continue;
    }
    for (const { cells: row, line } of table.rows) {
      const record: Row = {};
      table.header.forEach((title, column) => {
        record[title || `column ${column + 1}`] = row[column] ?? "";
      });
      const name = text(record["Test name"]) ?? `line ${line}`;
      rows.push({ row: record, path: `line ${line}.`, label: `${file.name}: ${name}` });
    }
  }
  // Older versions restate the tables as JSON (pandas' to_dict) under "json version of the benchmarking tables".
  const restated = /^\{"latency":.*\}\s*$/m.exec(body);
  if (restated) {
    const line = body.slice(0, restated.index).split(/\r?\n/).length;
    extra.push({
      file: file.name,
      field: `line ${line} (json version of the benchmarking tables)`,
      value: "the tables above again, unrounded",
      reason:
        "the same rows as the markdown tables, which are read; upload benchmark_results.json for the unrounded figures",
    });
  }
  return fragmentsOf(file, rows, extra, false);
}

/** The JSON list's rows outside every point are the offline tests' (a serving row is one point, read whole). */
function suiteReason(path: string): string | undefined {
  return /^\[\d+\]\./.test(path) ? OFFLINE_REASON : undefined;
}

export const vllmSuiteJsonParser: FormatParser = {
  id: "vllm-benchmark-suite",
  label: "vLLM performance benchmark suite benchmark_results.json",
  signature:
    "a JSON list of rows keyed by the suite's column titles: `Test name` with `Output Tput (tok/s)`, `Mean TTFT (ms)`, `Mean latency (ms)` or `Tput (req/s)`",
  notImportedReason: suiteReason,
  detect(file) {
    try {
      return file.kind === "json" && Array.isArray(file.data) && file.data.length > 0 && file.data.every(isSuiteRow);
    } catch {
      return false;
    }
  },
  parse: parseJson,
};

export const vllmSuiteMarkdownParser: FormatParser = {
  id: "vllm-benchmark-suite",
  label: "vLLM performance benchmark suite benchmark_results.md",
  signature:
    "markdown with a pipe table whose header has `Test name` and one of the suite's figure columns (`Output Tput (tok/s)`, `Mean TTFT (ms)`, `Mean latency (ms)`, `Tput (req/s)`)",
  detect(file) {
    return file.kind === "text" && isSuiteMarkdown(String(file.data));
  },
  parse: parseMarkdown,
};

export const vllmSuiteParsers: readonly FormatParser[] = [vllmSuiteJsonParser, vllmSuiteMarkdownParser];
