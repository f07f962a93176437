/**
 * ModelScope EvalScope `evalscope perf` (github.com/modelscope/evalscope, evalscope/perf): per load level, a folder
 * `parallel_<N>_number_<M>/` (`rate_<R>_number_<M>/` in open-loop mode) holding `benchmark_summary.json` (one object
 * of averages and counts), `benchmark_percentile.json` (a list of rows, one per percentile), `benchmark_args.json`
 * (the command's arguments) and the SQLite database of the requests. `--parallel 1 10 50` writes one folder per level.
 *
 * The summary is the level's point; the percentile file's figures are merged into it when both are uploaded (they
 * pair by their folder). The level is the configured concurrency the summary states, else the folder's name.
 *
 * Three generations of key names (evalscope/perf/utils): up to May 2026 "Time taken for tests (s)", "Number of
 * concurrency", "Average time to first token (s)" … with latencies in seconds; then "Test Duration (s)",
 * "Concurrency", "TTFT (ms)" … in ms; from late July 2026 "Avg TTFT (ms)" … and a `min` and `max` percentile row.
 */

import type { PercentileMetric, ResultPoint } from "@/lib/document/schema";
import {
  asRecord,
  describeValue,
  isNaNValue,
  PointBuilder,
  type PointField,
  percentileKey,
  type TimeUnit,
  toNumber,
} from "./common";
import { FormatError, type FormatParser, type Fragment, type NotImported, type SourceFile } from "./types";

/** A summary figure: the keys of the generations that state it, with their unit. */
interface SummaryField {
  field: PointField;
  keys: ReadonlyArray<readonly [string, TimeUnit]>;
}

const DURATION_KEYS = ["Time taken for tests (s)", "Test Duration (s)"] as const;
const CONCURRENCY_KEYS = ["Number of concurrency", "Concurrency"] as const;
const RATE_KEYS = ["Request rate (req/s)", "Request Rate (req/s)"] as const;
const SUCCEED_KEYS = ["Succeed requests", "Success Requests"] as const;

const SUMMARY_FIELDS: readonly SummaryField[] = [
  { field: "duration_s", keys: DURATION_KEYS.map((key) => [key, "s"] as const) },
  { field: "completed", keys: SUCCEED_KEYS.map((key) => [key, "ms"] as const) },
  {
    field: "failed",
    keys: [
      ["Failed requests", "ms"],
      ["Failed Requests", "ms"],
    ],
  },
  {
    field: "request_throughput",
    keys: [
      ["Request throughput (req/s)", "ms"],
      ["Req Throughput (req/s)", "ms"],
    ],
  },
  {
    field: "output_throughput",
    keys: [
      ["Output token throughput (tok/s)", "ms"],
      ["Output Throughput (tok/s)", "ms"],
    ],
  },
  {
    field: "total_token_throughput",
    keys: [
      ["Total token throughput (tok/s)", "ms"],
      ["Total Throughput (tok/s)", "ms"],
    ],
  },
  {
    field: "mean_e2el_ms",
    keys: [
      ["Average latency (s)", "s"],
      ["Avg Latency (s)", "s"],
    ],
  },
  {
    field: "mean_ttft_ms",
    keys: [
      ["Average time to first token (s)", "s"],
      ["TTFT (ms)", "ms"],
      ["Avg TTFT (ms)", "ms"],
    ],
  },
  {
    field: "mean_tpot_ms",
    keys: [
      ["Average time per output token (s)", "s"],
      ["TPOT (ms)", "ms"],
      ["Avg TPOT (ms)", "ms"],
    ],
  },
  {
    field: "mean_itl_ms",
    keys: [
      ["Average inter-token latency (s)", "s"],
      ["ITL (ms)", "ms"],
      ["Avg ITL (ms)", "ms"],
    ],
  },
];

/** The streaming latencies, which a non-streaming run does not measure. */
const STREAMING_FIELDS = new Set<PointField>(["mean_ttft_ms", "mean_tpot_ms", "mean_itl_ms"]);

