/**
 * AIPerf's `profile_export_aiperf.csv` and GenAI-Perf's `*_genai_perf.csv`: the JSON summary's figures, rounded,
 * in CSV sections. The CSV states no load level: it becomes a point when the level is known from outside the file
 * (the tool's artifact folder name, lib/formats/aiperf-folder.ts, or a level given with the upload), and gives way
 * to the JSON summary of the same run when that file is in the same folder.
 */

import type { ResultPoint } from "@/lib/document/schema";
import { ownValue } from "@/lib/own-value";
import { figure, finish, type MetricLookup, setFigures } from "./aiperf-metrics";
import { PointBuilder, toNumber } from "./common";
import { REASONS, statisticReason } from "./report";
import {
  FormatError,
  type FormatParser,
  type Fragment,
  NeedsLevelError,
  NoResultsError,
  type NotImported,
  type SourceFile,
} from "./types";

/** CSV row header (without the unit) → metric tag. GenAI-Perf capitalizes "To". */
const CSV_TAGS: Record<string, string> = {
  "time to first token": "time_to_first_token",
  "time to second token": "time_to_second_token",
  "request latency": "request_latency",
  "inter token latency": "inter_token_latency",
  "inter chunk latency": "inter_chunk_latency",
  "output token throughput": "output_token_throughput",
  "request throughput": "request_throughput",
  "total token throughput": "total_token_throughput",
  "request count": "request_count",
  "error request count": "error_request_count",
  "benchmark duration": "benchmark_duration",
  "total input sequence length": "total_isl",
  "total output sequence length": "total_osl",
  "total output tokens": "total_output_tokens",
  "total reasoning tokens": "total_reasoning_tokens",
  "minimum request timestamp": "min_request_timestamp",
  "maximum response timestamp": "max_response_timestamp",
};

function splitCsvLabel(label: string): { header: string; unit: string | undefined } {
  const match = /^(.*?)(?<!\s)\s*\(([^()]*)\)\s*$/.exec(label);
  return match ? { header: match[1]!.trim(), unit: match[2]!.trim() } : { header: label.trim(), unit: undefined };
}

function csvRows(data: unknown): string[][] | undefined {
  if (!Array.isArray(data) || !data.every((row) => Array.isArray(row))) return undefined;
  return data as string[][];
}

interface CsvMetric {
  label: string;
  unit: string | undefined;
  /** Statistic (avg, p50…; the "Value" column read as avg) → cell. */
  cells: Record<string, string>;
  /** Statistic → the column header as written, for `sources`. */
  columns: Record<string, string>;
}

/** The rows of every section (each starts with a header row whose first cell is "Metric"), by metric tag. */
function csvMetrics(rows: string[][]): Map<string, CsvMetric> {
  const metrics = new Map<string, CsvMetric>();
  let header: string[] | undefined;
  rows.forEach((row) => {
    const first = (row[0] ?? "").trim();
    if (first.toLowerCase() === "metric") {
      header = row.map((cell) => cell.trim());
      return;
    }
    if (!header || first === "") return;
    const { header: name, unit } = splitCsvLabel(first);
    const tag = ownValue(CSV_TAGS, name.toLowerCase());
    if (!tag || metrics.has(tag)) return;
    const cells: Record<string, string> = {};
    const columns: Record<string, string> = {};
    header.forEach((column, position) => {
      if (position === 0) return;
      const cell = row[position];
      const key = column.toLowerCase() === "value" ? "avg" : column.toLowerCase();
      if (cell !== undefined && cell.trim() !== "") {
        cells[key] = cell.trim();
        columns[key] = column;
      }
    });
    metrics.set(tag, { label: first, unit, cells, columns });
  });
  return metrics;
}

/** The rows a run with at least one successful request has; a CSV with none of them has no results. */
const RESULT_TAGS = [
  "request_latency",
  "time_to_first_token",
  "inter_token_latency",
  "request_throughput",
  "output_token_throughput",
  "request_count",
];

function isAiperfCsv(data: unknown): boolean {
  const rows = csvRows(data);
  if (!rows) return false;
  const first = rows[0]?.map((cell) => cell.trim().toLowerCase()) ?? [];
  if (first[0] !== "metric" || !(first.includes("avg") || first.includes("value"))) return false;
  const metrics = csvMetrics(rows);
  // A run whose requests all failed has only its run-level rows, among them AIPerf's "Error Request Count".
  return (
    ["request_latency", "time_to_first_token", "request_throughput", "output_token_throughput"].some((tag) =>
      metrics.has(tag),
    ) || metrics.has("error_request_count")
  );
}

/** No successful request: the CSV has no latency, throughput or request-count row (or only zeros there). */
function everyRequestFailed(metrics: Map<string, CsvMetric>): boolean {
  return RESULT_TAGS.every((tag) => {
    const metric = metrics.get(tag);
    return metric === undefined || Object.values(metric.cells).every((cell) => toNumber(cell) === 0);
  });
}

