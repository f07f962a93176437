import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import {
  evalscopeArgumentsParser,
  evalscopeParsers,
  evalscopePercentileParser,
  evalscopeSummaryParser,
} from "@/lib/formats/evalscope";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture } from "./fixtures";

/** Hand-made from the printed output in evalscope's docs (SOURCE.txt): the first key generation, latencies in s. */
const V1 = "evalscope/hand-made-vs-vllm-bench-docs/parallel_50_number_1000";
/** The second key generation ("TTFT (ms)" …). */
const V2 = "evalscope/hand-made-quick-start-docs/parallel_200_number_400";
const SUMMARY = "hand-made-benchmark_summary.json";
const PERCENTILE = "hand-made-benchmark_percentile.json";

function upload(...names: string[]) {
  return readUploads(
    names.map((name) => ({ name, bytes: fs.readFileSync(path.join(FIXTURES_DIR, name)) })),
    evalscopeParsers,
  );
}

function inline(name: string, data: unknown): SourceFile {
  return { name, kind: "json", data, bytes: 0 };
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

function summaryOf(folder: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, folder, SUMMARY), "utf8")) as Record<string, unknown>;
}

describe("evalscope perf benchmark_summary.json", () => {
  it("reads the first generation's keys, seconds to ms, the level from Number of concurrency", () => {
    const [fragment] = evalscopeSummaryParser.parse(loadFixture(`${V1}/${SUMMARY}`));
    const point = fragment!.points[0]!;
    expect(point.concurrency).toBe(50);
    // "Request rate (req/s)": -1 means no pacing: no request rate.
    expect(point.request_rate).toBeUndefined();
    expect(point.completed).toBe(1000);
    expect(point.failed).toBe(0);
    expect(point.duration_s).toBe(9.4961);
    expect(point.output_throughput).toBe(10530.7);
    expect(point.total_token_throughput).toBe(21061.2);
    expect(point.request_throughput).toBe(105.307);
    expect(point.mean_e2el_ms).toBeCloseTo(466.3, 9);
    expect(point.mean_ttft_ms).toBeCloseTo(113.1, 9);
    expect(point.mean_tpot_ms).toBeCloseTo(3.6, 9);
    expect(point.mean_itl_ms).toBeCloseTo(3.7, 9);
    expect(point.sources).toMatchObject({
      concurrency: "Number of concurrency",
      output_throughput: "Output token throughput (tok/s)",
      mean_ttft_ms: "Average time to first token (s)",
      mean_tpot_ms: "Average time per output token (s)",
    });
    expect(fragment!.pairKey).toBe(V1);
  });

  it("reads the second generation's keys, in ms", () => {
    const point = evalscopeSummaryParser.parse(loadFixture(`${V2}/${SUMMARY}`))[0]!.points[0]!;
    expect(point.concurrency).toBe(200);
    expect(point.completed).toBe(400);
    expect(point.duration_s).toBe(38.31);
    expect(point.output_throughput).toBe(10692.45);
    expect(point.total_token_throughput).toBe(21384.91);
    expect(point.request_throughput).toBe(10.44);
    expect(point.mean_e2el_ms).toBeCloseTo(18780, 9);
    expect(point.mean_ttft_ms).toBe(717.63);
    expect(point.mean_tpot_ms).toBe(17.66);
    expect(point.mean_itl_ms).toBe(17.64);
    expect(point.sources?.mean_ttft_ms).toBe("TTFT (ms)");
  });

  it("reads the third generation's Avg-prefixed keys and a configured request rate", () => {
    const summary = summaryOf(V2);
    for (const key of ["TTFT", "TPOT", "ITL"]) {
      summary[`Avg ${key} (ms)`] = summary[`${key} (ms)`];
      delete summary[`${key} (ms)`];
    }
    summary["Request Rate (req/s)"] = 16;
    const point = evalscopeSummaryParser.parse(inline(`x/${V2}/benchmark_summary.json`, summary))[0]!.points[0]!;
    expect(point.mean_ttft_ms).toBe(717.63);
    expect(point.sources?.mean_ttft_ms).toBe("Avg TTFT (ms)");
    expect(point.concurrency).toBe(200);
    expect(point.request_rate).toBe(16);
  });

  it("takes the level from the folder name when the summary does not state it", () => {
    const summary = summaryOf(V2);
    delete summary.Concurrency;
    const point = evalscopeSummaryParser.parse(inline("run/parallel_8_number_80/benchmark_summary.json", summary))[0]!
      .points[0]!;
    expect(point.concurrency).toBe(8);
    expect(point.sources?.concurrency).toBe("parallel_8_number_80 (from the folder name)");
    const nowhere = formatError(() => evalscopeSummaryParser.parse(inline("benchmark_summary.json", summary)));
    expect(nowhere.path).toBe("Concurrency");
  });

  it("refuses a concurrency that is no whole number and a figure that is no number", () => {
    const summary = summaryOf(V2);
    summary.Concurrency = 0;
    expect(formatError(() => evalscopeSummaryParser.parse(inline("s.json", summary))).path).toBe("Concurrency");
    const broken = summaryOf(V1);
    broken["Average time to first token (s)"] = "fast";
    expect(formatError(() => evalscopeSummaryParser.parse(inline("s.json", broken))).path).toBe(
      "Average time to first token (s)",
    );
  });

  it("does not import the TTFT, TPOT and ITL of a non-streaming run", () => {
    const summary = summaryOf(V2);
    summary["TTFT (ms)"] = 1881.61;
    summary["TPOT (ms)"] = 0.0;
    summary["ITL (ms)"] = 0.0;
    const [fragment] = evalscopeSummaryParser.parse(inline("s.json", summary));
    const point = fragment!.points[0]!;
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point.output_throughput).toBe(10692.45);
    expect(fragment!.notImported?.find((entry) => entry.field === "TTFT (ms)")?.value).toBe(1881.61);
    expect(fragment!.warnings.join(" ")).toMatch(/non-streaming/);
  });
});

