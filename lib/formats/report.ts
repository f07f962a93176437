/**
 * The import report: every number a recognized file states is imported (into a point, the context or the metadata)
 * or listed as not imported with the reason. Nothing a file says disappears without a word.
 *
 * The pipeline walks the decoded file's numbers and takes away those its fragments account for: the fields named in
 * their points' `sources`, the paths a parser declares in `used`, the entries it reports itself in `notImported`, and
 * numbers copied unchanged into the run's context under a name that says where they came from. What is left is
 * listed with a reason.
 */
import { isNaNValue, toNumber } from "./common";
import type { FormatParser, Fragment, NotImported, SkippedLine, SourceFile } from "./types";

export interface StatedNumber {
  /** Path inside the file: "a.b[2].c", "line 3.median_ttft", "row 2.avg_ts". */
  path: string;
  /** The number as stated; for a list of numbers, its length is in `listLength` and `value` is its first item. */
  value: number;
  listLength?: number;
}

/** Lists longer than this are described, not walked item by item (per-request arrays can hold millions). */
const MAX_WALK = 200_000;

function isNumeric(value: unknown): value is number | string {
  if (typeof value === "number") return Number.isFinite(value);
  return typeof value === "string" && toNumber(value) !== null;
}

function join(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return base === "" ? key : `${base}.${key}`;
}

/**
 * Every number the decoded file states, with its path. Strings that are numbers count ("550", "1,234.5"); NaN,
 * infinities and other strings do not (they are no figure; the parsers warn about NaN). A list of plain numbers is
 * one entry (per-request values such as `itls`); a list of objects is walked item by item.
 */
export function statedNumbers(file: SourceFile): { numbers: StatedNumber[]; complete: boolean } {
  const out: StatedNumber[] = [];
  let walked = 0;
  const walk = (value: unknown, path: string) => {
    walked += 1;
    if (walked > MAX_WALK) return;
    if (Array.isArray(value)) {
      if (value.length > 0 && value.every((item) => isNumeric(item) || isNaNValue(item) || item === null)) {
        const first = value.find(isNumeric);
        if (first !== undefined) out.push({ path, value: toNumber(first) ?? 0, listLength: value.length });
        return;
      }
      value.forEach((item, index) => {
        walk(item, join(path, index));
      });
      return;
    }
    if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) walk(child, join(path, key));
      return;
    }
    if (isNumeric(value)) out.push({ path, value: toNumber(value) ?? 0 });
  };
  if (file.kind === "jsonl" && Array.isArray(file.data)) {
    file.data.forEach((line, index) => {
      walk(line, `line ${index + 1}`);
    });
  } else if (file.kind === "csv" && Array.isArray(file.data)) {
    const rows = file.data as string[][];
    const header = rows[0] ?? [];
    rows.slice(1).forEach((row, index) => {
      row.forEach((cell, column) => {
        if (isNumeric(cell))
          out.push({
            path: `row ${index + 2}.${header[column] ?? `column ${column + 1}`}`,
            value: toNumber(cell) ?? 0,
          });
      });
    });
  } else if (file.kind !== "text") {
    walk(file.data, "");
  }
  return { numbers: out, complete: walked <= MAX_WALK };
}

/** `root` + a path relative to it. */
export function fullPath(root: string | undefined, path: string): string {
  if (!root) return path;
  if (path === "") return root;
  return path.startsWith("[") ? `${root}${path}` : `${root}.${path}`;
}

