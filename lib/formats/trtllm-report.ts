/**
 * The report `trtllm-bench throughput|latency` prints (what most people keep: the console log), as opposed to its
 * `--report_json` file. ReportUtility in tensorrt_llm/bench/dataclasses/reporting.py prints sections framed by
 * `=====` lines and a `= NAME` title (ENGINE DETAILS or PyTorch backend, REQUEST DETAILS, WORLD + RUNTIME
 * INFORMATION, PERFORMANCE OVERVIEW, DATASET DETAILS) holding `Label: value` lines, breakdowns such as
 * `[Latency] P50    : 3936.3022`, and the dataset's percentile table. The labels changed over versions (0.17 prints
 * "Token Throughput (tokens/sec)" for what later versions call "Total Output Throughput (tokens/sec)").
 *
 * The printed figures are turned into the dictionary `--report_json` writes, and that goes through the JSON report's
 * parser, so both imports file a run the same way; each point's `sources` then name the printed labels.
 */

import { ownValue } from "@/lib/own-value";
import { toNumber } from "./common";
import { REASONS } from "./report";
import { parseReportJson } from "./trtllm";
import type { FormatParser, Fragment, NotImported, SourceFile } from "./types";

type Json = Record<string, unknown>;

interface Line {
  section: string;
  label: string;
  text: string;
  line: number;
}

/** `Label: value` lines by section, breakdown lines (`[TTFT] P50 : 1.2`) with their tag as label. */
function readLines(text: string): { lines: Line[]; table: { row: string; cells: string[]; line: number }[] } {
  const lines: Line[] = [];
  const table: { row: string; cells: string[]; line: number }[] = [];
  let section = "";
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/\t/g, " ");
    const title = /^=\s+(.+?)\s*$/.exec(line);
    if (title?.[1]) {
      section = title[1].trim();
      return;
    }
    if (!section || /^(=+|-+)\s*$/.test(line.trim())) return;
    const breakdown = /^\[(\w+)\]\s*(\w+)\s*:\s*(\S+)\s*$/.exec(line.trim());
    if (breakdown?.[1] && breakdown[2] && breakdown[3]) {
      lines.push({ section, label: `[${breakdown[1]}] ${breakdown[2]}`, text: breakdown[3], line: index + 1 });
      return;
    }
    const row = /^(MIN|MAX|AVG|P\d+):\s+(.+)$/.exec(line.trim());
    if (row?.[1] && row[2] && section === "DATASET DETAILS") {
      table.push({ row: row[1], cells: row[2].trim().split(/\s+/), line: index + 1 });
      return;
    }
    const pair = /^([^[\]:][^:]*?):\s+(.+?)\s*$/.exec(line);
    if (pair?.[1] && pair[2] && !/^\[/.test(line))
      lines.push({ section, label: pair[1].trim(), text: pair[2], line: index + 1 });
  });
  return { lines, table };
}

/** Printed label (any section) → the `--report_json` path it stands for; `scale` converts the printed value. */
const LABELS: ReadonlyArray<{ label: RegExp; path: string; scale?: number }> = [
  { label: /^Model$/, path: "engine.model" },
  { label: /^TensorRT-LLM Version$/, path: "engine.version" },
  { label: /^Dtype$/, path: "engine.dtype" },
  { label: /^KV Cache Dtype$/, path: "engine.kv_cache_dtype" },
  { label: /^Quantization$/, path: "engine.quantization" },
  { label: /^Max Input Length$/, path: "engine.max_input_length" },
  { label: /^Max Sequence Length$/, path: "engine.max_sequence_length" },
  { label: /^TP Size$/, path: "world_info.tp_size" },
  { label: /^PP Size$/, path: "world_info.pp_size" },
  { label: /^EP Size$/, path: "world_info.ep_size" },
  { label: /^Max Runtime Batch Size$/, path: "world_info.max_batch_size" },
  { label: /^Max Runtime Tokens$/, path: "world_info.max_num_tokens" },
  { label: /^Scheduling Policy$/, path: "world_info.scheduling_policy" },
  { label: /^KV Memory Percentage$/, path: "world_info.kv_cache_percentage", scale: 0.01 },
  { label: /^Issue Rate \(req\/sec\)$/, path: "world_info.issue_rate" },
  { label: /^Number of requests$/, path: "request_info.num_requests" },
  { label: /^Number of concurrent requests$/, path: "request_info.avg_num_concurrent_requests" },
  { label: /^Average Input Length \(tokens\)$/, path: "request_info.avg_input_length" },
  { label: /^Average Output Length \(tokens\)$/, path: "request_info.avg_output_length" },
  { label: /^Request Throughput \(req\/sec\)$/, path: "performance.request_throughput_req_s" },
  // 0.17 and earlier: "Token Throughput" is output tokens per second (3000 × 128 tokens / 13.5257 s = 28390.4).
  { label: /^(Total Output|Token) Throughput \(tokens\/sec\)$/, path: "performance.system_output_throughput_tok_s" },
  { label: /^Total Token Throughput \(tokens\/sec\)$/, path: "performance.system_total_throughput_tok_s" },
  { label: /^Total Latency \(ms\)$/, path: "performance.total_latency_ms" },
  { label: /^Average request latency \(ms\)$/, path: "performance.avg_request_latency_ms" },
  { label: /^Per User Output Throughput/, path: "performance.output_throughput_per_user_tok_s" },
  { label: /^Per GPU Output Throughput/, path: "performance.output_throughput_per_gpu_tok_s" },
  { label: /^Average time-to-first-token \[TTFT\] \(ms\)$/, path: "streaming_metrics.avg_ttft_ms" },
  { label: /^Average time-per-output-token \[TPOT\] \(ms\)$/, path: "streaming_metrics.avg_tpot_ms" },
  { label: /^Per User Output Speed \(tps\/user\)$/, path: "streaming_metrics.token_output_speed_tok_s" },
  { label: /^\[Latency\] (P50|P90|P95|P99)$/, path: "performance.request_latency_percentiles_ms.$1" },
  { label: /^\[TTFT\] (P50|P90|P95|P99)$/, path: "streaming_metrics.ttft_percentiles.$1" },
  { label: /^\[TPOT\] (P50|P90|P95|P99)$/, path: "streaming_metrics.tpot_percentiles.$1" },
  { label: /^Dataset Path$/, path: "dataset.dataset_path" },
];

