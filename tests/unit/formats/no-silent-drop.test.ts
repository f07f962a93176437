/**
 * No figure of a recognized file disappears silently: every number each fixture states is in the run it becomes (a
 * point figure, possibly converted to servebench's unit; the context; the metadata) or listed in the run's import
 * report (`not_imported`) with a reason. The numbers are found here by walking the file on its own, not by asking the
 * parsers, and the run is checked for the value itself.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { AppError } from "@/lib/errors";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { REASONS } from "@/lib/formats/report";
import { FIXTURES_DIR, fixtureFiles } from "./fixtures";

const FOLDERS = [
  "vllm",
  "sglang",
  "guidellm",
  "aiperf",
  "llmperf",
  "inference-perf",
  "trtllm",
  "llama-bench",
  "llm-d-benchmark-report",
  "vllm-suite",
  "vllm-bench-rs",
  "genai-bench",
  "evalscope",
  "mlperf",
  "llm-load-test",
];

const files = FOLDERS.flatMap((folder) => fixtureFiles(folder)).filter(
  (file) =>
    !file.endsWith("README.md") &&
    !file.endsWith("SOURCE.txt") &&
    !file.endsWith("_json_schema.json") &&
    // inference-perf's Prometheus scrapes (stage_N_prometheus_metrics.json) are server-side metrics, imported by the
    // server-metrics work; until then they are recognized and skipped as a whole, which is checked below.
    !/_prometheus_metrics\.json$/.test(file),
);

interface Stated {
  path: string;
  value: number;
  list: boolean;
}

function numberOf(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\s*[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) {
    const number = Number(value.replace(/,/g, ""));
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

/** The numbers of a JSON value with their paths, walked independently of lib/formats. */
function walk(value: unknown, at: string, out: Stated[]): void {
  if (Array.isArray(value)) {
    if (
      value.length > 0 &&
      value.every((item) => typeof item === "number" || item === null || numberOf(item) !== null || item === "NaN")
    ) {
      if (!value.some((item) => numberOf(item) !== null)) return;
      out.push({ path: at, value: numberOf(value.find((item) => numberOf(item) !== null)) ?? 0, list: true });
      return;
    }
    value.forEach((item, index) => {
      walk(item, `${at}[${index}]`, out);
    });
    return;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) walk(child, at === "" ? key : `${at}.${key}`, out);
    return;
  }
  const number = numberOf(value);
  if (number !== null) out.push({ path: at, value: number, list: false });
}

/** Numbers of a printed report: table rows, `Label: value` lines of its sections, breakdowns, the build line. */
function textNumbers(text: string): number[] {
  const numbers: number[] = [];
  let inReport = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^=\s+\S/.test(line)) inReport = true;
    const isTable = /^\s*\|/.test(line) && !/^\s*\|[\s:|-]+\|\s*$/.test(line);
    const isBuild = /^build:/.test(line);
    const isReportLine =
      inReport &&
      (/^[A-Za-z][^:[\]]*:\s+\S/.test(line) ||
        /^\[(Latency|TTFT|TPOT|GTPS)\]/.test(line) ||
        /^(MIN|MAX|AVG|P\d+):/.test(line));
    if (!isTable && !isBuild && !isReportLine) continue;
    if (isTable && /\|\s*model\s*\|/.test(line)) continue;
    const body = isBuild
      ? line.replace(/^build:\s*[0-9a-f]+/, "")
      : line.replace(/^[^:]*\((?:ms|req\/sec|tokens\/sec[^)]*|tps[^)]*|tokens)\)/, "").replace(/\[[A-Za-z]+\]/, "");
    for (const match of body.matchAll(/(?<![\w.])\d+(\.\d+)?(E[+-]\d+)?(?![\w.])/gi)) numbers.push(Number(match[0]));
  }
  return numbers;
}

/**
 * The values of an MLPerf LoadGen summary's `Label : value` lines, as written (RNG seeds exceed 2^53, so their digits
 * are compared as text).
 */
function loadgenValues(text: string): string[] {
  const values: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^[^:]+:\s*([-+]?\d+(\.\d+)?)\s*$/.exec(line);
    if (match?.[1]) values.push(match[1]);
  }
  return values;
}

