/**
 * `vllm-bench --multi-turn` (vLLM's Rust benchmark client, rust/src/bench in the vLLM repository) with
 * `--save-result` / `--append-result`: one flat object per run, written by `build_multi_turn_result_json`
 * (rust/src/bench/src/output/json.rs). Its single-turn output is vLLM bench serve's schema and is read as that
 * (lib/formats/vllm.ts); the multi-turn object differs:
 *
 * - `mode: "multi_turn"`, `multi_turn_concurrency` (the configured cap on requests in flight: a semaphore each turn's
 *   request holds while it is sent and answered, released during the inter-turn delay; `--multi-turn-concurrency`,
 *   else `--max-concurrency`, else `--num-prompts`), `num_conversations`, `turns_per_conversation`,
 *   `inter_turn_delay_ms`, the prefix-sharing ratios when set;
 * - conversation-level figures (`conversations_completed`, `conversations_failed`, `avg_turns_completed`,
 *   `avg_conversation_duration_ms`);
 * - the overall figures over every turn under vLLM's names (`completed`, `output_throughput`, `mean_ttft_ms`,
 *   `p99_tpot_ms`, …, computed by the same `calculate_metrics` as single-turn runs);
 * - `per_turn_metrics` (the same figures per turn index) and `failed_requests` (one record per failed turn).
 *
 * One file is one load point at `multi_turn_concurrency`. See docs/formats/vllm-bench-rs.md.
 */

import { asRecord, isoTimestamp, toConcurrency, toNumber } from "./common";
import type { Json } from "./flat-record";
import { describeValue } from "./flat-record";
import { REASONS } from "./report";
import { FormatError, type FormatParser, type Fragment, type NotImported, type SourceFile } from "./types";
import { buildPoint, payloadContext, vllmReason } from "./vllm";

function isMultiTurnResult(value: unknown): value is Json {
  const record = asRecord(value);
  return (
    record !== undefined &&
    record.mode === "multi_turn" &&
    "multi_turn_concurrency" in record &&
    ("completed" in record || "output_throughput" in record || "conversations_completed" in record)
  );
}

/** Settings and conversation-level figures kept in the run's metadata under their own names. */
const METADATA_KEYS = [
  "num_conversations",
  "turns_per_conversation",
  "inter_turn_delay_ms",
  "prefix_global_ratio",
  "prefix_conversation_ratio",
  "prefix_unique_ratio",
  "no_history_accumulation",
  "max_model_len",
  "conversations_completed",
  "conversations_failed",
  "avg_turns_completed",
  "avg_conversation_duration_ms",
] as const;

function reason(path: string): string | undefined {
  const key = path.replace(/^line \d+\.?/, "");
  if (/^per_turn_metrics(\[\d+\])?/.test(key))
    return "the per-turn breakdown (figures of each turn index over all conversations); the point keeps the overall figures over every turn";
  if (/^failed_requests(\[\d+\])?/.test(key))
    return "a failed turn's own record (its prompt length, start time, partial latency); the point counts it in `failed`";
  if (key === "input_throughput")
    return `${REASONS.noField}: prompt tokens per second, each turn's prompt counted with the conversation's history it re-sends`;
  return vllmReason(path);
}

function parse(file: SourceFile): Fragment[] {
  const records: { record: Json; path: string; part: string; label: string }[] = [];
  if (file.kind === "jsonl" && Array.isArray(file.data)) {
    file.data.forEach((item, index) => {
      const record = asRecord(item);
      if (!record) throw new FormatError(`line ${index + 1}`, "each line must be a JSON object");
      records.push({
        record,
        path: `line ${index + 1}.`,
        part: `line ${index + 1}`,
        label: `${file.name} (line ${index + 1})`,
      });
    });
  } else {
    const record = asRecord(file.data);
    if (!record) throw new FormatError("", "the file must hold a JSON object");
    records.push({ record, path: "", part: "", label: file.name });
  }
  return records.map(({ record, path, part, label }): Fragment => {
    const level = record.multi_turn_concurrency;
    if (toConcurrency(level) === null) {
      throw new FormatError(
        `${path}multi_turn_concurrency`,
        `multi_turn_concurrency must be a positive whole number (the configured cap on requests in flight), found ${describeValue(level ?? null)}`,
      );
    }
    const warnings: string[] = [];
    const notImported: NotImported[] = [];
    const point = buildPoint(record, { path, label }, warnings, notImported, file.name, (builder) => {
      builder.concurrency(level, "multi_turn_concurrency");
    });
    const context = payloadContext(record, true);
    const measured = isoTimestamp(record.date);
    if (measured && typeof record.date === "string" && /^\d{4}-\d{2}-\d{2}T/.test(record.date))
      context.measured_at = measured;
    context.name = `vllm-bench multi-turn${typeof record.model_id === "string" && record.model_id ? ` · ${record.model_id}` : ""}`;
    const metadata: Record<string, string | number | boolean> = { ...(context.metadata ?? {}) };
    for (const key of METADATA_KEYS) {
      const value = record[key];
      if (typeof value === "boolean") metadata[key] = value;
      else if (toNumber(value) !== null) metadata[key] = toNumber(value) as number;
    }
    context.metadata = metadata;
    return {
      format: "vllm-bench-rs",
      file: file.name,
      part,
      context,
      points: [point],
      warnings,
      root: path.replace(/\.$/, ""),
      notImported,
    };
  });
}

export const vllmBenchRsMultiTurnParser: FormatParser = {
  id: "vllm-bench-rs",
  label: "vLLM vllm-bench (Rust) --multi-turn --save-result",
  signature:
    'a flat JSON object (or JSON lines of them) with `"mode": "multi_turn"` and `multi_turn_concurrency`, and vLLM bench serve\'s figures (`completed`, `output_throughput`, `mean_ttft_ms`, …) over every turn',
  notImportedReason: reason,
  detect(file) {
    try {
      if (file.kind === "json") return isMultiTurnResult(file.data);
      if (file.kind === "jsonl")
        return Array.isArray(file.data) && file.data.length > 0 && file.data.every(isMultiTurnResult);
      return false;
    } catch {
      return false;
    }
  },
  parse,
};
