/**
 * llama-bench's default output, the markdown table (`-o md`, also what it prints without `-o`):
 *
 *   | model | size | params | backend | ngl | fa | mmap | test | t/s |
 *   | ----- | ---: | -----: | ------- | --: | -: | ---: | ---: | --: |
 *   | glm4moe 106B.A12B Q4_K - Medium | 68.01 GiB | 110.47 B | ROCm | 99 | 1 | 0 | pp512 | 126.30 ± 0.14 |
 *
 *   build: 4807e8f9 (6609)
 *
 * often saved with the lines llama.cpp writes to stderr above it (`ggml_cuda_init: found 1 ROCm devices:`). The
 * printer (markdown_printer in tools/llama-bench/llama-bench.cpp) shows a field only when it differs from the default
 * or always shows it (model, size, params, backend, ngl, test, t/s), under a short display name; the test column is
 * `pp512`, `tg128`, `pp512+tg128`, with ` @ d4096` for a context depth; t/s is `mean ± stddev`.
 *
 * Each row becomes the record `-o json` would have written for it (the same field names, as far as the table states
 * them), so the rest of the import is llama-bench's JSON path.
 */

import { ownValue } from "@/lib/own-value";
import { toNumber } from "./common";
import type { NotImported, SourceFile } from "./types";

/** The printer's column names → the JSON field names. Columns not listed keep their own name. */
const COLUMN_FIELDS: Readonly<Record<string, string>> = {
  model: "model_type",
  backend: "backends",
  threads: "n_threads",
  ngl: "n_gpu_layers",
  sm: "split_mode",
  mg: "main_gpu",
  nkvo: "no_kv_offload",
  fa: "flash_attn",
  dev: "devices",
  ts: "tensor_split",
  ot: "tensor_buft_overrides",
  mmap: "use_mmap",
  embd: "embeddings",
  nopo: "no_op_offload",
  n_cpu_moe: "n_cpu_moe",
  cpu_mask: "cpu_mask",
  cpu_strict: "cpu_strict",
};

/** Columns whose text is a size with its unit ("68.01 GiB", "110.47 B"): kept as written, in metadata. */
const AS_WRITTEN = new Set(["size", "params"]);

export interface MarkdownTable {
  /** One record per row, with llama-bench's JSON field names. */
  records: Record<string, unknown>[];
  /** Row labels for messages: "row 3" (the table's data rows, from 1). */
  rows: string[];
  /** The GPUs the log lines above the table name (`Device 0: Radeon 8060S Graphics, …`). */
  gpus: string[];
  /** Lines that are neither table nor build line: the tool's log. */
  logLines: { line: number; text: string }[];
  /** Numbers the table states that the records do not carry. */
  notImported: NotImported[];
}

function cells(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("|") || !trimmed.endsWith("|")) return null;
  return trimmed
    .slice(1, -1)
    .split("|")
    .map((cell) => cell.trim());
}

const HEADER_REQUIRED = ["model", "test", "t/s"];

function isHeader(row: readonly string[]): boolean {
  return HEADER_REQUIRED.every((name) => row.includes(name));
}

/** True when the text holds a llama-bench markdown table: a header with model, test and t/s, then a `---` row. */
export function isLlamaBenchMarkdown(text: string): boolean {
  const lines = text.split(/\r?\n/);
  return lines.some((line, index) => {
    const header = cells(line);
    const rule = cells(lines[index + 1] ?? "");
    return header !== null && isHeader(header) && rule?.every((cell) => /^:?-+:?$/.test(cell));
  });
}

/** "pp512", "tg128", "pp512+tg128", "pp2048 @ d32768" → n_prompt, n_gen, n_depth; null for another shape. */
function testShape(test: string): { n_prompt: number; n_gen: number; n_depth: number } | null {
  const match = /^(?:pp(\d+))?(?:\+)?(?:tg(\d+))?(?:\s*@\s*d(\d+))?$/.exec(test.replace(/\s+/g, " ").trim());
  if (!match || (match[1] === undefined && match[2] === undefined)) return null;
  return { n_prompt: Number(match[1] ?? 0), n_gen: Number(match[2] ?? 0), n_depth: Number(match[3] ?? 0) };
}

/** The tables of a markdown report, its build line and its log lines. */
export function readMarkdownTable(file: SourceFile): MarkdownTable {
  const text = String(file.data);
  const lines = text.split(/\r?\n/);
  const table: MarkdownTable = { records: [], rows: [], gpus: [], logLines: [], notImported: [] };
  let header: string[] | null = null;
  let build: { commit: string; number: number | null } | null = null;
  lines.forEach((line, index) => {
    const row = cells(line);
    if (row && isHeader(row)) {
      header = row;
      return;
    }
    if (row?.every((cell) => /^:?-+:?$/.test(cell))) return;
    if (row && header) {
      const record: Record<string, unknown> = {};
      const label = `row ${table.records.length + 1}`;
      header.forEach((name, column) => {
        const cell = row[column] ?? "";
        if (name === "test") {
          const shape = testShape(cell);
          if (shape) Object.assign(record, shape);
          record.test = cell;
        } else if (name === "t/s") {
          const [mean, std] = cell.split("±").map((part) => part.trim());
          record.avg_ts = mean === undefined ? cell : mean;
          if (std !== undefined) record.stddev_ts = std;
        } else if (AS_WRITTEN.has(name)) {
          record[name === "size" ? "model_size_as_written" : "model_n_params_as_written"] = cell;
        } else {
          record[ownValue(COLUMN_FIELDS, name) ?? name] = cell;
        }
      });
      table.records.push(record);
      table.rows.push(label);
      return;
    }
    const buildMatch = /^build:\s*([0-9a-f]+)\s*(?:\((\d+)\))?\s*$/i.exec(line.trim());
    if (buildMatch?.[1]) {
      build = { commit: buildMatch[1], number: buildMatch[2] !== undefined ? Number(buildMatch[2]) : null };
      return;
    }
    if (line.trim() === "") return;
    table.logLines.push({ line: index + 1, text: line });
    // CUDA/ROCm: "  Device 0: Radeon 8060S Graphics, gfx1151 (0x1151), VMM: no"; Vulkan: "ggml_vulkan: 0 = AMD Radeon … (RADV …)".
    const cuda = /^\s*Device \d+:\s*([^,]+),/.exec(line);
    const vulkan = /^ggml_vulkan:\s*\d+\s*=\s*(.+?)\s*(\(|\|)/.exec(line);
    const gpu = cuda?.[1] ?? vulkan?.[1];
    if (gpu) table.gpus.push(gpu.trim());
  });
  const stated = build as { commit: string; number: number | null } | null;
  for (const record of table.records) {
    if (stated) {
      record.build_commit = stated.commit;
      if (stated.number !== null) record.build_number = stated.number;
    }
    if (table.gpus.length > 0) record.gpu_info = table.gpus.join(", ");
  }
  return table;
}

/** A cell that is a number once its unit is gone ("68.01 GiB" → 68.01), for the report's value. */
export function leadingNumber(cell: unknown): number | null {
  if (typeof cell !== "string") return null;
  const match = /^[-+]?\d+(\.\d+)?/.exec(cell.trim());
  return match ? toNumber(match[0]) : null;
}
