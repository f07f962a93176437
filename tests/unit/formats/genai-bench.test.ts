import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { genaiBenchMetadataParser, genaiBenchParsers, genaiBenchRunParser } from "@/lib/formats/genai-bench";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture } from "./fixtures";

const BASETEN = "genai-bench/baseten-qwen3-30b";
const LEVEL_4 = `${BASETEN}/N2000_200_200_20_text-to-text_num_concurrency_4_time_35s.json`;
const GLM = "genai-bench/glm-4.6-d100/D100_100_text-to-text_num_concurrency_1_time_120s.json";

function onlyPoint(file: string): ResultPoint {
  const fragments = genaiBenchRunParser.parse(loadFixture(file));
  expect(fragments).toHaveLength(1);
  expect(fragments[0]!.points).toHaveLength(1);
  return fragments[0]!.points[0]!;
}

function inline(data: unknown): SourceFile {
  return { name: "inline.json", kind: "json", data, bytes: 0 };
}

/** The concurrency-4 file with some fields replaced. */
function edited(change: (data: Record<string, unknown>, aggregated: Record<string, unknown>) => void): SourceFile {
  const data = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, LEVEL_4), "utf8")) as Record<string, unknown>;
  change(data, data.aggregated_metrics as Record<string, unknown>);
  return inline(data);
}

function formatError(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error("expected a FormatError");
}