describe("evalscope perf benchmark_percentile.json", () => {
  it("is merged into the summary of its folder: p50 the median, p90/p95/p99 their fields, the rest percentiles", () => {
    const parsed = upload(`${V1}/${SUMMARY}`, `${V1}/${PERCENTILE}`);
    expect(parsed.fragments).toHaveLength(1);
    expect(parsed.skipped).toEqual([]);
    const point = parsed.fragments[0]!.points[0]!;
    expect(point.mean_ttft_ms).toBeCloseTo(113.1, 9);
    expect(point.median_ttft_ms).toBeCloseTo(94.9, 9);
    expect(point.p90_ttft_ms).toBeCloseTo(163, 9);
    expect(point.p95_ttft_ms).toBeCloseTo(406.3, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(430.2, 9);
    expect(point.median_tpot_ms).toBeCloseTo(3.2, 9);
    expect(point.p99_itl_ms).toBeCloseTo(14.1, 9);
    expect(point.median_e2el_ms).toBeCloseTo(422.5, 9);
    expect(Object.keys(point.percentiles?.ttft ?? {})).toEqual(["p10", "p25", "p66", "p75", "p80", "p98"]);
    expect(point.percentiles?.ttft?.p66).toBeCloseTo(105.4, 9);
    expect(point.percentiles?.e2el?.p98).toBeCloseTo(813.4, 9);
    expect(point.sources).toMatchObject({
      median_ttft_ms: "[2].TTFT (s)",
      p99_ttft_ms: "[9].TTFT (s)",
      "percentiles.ttft.p66": "[3].TTFT (s)",
    });
    const report = [...(parsed.fragments[0]!.notImported ?? []), ...(parsed.fragments[0]!.fileNotImported ?? [])];
    const outputSpeed = report.find((entry) => entry.field === "[*].Output (tok/s)");
    expect(outputSpeed?.reason).toMatch(/one request's own speed/);
  });

  it("reads the second generation's ms columns", () => {
    const point = upload(`${V2}/${SUMMARY}`, `${V2}/${PERCENTILE}`).fragments[0]!.points[0]!;
    expect(point.median_ttft_ms).toBe(333.79);
    expect(point.p99_ttft_ms).toBe(2319.52);
    expect(point.median_tpot_ms).toBe(17.76);
    expect(point.p90_itl_ms).toBe(26.97);
    expect(point.median_e2el_ms).toBe(18710);
    expect(point.percentiles?.ttft).toEqual({ p1: 176.3, p5: 212.6, p10: 246.76, p25: 279.87, p75: 1082.24 });
  });

  it("two levels' folders make one run with a point per concurrency", () => {
    const files = [
      ...fixtureFiles("evalscope/hand-made-vs-vllm-bench-docs"),
      ...fixtureFiles("evalscope/hand-made-quick-start-docs"),
    ];
    const parsed = upload(...files);
    expect(parsed.fragments).toHaveLength(2);
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const results = plan.runs[0]!.document.results as ResultPoint[];
    expect(results.map((point) => [point.concurrency, point.output_throughput, point.median_ttft_ms])).toEqual([
      [50, 10530.7, expect.closeTo(94.9, 9)],
      [200, 10692.45, 333.79],
    ]);
  });

  it("alone, is skipped, saying which file it needs", () => {
    const parsed = upload(`${V2}/${PERCENTILE}`);
    expect(parsed.fragments).toEqual([]);
    expect(parsed.skipped).toHaveLength(1);
    expect(parsed.skipped[0]!.reason).toMatch(
      /no benchmark_summary\.json of the same level \(parallel_200_number_400\)/,
    );
  });

  it("reports a min and max row as extremes", () => {
    const rows = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, V2, PERCENTILE), "utf8")) as Record<
      string,
      unknown
    >[];
    const withExtremes = [{ ...rows[0], Percentiles: "min", "TTFT (ms)": 150.5 }, ...rows];
    const [fragment] = evalscopePercentileParser.parse(inline(`${V2}/benchmark_percentile.json`, withExtremes));
    const entry = fragment!.notImported?.find((item) => item.field === "[0].TTFT (ms)");
    expect(entry?.value).toBe(150.5);
    expect(entry?.reason).toMatch(/minimum or maximum/);
    expect(fragment!.supplement?.figures.percentiles?.ttft?.p1).toBe(176.3);
  });

  it("recognizes benchmark_args.json and skips it, so a whole level folder uploads", () => {
    // Keys of Arguments.to_dict() (evalscope/perf/arguments.py), values of the docs' 50-concurrency command.
    const args = {
      model: "Qwen2.5-0.5B-Instruct",
      api: "openai",
      tokenizer_path: "Qwen/Qwen2.5-0.5B-Instruct",
      url: "http://127.0.0.1:8801/v1/chat/completions",
      number: 1000,
      parallel: 50,
      rate: -1,
      dataset: "random",
      outputs_dir: "outputs",
      max_tokens: 1024,
    };
    const files = [`${V1}/${SUMMARY}`, `${V1}/${PERCENTILE}`].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, name)),
    }));
    files.push({ name: `${V1}/benchmark_args.json`, bytes: Buffer.from(JSON.stringify(args)) });
    const parsed = readUploads(files, evalscopeParsers);
    expect(parsed.fragments).toHaveLength(1);
    expect(parsed.fragments[0]!.points[0]!.median_ttft_ms).toBeCloseTo(94.9, 9);
    expect(parsed.skipped.map((entry) => entry.file)).toEqual([`${V1}/benchmark_args.json`]);
    expect(parsed.skipped[0]!.reason).toMatch(/command's arguments/);
    expect(evalscopeSummaryParser.detect(inline("a.json", args))).toBe(false);
  });

  it("detects its own files only", () => {
    expect(evalscopeSummaryParser.detect(loadFixture(`${V1}/${SUMMARY}`))).toBe(true);
    expect(evalscopePercentileParser.detect(loadFixture(`${V1}/${SUMMARY}`))).toBe(false);
    expect(evalscopePercentileParser.detect(loadFixture(`${V2}/${PERCENTILE}`))).toBe(true);
    expect(evalscopeSummaryParser.detect(loadFixture(`${V2}/${PERCENTILE}`))).toBe(false);
    for (const folder of ["vllm", "sglang", "guidellm", "aiperf", "llmperf", "inference-perf", "genai-bench"]) {
      for (const name of fixtureFiles(folder)) {
        if (name.endsWith("SOURCE.txt") || name.endsWith(".md")) continue;
        let file: SourceFile;
        try {
          file = loadFixture(name);
        } catch {
          continue;
        }
        expect(evalscopeSummaryParser.detect(file), name).toBe(false);
        expect(evalscopePercentileParser.detect(file), name).toBe(false);
        expect(evalscopeArgumentsParser.detect(file), name).toBe(false);
      }
    }
  });
});

