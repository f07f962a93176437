/**
 * AIPerf's `profile_export_aiperf.csv` and GenAI-Perf's `*_genai_perf.csv`: the JSON summary's figures, rounded,
 * in CSV sections. Recognized and read, not imported: the JSON of the same run states the load level and model.
 */

import type { ResultPoint } from "@/lib/document/schema";
import { ownValue } from "@/lib/own-value";
import { figure, finish, type MetricLookup, setFigures } from "./aiperf-metrics";
import { PointBuilder } from "./common";
import { FormatError, type FormatParser, type Fragment, type SourceFile } from "./types";

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
  const match = /^(.*?)\s*\(([^()]*)\)\s*$/.exec(label);
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

function isAiperfCsv(data: unknown): boolean {
  const rows = csvRows(data);
  if (!rows) return false;
  const first = rows[0]?.map((cell) => cell.trim().toLowerCase()) ?? [];
  if (first[0] !== "metric" || !(first.includes("avg") || first.includes("value"))) return false;
  const metrics = csvMetrics(rows);
  return ["request_latency", "time_to_first_token", "request_throughput", "output_token_throughput"].some((tag) =>
    metrics.has(tag),
  );
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

export const aiperfCsvParser: FormatParser = {
  id: "aiperf",
  label:
    "AIPerf profile_export_aiperf.csv / GenAI-Perf *_genai_perf.csv (the CSV twin of the JSON summary, which holds the load level)",
  signature:
    'CSV sections whose header row starts with "Metric" and rows such as "Request Latency (ms)", "Request Throughput (requests/sec)"',
  detect(file: SourceFile): boolean {
    try {
      return file.kind === "csv" && isAiperfCsv(file.data);
    } catch {
      return false;
    }
  },
  parse(file: SourceFile): Fragment[] {
    // Read it, so a broken CSV is reported; but it states no load level or model, and the JSON summary of the
    // same run states the same figures unrounded: that file is the load point.
    aiperfCsvFigures(file);
    return [];
  },
};
