/** What `servebench bench` prints: a progress line per level and the summary table at the end. */

import { peakThroughput, singleStream } from "@/lib/document/derived";
import type { LatencyKey, ResultPoint } from "@/lib/document/schema";
import { formatLoadLevel, formatNumber, formatTokS } from "@/lib/format";
import { type LevelResult, percentileKey } from "./metrics";
import type { LevelProgress } from "./runner";

/** `C=8  40/48 requests  ~1,234 tok/s  12.3 s`: the live line of a running level. */
export function progressLine(progress: LevelProgress): string {
  const failed = progress.failed > 0 ? `, ${progress.failed} failed` : "";
  return `${formatLoadLevel(progress.level)}  ${progress.done}/${progress.total} requests${failed}  ~${formatNumber(progress.live_output_tok_s)} tok/s  ${formatNumber(progress.elapsed_s)} s`;
}

/** The line a finished level leaves: its exact throughput from the server's token counts. */
export function levelLine(level: LevelResult): string {
  const { point } = level;
  const total = level.completed + level.failed;
  const failed = level.failed > 0 ? `, ${level.failed} failed` : "";
  const throughput = point.output_throughput !== undefined ? `${formatTokS(point.output_throughput)}` : "no figures";
  const tpot = point.mean_tpot_ms !== undefined ? `  TPOT ${formatNumber(point.mean_tpot_ms)} ms` : "";
  const ttft = point.mean_ttft_ms !== undefined ? `  TTFT ${formatNumber(point.mean_ttft_ms)} ms` : "";
  const duration = point.duration_s !== undefined ? `  ${formatNumber(point.duration_s)} s` : "";
  const goodput =
    point.request_goodput !== undefined
      ? `  goodput ${formatNumber(point.request_goodput)} req/s (${level.good_requests ?? 0}/${level.completed} met the targets)`
      : "";
  const kv =
    point.server_kv_cache_usage_mean !== undefined
      ? `  KV ${formatNumber(point.server_kv_cache_usage_mean * 100)}%`
      : "";
  const waiting =
    point.server_waiting_requests_mean !== undefined
      ? `  waiting ${formatNumber(point.server_waiting_requests_mean)}`
      : "";
  return `${formatLoadLevel(point)}  ${level.completed}/${total} requests${failed}  ${throughput}${ttft}${tpot}${duration}${goodput}${kv}${waiting}`;
}

interface Column {
  title: string;
  value: (level: LevelResult) => string;
}

/** A latency percentile of a point: its own field (median, p90, p95, p99) or its `percentiles` entry. */
export function percentileOf(
  point: ResultPoint,
  metric: "ttft" | "tpot" | "itl" | "e2el",
  p: number,
): number | undefined {
  const field = p === 50 ? "median" : p === 90 || p === 95 || p === 99 ? `p${p}` : null;
  if (field !== null) return point[`${field}_${metric}_ms` as LatencyKey];
  return point.percentiles?.[metric]?.[percentileKey(p)];
}

/**
 * The per-level table, right-aligned: throughput, the mean and the chosen percentiles (default p99) of TTFT
 * and TPOT in ms, ITL and e2e means; goodput and the server's KV-cache and queue when the run has them.
 */
export function summaryTable(levels: readonly LevelResult[], percentiles: readonly number[] = [99]): string[] {
  const any = (test: (point: ResultPoint) => boolean) => levels.some((level) => test(level.point));
  const byRate = any((point) => point.concurrency === undefined);
  const latency = (metric: "ttft" | "tpot", title: string): Column[] => [
    { title: `${title} ms`, value: (level) => formatNumber(level.point[`mean_${metric}_ms`]) },
    ...percentiles.map((p) => ({
      title: `p${Number(p.toFixed(3))}`,
      value: (level: LevelResult) => formatNumber(percentileOf(level.point, metric, p)),
    })),
  ];
  const columns: Column[] = [
    {
      title: byRate ? "rate" : "C",
      value: (level) => (byRate ? formatLoadLevel(level.point) : String(level.point.concurrency)),
    },
    { title: "ok", value: (level) => String(level.completed) },
    { title: "failed", value: (level) => String(level.failed) },
    { title: "out tok/s", value: (level) => formatNumber(level.point.output_throughput) },
    { title: "req/s", value: (level) => formatNumber(level.point.request_throughput) },
    ...(any((point) => point.request_goodput !== undefined)
      ? [{ title: "goodput", value: (level: LevelResult) => formatNumber(level.point.request_goodput) }]
      : []),
    ...latency("ttft", "TTFT"),
    ...latency("tpot", "TPOT"),
    { title: "ITL ms", value: (level) => formatNumber(level.point.mean_itl_ms) },
    { title: "e2e ms", value: (level) => formatNumber(level.point.mean_e2el_ms) },
    ...(any((point) => point.server_kv_cache_usage_mean !== undefined)
      ? [
          {
            title: "KV %",
            value: (level: LevelResult) =>
              level.point.server_kv_cache_usage_mean === undefined
                ? "—"
                : formatNumber(level.point.server_kv_cache_usage_mean * 100),
          },
        ]
      : []),
    ...(any((point) => point.server_waiting_requests_mean !== undefined)
      ? [{ title: "waiting", value: (level: LevelResult) => formatNumber(level.point.server_waiting_requests_mean) }]
      : []),
  ];
  const rows = [
    columns.map((column) => column.title),
    ...levels.map((level) => columns.map((column) => column.value(level))),
  ];
  const widths = columns.map((_, index) => Math.max(...rows.map((row) => row[index]!.length)));
  return rows.map((row) =>
    row
      .map((cell, index) => cell.padStart(widths[index]!))
      .join("  ")
      .trimEnd(),
  );
}

/** `single stream: 63.6 tok/s (C=1)   peak: 2,370 tok/s at C=128`: the headline pair of the seeds' tables. */
export function headlineLine(levels: readonly LevelResult[]): string {
  const points = levels.map((level) => level.point);
  const single = singleStream(points);
  const peak = peakThroughput(points);
  const singleText = single ? `${formatTokS(single.output_tok_s)} (C=1)` : "— (no C=1 level)";
  const peakText = peak ? `${formatTokS(peak.output_tok_s)} at ${formatLoadLevel(peak)}` : "—";
  return `single stream: ${singleText}   peak: ${peakText}`;
}