function decodeLines(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .filter((line) => /^\s*\{/.test(line))
    .map((line) => JSON.parse(line.replace(/\b(NaN|-?Infinity)\b/g, "null")) as unknown);
}

function statedOf(file: string, bytes: Buffer, kind: string): Stated[] {
  const text = bytes.toString("utf8");
  const out: Stated[] = [];
  if (kind === "jsonl") {
    decodeLines(text).forEach((line, index) => {
      walk(line, `line ${index + 1}`, out);
    });
  } else if (kind === "json" || kind === "yaml") {
    const body = text.slice(text.search(/^\s*[[{]/m));
    let data: unknown;
    try {
      data = JSON.parse(body.replace(/\b(NaN|-?Infinity)\b/g, "null"));
    } catch {
      data = undefined;
    }
    if (data === undefined && file.endsWith(".yaml")) data = parseYaml(text) as unknown;
    walk(data, "", out);
  }
  return out;
}

/** Every number a run document holds, by value. */
function documentNumbers(document: Record<string, unknown>): { numbers: number[]; texts: string[] } {
  const numbers: number[] = [];
  const texts: string[] = [];
  const collect = (value: unknown) => {
    if (typeof value === "number") numbers.push(value);
    else if (typeof value === "string") {
      texts.push(value);
      const number = numberOf(value);
      if (number !== null) numbers.push(number);
    } else if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "not_imported" || key === "sources") continue;
        // Test shapes live in metadata keys: llama-bench's `pp512@d4096_tok_s`.
        texts.push(key);
        collect(child);
      }
    }
  };
  collect(document);
  // A Unix time the file states becomes measured_at.
  for (const run of (document.documents as Record<string, unknown>[] | undefined) ?? []) {
    if (typeof run.measured_at === "string") {
      const ms = Date.parse(run.measured_at);
      numbers.push(ms, ms / 1000);
    }
  }
  return { numbers, texts };
}

const FACTORS = [1, 1000, 0.001, 1e-6, 1e-9, 1 / 60, 0.01];

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= Math.max(Math.abs(a), Math.abs(b)) * 1e-9;
}

function held(value: number, numbers: readonly number[], texts: readonly string[]): boolean {
  if (FACTORS.some((factor) => numbers.some((number) => close(number, value * factor)))) return true;
  const written = String(value);
  return texts.some(
    (text) => text.includes(written) && new RegExp(`(^|[^\\d.])${written.replace(".", "\\.")}([^\\d]|$)`).test(text),
  );
}

function matchesField(field: string, statedPath: string): boolean {
  if (field === statedPath) return true;
  if (!field.includes("[*]")) return false;
  const pattern = new RegExp(
    `^${field.replace(/[.+?^${}()|\\]/g, "\\$&").replace(/\\\[\*\\\]|\[\*\]/g, "\\[\\d+\\]")}$`,
  );
  return pattern.test(statedPath);
}