describe("a real evalscope perf run (v1.8 keys, two levels, tests/fixtures/evalscope/real-deepseek-v4-pro-v1.8)", () => {
  const files = fixtureFiles("evalscope/real-deepseek-v4-pro-v1.8");
  const parsed = upload(...files);
  const plan = planRuns(parsed, { split: false });
  const results = (plan.runs[0]?.document.results ?? []) as ResultPoint[];
  const atSixteen = results.find((point) => point.concurrency === 16)!;

  it("makes one run with a point per level folder, at the file's Concurrency", () => {
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    expect(results.map((point) => point.concurrency)).toEqual([1, 16]);
    expect(atSixteen.sources?.concurrency).toBe("Concurrency");
  });

  it("keeps the summary's figures, latencies in ms", () => {
    expect(atSixteen).toMatchObject({
      duration_s: 179.9119,
      completed: 160,
      failed: 0,
      request_throughput: 0.8893,
      output_throughput: 627.9739,
      total_token_throughput: 7028.5493,
      mean_ttft_ms: 1171.73,
      mean_tpot_ms: 21.22,
      mean_itl_ms: 43.94,
    });
    expect(atSixteen.mean_e2el_ms).toBeCloseTo(15533.6, 9);
    expect(results[0]).toMatchObject({ duration_s: 314.0914, completed: 20, output_throughput: 43.8248 });
  });

  it("merges the percentile rows of the same folder: median, p90, p99, and the rest as percentiles", () => {
    expect(atSixteen).toMatchObject({
      median_ttft_ms: 1194.64,
      p90_ttft_ms: 1750.72,
      p99_ttft_ms: 3344.6,
      median_tpot_ms: 20.28,
      p99_tpot_ms: 30.33,
    });
    expect(atSixteen.p99_e2el_ms).toBeCloseTo(44800, 9);
    expect(atSixteen.percentiles?.ttft?.p25).toBe(745.82);
  });

  it("reports what it does not import (speculative decoding's figures among them) rather than dropping it", () => {
    const reported = plan.runs[0]!.document.not_imported ?? [];
    expect(reported.map((entry) => entry.field)).toEqual(
      expect.arrayContaining(["Decoded Tok/Iter", "Spec. Accept Rate"]),
    );
  });
});
