/** What `servebench bench` prints: a progress line per level and the summary table at the end. */
import { formatLoadLevel, formatNumber, formatTokS } from "@/lib/format";
import { peakThroughput, singleStream } from "@/lib/runs/derived";
import type { LevelResult } from "./metrics";
import type { LevelProgress } from "./runner";

/** `C=8  40/48 requests  ~1,234 tok/s  12.3 s`: the live line of a running level. */
export function progressLine(progress: LevelProgress): string {
  const failed = progress.failed > 0 ? `, ${progress.failed} failed` : "";
  return `C=${progress.concurrency}  ${progress.done}/${progress.total} requests${failed}  ~${formatNumber(progress.live_output_tok_s)} tok/s  ${formatNumber(progress.elapsed_s)} s`;
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
  return `C=${point.concurrency}  ${level.completed}/${total} requests${failed}  ${throughput}${ttft}${tpot}${duration}`;
}

const COLUMNS: { title: string; value: (level: LevelResult) => string }[] = [
  { title: "C", value: (level) => String(level.point.concurrency) },
  { title: "ok", value: (level) => String(level.completed) },
  { title: "failed", value: (level) => String(level.failed) },
  { title: "out tok/s", value: (level) => formatNumber(level.point.output_throughput) },
  { title: "req/s", value: (level) => formatNumber(level.point.request_throughput) },
  { title: "TTFT ms", value: (level) => formatNumber(level.point.mean_ttft_ms) },
  { title: "p99", value: (level) => formatNumber(level.point.p99_ttft_ms) },
  { title: "TPOT ms", value: (level) => formatNumber(level.point.mean_tpot_ms) },
  { title: "p99", value: (level) => formatNumber(level.point.p99_tpot_ms) },
  { title: "ITL ms", value: (level) => formatNumber(level.point.mean_itl_ms) },
  { title: "e2e ms", value: (level) => formatNumber(level.point.mean_e2el_ms) },
];

/** The per-level table (means and p99, in ms), right-aligned. */
export function summaryTable(levels: readonly LevelResult[]): string[] {
  const rows = [
    COLUMNS.map((column) => column.title),
    ...levels.map((level) => COLUMNS.map((column) => column.value(level))),
  ];
  const widths = COLUMNS.map((_, index) => Math.max(...rows.map((row) => row[index]!.length)));
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
