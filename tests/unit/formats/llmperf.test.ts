import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { decodeText } from "@/lib/formats/decode";
import { guidellmParser } from "@/lib/formats/guidellm";
import {
  individualResponsesFragment,
  llmperfIndividualParser,
  llmperfSummaryParser,
  summarizeIndividualResponses,
} from "@/lib/formats/llmperf";
import { FormatError, type Fragment, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

const SUMMARIES = ["llmperf/summary/groq_70b.json", "llmperf/summary/together_7b.json"];
const INDIVIDUAL = ["llmperf/individual/groq_70b.json", "llmperf/individual/together_7b.json"];
const STRINGS = "llmperf/hand-made-summary-strings-and-nan.json";
/** Summaries gathered into one object keyed by concurrency (philschmid/llmperf-bench's *_results.json). */
const KEYED = [
  "llmperf/keyed/meta-llama_Meta-Llama-3-8B-Instruct_tp_1_results.json",
  "llmperf/keyed/mistralai_Mistral-7B-Instruct-v0.2_tp_1_results.json",
];
const ALL_FAILED = "llmperf/hand-made-summary-all-failed.json";
const TWO_LINES = "llmperf/hand-made-summaries-two-lines.jsonl";
const BROKEN = "llmperf/hand-made-broken-ttft-object.json";
const WITH_ERRORS = "llmperf/individual/hand-made-with-errors.json";

function onlyPoint(fragment: Fragment): ResultPoint {
  expect(fragment.points).toHaveLength(1);
  return fragment.points[0]!;
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

/** servebench field ← LLMPerf summary key (seconds → ms). */
const SUMMARY_LATENCIES: ReadonlyArray<[keyof ResultPoint, string]> = [
  ["mean_ttft_ms", "results_ttft_s_mean"],
  ["median_ttft_ms", "results_ttft_s_quantiles_p50"],
  ["std_ttft_ms", "results_ttft_s_stddev"],
  ["p90_ttft_ms", "results_ttft_s_quantiles_p90"],
  ["p95_ttft_ms", "results_ttft_s_quantiles_p95"],
  ["p99_ttft_ms", "results_ttft_s_quantiles_p99"],
  ["mean_e2el_ms", "results_end_to_end_latency_s_mean"],
  ["median_e2el_ms", "results_end_to_end_latency_s_quantiles_p50"],
  ["std_e2el_ms", "results_end_to_end_latency_s_stddev"],
  ["p90_e2el_ms", "results_end_to_end_latency_s_quantiles_p90"],
  ["p95_e2el_ms", "results_end_to_end_latency_s_quantiles_p95"],
  ["p99_e2el_ms", "results_end_to_end_latency_s_quantiles_p99"],
  ["mean_e2el_per_token_ms", "results_inter_token_latency_s_mean"],
  ["median_e2el_per_token_ms", "results_inter_token_latency_s_quantiles_p50"],
  ["std_e2el_per_token_ms", "results_inter_token_latency_s_stddev"],
  ["p90_e2el_per_token_ms", "results_inter_token_latency_s_quantiles_p90"],
  ["p95_e2el_per_token_ms", "results_inter_token_latency_s_quantiles_p95"],
  ["p99_e2el_per_token_ms", "results_inter_token_latency_s_quantiles_p99"],
];

/** servebench metric ← LLMPerf metric of the quantiles p25 and p75, which have no field of their own. */
const QUANTILE_METRICS: ReadonlyArray<[string, string]> = [
  ["ttft", "results_ttft_s"],
  ["e2el", "results_end_to_end_latency_s"],
  // LLMPerf's inter-token latency includes the first token: end-to-end latency per token, never TPOT.
  ["e2el_per_token", "results_inter_token_latency_s"],
];

function expectQuantiles(point: ResultPoint, raw: Record<string, unknown>, digits = 9, withSources = true): void {
  expect(Object.keys(point.percentiles ?? {}).sort()).toEqual(["e2el", "e2el_per_token", "ttft"]);
  for (const [metric, prefix] of QUANTILE_METRICS) {
    for (const p of ["p25", "p75"]) {
      const key = `${prefix}_quantiles_${p}`;
      const stated = Number(raw[key]);
      expect(Number.isFinite(stated), key).toBe(true);
      const kept = (point.percentiles as Record<string, Record<string, number>>)[metric];
      expect(kept?.[p], key).toBeCloseTo(stated * 1000, digits);
      if (withSources) expect(point.sources?.[`percentiles.${metric}.${p}`]).toBe(key);
    }
  }
}

const TPOT_AND_ITL = ["mean", "median", "std", "p90", "p95", "p99"].flatMap((stat) => [
  `${stat}_tpot_ms`,
  `${stat}_itl_ms`,
]);

describe("LLMPerf detection", () => {
  test.each([...SUMMARIES, STRINGS, ALL_FAILED, TWO_LINES, BROKEN])("%s is an LLMPerf summary", (file) => {
    const source = loadFixture(file);
    expect(llmperfSummaryParser.detect(source)).toBe(true);
    expect(llmperfIndividualParser.detect(source)).toBe(false);
    expect(guidellmParser.detect(source)).toBe(false);
  });

  test.each([...INDIVIDUAL, WITH_ERRORS])("%s is LLMPerf individual responses", (file) => {
    const source = loadFixture(file);
    expect(llmperfIndividualParser.detect(source)).toBe(true);
    expect(llmperfSummaryParser.detect(source)).toBe(false);
    expect(guidellmParser.detect(source)).toBe(false);
  });

  it("both parsers have the id llmperf", () => {
    expect(llmperfSummaryParser.id).toBe("llmperf");
    expect(llmperfIndividualParser.id).toBe("llmperf");
  });

  it("covers every LLMPerf fixture", () => {
    const files = fixtureFiles("llmperf").filter((file) => /\.jsonl?$/.test(file));
    expect(files.sort()).toEqual(
      [...SUMMARIES, ...INDIVIDUAL, ...KEYED, STRINGS, ALL_FAILED, TWO_LINES, BROKEN, WITH_ERRORS].sort(),
    );
  });

  it("does not claim other tools' shapes, and never throws", () => {
    const others = [
      '{"date": "20250513-045648", "backend": "vllm", "model_id": "m", "max_concurrency": 4, "output_throughput": 100.5, "mean_ttft_ms": 20}',
      '{"backend": "sglang", "max_concurrency": 1, "output_throughput": 50}\n{"backend": "sglang", "max_concurrency": 8, "output_throughput": 300}',
      '[{"build_commit": "abc", "n_prompt": 512, "n_gen": 0, "avg_ts": 1000.5, "stddev_ts": 3.2}]',
      '{"format": "servebench/v1", "engine": "vllm", "model": "m", "results": [{"concurrency": 1, "output_throughput": 10}]}',
      '{"benchmarks": [{"type_": "generative_benchmark", "metrics": {}}]}',
      // a per-request list of another tool (vLLM's ttfts are arrays inside one object)
      '{"ttfts": [0.1, 0.2], "itls": [[0.01], [0.02]], "output_lens": [10, 20]}',
      '[{"ttft": 0.1, "latency": 1.2}]',
      // a summary missing its concurrency, a record list with one foreign element
      '{"results_ttft_s_mean": 0.2, "model": "m"}',
      '[{"ttft_s": 0.1, "end_to_end_latency_s": 1, "inter_token_latency_s": 0.01, "error_code": null}, {"other": 1}]',
      "[]",
      "{}",
      "null",
      "42",
    ];
    for (const text of others) {
      const file = decodeText("other.json", text);
      for (const parser of [llmperfSummaryParser, llmperfIndividualParser]) {
        expect(() => parser.detect(file)).not.toThrow();
        expect(parser.detect(file), `${parser.label}: ${text}`).toBe(false);
      }
    }
  });

  it("does not claim any other tool's fixture under tests/fixtures", () => {
    const folders = fs
      .readdirSync(FIXTURES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "llmperf")
      .map((entry) => entry.name);
    for (const folder of folders) {
      for (const file of fixtureFiles(folder)) {
        if (path.basename(file) === "SOURCE.txt" || /\.md$/.test(file)) continue;
        let source: SourceFile;
        try {
          source = loadFixture(file);
        } catch {
          continue;
        }
        expect(llmperfSummaryParser.detect(source), file).toBe(false);
        expect(llmperfIndividualParser.detect(source), file).toBe(false);
      }
    }
  });
});

describe("LLMPerf *_summary.json (leaderboard raw data)", () => {
  it("groq_70b.json: the quantiles without a field, checked by hand (seconds in the file, ms in the point)", () => {
    const point = onlyPoint(llmperfSummaryParser.parse(loadFixture("llmperf/summary/groq_70b.json"))[0]!);
    // results_ttft_s_quantiles_p25 = 0.1860195565968752, results_inter_token_latency_s_quantiles_p75 = 0.005656079137697816
    expect(point.percentiles?.ttft?.p25).toBeCloseTo(186.0195565968752, 9);
    expect(point.percentiles?.e2el_per_token?.p75).toBeCloseTo(5.656079137697816, 9);
    expect(point.percentiles?.e2el?.p75).toBeCloseTo(855.6924778968096, 9);
  });

  test.each(SUMMARIES)("%s: one point at num_concurrent_requests with the file's numbers", (file) => {
    const raw = readFixtureJson(file) as Record<string, number | string>;
    const fragments = llmperfSummaryParser.parse(loadFixture(file));
    expect(fragments).toHaveLength(1);
    const fragment = fragments[0]!;
    expect(fragment.format).toBe("llmperf");
    expect(fragment.file).toBe(file);
    expect(fragment.part).toBe("");
    expect(fragment.warnings).toEqual([]);
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(5);
    expect(point.request_rate).toBeUndefined();
    expect(point.completed).toBe(150);
    expect(point.failed).toBe(0);
    expect(point.output_throughput).toBe(raw.results_mean_output_throughput_token_per_s);
    expect(point.request_throughput).toBeCloseTo((raw.results_num_completed_requests_per_min as number) / 60, 9);
    for (const [field, key] of SUMMARY_LATENCIES) {
      expect(typeof raw[key], key).toBe("number");
      expect(point[field], field).toBeCloseTo((raw[key] as number) * 1000, 9);
      expect(point.sources?.[field], field).toBe(key);
    }
    // LLMPerf's inter-token latency includes the first token: never TPOT or ITL.
    for (const key of TPOT_AND_ITL) expect(point[key as keyof ResultPoint], key).toBeUndefined();
    expect(point.percentiles?.tpot).toBeUndefined();
    // p25 and p75 have no field: they are in percentiles, in ms.
    expectQuantiles(point, raw);
    // The per-request speed is not the run's throughput.
    expect(point.output_throughput).not.toBe(raw.results_request_output_throughput_token_per_s_mean);
    expect(point.sources).toMatchObject({
      concurrency: "num_concurrent_requests",
      completed: "results_num_completed_requests",
      failed: "results_number_errors",
      output_throughput: "results_mean_output_throughput_token_per_s",
      request_throughput: "results_num_completed_requests_per_min / 60",
    });
    expect(fragment.context.workload).toEqual({ input_len: 550, output_len: 150 });
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.metadata).toEqual({
      name: raw.name,
      llmperf_results_version: "2023-08-31",
      framework: raw.framework,
      stddev_input_tokens: 0,
      stddev_output_tokens: 0,
    });
    expect(fragment.context.measured_at).toBe(new Date((raw.timestamp as number) * 1000).toISOString());
  });

  it("groq_70b: the literal figures", () => {
    const [fragment] = llmperfSummaryParser.parse(loadFixture(SUMMARIES[0]!));
    const point = onlyPoint(fragment!);
    expect(fragment!.context.model).toBe("llama2-70b-4096");
    expect(fragment!.context.measured_at).toBe("2024-01-10T01:55:04.000Z");
    expect(point.output_throughput).toBe(441.84737788500206);
    // biome-ignore lint/correctness/noPrecisionLoss: the figure as the file writes it
    expect(point.mean_ttft_ms).toBeCloseTo(227.86034579078357, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(350.0269545800982, 9);
    expect(point.median_e2el_ms).toBeCloseTo(805.1837999373674, 9);
    expect(point.mean_e2el_per_token_ms).toBeCloseTo(5.384122478382455, 9);
    expect(point.request_throughput).toBeCloseTo(176.73895115400083 / 60, 9);
  });

  it("together_7b: the literal figures", () => {
    const [fragment] = llmperfSummaryParser.parse(loadFixture(SUMMARIES[1]!));
    const point = onlyPoint(fragment!);
    expect(fragment!.context.model).toBe("together_ai/togethercomputer/llama-2-7b-chat");
    expect(point.output_throughput).toBe(255.82978116075432);
    expect(point.concurrency).toBe(5);
  });
});

describe("LLMPerf hand-made summaries", () => {
  it("numbers written as strings, a NaN quantile, a sampling temperature", () => {
    const fragments = llmperfSummaryParser.parse(loadFixture(STRINGS));
    expect(fragments).toHaveLength(1);
    const point = onlyPoint(fragments[0]!);
    expect(point.concurrency).toBe(8); // "8"
    expect(point.output_throughput).toBe(1234.56); // "1,234.56"
    expect(point.completed).toBe(100); // "100"
    expect(point.p99_ttft_ms).toBeCloseTo(450, 9); // "0.45" s
    expect(point.p95_e2el_ms).toBeUndefined(); // NaN
    expect(point.p90_e2el_ms).toBeCloseTo(3600, 9);
    expect(fragments[0]!.warnings).toEqual([
      "summary: results_end_to_end_latency_s_quantiles_p95 is NaN; stored as no data.",
    ]);
    expect(fragments[0]!.context.workload).toEqual({ input_len: 550, output_len: 150, temperature: 0 });
    expect(fragments[0]!.context.metadata).toMatchObject({ stddev_input_tokens: 150, stddev_output_tokens: 10 });
  });

  it("every request failed: counts kept, NaN and zero figures are no data, with warnings", () => {
    const fragments = llmperfSummaryParser.parse(loadFixture(ALL_FAILED));
    const point = onlyPoint(fragments[0]!);
    expect(point).toEqual({
      concurrency: 16,
      completed: 0,
      failed: 20,
      sources: {
        concurrency: "num_concurrent_requests",
        completed: "results_num_completed_requests",
        failed: "results_number_errors",
      },
    });
    const warnings = fragments[0]!.warnings;
    expect(warnings.at(-1)).toBe("summary: no request completed (20 failed); its figures are stored as no data.");
    expect(warnings).toContain("summary: results_ttft_s_mean is NaN; stored as no data.");
    // Three latency metrics × mean, stddev and the quantiles p25, p50, p75, p90, p95, p99: all NaN.
    expect(warnings.filter((warning) => warning.includes("is NaN"))).toHaveLength(24);
  });

  it("a JSON-lines file of two summaries: one fragment per line", () => {
    const file = loadFixture(TWO_LINES);
    expect(file.kind).toBe("jsonl");
    const fragments = llmperfSummaryParser.parse(file);
    expect(fragments.map((fragment) => fragment.part)).toEqual(["line 1", "line 2"]);
    const points = fragments.map(onlyPoint);
    expect(points.map((point) => point.concurrency)).toEqual([1, 32]);
    expect(points.map((point) => point.output_throughput)).toEqual([240, 7680]);
    expect(points[0]!.mean_ttft_ms).toBeCloseTo(0.3 * 0.5 * 1.02 * 1000, 9);
    expect(points[1]!.median_e2el_per_token_ms).toBeCloseTo(0.02 * 2 * 1000, 9);
  });

  it("a one-line summary decoded as a single object parses the same", () => {
    const line = fs.readFileSync(path.join(FIXTURES_DIR, TWO_LINES), "utf8").split("\n")[0]!;
    const file = decodeText("one.jsonl", line);
    expect(file.kind).toBe("json");
    expect(llmperfSummaryParser.detect(file)).toBe(true);
    expect(onlyPoint(llmperfSummaryParser.parse(file)[0]!).concurrency).toBe(1);
  });

  it("a broken summary names the field", () => {
    const error = formatError(() => llmperfSummaryParser.parse(loadFixture(BROKEN)));
    expect(error.path).toBe("results_ttft_s_mean");
    expect(error.message).toMatch(/should be a number, but it is an object/);
    const noLevel = decodeText("x.json", '{"num_concurrent_requests": 0, "results_ttft_s_mean": 0.2}');
    expect(llmperfSummaryParser.detect(noLevel)).toBe(true);
    expect(formatError(() => llmperfSummaryParser.parse(noLevel)).path).toBe("num_concurrent_requests");
  });
});

describe("LLMPerf *_individual_responses.json", () => {
  test.each(INDIVIDUAL)("%s: recognized, holds no load point of its own (skipped; the summary has it)", (file) => {
    expect(llmperfIndividualParser.parse(loadFixture(file))).toEqual([]);
    expect(llmperfIndividualParser.label).toContain("upload the matching *_summary.json");
  });

  test.each(INDIVIDUAL.map((file, index) => [file, SUMMARIES[index]!]))(
    "%s: its statistics equal the matching summary's (%s)",
    (individualFile, summaryFile) => {
      const summary = readFixtureJson(summaryFile) as Record<string, number>;
      const records = readFixtureJson(individualFile) as Array<Record<string, number>>;
      const result = summarizeIndividualResponses(loadFixture(individualFile));
      expect(result.requests).toBe(150);
      expect(result.completed).toBe(summary.results_num_completed_requests);
      expect(result.failed).toBe(summary.results_number_errors);
      expect(result.warnings).toEqual([]);
      const point = result.point;
      expect(point.concurrency).toBeUndefined();
      expect(point.output_throughput).toBeUndefined();
      for (const [field, key] of SUMMARY_LATENCIES) {
        expect(point[field], field).toBeCloseTo(summary[key]! * 1000, 6);
      }
      expect(point.sources?.mean_ttft_ms).toBe("ttft_s (mean over successful requests)");
      expect(point.sources?.p99_e2el_per_token_ms).toBe("inter_token_latency_s (p99 over successful requests)");
      // p25 and p75 as the summary computes them.
      expectQuantiles(point, summary, 6, false);
      expect(point.sources?.["percentiles.ttft.p25"]).toBe("ttft_s (p25 over successful requests)");
      expect(point.total_output_tokens).toBe(
        records.reduce((total, record) => total + record.number_output_tokens!, 0),
      );
      expect(point.total_input_tokens).toBe(150 * 550);
      for (const key of TPOT_AND_ITL) expect(point[key as keyof ResultPoint], key).toBeUndefined();
    },
  );

  it("together_7b: literal per-request totals", () => {
    const result = summarizeIndividualResponses(loadFixture(INDIVIDUAL[1]!));
    expect(result.point.total_output_tokens).toBe(25860);
    expect(result.point.mean_ttft_ms).toBeCloseTo(582.5819253933302, 9);
  });

  it("errored requests are counted as failed and left out of the statistics; NaN values too", () => {
    const result = summarizeIndividualResponses(loadFixture(WITH_ERRORS));
    expect(result.requests).toBe(15);
    expect(result.completed).toBe(12);
    expect(result.failed).toBe(3);
    expect(result.point.completed).toBe(12);
    expect(result.point.failed).toBe(3);
    // 11 TTFTs (one is NaN): 0.10 … 0.14, 0.16 … 0.21
    const ttfts = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11].map((i) => 0.1 + 0.01 * i);
    const mean = ttfts.reduce((total, value) => total + value, 0) / ttfts.length;
    expect(result.point.mean_ttft_ms).toBeCloseTo(mean * 1000, 9);
    expect(result.point.median_ttft_ms).toBeCloseTo(160, 9);
    expect(result.point.p90_ttft_ms).toBeCloseTo(200, 9);
    // e2e: 12 values 1.5 … 2.6; pandas' linear quantile at 0.99 → 2.589
    expect(result.point.p99_e2el_ms).toBeCloseTo(2589, 6);
    expect(result.point.median_e2el_ms).toBeCloseTo(2050, 6);
    expect(result.point.total_output_tokens).toBe(12 * 150 + 66);
    expect(result.warnings).toEqual([
      "individual responses: 1 successful request(s) have ttft_s NaN; left out of its statistics.",
    ]);
    expect(llmperfIndividualParser.parse(loadFixture(WITH_ERRORS))).toEqual([]);
  });

  it("individualResponsesFragment files the statistics under a concurrency supplied from elsewhere", () => {
    const fragment = individualResponsesFragment(loadFixture(INDIVIDUAL[0]!), {
      concurrency: 5,
      source: "supplied by the uploader",
    });
    expect(fragment.format).toBe("llmperf");
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(5);
    expect(point.sources?.concurrency).toBe("supplied by the uploader");
    // biome-ignore lint/correctness/noPrecisionLoss: the figure as the file writes it
    expect(point.mean_ttft_ms).toBeCloseTo(227.86034579078357, 6);
    expect(() => individualResponsesFragment(loadFixture(INDIVIDUAL[0]!), { concurrency: 0, source: "x" })).toThrow(
      FormatError,
    );
  });

  it("a broken record names its index and field", () => {
    const file = decodeText(
      "broken.json",
      '[{"ttft_s": 0.1, "end_to_end_latency_s": 1, "inter_token_latency_s": 0.01, "error_code": null}, {"ttft_s": [0.1], "end_to_end_latency_s": 1, "inter_token_latency_s": 0.01, "error_code": null}]',
    );
    expect(llmperfIndividualParser.detect(file)).toBe(true);
    const error = formatError(() => llmperfIndividualParser.parse(file));
    expect(error.path).toBe("[1].ttft_s");
    expect(error.message).toMatch(/should be a number, but it is a list/);
  });
});