/** servebench metric ← percentile column, with its unit. */
const PERCENTILE_COLUMNS: ReadonlyArray<readonly [PercentileMetric, string, TimeUnit]> = [
  ["ttft", "TTFT (s)", "s"],
  ["ttft", "TTFT (ms)", "ms"],
  ["tpot", "TPOT (s)", "s"],
  ["tpot", "TPOT (ms)", "ms"],
  ["itl", "ITL (s)", "s"],
  ["itl", "ITL (ms)", "ms"],
  ["e2el", "Latency (s)", "s"],
];

const NON_STREAMING =
  "a non-streaming run (TPOT and ITL 0): evalscope's TTFT is then the time to the whole response and its TPOT and ITL are no measurements";

const REASONS: ReadonlyArray<[RegExp, string]> = [
  [/^(Total requests|Total Requests)$/, "every request sent: the point keeps the completed and failed counts"],
  [
    /^(Average input tokens per request|Avg Input Tokens|Average output tokens per request|Avg Output Tokens)$/,
    "the mean tokens per completed request: the point keeps the throughputs, not the mean request size",
  ],
  [
    /^(Input token throughput \(tok\/s\)|Input Throughput \(tok\/s\))$/,
    "input tokens per second (an embedding or rerank run's figure): servebench keeps output and total token throughput",
  ],
  [/^(Stream Requests|Non-Stream Requests)$/, "how many requests streamed: no servebench field"],
  [
    /Turn|turns|Cache Hit|cache hit|Cached/i,
    "a multi-turn conversation figure (turns per request, prefix-cache hits, first and later turns' TTFT): no servebench field",
  ],
  [
    /(Decoded|decoded tokens per iter|Spec\.|speculative)/i,
    "an estimate of speculative decoding from the chunk counts: servebench keeps the acceptance rate only from the server",
  ],
  [
    /^\[\d+\]\.(Input tokens|Output tokens)$/,
    "a percentile of the per-request token counts: servebench keeps percentiles of latencies only",
  ],
  [
    /^\[\d+\]\.(Output|Input|Total|Decode) \(tok\/s\)$/,
    "a percentile of one request's own speed (its tokens over its own latency), not the server's throughput",
  ],
];

function firstKey(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  return keys.find((key) => key in record);
}

function isSummary(value: unknown): value is Record<string, unknown> {
  const record = asRecord(value);
  return (
    record !== undefined &&
    firstKey(record, DURATION_KEYS) !== undefined &&
    firstKey(record, SUCCEED_KEYS) !== undefined
  );
}

function isPercentileRows(value: unknown): value is Record<string, unknown>[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((row) => {
      const record = asRecord(row);
      return (
        record !== undefined &&
        typeof record.Percentiles === "string" &&
        PERCENTILE_COLUMNS.some(([, column]) => column in record)
      );
    })
  );
}

/** A figure: absent, null or NaN are fine (PointBuilder handles them); another non-number breaks the file. */
function figure(record: Record<string, unknown>, key: string, path: string): unknown {
  const value = record[key];
  if (value === undefined || value === null || isNaNValue(value)) return value;
  if (toNumber(value) === null)
    throw new FormatError(path, `${path} should be a number, but it is ${describeValue(value)}.`);
  return value;
}