/** Path-like words in a `sources` entry: "results_num_completed_requests_per_min / 60" → the field name. */
function sourcePaths(source: string): string[] {
  return source.split(/[\s()/*,+−=]+/).filter((word) => /^[A-Za-z_[][\w.[\]:-]*$/.test(word));
}

function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function lastSegment(path: string): string {
  const cleaned = path.replace(/\[\d+\]$/, "");
  return cleaned.slice(cleaned.lastIndexOf(".") + 1);
}

/** Numbers of the context (metadata, workload, flags…) with the names they are kept under. */
function contextNumbers(fragment: Fragment): { name: string; value: number }[] {
  const out: { name: string; value: number }[] = [];
  const add = (name: string, value: unknown) => {
    const number = typeof value === "number" ? value : typeof value === "string" ? toNumber(value) : null;
    if (number !== null && Number.isFinite(number)) out.push({ name: normalizedName(name), value: number });
    if (Array.isArray(value)) for (const item of value) add(name, item);
  };
  const { context } = fragment;
  for (const [key, value] of Object.entries(context.metadata ?? {})) add(key, value);
  for (const [key, value] of Object.entries(context.workload ?? {})) add(key, value);
  for (const [key, value] of Object.entries(context.hardware ?? {})) add(key, value);
  for (const [key, value] of Object.entries(context.speculative ?? {})) add(key, value);
  for (const [key, value] of Object.entries(context.flags ?? {})) add(key, value);
  if (context.server_startup_s !== undefined) add("server_startup_s", context.server_startup_s);
  return out;
}

/** A stated number copied into the context unchanged, under a name that contains the field's (or the other way round). */
function keptInContext(stated: StatedNumber, numbers: readonly { name: string; value: number }[]): boolean {
  if (stated.listLength !== undefined) return false;
  const field = normalizedName(lastSegment(stated.path));
  if (field.length < 2) return false;
  return numbers.some(
    (entry) =>
      entry.value === stated.value &&
      entry.name.length >= 2 &&
      (entry.name.includes(field) || field.includes(entry.name)),
  );
}

/** A percentile's name at the end of a path: `p75`, `p99.9`, `quantiles_p25`, `p999`, `p0p1`. */
const PERCENTILE_NAME = /(^|[._])(quantiles_)?p\d+((\.|p)\d+)?$/i;
const EXTREME_NAME = /(^|[._])(min|max|minimum|maximum)$/i;
const OTHER_STAT_NAME = /(^|[._])(iqr|cv|count|total|sum|mode|variance)$/i;

/**
 * Reasons for the statistics no point keeps. Percentiles of the latency metrics are kept (fixed fields and
 * `percentiles`); a parser reports those it reads and does not keep with their own reason, so a percentile left for
 * this default is one of a figure servebench keeps no percentiles of.
 */
export const REASONS = {
  perRequest:
    "a list of per-request (or per-sample) values; the point keeps the statistics the tool computed from them, not the values one by one",
  percentile:
    "a percentile of a figure servebench keeps no percentiles of (a point keeps them for TTFT, TPOT, ITL, end-to-end latency and end-to-end latency per token, each under servebench's definition)",
  extreme:
    "the minimum or maximum of a distribution: a point keeps its mean, median, standard deviation and percentiles, not its extremes",
  otherStatistic:
    "a statistic servebench has no field for (a point keeps the mean, median, standard deviation and percentiles of a distribution)",
  noField: "no servebench field holds this figure",
} as const;

/**
 * The reason for a statistic no servebench field holds, by the end of its path (`….percentiles.p99.9`,
 * `results_ttft_s_max`); undefined when the path names no statistic.
 */
export function statisticReason(path: string): string | undefined {
  if (PERCENTILE_NAME.test(path)) return REASONS.percentile;
  if (EXTREME_NAME.test(path)) return REASONS.extreme;
  if (OTHER_STAT_NAME.test(path)) return REASONS.otherStatistic;
  return undefined;
}

function defaultReason(stated: StatedNumber): string {
  if (stated.listLength !== undefined) return REASONS.perRequest;
  return statisticReason(stated.path) ?? REASONS.noField;
}

/** Every path the fragments account for: exact paths, and prefixes ("….*") that cover what is under them. */
interface Claims {
  exact: Set<string>;
  prefixes: Set<string>;
}

function addClaims(fragment: Fragment, claims: Claims): void {
  const add = (relative: string) => {
    if (relative.endsWith(".*")) claims.prefixes.add(fullPath(fragment.root, relative.slice(0, -2)));
    else claims.exact.add(fullPath(fragment.root, relative));
  };
  for (const point of fragment.points) {
    for (const source of Object.values(point.sources ?? {})) for (const path of sourcePaths(source)) add(path);
  }
  // A file of server-side figures for another file's point (see Fragment.supplement) claims what it hands over.
  for (const source of Object.values(fragment.supplement?.sources ?? {}))
    for (const path of sourcePaths(source)) add(path);
  for (const path of fragment.used ?? []) add(path);
  for (const entry of fragment.notImported ?? []) claims.exact.add(entry.field);
}

/** The path itself and every path above it: `a.b[2].c` → `a.b[2].c`, `a.b[2]`, `a.b`, `a`. */
function pathAndAncestors(path: string): string[] {
  const out = [path];
  for (let index = path.length - 1; index > 0; index -= 1) {
    const char = path[index];
    if (char === "." || char === "[") out.push(path.slice(0, index));
  }
  return out;
}

function claimed(path: string, claims: Claims): boolean {
  if (claims.exact.has(path)) return true;
  if (claims.prefixes.size === 0) return false;
  return pathAndAncestors(path).some((candidate) => claims.prefixes.has(candidate));
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

/** Entries that differ only in a list index (`requests[3].ttft`, `requests[4].ttft`) become one `requests[*].ttft`. */
export function collapse(entries: readonly NotImported[]): NotImported[] {
  const groups = new Map<string, NotImported[]>();
  for (const entry of entries) {
    const key = JSON.stringify([entry.file, entry.reason, entry.field.replace(/\[\d+\]/g, "[*]")]);
    const group = groups.get(key) ?? [];
    group.push(entry);
    groups.set(key, group);
  }
  const out: NotImported[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    if (group.length === 1) {
      out.push(first);
      continue;
    }
    const numbers = group.map((entry) => entry.value).filter((value): value is number => typeof value === "number");
    const range =
      numbers.length === group.length
        ? `${group.length} values, ${formatValue(numbers.reduce((low, value) => Math.min(low, value)))} to ${formatValue(numbers.reduce((high, value) => Math.max(high, value)))}`
        : `${group.length} values`;
    out.push({ ...first, field: first.field.replace(/\[\d+\]/g, "[*]"), value: range });
  }
  return out;
}

/**
 * The stated numbers of a file that none of its fragments accounts for, each given to the fragment whose record holds
 * it. Numbers outside every fragment's own record (a file-level header) are the whole file's: one list, shared by
 * all its fragments (`fileNotImported`), which each run that holds one of them reports once. Linear in the numbers
 * of the file: a fragment is found by its record's path, not by trying every fragment.
 */
export function accountFile(source: SourceFile, fragments: Fragment[], parser: FormatParser): void {
  if (fragments.length === 0) return;
  const claims: Claims = { exact: new Set(), prefixes: new Set() };
  const byRoot = new Map<string, number[]>();
  fragments.forEach((fragment, index) => {
    addClaims(fragment, claims);
    const root = fragment.root ?? "";
    if (root === "") return;
    const group = byRoot.get(root);
    if (group) group.push(index);
    else byRoot.set(root, [index]);
  });
  const contexts = new Map<number, { name: string; value: number }[]>();
  const contextOf = (index: number) => {
    let numbers = contexts.get(index);
    if (!numbers) {
      numbers = contextNumbers(fragments[index]!);
      contexts.set(index, numbers);
    }
    return numbers;
  };
  // The context numbers of every fragment by value, for numbers no one record holds.
  let anyContext: Map<number, { name: string; value: number }[]> | null = null;
  const keptInSomeContext = (stated: StatedNumber) => {
    if (!anyContext) {
      anyContext = new Map();
      fragments.forEach((_, index) => {
        for (const entry of contextOf(index)) {
          const same = anyContext!.get(entry.value);
          if (same) same.push(entry);
          else anyContext!.set(entry.value, [entry]);
        }
      });
    }
    return keptInContext(stated, anyContext.get(stated.value) ?? []);
  };
  const leftovers: NotImported[][] = fragments.map(() => []);
  const fileLevel: NotImported[] = [];
  const entryOf = (stated: StatedNumber, root: string): NotImported => {
    const relative =
      root && stated.path.startsWith(root) ? stated.path.slice(root.length).replace(/^\./, "") : stated.path;
    const reason = parser.notImportedReason?.(relative) ?? defaultReason(stated);
    const value = stated.listLength !== undefined ? `a list of ${stated.listLength} values` : stated.value;
    return { file: source.name, field: stated.path, value, reason };
  };
  const { numbers, complete } = statedNumbers(source);
  if (!complete) {
    // Said, not silently dropped: what the report could not go through is named as such.
    fileLevel.push({
      file: source.name,
      field: "(the rest of the file)",
      value: `more than ${MAX_WALK.toLocaleString("en-US")} values`,
      reason: `the import report goes through a file's first ${MAX_WALK.toLocaleString("en-US")} values; numbers after them that the run does not keep are not listed one by one`,
    });
  }
  for (const stated of numbers) {
    if (claimed(stated.path, claims)) continue;
    const owners = pathAndAncestors(stated.path).find((candidate) => byRoot.has(candidate));
    if (owners !== undefined) {
      const targets = byRoot.get(owners)!;
      if (targets.some((index) => keptInContext(stated, contextOf(index)))) continue;
      for (const index of targets) leftovers[index]!.push(entryOf(stated, owners));
      continue;
    }
    if (keptInSomeContext(stated)) continue;
    fileLevel.push(entryOf(stated, ""));
  }
  const shared = collapse(fileLevel);
  fragments.forEach((fragment, index) => {
    const own = fragment.notImported ?? [];
    fragment.notImported = collapse([...own, ...(leftovers[index] ?? [])]);
    if (shared.length > 0) fragment.fileNotImported = shared;
  });
}

/** "3 lines that are not JSON were skipped: line 1 "ggml_cuda_init: …", …" — the log captured with the output. */
export function skippedLinesWarning(file: string, lines: readonly SkippedLine[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const { line, text } of lines) {
    const item = `line ${line} "${text.trim().slice(0, 100)}"`;
    if (length + item.length > 700) break;
    shown.push(item);
    length += item.length + 2;
  }
  const more = lines.length - shown.length;
  return `${file}: ${lines.length} line${lines.length === 1 ? "" : "s"} around the results ${lines.length === 1 ? "is" : "are"} not part of them (the tool's log, saved with its output) and ${lines.length === 1 ? "was" : "were"} skipped: ${shown.join(", ")}${more > 0 ? `, and ${more} more` : ""}.`;
}
