/**
 * The llm-d benchmark report export (lib/formats/llm-d-export.ts), held to the upstream JSON Schema of v0.2.1
 * (tests/fixtures/llm-d-benchmark-report/br_v0_2_1_json_schema.json, copied byte for byte) and to servebench's own
 * importer: every run servebench imports from the fixtures of every tool exports as reports that validate, and
 * those reports import back with the same figures.
 */
import fs from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { LATENCY_KEYS, type ResultPoint } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { exportLlmdReports, isoDuration, type LlmdReport } from "@/lib/formats/llm-d-export";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FIXTURES_DIR, fixtureFiles, readFixtureJson } from "./fixtures";

const TOOL_FOLDERS = [
  "vllm",
  "sglang",
  "guidellm",
  "aiperf",
  "llmperf",
  "inference-perf",
  "trtllm",
  "llama-bench",
  "llm-d-benchmark-report",
  "genai-bench",
  "evalscope",
  "mlperf",
  "llm-load-test",
  "vllm-suite",
  "vllm-bench-rs",
];
type Json = Record<string, unknown>;
const SCHEMA_FILE = "llm-d-benchmark-report/br_v0_2_1_json_schema.json";
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;

const ajv = new Ajv2020({ allErrors: true, strict: false });
// The schema's one format; ajv checks formats only when told what they are.
ajv.addFormat("date-time", (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
const validateReport = ajv.compile(readFixtureJson(SCHEMA_FILE) as object);

function errorsOf(report: unknown): string[] {
  return validateReport(report)
    ? []
    : (validateReport.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

/** Every result file of every tool, as the upload reads them (the broken ones are refused, so they are no runs). */
const resultFiles = TOOL_FOLDERS.flatMap((folder) => fixtureFiles(folder)).filter(
  (file) =>
    !file.endsWith(".md") &&
    !file.endsWith("SOURCE.txt") &&
    !file.endsWith("_json_schema.json") &&
    !/broken/.test(file),
);

/** A fixture uploaded as a person would (split into runs), each run normalized and stored as the API hands it out. */
function storedRuns(file: string): StoredRun[] {
  const parsed = readUploads([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }], FORMAT_PARSERS);
  return planRuns(parsed, { split: true }).runs.map((planned, index) => {
    const document = planned.document as Record<string, unknown>;
    // What the upload form asks for when a file does not say it.
    const normalized = normalizeRunDocument({
      ...document,
      engine: document.engine ?? "unknown",
      model: document.model ?? "model not stated",
    });
    return { ...normalized, id: `run${index + 1}`, created_at: "2026-01-01T00:00:00.000Z" };
  });
}

/** The reports as the upload reads them back: through readUploads and planRuns, like any llm-d file. */
function reimport(reports: LlmdReport[]): { points: ResultPoint[]; documents: Record<string, unknown>[] } {
  const files = reports.map((report, index) => ({
    name: `report-${index + 1}.json`,
    bytes: new TextEncoder().encode(JSON.stringify(report)),
  }));
  const parsed = readUploads(files, FORMAT_PARSERS);
  const documents = planRuns(parsed, { split: true }).runs.map((run) => run.document as Record<string, unknown>);
  return { points: documents.flatMap((document) => document.results as ResultPoint[]), documents };
}

/** The figures the round trip keeps: counts, throughputs, every latency statistic, the schema's percentiles, level. */
const KEPT = [
  "concurrency",
  "request_rate",
  "completed",
  "failed",
  "duration_s",
  "output_throughput",
  "total_token_throughput",
  "request_throughput",
  ...LATENCY_KEYS,
] as const;
const SCHEMA_PERCENTILES = ["p0.1", "p1", "p5", "p10", "p25", "p75", "p99.9"];

/**
 * What the report can say of a point, which `from` (the original point) decides: the report counts requests sent
 * and those that failed, so completed and failed are both said only when both are known; and the schema's
 * statistics need a mean, so a metric without a mean is in the extension only (docs/formats/llm-d-benchmark-report.md).
 */
function keptFigures(point: ResultPoint, from: ResultPoint): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEPT) {
    if (point[key] === undefined) continue;
    if ((key === "completed" || key === "failed") && (from.completed === undefined || from.failed === undefined))
      continue;
    const metric = /^(?:mean|median|std|p90|p95|p99)_(.+)_ms$/.exec(key)?.[1];
    if (metric && from[`mean_${metric}_ms` as keyof ResultPoint] === undefined) continue;
    out[key] = point[key];
  }
  for (const [metric, values] of Object.entries(point.percentiles ?? {}))
    for (const [key, value] of Object.entries(values ?? {}))
      if (SCHEMA_PERCENTILES.includes(key) && from[`mean_${metric}_ms` as keyof ResultPoint] !== undefined)
        out[`percentiles.${metric}.${key}`] = value;
  return out;
}

const runsByFile = resultFiles.map((file) => ({ file, runs: storedRuns(file) }));

describe("llm-d benchmark report export", () => {
  it("has runs of every tool to export", () => {
    for (const folder of TOOL_FOLDERS) {
      const runs = runsByFile.filter((entry) => entry.file.startsWith(`${folder}/`)).flatMap((entry) => entry.runs);
      expect(runs.length, folder).toBeGreaterThan(0);
    }
  });

  it("the schema's validator refuses what the schema refuses", () => {
    const [report] = exportLlmdReports(runsByFile[0]!.runs[0]!);
    expect(errorsOf(report)).toEqual([]);
    expect(errorsOf({ ...report, results: { request_performance: { aggregate: { latency: { x: 1 } } } } })).not.toEqual(
      [],
    );
    expect(errorsOf({ ...report, run: {} })).toContain("/run must have required property 'uid'");
  });

  it("durations are ISO 8601 in plain decimals", () => {
    expect(isoDuration(49.97)).toBe("PT49.97S");
    expect(isoDuration(120)).toBe("PT120S");
    expect(isoDuration(1e-7)).toBe("PT0.0000001S");
  });

  it("vLLM's bench serve: figures in the schema's places and units, the rest in the servebench extension", () => {
    const run = storedRuns("vllm/bench_serve_v0.25.1.json")[0]!;
    const point = run.results[0]!;
    const report = exportLlmdReports(run, { gpuHourPrice: 2 })[0]!;
    const at = (dotted: string) => dotted.split(".").reduce<unknown>((value, key) => (value as Json)?.[key], report);
    const aggregate = at("results.request_performance.aggregate") as Json & Record<"latency" | "throughput", Json>;
    expect(report.version).toBe("0.2.1");
    expect(aggregate.latency.time_to_first_token).toMatchObject({
      units: "ms",
      mean: point.mean_ttft_ms,
      p50: point.median_ttft_ms,
      p99: point.p99_ttft_ms,
    });
    expect(aggregate.latency.time_per_output_token).toMatchObject({ units: "ms/token", mean: point.mean_tpot_ms });
    expect(aggregate.latency.inter_token_latency).toMatchObject({ units: "ms/token", mean: point.mean_itl_ms });
    expect(aggregate.throughput.output_token_rate).toEqual({ units: "tokens/s", mean: point.output_throughput });
    expect(aggregate.throughput.request_rate).toEqual({ units: "queries/s", mean: point.request_throughput });
    expect(aggregate.requests).toMatchObject({
      total: (point.completed ?? 0) + (point.failed ?? 0),
      failures: point.failed,
    });
    expect(at("scenario.load.standardized")).toMatchObject({ tool: "servebench", concurrency: point.concurrency });
    const extension = at("scenario.load.native.config.servebench") as Json & Record<"validity", { checks: unknown[] }>;
    expect(extension).toMatchObject({ run_id: run.id, source_format: "vllm-bench-serve", sources: point.sources });
    expect(extension.validity.checks.length).toBeGreaterThan(0);
    // No GPU count is stated in the file, so there is no $/Mtok to give.
    expect((extension.figures as Json | undefined)?.cost_per_million_output_tokens_usd).toBeUndefined();
  });

  it.each(runsByFile)("$file: every report validates against the v0.2.1 JSON Schema", ({ runs }) => {
    for (const run of runs) {
      const reports = exportLlmdReports(run);
      expect(reports).toHaveLength(run.results.length);
      for (const report of reports) expect(errorsOf(report)).toEqual([]);
    }
  });

  it.each(runsByFile)("$file: the reports import back with every figure, level and the stack", ({ runs }) => {
    for (const run of runs) {
      const { points, documents } = reimport(exportLlmdReports(run));
      expect(points.map((point, index) => keptFigures(point, run.results[index]!))).toEqual(
        run.results.map((point) => keptFigures(point, point)),
      );
      for (const document of documents) {
        expect(document.model).toBe(run.model);
        expect(document.engine ?? "unknown").toBe(run.engine);
        expect(document.engine_version).toBe(run.engine_version);
        expect(document.hardware).toEqual(run.hardware && { gpu: run.hardware.gpu, gpu_count: run.hardware.gpu_count });
      }
    }
  });
});

describe("power through the llm-d export", () => {
  it("a measured level's power figures and their source come back from the servebench extension", () => {
    const [run] = storedRuns("aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json");
    const power = {
      power_w_mean: 1412.6,
      power_w_max: 1466.2,
      energy_j: 43071.8,
      power_gpu_count: 2,
      power_samples: 61,
      power_source: "dcgm-exporter" as const,
    };
    const measured = { ...run!, results: run!.results.map((point) => ({ ...point, ...power })) };
    const { points } = reimport(exportLlmdReports(measured));
    expect(points[0]).toMatchObject(power);
  });
});

describe("a run's whole context through the llm-d export", () => {
  /** A run stating every field a person or a tool can give, two levels. */
  const described: StoredRun = {
    ...normalizeRunDocument({
      format: "servebench/v1",
      name: "Kimi-K2.5 SGLang TP8, EAGLE-3",
      engine: "sglang",
      engine_version: "0.5.5",
      model: "moonshotai/Kimi-K2.5",
      model_size: { total_params_b: 1040, active_params_b: 32 },
      hardware: { gpu: "NVIDIA RTX PRO 6000 Blackwell Server Edition", gpu_count: 8, gpu_memory_mib: 97_887 },
      command: "python -m sglang.launch_server --model moonshotai/Kimi-K2.5 --tp 8 --speculative-algorithm EAGLE3",
      flags: { "--tp": 8, "--speculative-algorithm": "EAGLE3", "--enable-torch-compile": true },
      env: { SGLANG_ENABLE_JIT_DEEPGEMM: "0", NCCL_P2P_LEVEL: "SYS" },
      workload: { dataset: "random", input_len: 1024, output_len: 512, num_prompts: 80, temperature: 0 },
      speculative: { method: "eagle3", num_speculative_tokens: 3, draft_model: "lightseekorg/kimi-k2.5-eagle3" },
      server_startup_s: 412.5,
      tags: ["eagle3", "nightly"],
      notes: "Single stream went 27 → 63.6 tok/s with CUDA graphs.",
      git_commit: "0123456789abcdef0123456789abcdef01234567",
      git_branch: "main",
      ci_url: "https://ci.example.com/runs/42",
      measured_at: "2026-11-30T04:00:00.000Z",
      metadata: { gpu_driver: "580.95.05", cuda: "13.0" },
      results: [
        {
          concurrency: 1,
          completed: 80,
          failed: 0,
          duration_s: 120,
          output_throughput: 63.6,
          mean_tpot_ms: 15.2,
          mean_ttft_ms: 210,
        },
        {
          concurrency: 8,
          completed: 80,
          failed: 0,
          duration_s: 60,
          output_throughput: 340,
          mean_tpot_ms: 22.1,
          mean_ttft_ms: 380,
        },
      ],
    }),
    id: "described",
    created_at: "2026-12-01T00:00:00.000Z",
  };

  it("comes back as it went: every field of the run's context, and each level's figures", () => {
    const reports = exportLlmdReports(described);
    for (const report of reports) expect(errorsOf(report)).toEqual([]);
    const { documents, points } = reimport(reports);
    expect(documents).toHaveLength(1);
    const back = documents[0]!;
    for (const field of [
      "name",
      "engine",
      "engine_version",
      "model",
      "model_size",
      "hardware",
      "command",
      "flags",
      "env",
      "workload",
      "speculative",
      "server_startup_s",
      "tags",
      "notes",
      "git_commit",
      "git_branch",
      "ci_url",
      "measured_at",
    ] as const) {
      expect.soft(back[field], field).toEqual(described[field]);
      expect(described[field], field).toBeDefined();
    }
    expect(back.metadata).toMatchObject(described.metadata);
    expect(points.map((point) => keptFigures(point, point))).toEqual(
      described.results.map((point) => keptFigures(point, point)),
    );
  });

  it("makes reports of two commits two runs, each named by its commit", () => {
    const reports = exportLlmdReports(described);
    const extension = (report: LlmdReport) =>
      ((report.scenario as Json).load as Json & { native: { config: { servebench: Json } } }).native.config.servebench;
    extension(reports[1]!).git_commit = "fedcba9876543210fedcba9876543210fedcba98";
    const { documents } = reimport(reports);
    expect(documents.map((document) => [document.git_commit, document.name])).toEqual([
      ["0123456789abcdef0123456789abcdef01234567", "Kimi-K2.5 SGLang TP8, EAGLE-3 (commit 0123456)"],
      ["fedcba9876543210fedcba9876543210fedcba98", "Kimi-K2.5 SGLang TP8, EAGLE-3 (commit fedcba9)"],
    ]);
    expect(documents.map((document) => document.ci_url)).toEqual([described.ci_url, described.ci_url]);
  });
});