describe("genai-bench run files", () => {
  it("reads a level's figures, seconds to ms, the level from the configured num_concurrency", () => {
    const point = onlyPoint(LEVEL_4);
    expect(point.concurrency).toBe(4);
    expect(point.request_rate).toBeUndefined();
    expect(point.completed).toBe(64);
    expect(point.failed).toBe(0);
    expect(point.duration_s).toBe(35.051382212899625);
    // sum of num_output_tokens (12584) / run_duration: genai-bench's own figure, servebench's definition.
    expect(point.output_throughput).toBe(359.01579925053085);
    expect(point.output_throughput).toBeCloseTo(12584 / 35.051382212899625, 9);
    expect(point.total_token_throughput).toBe(3926.236037258269);
    expect(point.request_throughput).toBe(1.8258909052792416);
    expect(point.total_input_tokens).toBe(125036);
    expect(point.total_output_tokens).toBe(12584);
    expect(point.mean_ttft_ms).toBeCloseTo(209.49856007064227, 9);
    expect(point.std_ttft_ms).toBeCloseTo(32.839800256270486, 9);
    expect(point.median_ttft_ms).toBeCloseTo(199.1178742609918, 9);
    expect(point.p90_ttft_ms).toBeCloseTo(263.1753754802048, 9);
    expect(point.p95_ttft_ms).toBeCloseTo(285.5199574492871, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(303.4968017414212, 9);
    expect(point.percentiles?.ttft?.p25).toBeCloseTo(186.12434226088226, 9);
    expect(point.percentiles?.ttft?.p75).toBeCloseTo(219.7751239873469, 9);
    // genai-bench's tpot is output_latency / (output tokens − 1): servebench's TPOT.
    expect(point.mean_tpot_ms).toBeCloseTo(9.715716679522004, 9);
    expect(point.median_tpot_ms).toBeCloseTo(9.748797059926373, 9);
    expect(point.p99_tpot_ms).toBeCloseTo(10.192982366620569, 9);
    expect(point.mean_itl_ms).toBeUndefined();
    expect(point.mean_e2el_per_token_ms).toBeUndefined();
    expect(point.sources).toMatchObject({
      concurrency: "aggregated_metrics.num_concurrency",
      output_throughput: "aggregated_metrics.mean_output_throughput_tokens_per_s",
      mean_ttft_ms: "aggregated_metrics.stats.ttft.mean",
      median_ttft_ms: "aggregated_metrics.stats.ttft.p50",
      mean_tpot_ms: "aggregated_metrics.stats.tpot.mean",
      mean_e2el_ms: "aggregated_metrics.stats.e2e_latency.mean",
      "percentiles.ttft.p25": "aggregated_metrics.stats.ttft.p25",
    });
  });

  it("records the traffic scenario as the workload, which keeps scenarios apart", () => {
    const [fragment] = genaiBenchRunParser.parse(loadFixture(LEVEL_4));
    expect(fragment!.context.workload).toEqual({ dataset: "genai-bench scenario N(2000,200)/(200,20)" });
    expect(fragment!.context.metadata).toEqual({ genai_bench_scenario: "N(2000,200)/(200,20)" });
    expect(fragment!.context.model).toBeUndefined();
    // D(100,100): 100 prompt tokens, 100 output tokens.
    const [glm] = genaiBenchRunParser.parse(loadFixture(GLM));
    expect(glm!.context.workload).toEqual({
      dataset: "genai-bench scenario D(100,100)",
      input_len: 100,
      output_len: 100,
    });
  });

  it("reads a file with _time_unit and the fork's arrival figures", () => {
    const point = onlyPoint(GLM);
    expect(point.concurrency).toBe(1);
    expect(point.completed).toBe(10);
    expect(point.output_throughput).toBe(94.40343401932063);
    expect(point.total_output_tokens).toBe(1000);
    expect(point.mean_ttft_ms).toBeCloseTo(256.500058299207, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(346.8936604980627, 9);
    expect(point.median_tpot_ms).toBeCloseTo(8.174279459604, 9);
    const parsed = readUploads(
      [{ name: GLM, bytes: fs.readFileSync(path.join(FIXTURES_DIR, GLM)) }],
      genaiBenchParsers,
    );
    const report = [...(parsed.fragments[0]!.notImported ?? []), ...(parsed.fragments[0]!.fileNotImported ?? [])];
    const arrivals = report.find((entry) => entry.field === "aggregated_metrics.arrival_requests_per_second");
    expect(arrivals?.value).toBe(0.9440354133782274);
    expect(arrivals?.reason).toMatch(/never the load level/);
  });

  it("takes latencies in ms when _time_unit says ms", () => {
    const file = edited((data, aggregated) => {
      data._time_unit = "ms";
      const ttft = (aggregated.stats as Record<string, Record<string, number>>).ttft!;
      ttft.mean = 209.5;
    });
    const point = genaiBenchRunParser.parse(file)[0]!.points[0]!;
    expect(point.mean_ttft_ms).toBe(209.5);
    expect(() => genaiBenchRunParser.parse(edited((data) => (data._time_unit = "us")))).toThrow(FormatError);
  });

  it("the six files of one experiment become one run with a point per concurrency", () => {
    const files = fixtureFiles(BASETEN).map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, name)),
    }));
    const parsed = readUploads(files, genaiBenchParsers);
    expect(parsed.fragments).toHaveLength(6);
    expect(parsed.skipped).toHaveLength(1);
    expect(parsed.skipped[0]!.file).toBe(`${BASETEN}/experiment_metadata.json`);
    expect(parsed.skipped[0]!.reason).toMatch(/experiment_metadata\.json/);
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const results = plan.runs[0]!.document.results as ResultPoint[];
    expect(results.map((point) => point.concurrency)).toEqual([2, 4, 8, 16, 32, 64]);
    expect(results.map((point) => point.output_throughput)).toEqual([
      207.741974349415, 359.01579925053085, 567.6749306648466, 845.0956896305154, 1037.8400817984277, 887.3150977543385,
    ]);
    expect(results.map((point) => point.completed)).toEqual([65, 64, 66, 64, 64, 64]);
  });

  it("reports what it does not import with genai-bench's reasons", () => {
    const parsed = readUploads(
      [{ name: LEVEL_4, bytes: fs.readFileSync(path.join(FIXTURES_DIR, LEVEL_4)) }],
      genaiBenchParsers,
    );
    const report = [...(parsed.fragments[0]!.notImported ?? []), ...(parsed.fragments[0]!.fileNotImported ?? [])];
    const reasonOf = (field: string) => report.find((entry) => entry.field === field)?.reason;
    expect(reasonOf("individual_request_metrics[*].ttft")).toMatch(/per-request record/);
    expect(reasonOf("aggregated_metrics.stats.output_inference_speed.mean")).toMatch(/1 \/ TPOT/);
    expect(reasonOf("aggregated_metrics.mean_input_throughput_tokens_per_s")).toMatch(/input tokens per second/);
    expect(report.find((entry) => entry.field === "aggregated_metrics.stats.ttft.max")?.value).toBe(0.310301442630589);
    // What the point keeps is not in the report.
    expect(report.some((entry) => entry.field === "aggregated_metrics.stats.ttft.mean")).toBe(false);
    expect(report.some((entry) => entry.field === "aggregated_metrics.num_concurrency")).toBe(false);
  });

  it("refuses a num_concurrency that is no concurrency (a fork's --qps-level rate)", () => {
    const error = formatError(() =>
      genaiBenchRunParser.parse(edited((_data, aggregated) => (aggregated.num_concurrency = 0.5))),
    );
    expect(error.path).toBe("aggregated_metrics.num_concurrency");
    expect(error.message).toMatch(/qps-level/);
    const missing = formatError(() =>
      genaiBenchRunParser.parse(edited((_data, aggregated) => delete aggregated.num_concurrency)),
    );
    expect(missing.path).toBe("aggregated_metrics.num_concurrency");
  });

  it("refuses a batch-size sweep (embeddings), a broken figure and a file without a scenario", () => {
    const batch = formatError(() =>
      genaiBenchRunParser.parse(edited((_data, aggregated) => (aggregated.iteration_type = "batch_size"))),
    );
    expect(batch.path).toBe("aggregated_metrics.iteration_type");
    const broken = formatError(() =>
      genaiBenchRunParser.parse(
        edited(
          (_data, aggregated) => ((aggregated.stats as Record<string, Record<string, unknown>>).tpot!.p50 = "fast"),
        ),
      ),
    );
    expect(broken.path).toBe("aggregated_metrics.stats.tpot.p50");
    const scenario = formatError(() =>
      genaiBenchRunParser.parse(edited((_data, aggregated) => (aggregated.scenario = null))),
    );
    expect(scenario.path).toBe("aggregated_metrics.scenario");
  });

  it("a level whose requests all failed is no data, not 0 tok/s", () => {
    const file = edited((_data, aggregated) => {
      aggregated.num_completed_requests = 0;
      aggregated.num_error_requests = 64;
    });
    const [fragment] = genaiBenchRunParser.parse(file);
    const point = fragment!.points[0]!;
    expect(point.completed).toBe(0);
    expect(point.failed).toBe(64);
    expect(point.output_throughput).toBeUndefined();
    expect(point.mean_ttft_ms).toBeUndefined();
  });

  it("detects its own files only", () => {
    expect(genaiBenchRunParser.detect(loadFixture(LEVEL_4))).toBe(true);
    expect(genaiBenchMetadataParser.detect(loadFixture(LEVEL_4))).toBe(false);
    const metadata = loadFixture(`${BASETEN}/experiment_metadata.json`);
    expect(genaiBenchMetadataParser.detect(metadata)).toBe(true);
    expect(genaiBenchRunParser.detect(metadata)).toBe(false);
    expect(genaiBenchRunParser.detect(inline({ aggregated_metrics: { stats: {} } }))).toBe(false);
    for (const folder of [
      "vllm",
      "sglang",
      "guidellm",
      "aiperf",
      "llmperf",
      "inference-perf",
      "llm-d-benchmark-report",
    ]) {
      for (const name of fixtureFiles(folder)) {
        if (name.endsWith("SOURCE.txt") || name.endsWith(".md")) continue;
        let file: SourceFile;
        try {
          file = loadFixture(name);
        } catch {
          continue;
        }
        expect(genaiBenchRunParser.detect(file), name).toBe(false);
        expect(genaiBenchMetadataParser.detect(file), name).toBe(false);
      }
    }
  });
});
