/**
 * The load level of AIPerf / GenAI-Perf files that state none (the CSV export): from the tools' artifact folder
 * names, or given with the upload; and the CSV of a run whose requests all failed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { AppError } from "@/lib/errors";
import { aiperfParsers } from "@/lib/formats/aiperf";
import { aiperfCsvParser } from "@/lib/formats/aiperf-csv";
import { levelFromFolders, levelOfFolderName } from "@/lib/formats/aiperf-folder";
import { readUploads, type UploadFile } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { type GivenLevel, NoResultsError } from "@/lib/formats/types";
import { FIXTURES_DIR, loadFixture } from "./fixtures";

const SWEEP_DIR = "aiperf/v0.11.0-sweep-csv";
const LEVELS = [16, 32, 64, 128];
const csvOf = (level: number) => `${SWEEP_DIR}/concurrency_${level}/profile_export_aiperf.csv`;
const JSON_64 = "aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json";
const RUN1_CSV = "aiperf/run1/profile_export_aiperf.csv";
const ALL_FAILED_CSV = "aiperf/hand-made-aiperf-all-requests-failed-profile_export_aiperf.csv";

const bytesOf = (file: string) => fs.readFileSync(path.join(FIXTURES_DIR, file));
const upload = (name: string, fixture: string): UploadFile => ({ name, bytes: bytesOf(fixture) });
const given = (level: Omit<GivenLevel, "source" | "byPerson">): GivenLevel => ({
  ...level,
  source: "given with the upload (level)",
  byPerson: true,
});

function appError(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("the level in the tools' artifact folder names", () => {
  test.each([
    // GenAI-Perf parser.py _set_artifact_paths: <model>-<service kind>-<stimulus>
    ["llama-3.1-8b-instruct-openai-chat-concurrency1", { concurrency: 1 }],
    ["Qwen_Qwen3-14B-openai-chat-concurrency8", { concurrency: 8 }],
    ["ensemble-triton-tensorrtllm-concurrency1", { concurrency: 1 }],
    ["exaone-deep-32B-triton-vllm-concurrency64", { concurrency: 64 }],
    ["gpt2-tensorrtllm_engine-concurrency4", { concurrency: 4 }],
    ["llama-3.1-8b-instruct-openai-completions-request_rate8.0", { request_rate: 8 }],
    ["m-openai-chat-request_rate2.5", { request_rate: 2.5 }],
    // AIPerf UserConfig._compute_artifact_directory: a rate with a concurrency cap names both
    ["hf_model-openai-chat-concurrency5-request_rate10.0", { concurrency: 5, request_rate: 10 }],
    ["openai_gpt-oss-20b-openai-chat-concurrency100", { concurrency: 100 }],
    // AIPerf parameter sweep: one folder per value
    ["concurrency_16", { concurrency: 16 }],
  ])("%s → %o", (folder, level) => {
    expect(levelOfFolderName(folder)).toEqual(level);
  });

  test.each([
    "run-10",
    "run1",
    "c16",
    "concurrency16",
    "concurrency-16",
    "concurrency_",
    "concurrency_0",
    "concurrency_016",
    "my-concurrency16",
    "model-concurrency16",
    "model-openai-chat-concurrency0",
    "model-openai-chat-concurrency16-extra",
    "model-openai-chat-concurrency",
    "model-openai-chat-request_rate",
    "model-openai-chat-request_rate0.0",
    "model-openai-chat-request_rate1e3",
    "model-unknownkind-concurrency16",
    "model-openai-chat-fixed_schedule",
    "v0.11.0-sweep-concurrency_64",
    "sweep_aggregate",
    "request_rate_8",
  ])("%s gives nothing", (folder) => {
    expect(levelOfFolderName(folder)).toBeUndefined();
  });

  it("reads the file's own folder, or an AIPerf sweep's value folder above its trials", () => {
    expect(levelFromFolders("artifacts/m-openai-chat-concurrency4/profile_export_genai_perf.csv")).toEqual({
      concurrency: 4,
      source: "from the folder name m-openai-chat-concurrency4",
      byPerson: false,
    });
    expect(levelFromFolders("sweep.zip/concurrency_10/profile_runs/trial_0001/profile_export_aiperf.csv")).toEqual({
      concurrency: 10,
      source: "from the folder name concurrency_10",
      byPerson: false,
    });
    // A folder higher up does not name this file's run; a loose file has no folder.
    expect(levelFromFolders("m-openai-chat-concurrency4/extra/profile_export_aiperf.csv")).toBeUndefined();
    expect(levelFromFolders("concurrency_10/trial_0001/profile_export_aiperf.csv")).toBeUndefined();
    expect(levelFromFolders("profile_export_aiperf.csv")).toBeUndefined();
  });
});

describe("a CSV with its level from the folder name", () => {
  it("is one point with the CSV's figures, the level's source naming the folder", () => {
    const file = { ...loadFixture(csvOf(16)), level: levelFromFolders(csvOf(16)) };
    const [fragment, ...rest] = aiperfCsvParser.parse(file);
    expect(rest).toEqual([]);
    const point = fragment!.points[0]!;
    expect(point).toMatchObject({
      concurrency: 16,
      completed: 2044,
      duration_s: 299.94,
      request_throughput: 6.81,
      output_throughput: 1792.23,
      total_output_tokens: 537554,
      mean_ttft_ms: 28.74,
      median_ttft_ms: 26.77,
      p99_ttft_ms: 66.76,
      std_ttft_ms: 7.24,
      mean_tpot_ms: 8.78,
      mean_itl_ms: 8.85,
      mean_e2el_ms: 2334.77,
      p90_e2el_ms: 4260.87,
    });
    expect(point.sources).toMatchObject({
      concurrency: "from the folder name concurrency_16",
      mean_ttft_ms: "Time to First Token (ms).avg",
      output_throughput: "Output Token Throughput (tokens/sec).Value",
    });
    expect(fragment!.context).toEqual({});
    expect(fragment!.warnings).toEqual([]);
  });

  it("lists every number it does not keep, by row label and column, with the reason", () => {
    const file = { ...loadFixture(csvOf(16)), level: levelFromFolders(csvOf(16)) };
    const notImported = aiperfCsvParser.parse(file)[0]!.notImported ?? [];
    const byField = new Map(notImported.map((entry) => [entry.field, entry]));
    expect(byField.get("Good Request Count.Value")).toMatchObject({
      value: 2044,
      reason: "no servebench field holds this figure",
    });
    expect(byField.get("Time to First Token (ms).max")).toMatchObject({ value: 85.41 });
    expect(byField.get("Time to First Token (ms).max")!.reason).toMatch(/minimum or maximum/);
    expect(byField.get("Time to First Token (ms).sum")!.reason).toMatch(/statistic servebench has no field for/);
    expect(byField.get("Time to Second Token (ms).avg")).toMatchObject({ value: 8.62 });
    expect(byField.get("HTTP Blocked (ms).avg")).toBeDefined();
    // What the point keeps is not listed.
    expect(byField.has("Time to First Token (ms).avg")).toBe(false);
    expect(byField.has("Request Count.Value")).toBe(false);
  });

  it("a concurrency sweep folder uploads as one run with one point per level", () => {
    const parsed = readUploads(
      LEVELS.map((level) => upload(csvOf(level), csvOf(level))),
      FORMAT_PARSERS,
    );
    expect(parsed.skipped).toEqual([]);
    expect(parsed.fragments.map((fragment) => fragment.points[0]!.concurrency)).toEqual(LEVELS);
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const results = plan.runs[0]!.document.results as { concurrency: number; output_throughput: number }[];
    expect(results.map((point) => [point.concurrency, point.output_throughput])).toEqual([
      [16, 1792.23],
      [32, 2923.53],
      [64, 4283.22],
      [128, 4826.84],
    ]);
  });

  it("gives way to the JSON summary in the same folder, which states the same figures unrounded", () => {
    const parsed = readUploads(
      [
        upload("sweep/concurrency_64/profile_export_aiperf.csv", csvOf(64)),
        upload("sweep/concurrency_64/profile_export_aiperf.json", JSON_64),
      ],
      aiperfParsers,
    );
    expect(parsed.fragments.map((fragment) => fragment.file)).toEqual([
      "sweep/concurrency_64/profile_export_aiperf.json",
    ]);
    expect(parsed.fragments[0]!.points[0]!.sources?.concurrency).toBe("input_config.phases.0.concurrency");
    expect(parsed.skipped).toEqual([
      {
        file: "sweep/concurrency_64/profile_export_aiperf.csv",
        format: "aiperf",
        reason: "the JSON summary in the same folder states the same figures unrounded, with the run's configuration",
      },
    ]);
  });

  it("a folder named otherwise gives no level: the CSV is skipped, asking for one", () => {
    const parsed = readUploads([upload("results/run-16/profile_export_aiperf.csv", csvOf(16))], FORMAT_PARSERS);
    expect(parsed.fragments).toEqual([]);
    expect(parsed.skipped[0]).toMatchObject({ needs_level: true });
    expect(parsed.skipped[0]!.reason).toMatch(/states no load level/);
  });
});

describe("a level given with the upload", () => {
  it("makes a CSV that states none a point, saying where the level came from", () => {
    const parsed = readUploads([upload("profile_export_aiperf.csv", RUN1_CSV)], FORMAT_PARSERS, {
      levels: new Map([["profile_export_aiperf.csv", given({ request_rate: 2.5 })]]),
    });
    const point = parsed.fragments[0]!.points[0]!;
    expect(point.request_rate).toBe(2.5);
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("given with the upload (level)");
    expect(point.mean_ttft_ms).toBe(2343.22);
  });

  it("wins over the folder name", () => {
    const name = "m-openai-chat-concurrency4/profile_export_aiperf.csv";
    const parsed = readUploads([upload(name, RUN1_CSV)], FORMAT_PARSERS, {
      levels: new Map([[name, given({ concurrency: 100 })]]),
    });
    expect(parsed.fragments[0]!.points[0]).toMatchObject({
      concurrency: 100,
      sources: expect.objectContaining({ concurrency: "given with the upload (level)" }),
    });
  });

  it("for a file that states its own level is a 422 naming both", () => {
    const error = appError(() =>
      readUploads([upload("c64.json", JSON_64)], FORMAT_PARSERS, {
        levels: new Map([["c64.json", given({ concurrency: 8 })]]),
      }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.issues?.[0]?.path).toBe("level");
    expect(error.message).toContain("concurrency 8");
    expect(error.message).toContain("concurrency 64 (input_config.phases.0.concurrency)");
  });

  it("for a file the upload does not have is a 422 naming level", () => {
    const error = appError(() =>
      readUploads([upload("a.csv", RUN1_CSV)], FORMAT_PARSERS, {
        levels: new Map([["b.csv", given({ concurrency: 8 })]]),
      }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.issues).toEqual([{ path: "level", message: 'names no file of the upload: "b.csv"' }]);
  });

  it("for a file with no load point of its own (per-request records) is a 422", () => {
    const records = "aiperf/run1/profile_export.jsonl";
    const error = appError(() =>
      readUploads([upload("records.jsonl", records)], FORMAT_PARSERS, {
        levels: new Map([["records.jsonl", given({ concurrency: 8 })]]),
      }),
    );
    expect(error.issues?.[0]).toMatchObject({
      path: "level",
      message: '"records.jsonl" holds no load point of its own',
    });
  });
});

describe("the CSV of a run whose requests all failed", () => {
  it("is recognized as AIPerf's CSV export", () => {
    const file = loadFixture(ALL_FAILED_CSV);
    expect(FORMAT_PARSERS.filter((parser) => parser.detect(file))).toEqual([aiperfCsvParser]);
  });

  it("without a level it has no results: its own error, counting the failures", () => {
    expect(() => aiperfCsvParser.parse(loadFixture(ALL_FAILED_CSV))).toThrow(NoResultsError);
    const parsed = readUploads([upload("failed.csv", ALL_FAILED_CSV)], FORMAT_PARSERS);
    expect(parsed.skipped).toEqual([
      {
        file: "failed.csv",
        format: "aiperf",
        reason: "recognised as AIPerf's CSV export, but every request failed: 16 errors, no latency or throughput rows",
        no_results: true,
      },
    ]);
  });

  it("with its level from the folder it is a no-data point that says so, as the JSON summary is", () => {
    const name = "m-openai-chat-concurrency16/profile_export_aiperf.csv";
    const parsed = readUploads([upload(name, ALL_FAILED_CSV)], FORMAT_PARSERS);
    const fragment = parsed.fragments[0]!;
    expect(fragment.points[0]).toMatchObject({ concurrency: 16, failed: 16, duration_s: 2.5 });
    expect(fragment.points[0]!.output_throughput).toBeUndefined();
    expect(fragment.warnings.join(" ")).toContain("no request completed (16 failed)");
  });
});