/** Breakdown averages repeat the section's average line; kept as that line when they agree. */
const REPEATS: Readonly<Record<string, string>> = {
  "[Latency] AVERAGE": "performance.avg_request_latency_ms",
  "[TTFT] AVERAGE": "streaming_metrics.avg_ttft_ms",
  "[TPOT] AVERAGE": "streaming_metrics.avg_tpot_ms",
  "[GTPS] AVERAGE": "streaming_metrics.token_output_speed_tok_s",
};

function setPath(target: Json, path: string, value: unknown): void {
  const keys = path.split(".");
  let current = target;
  keys.slice(0, -1).forEach((key) => {
    const next = current[key];
    if (typeof next !== "object" || next === null) current[key] = {};
    current = current[key] as Json;
  });
  const last = keys[keys.length - 1];
  if (last) current[last] = value;
}

function getPath(target: Json, path: string): unknown {
  return path.split(".").reduce<unknown>((current, key) => (current as Json | undefined)?.[key], target);
}

export function isTrtllmPrintedReport(text: string): boolean {
  return /^=\s+PERFORMANCE OVERVIEW\s*$/m.test(text) && /(Request|Token) Throughput \((req|tokens)\/sec\):/.test(text);
}

function parseText(file: SourceFile): Fragment[] {
  const { lines, table } = readLines(String(file.data));
  const dict: Json = {};
  const labelOf = new Map<string, string>();
  const notImported: NotImported[] = [];
  const where = (line: Line) => `${line.section}.${line.label}`;
  for (const line of lines) {
    const entry = LABELS.find(({ label }) => label.test(line.label));
    const number = toNumber(line.text.replace(/%$/, ""));
    if (entry) {
      const path = entry.path.replace("$1", (entry.label.exec(line.label)?.[1] ?? "").toLowerCase());
      const value = number !== null ? number * (entry.scale ?? 1) : line.text.trim();
      setPath(dict, path, path === "world_info.ep_size" && number === null ? null : value);
      labelOf.set(path, where(line));
      continue;
    }
    if (number === null) continue;
    const repeat = ownValue(REPEATS, line.label);
    if (repeat && toNumber(getPath(dict, repeat)) === number) continue;
    notImported.push({
      file: file.name,
      field: where(line),
      value: number,
      reason: /MINIMUM|MAXIMUM/.test(line.label)
        ? REASONS.extreme
        : /^\[GTPS\] P\d+$/.test(line.label)
          ? REASONS.percentile
          : /\[GTPS\]/.test(line.label)
            ? REASONS.otherStatistic
            : REASONS.noField,
    });
  }
  const columns = ["input", "output", "sequence length"];
  for (const row of table) {
    row.cells.forEach((cell, index) => {
      const number = toNumber(cell);
      if (number === null) return;
      notImported.push({
        file: file.name,
        field: `DATASET DETAILS.${row.row} ${columns[index] ?? `column ${index + 1}`} (tokens)`,
        value: number,
        reason: "the dataset's length distribution; the run's workload keeps a length only when every request had it",
      });
    });
  }
  // A streaming report has per-request TTFT and TPOT; the JSON parser reads them from streaming_metrics.
  if (getPath(dict, "streaming_metrics.avg_ttft_ms") === undefined) delete dict.streaming_metrics;
  const fragments = parseReportJson({ ...file, kind: "json", data: dict });
  for (const fragment of fragments) {
    for (const point of fragment.points) {
      if (!point.sources) continue;
      for (const [field, source] of Object.entries(point.sources)) {
        const label = labelOf.get(source);
        if (label) point.sources[field] = label;
      }
    }
    // What the JSON parser read and did not keep is named by its printed label, as the sources are.
    const own = (fragment.notImported ?? []).map((entry) => ({
      ...entry,
      field: labelOf.get(entry.field) ?? entry.field,
    }));
    fragment.notImported = [...own, ...notImported];
    // Everything the printed report states went into the dictionary above or into notImported.
    fragment.used = [];
  }
  return fragments;
}

export const trtllmPrintedReportParser: FormatParser = {
  id: "trtllm-bench",
  label: "TensorRT-LLM trtllm-bench printed report (PERFORMANCE OVERVIEW)",
  signature:
    "text with trtllm-bench's `= PERFORMANCE OVERVIEW` section and its `Request Throughput (req/sec):` / `Token Throughput (tokens/sec):` lines",
  detect(file) {
    return file.kind === "text" && isTrtllmPrintedReport(String(file.data));
  },
  parse: parseText,
};