/** The level's folder, which pairs the summary with its percentile file: the path without the file name. */
function folderOf(name: string): string {
  const path = name.replace(/\\/g, "/");
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** `parallel_10_number_100` or `rate_2.5_number_100`: the level evalscope names the folder after. */
function levelOfFolder(folder: string): { concurrency?: number; rate?: number; name: string } | undefined {
  const name = folder.slice(folder.lastIndexOf("/") + 1);
  const parallel = /^parallel_(\d+)_number_\d+$/.exec(name);
  if (parallel) return { concurrency: Number(parallel[1]), name };
  const rate = /^rate_(\d+(?:\.\d+)?)_number_\d+$/.exec(name);
  if (rate) return { rate: Number(rate[1]), name };
  return undefined;
}

function parseSummary(file: SourceFile): Fragment[] {
  const summary = file.data;
  if (!isSummary(summary)) throw new FormatError("", "An evalscope benchmark_summary.json should be a JSON object.");
  const folder = folderOf(file.name);
  const used: string[] = [];
  const notImported: NotImported[] = [];
  const builder = new PointBuilder(folder || "summary");

  // The level: the configured concurrency (--parallel) the file states, else the folder's name.
  const concurrencyKey = firstKey(summary, CONCURRENCY_KEYS);
  const rateKey = firstKey(summary, RATE_KEYS);
  const concurrency = concurrencyKey ? toNumber(figure(summary, concurrencyKey, concurrencyKey)) : null;
  const rate = rateKey ? toNumber(figure(summary, rateKey, rateKey)) : null;
  if (concurrency !== null && concurrencyKey) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new FormatError(
        concurrencyKey,
        `${concurrencyKey} should be the configured concurrency (--parallel, a whole number from 1 up), but it is ${concurrency}.`,
      );
    }
    builder.concurrency(concurrency, concurrencyKey);
    used.push(concurrencyKey);
  } else {
    const level = levelOfFolder(folder);
    if (level?.concurrency !== undefined)
      builder.concurrency(level.concurrency, `${level.name} (from the folder name)`);
    else if (level?.rate !== undefined && rate === null)
      builder.requestRate(level.rate, `${level.name} (from the folder name)`);
    else if (rate === null || rate <= 0) {
      throw new FormatError(
        CONCURRENCY_KEYS[1],
        `The summary states no concurrency (${CONCURRENCY_KEYS.join(" or ")}) and its folder is not named parallel_<N>_number_<M>: the load level is unknown.`,
      );
    }
  }
  // The configured request rate (--rate); -1 means requests were not paced (only the concurrency cap held them).
  if (rateKey && rate !== null) {
    if (rate > 0) builder.requestRate(rate, rateKey);
    else
      notImported.push({
        file: file.name,
        field: rateKey,
        value: rate,
        reason: "-1: requests were not paced (no --rate); the level is the concurrency",
      });
  }

  const tpot = SUMMARY_FIELDS.find((entry) => entry.field === "mean_tpot_ms")!;
  const itl = SUMMARY_FIELDS.find((entry) => entry.field === "mean_itl_ms")!;
  const stated = (entry: SummaryField) => {
    const found = entry.keys.find(([key]) => key in summary);
    return found ? toNumber(figure(summary, found[0], found[0])) : null;
  };
  const nonStreaming = stated(tpot) === 0 && (stated(itl) ?? 0) === 0;
  for (const entry of SUMMARY_FIELDS) {
    const found = entry.keys.find(([key]) => key in summary);
    if (!found) continue;
    const [key, unit] = found;
    const value = figure(summary, key, key);
    used.push(key);
    if (nonStreaming && STREAMING_FIELDS.has(entry.field)) {
      const number = toNumber(value);
      if (number !== null) notImported.push({ file: file.name, field: key, value: number, reason: NON_STREAMING });
      continue;
    }
    builder.set(entry.field, value, key, unit);
  }
  const point = builder.build();
  const warnings = [...builder.warnings];
  if (nonStreaming)
    warnings.push(
      `${folder || file.name}: a non-streaming run; its TTFT, TPOT and ITL are no measurements and are not imported.`,
    );
  return [
    {
      format: "evalscope",
      file: file.name,
      part: "",
      context: {},
      points: [point],
      warnings,
      root: "",
      used,
      notImported: [...notImported, ...builder.notImported(file.name)],
      pairKey: folder,
    },
  ];
}