describe("no figure of a recognized file disappears silently", () => {
  test.each(files)(
    "%s: every stated number is imported, kept or reported",
    (file) => {
      const bytes = fs.readFileSync(path.join(FIXTURES_DIR, file));
      let parsed: ReturnType<typeof readUploads>;
      try {
        parsed = readUploads([{ name: file, bytes }], FORMAT_PARSERS);
      } catch (error) {
        // A broken file is refused whole (validation_failed naming the field): nothing is imported, nothing is lost.
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("validation_failed");
        expect(file).toMatch(/broken/);
        return;
      }
      if (parsed.fragments.length === 0) {
        // Recognized, holds no load point of its own: the whole file is reported as skipped, with the reason.
        expect(parsed.skipped.length + parsed.duplicates.length).toBeGreaterThan(0);
        for (const skipped of parsed.skipped) expect(skipped.reason).toMatch(/\w{4,}/);
        return;
      }
      const documents = planRuns(parsed, { split: true }).runs.map((run) => run.document as Record<string, unknown>);
      const report = documents.flatMap(
        (document) => (document.not_imported ?? []) as { field: string; value: unknown; reason: string }[],
      );
      for (const entry of report) expect(entry.reason.length).toBeGreaterThan(10);
      const { numbers, texts } = documentNumbers({ documents });
      const reportedValues = report.map((entry) => entry.value);
      const kind = file.endsWith(".yaml")
        ? "yaml"
        : (() => {
            try {
              JSON.parse(bytes.toString("utf8").replace(/\b(NaN|-?Infinity)\b/g, "null"));
              return "json";
            } catch {
              return file.endsWith(".jsonl") ? "jsonl" : "json";
            }
          })();
      const isText = /\.(log|md|txt)$/.test(file);
      const missing: string[] = [];
      if (isText && /MLPerf Results Summary/.test(bytes.toString("utf8"))) {
        for (const written of loadgenValues(bytes.toString("utf8"))) {
          const value = Number(written);
          if (Number.isSafeInteger(value) || !Number.isInteger(value)) {
            if (held(value, numbers, texts) || reportedValues.includes(value)) continue;
          } else if (texts.includes(written)) continue;
          missing.push(written);
        }
      } else if (isText) {
        for (const value of textNumbers(bytes.toString("utf8"))) {
          if (held(value, numbers, texts) || reportedValues.includes(value)) continue;
          missing.push(String(value));
        }
      } else if (file.endsWith(".csv")) {
        // Paths differ per layout; every number is checked by value below through the report's values and the run.
        const text = bytes.toString("utf8");
        for (const match of text.matchAll(/(?<![\w.-])-?\d+\.\d+(?![\w.])/g)) {
          const value = Number(match[0]);
          if (held(value, numbers, texts) || reportedValues.includes(value)) continue;
          missing.push(match[0]);
        }
      } else {
        for (const stated of statedOf(file, bytes, kind)) {
          if (report.some((entry) => matchesField(entry.field, stated.path))) continue;
          // A value the run's metadata could not hold (its lines disagree) is reported under its metadata key.
          if (
            !stated.list &&
            report.some((entry) => entry.value === stated.value && /differs between|measured_at/.test(entry.reason))
          )
            continue;
          if (!stated.list && held(stated.value, numbers, texts)) continue;
          missing.push(`${stated.path} = ${stated.value}${stated.list ? " (list)" : ""}`);
        }
      }
      expect(missing).toEqual([]);
    },
    60_000,
  );

  test.each(fixtureFiles("inference-perf").filter((file) => /_prometheus_metrics\.json$/.test(file)))(
    "%s alone (server metrics with no stage beside it) is skipped whole with its reason",
    (file) => {
      const parsed = readUploads(
        [{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }],
        FORMAT_PARSERS,
      );
      expect(parsed.fragments).toEqual([]);
      expect(parsed.skipped[0]?.reason).toMatch(/\w{4,}/);
    },
  );

  it("inference-perf's Prometheus files uploaded with their stages: every number is in its point or reported", () => {
    const folder = "inference-perf/kubecon-na-2025-vllm";
    const names = fs.readdirSync(path.join(FIXTURES_DIR, folder)).filter((name) => name.endsWith(".json"));
    const uploads = names.map((name) => ({
      name: `${folder}/${name}`,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, folder, name)),
    }));
    const parsed = readUploads(uploads, FORMAT_PARSERS);
    const documents = planRuns(parsed, { split: true }).runs.map((run) => run.document as Record<string, unknown>);
    const report = documents.flatMap(
      (document) => (document.not_imported ?? []) as { file: string; field: string; value: unknown; reason: string }[],
    );
    const { numbers, texts } = documentNumbers({ documents });
    const missing: string[] = [];
    for (const upload of uploads.filter((item) => /stage_\d+_prometheus_metrics\.json$/.test(item.name))) {
      for (const stated of statedOf(upload.name, upload.bytes, "json")) {
        const reported = report.some(
          (entry) => entry.file.includes(path.basename(upload.name)) && matchesField(entry.field, stated.path),
        );
        if (reported || (!stated.list && held(stated.value, numbers, texts))) continue;
        missing.push(`${path.basename(upload.name)}: ${stated.path} = ${stated.value}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("inference-perf's folder: the stated percentiles of TTFT, e2e latency and latency per token are in the points, not the report", () => {
    const folder = "inference-perf/kubecon-na-2025-vllm";
    const names = fs.readdirSync(path.join(FIXTURES_DIR, folder)).filter((name) => name.endsWith(".json"));
    const uploads = names.map((name) => ({
      name: `${folder}/${name}`,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, folder, name)),
    }));
    const documents = planRuns(readUploads(uploads, FORMAT_PARSERS), { split: true }).runs.map(
      (run) => run.document as Record<string, unknown>,
    );
    const report = documents.flatMap((document) => (document.not_imported ?? []) as { file: string; field: string }[]);
    const points = documents.flatMap(
      (document) =>
        document.results as { request_rate?: number; percentiles?: Record<string, Record<string, number>> }[],
    );
    expect(points).toHaveLength(7);
    const metrics = [
      ["time_to_first_token", "ttft"],
      ["request_latency", "e2el"],
      ["normalized_time_per_output_token", "e2el_per_token"],
    ] as const;
    for (const upload of uploads.filter((item) => /stage_\d+_lifecycle_metrics\.json$/.test(item.name))) {
      const stage = JSON.parse(upload.bytes.toString("utf8")) as {
        load_summary: { requested_rate: number };
        successes: { latency: Record<string, Record<string, number>> };
      };
      const point = points.find((candidate) => candidate.request_rate === stage.load_summary.requested_rate);
      for (const [key, metric] of metrics) {
        for (const name of ["p0.1", "p1", "p5", "p10", "p25", "p75", "p99.9"]) {
          const stated = stage.successes.latency[key]?.[name];
          expect(stated).toBeTypeOf("number");
          // Seconds in the file, ms in the point.
          expect(point?.percentiles?.[metric]?.[name]).toBeCloseTo((stated ?? 0) * 1000, 9);
        }
      }
      const listed = report.filter(
        (entry) =>
          entry.file === upload.name &&
          /^successes\.latency\.(time_to_first_token|request_latency|normalized_time_per_output_token)\.(p|median|mean)/.test(
            entry.field,
          ),
      );
      expect(listed).toEqual([]);
    }
  });

  test.each(files)(
    "%s: no figure the run keeps is also listed as not imported",
    (file) => {
      const bytes = fs.readFileSync(path.join(FIXTURES_DIR, file));
      let parsed: ReturnType<typeof readUploads>;
      try {
        parsed = readUploads([{ name: file, bytes }], FORMAT_PARSERS);
      } catch {
        return;
      }
      const documents = planRuns(parsed, { split: true }).runs.map((run) => run.document as Record<string, unknown>);
      const contradictions: string[] = [];
      for (const document of documents) {
        // The default reasons ("no servebench field holds this figure", "a percentile of a figure servebench keeps no
        // percentiles of", …) must never be given to a figure the run keeps. (A value can legitimately repeat under the
        // same name in a record that is not imported, such as a GuideLLM benchmark without a load level; those entries
        // carry a reason of their own.)
        const report = ((document.not_imported ?? []) as { field: string; value: unknown; reason: string }[]).filter(
          (entry) => (Object.values(REASONS) as string[]).includes(entry.reason),
        );
        for (const point of (document.results ?? []) as Record<string, unknown>[]) {
          const sources = (point.sources ?? {}) as Record<string, string>;
          for (const [field, source] of Object.entries(sources)) {
            const value = field.startsWith("percentiles.")
              ? (point.percentiles as Record<string, Record<string, number>>)[field.split(".")[1] ?? ""]?.[
                  field.split(".").slice(2).join(".")
                ]
              : point[field];
            if (typeof value !== "number") continue;
            for (const entry of report) {
              if (typeof entry.value !== "number") continue;
              const samePath =
                entry.field === source || entry.field.endsWith(`.${source}`) || entry.field.endsWith(`]${source}`);
              if (samePath && FACTORS.some((factor) => close(entry.value as number, value * factor)))
                contradictions.push(
                  `${field} = ${value} from ${source}, yet reported: ${entry.field} = ${entry.value}`,
                );
            }
          }
        }
      }
      expect(contradictions).toEqual([]);
    },
    60_000,
  );
});