/** The CSV's metrics through the same lookup as the JSON's: the sources name the row label and the column. */
function csvLookup(metrics: Map<string, CsvMetric>): MetricLookup {
  return (tag) => {
    const metric = metrics.get(tag);
    if (!metric) return undefined;
    const stats: Record<string, unknown> = metric.cells;
    return {
      path: metric.label,
      unit: metric.unit,
      stat: (key) => figure(stats, key, metric.label),
      source: (key) => `${metric.label}.${metric.columns[key] ?? key}`,
      keys: () => Object.keys(stats),
    };
  };
}

export interface AiperfCsvFigures {
  /** The figures the CSV states, converted like the JSON's; no load level (the CSV has none). */
  point: ResultPoint;
  warnings: string[];
}

/**
 * The figures of a `profile_export_aiperf.csv` (or GenAI-Perf `*_genai_perf.csv`), read like its JSON twin.
 * The CSV has no configuration section, so the point has no concurrency or request rate; the values are
 * rounded to two decimals.
 */
export function aiperfCsvFigures(file: SourceFile): AiperfCsvFigures {
  const rows = csvRows(file.data);
  if (!rows || !isAiperfCsv(rows)) throw new FormatError("", "This is not an AIPerf / GenAI-Perf profile CSV.");
  const builder = new PointBuilder(file.name);
  setFigures(builder, csvLookup(csvMetrics(rows)));
  return finish(builder, file.name);
}

/**
 * The import report of a CSV, in its own words: every number of every section is either behind a figure of the
 * point (`sources`, "Time to First Token (ms).avg") or listed here as "<row label>.<column>" with the reason. The
 * report's generic walk names CSV cells by the first row's columns, which are not the second section's, so the
 * fragment claims them all (`used`) and lists them itself.
 */
function csvAccount(
  rows: string[][],
  point: ResultPoint,
  refused: readonly NotImported[],
  file: string,
): { used: string[]; notImported: NotImported[] } {
  const kept = new Set(Object.values(point.sources ?? {}));
  const listed = new Set(refused.map((entry) => entry.field));
  const used: string[] = [];
  const notImported: NotImported[] = [...refused];
  const firstRow = rows[0] ?? [];
  let header: string[] | undefined;
  rows.forEach((row, index) => {
    const label = (row[0] ?? "").trim();
    if (label.toLowerCase() === "metric") {
      header = row.map((cell) => cell.trim());
      return;
    }
    row.forEach((cell, column) => {
      if (column === 0) return;
      const value = toNumber(cell);
      if (value === null) return;
      used.push(`row ${index + 1}.${firstRow[column] ?? `column ${column + 1}`}`);
      const stat = header?.[column] ?? `column ${column + 1}`;
      const field = `${label}.${stat}`;
      if (kept.has(field) || listed.has(field)) return;
      const reason =
        stat.toLowerCase() === "value" || stat.toLowerCase() === "avg"
          ? REASONS.noField
          : (statisticReason(`x.${stat.toLowerCase()}`) ?? REASONS.noField);
      notImported.push({ file, field, value, reason });
    });
  });
  return { used, notImported };
}

function parseCsv(file: SourceFile): Fragment[] {
  const rows = csvRows(file.data);
  if (!rows || !isAiperfCsv(rows)) throw new FormatError("", "This is not an AIPerf / GenAI-Perf profile CSV.");
  const metrics = csvMetrics(rows);
  const level = file.level;
  if (everyRequestFailed(metrics) && !level) {
    const errors = toNumber(metrics.get("error_request_count")?.cells.avg);
    throw new NoResultsError(
      `recognised as AIPerf's CSV export, but every request failed: ${errors ?? "an unknown number of"} error${errors === 1 ? "" : "s"}, no latency or throughput rows`,
    );
  }
  if (!level) {
    throw new NeedsLevelError(
      "the CSV states no load level (it has no configuration section): give its level with the upload, upload it inside the folder AIPerf or GenAI-Perf wrote it to (…-concurrency16/, concurrency_16/), or upload the JSON summary beside it, which states the level",
    );
  }
  const builder = new PointBuilder(file.name);
  if (level.concurrency !== undefined) builder.concurrency(level.concurrency, level.source);
  if (level.request_rate !== undefined) builder.requestRate(level.request_rate, level.source);
  setFigures(builder, csvLookup(metrics));
  const { point, warnings } = finish(builder, file.name);
  const { used, notImported } = csvAccount(rows, point, builder.notImported(file.name), file.name);
  return [
    {
      format: "aiperf",
      file: file.name,
      part: "",
      context: {},
      points: [point],
      warnings,
      used,
      notImported,
      copyOf: {
        format: "aiperf",
        why: "the JSON summary in the same folder states the same figures unrounded, with the run's configuration",
      },
    },
  ];
}

export const aiperfCsvParser: FormatParser = {
  id: "aiperf",
  label:
    "AIPerf profile_export_aiperf.csv / GenAI-Perf *_genai_perf.csv (the CSV twin of the JSON summary; its load level comes from the tool's folder name or is given with the upload)",
  signature:
    'CSV sections whose header row starts with "Metric" and rows such as "Request Latency (ms)", "Request Throughput (requests/sec)"',
  detect(file: SourceFile): boolean {
    try {
      return file.kind === "csv" && isAiperfCsv(file.data);
    } catch {
      return false;
    }
  },
  parse: parseCsv,
};