function parsePercentiles(file: SourceFile): Fragment[] {
  const rows = file.data;
  if (!isPercentileRows(rows)) {
    throw new FormatError("", "An evalscope benchmark_percentile.json should be a list of rows with `Percentiles`.");
  }
  const folder = folderOf(file.name);
  const builder = new PointBuilder(folder || "percentiles");
  const used: string[] = [];
  const notImported: NotImported[] = [];
  const tpotValues = rows.flatMap((row, index) =>
    ["TPOT (s)", "TPOT (ms)"].filter((key) => key in row).map((key) => toNumber(figure(row, key, `[${index}].${key}`))),
  );
  const nonStreaming = tpotValues.length > 0 && tpotValues.every((value) => value === 0 || value === null);
  rows.forEach((row, index) => {
    const label = String(row.Percentiles).trim();
    const match = /^(\d+(?:\.\d+)?)%$/.exec(label);
    const p = match ? Number(match[1]) : undefined;
    for (const [metric, column, unit] of PERCENTILE_COLUMNS) {
      if (!(column in row)) continue;
      const path = `[${index}].${column}`;
      const value = figure(row, column, path);
      const number = toNumber(value);
      used.push(path);
      if (number === null) continue;
      if (nonStreaming && metric !== "e2el") {
        notImported.push({ file: file.name, field: path, value: number, reason: NON_STREAMING });
      } else if (p === undefined || percentileKey(p) === undefined) {
        notImported.push({
          file: file.name,
          field: path,
          value: number,
          reason:
            label === "min" || label === "max"
              ? "the minimum or maximum of a distribution: a point keeps its mean, median, standard deviation and percentiles, not its extremes"
              : `a row labelled ${JSON.stringify(label)}, which is no percentile`,
        });
      } else {
        builder.percentile(metric, p, value, path, unit);
      }
    }
  });
  const { sources, ...figures } = builder.build() as ResultPoint;
  return [
    {
      format: "evalscope",
      file: file.name,
      part: "",
      context: {},
      points: [],
      warnings: builder.warnings,
      root: "",
      used,
      notImported: [...notImported, ...builder.notImported(file.name)],
      supplement: {
        pairKey: folder,
        figures,
        sources: sources ?? {},
        missingPartner: `percentiles with no benchmark_summary.json of the same level (${folder.split("/").pop() || "the same folder"}) beside them to attach them to`,
      },
    },
  ];
}

function notImportedReason(path: string): string | undefined {
  return REASONS.find(([pattern]) => pattern.test(path))?.[1];
}

export const evalscopeSummaryParser: FormatParser = {
  id: "evalscope",
  label: "evalscope perf benchmark_summary.json",
  signature:
    "an object with `Time taken for tests (s)` or `Test Duration (s)` and `Succeed requests` or `Success Requests` (evalscope perf's summary of one level)",
  notImportedReason,
  detect(file: SourceFile): boolean {
    try {
      return file.kind === "json" && isSummary(file.data);
    } catch {
      return false;
    }
  },
  parse: parseSummary,
};

export const evalscopePercentileParser: FormatParser = {
  id: "evalscope",
  label: "evalscope perf benchmark_percentile.json (merged into the level's benchmark_summary.json)",
  signature:
    'a list of rows, each with `Percentiles` ("10%", …) and the columns `TTFT (s)`/`TTFT (ms)`, `TPOT`, `ITL`, `Latency (s)`',
  notImportedReason,
  detect(file: SourceFile): boolean {
    try {
      return file.kind === "json" && isPercentileRows(file.data);
    } catch {
      return false;
    }
  },
  parse: parsePercentiles,
};

/** `benchmark_args.json`: the command's arguments (evalscope/perf/arguments.py, Arguments.to_dict). */
function isArguments(value: unknown): boolean {
  const record = asRecord(value);
  return (
    record !== undefined &&
    ["parallel", "number", "api", "url", "dataset"].every((key) => key in record) &&
    ("outputs_dir" in record || "tokenizer_path" in record)
  );
}

export const evalscopeArgumentsParser: FormatParser = {
  id: "evalscope",
  label:
    "evalscope perf benchmark_args.json (the command's arguments; the level's figures are in benchmark_summary.json beside it, and the model is stated on the upload form)",
  signature: "an object with `parallel`, `number`, `api`, `url`, `dataset` and `outputs_dir` or `tokenizer_path`",
  detect(file: SourceFile): boolean {
    try {
      return file.kind === "json" && isArguments(file.data);
    } catch {
      return false;
    }
  },
  parse(): Fragment[] {
    return [];
  },
};

export const evalscopeParsers: readonly FormatParser[] = [
  evalscopeSummaryParser,
  evalscopePercentileParser,
  evalscopeArgumentsParser,
];
