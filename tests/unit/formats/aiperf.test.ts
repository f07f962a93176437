import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import {
  aiperfAggregateParser,
  aiperfParsers,
  aiperfProfileParser,
  aiperfRecordsParser,
  summarizeAiperfRecords,
} from "@/lib/formats/aiperf";
import { aiperfCsvFigures, aiperfCsvParser } from "@/lib/formats/aiperf-csv";
import { decodeFile, decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { inferencePerfParsers } from "@/lib/formats/inference-perf";
import { FormatError, type FormatParser, type Fragment, NeedsLevelError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Raw = Record<string, unknown>;
type Stats = Record<string, number>;

const RUN1_JSON = "aiperf/run1/profile_export_aiperf.json";
const RUN1_CSV = "aiperf/run1/profile_export_aiperf.csv";
const RUN1_JSONL = "aiperf/run1/profile_export.jsonl";
const V080 = "aiperf/v0.8.0-baseline-chat-bare/profile_export_aiperf.json";
const V0110 = "aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json";
const GENAI = "aiperf/hand-made-genai-perf-profile_export_genai_perf.json";
const GENAI_CSV = "aiperf/hand-made-genai-perf-profile_export_genai_perf.csv";
const GENAI_LEGACY = "aiperf/hand-made-genai-perf-legacy-request-rate.json";
const RATE_UNITS_NAN = "aiperf/hand-made-aiperf-request-rate-units-nan.json";
const ALL_FAILED = "aiperf/hand-made-aiperf-all-requests-failed.json";
const BROKEN = "aiperf/hand-made-aiperf-broken-statistic.json";
const SWEEP = "aiperf/hand-made-aiperf-sweep-profile_export_aiperf_sweep.json";
const SWEEP_CSV_64 = "aiperf/v0.11.0-sweep-csv/concurrency_64/profile_export_aiperf.csv";

const STAT_KEYS = [
  ["mean", "avg"],
  ["median", "p50"],
  ["std", "std"],
  ["p90", "p90"],
  ["p95", "p95"],
  ["p99", "p99"],
] as const;

function raw(file: string): Raw {
  return readFixtureJson(file) as Raw;
}

function stats(file: string, key: string): Stats {
  const found = key.split(".").reduce<unknown>((value, part) => (value as Raw)[part], raw(file));
  return found as Stats;
}

function detecting(file: SourceFile, parsers: readonly FormatParser[] = aiperfParsers): FormatParser[] {
  return parsers.filter((parser) => parser.detect(file));
}

function parseOne(file: string): Fragment {
  const source = loadFixture(file);
  const fragments = aiperfProfileParser.parse(source);
  expect(fragments).toHaveLength(1);
  return fragments[0]!;
}

function onlyPoint(fragment: Fragment): ResultPoint {
  expect(fragment.points).toHaveLength(1);
  return fragment.points[0]!;
}

/** Every statistic of one metric, converted by `factor` to ms, with the source `<prefix>.<stat key>`. */
function expectLatency(
  point: ResultPoint,
  metric: string,
  source: Stats,
  prefix: string,
  factor = 1,
  skip: string[] = [],
): void {
  for (const [stat, key] of STAT_KEYS) {
    if (skip.includes(key)) continue;
    const field = `${stat}_${metric}_ms` as keyof ResultPoint;
    expect(point[field], field).toBeCloseTo(source[key]! * factor, 6);
    expect(point.sources?.[field], field).toBe(`${prefix}.${key}`);
  }
  // The other percentiles (p1, p5, p10, p25, p75) are in `percentiles`, converted alike.
  const extra = Object.keys(source).filter(
    (key) =>
      /^p\d+(\.\d+)?$/.test(key) && !["p50", "p90", "p95", "p99"].includes(key) && typeof source[key] === "number",
  );
  const kept = (point.percentiles as Record<string, Record<string, number>> | undefined)?.[metric] ?? {};
  expect(Object.keys(kept).sort(), `${metric} percentiles`).toEqual(extra.filter((key) => !skip.includes(key)).sort());
  for (const key of extra) {
    if (skip.includes(key)) continue;
    expect(kept[key], `${metric} ${key}`).toBeCloseTo(source[key]! * factor, 6);
    expect(point.sources?.[`percentiles.${metric}.${key}`]).toBe(`${prefix}.${key}`);
  }
}

function inline(data: unknown, name = "inline/profile_export_aiperf.json"): SourceFile {
  return decodeText(name, JSON.stringify(data));
}

function formatErrorOf(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error("expected a FormatError");
}

describe("AIPerf / GenAI-Perf: detection", () => {
  const files = fixtureFiles("aiperf").filter((file) => !file.endsWith(".txt"));

  test.each(files)("%s is recognized by exactly one AIPerf parser and by no inference-perf parser", (file) => {
    const source = loadFixture(file);
    expect(detecting(source)).toHaveLength(1);
    expect(detecting(source, inferencePerfParsers)).toEqual([]);
  });

  it("sends each kind of file to its parser", () => {
    expect(detecting(loadFixture(RUN1_JSON))).toEqual([aiperfProfileParser]);
    expect(detecting(loadFixture(V080))).toEqual([aiperfProfileParser]);
    expect(detecting(loadFixture(V0110))).toEqual([aiperfProfileParser]);
    expect(detecting(loadFixture(GENAI))).toEqual([aiperfProfileParser]);
    expect(detecting(loadFixture(GENAI_LEGACY))).toEqual([aiperfProfileParser]);
    expect(detecting(loadFixture(RUN1_CSV))).toEqual([aiperfCsvParser]);
    expect(detecting(loadFixture(GENAI_CSV))).toEqual([aiperfCsvParser]);
    expect(detecting(loadFixture(RUN1_JSONL))).toEqual([aiperfRecordsParser]);
    expect(detecting(loadFixture(SWEEP))).toEqual([aiperfAggregateParser]);
    for (const parser of aiperfParsers) expect(parser.id).toBe("aiperf");
  });

  it("accepts a one-line profile_export.jsonl, which decodes as a single object", () => {
    const firstLine = fs.readFileSync(path.join(FIXTURES_DIR, RUN1_JSONL), "utf8").split("\n")[0]!;
    const source = decodeText("one-line/profile_export.jsonl", firstLine);
    expect(source.kind).toBe("json");
    expect(detecting(source)).toEqual([aiperfRecordsParser]);
    const summary = summarizeAiperfRecords(source);
    expect(summary.records).toBe(1);
    expect(summary.failed).toBe(1);
    expect(summary.completed).toBe(0);
  });

  it("does not claim the other tools' shapes", () => {
    const others: unknown[] = [
      // vLLM bench serve --save-result
      {
        date: "20250513-045648",
        backend: "vllm",
        model_id: "m",
        request_rate: "inf",
        max_concurrency: 8,
        completed: 10,
        request_throughput: 1.5,
        output_throughput: 100,
        mean_ttft_ms: 20,
        mean_tpot_ms: 5,
      },
      // SGLang bench_serving line
      {
        backend: "sglang",
        dataset_name: "random",
        request_rate: "Infinity",
        max_concurrency: 4,
        completed: 10,
        output_throughput: 99.5,
        mean_ttft_ms: 12,
      },
      // GuideLLM benchmarks.json
      {
        benchmarks: [
          { type_: "generative_benchmark", metrics: { output_tokens_per_second: { successful: { mean: 1 } } } },
        ],
      },
      // LLMPerf summary
      { num_concurrent_requests: 4, results_ttft_s_mean: 0.1, results_mean_output_throughput_token_per_s: 50 },
      // inference-perf lifecycle report
      {
        load_summary: { count: 10, requested_rate: 1 },
        successes: { count: 10, latency: { request_latency: { mean: 1 } }, throughput: { requests_per_sec: 1 } },
        failures: { count: 0 },
      },
      // llama-bench JSON
      [{ build_commit: "abc", model_type: "llama 7B", n_prompt: 512, n_gen: 0, avg_ns: 123, avg_ts: 456.7 }],
      // llm-d benchmark report
      {
        version: "0.1",
        scenario: { load: { standardized: { concurrency: 8 } } },
        results: { request_performance: { aggregate: {} } },
      },
      // trtllm-bench report
      {
        engine: { model: "m" },
        world_info: { tp_size: 1 },
        request_info: {},
        performance: { system_output_throughput_tok_s: 100 },
      },
      // servebench/v1
      { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1, output_throughput: 10 }] },
      // a plain metrics object without units or configuration
      { request_throughput: 5, request_latency: 100 },
    ];
    for (const data of others) expect(detecting(inline(data)), JSON.stringify(data).slice(0, 60)).toEqual([]);
    const csv = decodeText("other.csv", "build_commit,model_type,n_prompt,avg_ts\nabc,llama 7B,512,456.7\n");
    expect(detecting(csv)).toEqual([]);
  });

  it("does not claim the other tools' fixture files", () => {
    const folders = fs
      .readdirSync(FIXTURES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "aiperf")
      .map((entry) => entry.name);
    expect(folders).toContain("servebench");
    let checked = 0;
    for (const folder of folders) {
      for (const file of fixtureFiles(folder)) {
        let source: SourceFile;
        try {
          source = decodeFile(file, fs.readFileSync(path.join(FIXTURES_DIR, file)));
        } catch {
          continue;
        }
        expect(detecting(source), file).toEqual([]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("never throws from detect", () => {
    const odd: SourceFile[] = [
      { name: "a", kind: "json", data: null, bytes: 0 },
      { name: "b", kind: "json", data: "text", bytes: 4 },
      { name: "c", kind: "jsonl", data: [null, 3], bytes: 4 },
      { name: "d", kind: "csv", data: [["Metric"], [null]], bytes: 4 },
      { name: "e", kind: "yaml", data: { records: { ttft: null }, input_config: 3 }, bytes: 4 },
    ];
    for (const file of odd) for (const parser of aiperfParsers) expect(parser.detect(file)).toBe(false);
  });
});

describe("AIPerf early format (Oct 2025, metrics under `records`): run1/profile_export_aiperf.json", () => {
  const fragment = parseOne(RUN1_JSON);
  const point = onlyPoint(fragment);

  it("is one point at the configured concurrency (input_config.loadgen.concurrency)", () => {
    expect(fragment.format).toBe("aiperf");
    expect(fragment.file).toBe(RUN1_JSON);
    expect(fragment.part).toBe("");
    expect(point.concurrency).toBe(100);
    expect(point.request_rate).toBeUndefined();
    expect(point.sources?.concurrency).toBe("input_config.loadgen.concurrency");
    expect(fragment.warnings).toEqual([]);
  });

  it("carries the counts, duration, token totals and throughputs the file states", () => {
    expect(point.completed).toBe(stats(RUN1_JSON, "records.request_count").avg);
    expect(point.completed).toBe(89);
    expect(point.failed).toBe(11);
    expect(point.sources?.failed).toBe("records.error_request_count.avg");
    // benchmark_duration's unit is "sec": it stays seconds.
    expect(stats(RUN1_JSON, "records.benchmark_duration").avg).toBeCloseTo(9.317788951, 9);
    expect(point.duration_s).toBeCloseTo(9.317788951, 9);
    expect(point.total_input_tokens).toBe(48950);
    // total_osl (answer + reasoning tokens, what output_token_throughput counts), not total_output_tokens (1832).
    expect(point.total_output_tokens).toBe(21624);
    expect(point.sources?.total_output_tokens).toBe("records.total_osl.avg");
    expect(point.output_throughput).toBeCloseTo(stats(RUN1_JSON, "records.output_token_throughput").avg!, 9);
    expect(point.output_throughput).toBeCloseTo(2320.7222350404572, 9);
    expect(point.request_throughput).toBeCloseTo(9.551622221540914, 9);
    expect(point.sources?.output_throughput).toBe("records.output_token_throughput.avg");
    expect(point.sources?.request_throughput).toBe("records.request_throughput.avg");
  });

  it("maps ttft, inter_token_latency (TPOT), inter_chunk_latency (ITL) and request_latency (ms)", () => {
    expectLatency(point, "ttft", stats(RUN1_JSON, "records.ttft"), "records.ttft");
    expectLatency(point, "tpot", stats(RUN1_JSON, "records.inter_token_latency"), "records.inter_token_latency");
    expectLatency(point, "itl", stats(RUN1_JSON, "records.inter_chunk_latency"), "records.inter_chunk_latency");
    expectLatency(point, "e2el", stats(RUN1_JSON, "records.request_latency"), "records.request_latency");
    expect(point.mean_ttft_ms).toBeCloseTo(2343.219436988764, 9);
    expect(point.mean_tpot_ms).toBeCloseTo(27.763065454471807, 9);
    expect(point.p99_itl_ms).toBeCloseTo(140.53429476, 9);
    // This generation writes p1, p5, p25, p75 (no p10): checked by hand against the file.
    expect(point.percentiles?.ttft).toEqual({
      p1: 581.1957117999999,
      p5: 728.6766952,
      p25: 1413.835049,
      p75: 3336.6016839999998,
    });
    expect(point.percentiles?.itl?.p5).toBe(19.9557076);
    // No e2el_per_token: neither tool writes end-to-end latency per output token.
    expect(point.mean_e2el_per_token_ms).toBeUndefined();
  });

  it("states the model, requested output length and request count; dates the run by its first request", () => {
    expect(fragment.context.model).toBe("openai/gpt-oss-20b");
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.workload).toEqual({ output_len: 250, num_prompts: 100 });
    // min_request_timestamp 1.759522419154569e18 ns; start_time "2025-10-03T13:13:39" is local time without a zone.
    expect(fragment.context.measured_at).toBe("2025-10-03T20:13:39.154Z");
    expect(fragment.context.metadata).toMatchObject({
      tool: "aiperf",
      endpoint_type: "chat",
      streaming: true,
      url: "localhost:9000",
      start_time: "2025-10-03T13:13:39.146443",
    });
  });
});

describe("AIPerf schema 1.0 (aiperf 0.8.0): v0.8.0-baseline-chat-bare", () => {
  const fragment = parseOne(V080);
  const point = onlyPoint(fragment);

  it("takes the concurrency of the profiling phase", () => {
    expect(point.concurrency).toBe(4);
    expect(point.sources?.concurrency).toBe("input_config.phases.0.concurrency");
  });

  it("carries the figures the file states; a non-streaming run has no TTFT/TPOT/ITL", () => {
    expect(point.completed).toBe(64);
    expect(point.failed).toBe(0);
    expect(point.sources?.failed).toBe("error_summary");
    expect(point.duration_s).toBeCloseTo(0.034502655, 12);
    expect(point.total_input_tokens).toBe(35200);
    expect(point.total_output_tokens).toBe(35277);
    expect(point.request_throughput).toBeCloseTo(1854.929714829192, 9);
    expect(point.output_throughput).toBeCloseTo(1022443.0554692096, 6);
    expect(point.total_token_throughput).toBeCloseTo(2042654.398625265, 6);
    expect(point.sources?.total_token_throughput).toBe("total_token_throughput.avg");
    expectLatency(point, "e2el", stats(V080, "request_latency"), "request_latency");
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point.mean_itl_ms).toBeUndefined();
    expect(fragment.warnings).toEqual([]);
  });

  it("states the model and the synthetic workload; start_time has no zone, so measured_at stays unset", () => {
    expect(fragment.context.model).toBe("mock-model");
    expect(fragment.context.workload).toEqual({ dataset: "synthetic", input_len: 550, num_prompts: 64 });
    expect(fragment.context.measured_at).toBeUndefined();
    expect(fragment.context.metadata).toMatchObject({
      tool: "aiperf",
      aiperf_version: "0.8.0",
      schema_version: "1.0",
      endpoint_type: "chat",
      start_time: "2026-04-30T09:16:38.957302",
    });
  });
});

describe("AIPerf schema 1.3 (aiperf 0.11.0): one member of a concurrency sweep", () => {
  const fragment = parseOne(V0110);
  const point = onlyPoint(fragment);

  it("takes the concurrency from input_config.phases, not from the concurrency_N folder name", () => {
    expect(point.concurrency).toBe(64);
    expect(point.sources?.concurrency).toBe("input_config.phases.0.concurrency");
    const text = fs.readFileSync(path.join(FIXTURES_DIR, V0110), "utf8");
    const renamed = aiperfProfileParser.parse(decodeText("concurrency_999/profile_export_aiperf.json", text));
    expect(renamed[0]!.points[0]!.concurrency).toBe(64);
  });

  it("carries the figures the file states", () => {
    expect(point.completed).toBe(4895);
    expect(point.failed).toBe(0);
    expect(point.duration_s).toBeCloseTo(299.832636745, 9);
    expect(point.total_output_tokens).toBe(1284249);
    expect(point.total_input_tokens).toBeUndefined();
    expect(point.request_throughput).toBeCloseTo(16.32577444917403, 9);
    expect(point.output_throughput).toBeCloseTo(4283.219511864617, 9);
    expectLatency(point, "ttft", stats(V0110, "time_to_first_token"), "time_to_first_token");
    expectLatency(point, "tpot", stats(V0110, "inter_token_latency"), "inter_token_latency");
    expectLatency(point, "itl", stats(V0110, "inter_chunk_latency"), "inter_chunk_latency");
    expectLatency(point, "e2el", stats(V0110, "request_latency"), "request_latency");
    expect(point.p99_ttft_ms).toBeCloseTo(117.89601346000286, 9);
    expect(point.percentiles?.ttft?.p10).toBe(40.902404399999995);
    expect(point.percentiles?.tpot?.p1).toBe(12.405748342777777);
    expect(point.percentiles?.e2el?.p75).toBe(5215.9720044999995);
    expect(point.sources?.["percentiles.e2el.p75"]).toBe("request_latency.p75");
    expect(fragment.warnings).toEqual([]);
  });

  it("states the model, the input file and the endpoint", () => {
    expect(fragment.context.model).toBe("qwen3-4b");
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.workload).toEqual({ dataset: "inputs-qwen3-4b.json" });
    expect(fragment.context.metadata).toMatchObject({
      aiperf_version: "0.11.0",
      schema_version: "1.3",
      streaming: true,
      url: "http://vllm.gpu-sharing.svc.cluster.local:8000",
    });
  });
});

describe("profile_export_aiperf.csv: the CSV twin of the JSON summary", () => {
  it("on its own (no level from a folder name or the person) it cannot be a point, and says why", () => {
    expect(() => aiperfCsvParser.parse(loadFixture(RUN1_CSV))).toThrow(NeedsLevelError);
    expect(() => aiperfCsvParser.parse(loadFixture(GENAI_CSV))).toThrow(/states no load level/);
  });

  test.each([
    [RUN1_CSV, RUN1_JSON],
    [GENAI_CSV, GENAI],
    [SWEEP_CSV_64, V0110],
  ])("%s states the same figures as %s (rounded to 2 decimals)", (csvFile, jsonFile) => {
    const { point: csv, warnings } = aiperfCsvFigures(loadFixture(csvFile));
    const json = onlyPoint(parseOne(jsonFile));
    expect(warnings).toEqual([]);
    const { sources: _csvSources, percentiles: csvPercentiles, ...csvFigures } = csv;
    const {
      sources: _jsonSources,
      concurrency: _c,
      request_rate: _r,
      percentiles: jsonPercentiles,
      ...jsonFigures
    } = json;
    // The percentiles beyond the fixed fields (p1, p5, p10, p25, p75) too, metric by metric.
    expect(Object.keys(csvPercentiles ?? {}).sort()).toEqual(Object.keys(jsonPercentiles ?? {}).sort());
    expect(Object.keys(jsonPercentiles ?? {}).length).toBeGreaterThan(0);
    for (const [metric, values] of Object.entries(jsonPercentiles ?? {})) {
      const csvMetric = (csvPercentiles as Record<string, Record<string, number>>)[metric] ?? {};
      expect(Object.keys(csvMetric).sort(), metric).toEqual(Object.keys(values ?? {}).sort());
      for (const [key, value] of Object.entries(values ?? {}))
        expect(Math.abs((csvMetric[key] ?? Number.NaN) - value), `${metric}.${key}`).toBeLessThanOrEqual(0.005 + 1e-9);
    }
    // GenAI-Perf's CSV has no std column.
    // aiperf 0.11's JSON counts failures from its error_summary list (empty: 0), which the CSV does not carry.
    const comparable = Object.keys(jsonFigures).filter(
      (key) => !(csvFile === GENAI_CSV && key.startsWith("std_")) && !(csvFile === SWEEP_CSV_64 && key === "failed"),
    );
    expect(Object.keys(csvFigures).sort()).toEqual(comparable.sort());
    const csvValues = csvFigures as Record<string, unknown>;
    const jsonValues = jsonFigures as Record<string, unknown>;
    for (const key of comparable) {
      expect(Math.abs((csvValues[key] as number) - (jsonValues[key] as number)), key).toBeLessThanOrEqual(0.005 + 1e-9);
    }
  });

  it("names the CSV row and column each figure came from", () => {
    const { point } = aiperfCsvFigures(loadFixture(RUN1_CSV));
    expect(point.concurrency).toBeUndefined();
    expect(point.mean_ttft_ms).toBe(2343.22);
    expect(point.sources?.mean_ttft_ms).toBe("Time to First Token (ms).avg");
    expect(point.p99_itl_ms).toBe(140.53);
    expect(point.sources?.p99_itl_ms).toBe("Inter Chunk Latency (ms).p99");
    expect(point.duration_s).toBe(9.32);
    expect(point.sources?.duration_s).toBe("Benchmark Duration (sec).Value");
    expect(point.completed).toBe(89);
    expect(point.failed).toBe(11);
    expect(point.sources?.failed).toBe("Error Request Count.Value");
    expect(point.total_output_tokens).toBe(21624);
    expect(point.sources?.total_output_tokens).toBe("Total Output Sequence Length (tokens).Value");
  });

  it("reads GenAI-Perf's thousands separators and title-case names", () => {
    const { point } = aiperfCsvFigures(loadFixture(GENAI_CSV));
    expect(point.p99_ttft_ms).toBe(1020.56);
    expect(point.output_throughput).toBe(1778.94);
    expect(point.sources?.p99_ttft_ms).toBe("Time To First Token (ms).p99");
    expect(point.sources?.request_throughput).toBe("Request Throughput (per sec).Value");
    expect(point.completed).toBe(80);
  });
});

describe("profile_export.jsonl: per-request records", () => {
  const source = loadFixture(RUN1_JSONL);

  it("is recognized and not imported: it states no load level", () => {
    expect(source.kind).toBe("jsonl");
    expect(aiperfRecordsParser.parse(source)).toEqual([]);
  });

  it("reproduces the JSON summary of the same run from the records", () => {
    const summary = summarizeAiperfRecords(source);
    expect(summary.records).toBe(100);
    expect(summary.completed).toBe(89);
    expect(summary.failed).toBe(11);
    expect(summary.warnings).toEqual([]);
    const derived = summary.point;
    const json = onlyPoint(parseOne(RUN1_JSON));
    expect(derived.concurrency).toBeUndefined();
    for (const metric of ["ttft", "tpot", "itl", "e2el"]) {
      for (const [stat] of STAT_KEYS) {
        const field = `${stat}_${metric}_ms` as keyof ResultPoint;
        expect(derived[field] as number, field).toBeCloseTo(json[field] as number, 6);
      }
    }
    expect(derived.completed).toBe(json.completed);
    expect(derived.failed).toBe(json.failed);
    expect(derived.total_input_tokens).toBe(json.total_input_tokens);
    expect(derived.total_output_tokens).toBe(json.total_output_tokens);
    expect(derived.duration_s).toBeCloseTo(json.duration_s!, 5);
    expect(derived.request_throughput).toBeCloseTo(json.request_throughput!, 5);
    expect(derived.output_throughput).toBeCloseTo(json.output_throughput!, 3);
    expect(derived.sources?.mean_ttft_ms).toBe("metrics.ttft.value (mean over records)");
    expect(derived.sources?.p99_itl_ms).toBe("metrics.inter_chunk_latency.value (p99 over records)");
  });

  it("reports a record whose value is not a number", () => {
    const lines = [
      {
        metadata: { x_request_id: "a", credit_phase: "profiling" },
        metrics: { request_latency: { value: 12.5, unit: "ms" } },
        error: null,
      },
      {
        metadata: { x_request_id: "b", credit_phase: "profiling" },
        metrics: { request_latency: { value: { ms: 3 }, unit: "ms" } },
        error: null,
      },
    ];
    const file = decodeText("bad/profile_export.jsonl", lines.map((line) => JSON.stringify(line)).join("\n"));
    expect(aiperfRecordsParser.detect(file)).toBe(true);
    expect(formatErrorOf(() => aiperfRecordsParser.parse(file)).path).toBe("1.metrics.request_latency.value");
  });

  it("leaves warmup records out", () => {
    const lines = [
      {
        metadata: { x_request_id: "w", benchmark_phase: "warmup" },
        metrics: { request_latency: { value: 900, unit: "ms" } },
        error: null,
      },
      {
        metadata: { x_request_id: "p", benchmark_phase: "profiling" },
        metrics: { request_latency: { value: 0.1, unit: "sec" } },
        error: null,
      },
    ];
    const summary = summarizeAiperfRecords(
      decodeText("w/profile_export.jsonl", lines.map((line) => JSON.stringify(line)).join("\n")),
    );
    expect(summary.records).toBe(1);
    expect(summary.point.mean_e2el_ms).toBeCloseTo(100, 9);
  });
});

describe("GenAI-Perf profile_export_genai_perf.json", () => {
  it("sectioned input_config: concurrency from perf_analyzer.stimulus", () => {
    const fragment = parseOne(GENAI);
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(8);
    expect(point.sources?.concurrency).toBe("input_config.perf_analyzer.stimulus.concurrency");
    expect(point.completed).toBe(80);
    expect(point.request_throughput).toBeCloseTo(27.796, 9);
    expect(point.output_throughput).toBeCloseTo(1778.944, 9);
    expectLatency(point, "ttft", stats(GENAI, "time_to_first_token"), "time_to_first_token");
    expectLatency(point, "tpot", stats(GENAI, "inter_token_latency"), "inter_token_latency");
    expectLatency(point, "e2el", stats(GENAI, "request_latency"), "request_latency");
    // GenAI-Perf writes no inter-chunk latency.
    expect(point.mean_itl_ms).toBeUndefined();
    expect(fragment.context.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    // service_kind "openai": the backend key is an unused default, not the engine.
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.workload).toEqual({ dataset: "synthetic", input_len: 550, output_len: 64, temperature: 0 });
    expect(fragment.context.metadata).toMatchObject({
      tool: "genai-perf",
      service_kind: "openai",
      endpoint_type: "chat",
      streaming: true,
    });
    expect(fragment.warnings).toEqual([]);
  });

  it("argparse input_config: request rate, ns units, numbers as strings, Triton backend as engine", () => {
    const fragment = parseOne(GENAI_LEGACY);
    const point = onlyPoint(fragment);
    expect(point.request_rate).toBe(10);
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("input_config.request_rate");
    // "request per sec" and "tokens per sec"; "1,217.1010500160076" as a string.
    expect(point.request_throughput).toBeCloseTo(9.87, 9);
    // biome-ignore lint/correctness/noPrecisionLoss: the figure as the file writes it
    expect(point.output_throughput).toBeCloseTo(1217.1010500160076, 9);
    const ttft = Object.fromEntries(
      Object.entries(stats(GENAI_LEGACY, "time_to_first_token")).map(([key, value]) => [key, Number(value)]),
    );
    expectLatency(point, "ttft", ttft, "time_to_first_token", 1e-6);
    expect(point.mean_ttft_ms).toBeCloseTo(20.75777122095672, 9);
    expect(point.mean_e2el_ms).toBeCloseTo(81.6942623143508, 9);
    expect(point.p99_tpot_ms).toBeCloseTo(5.263723220000001, 9);
    expect(fragment.context.model).toBe("gpt2_vllm");
    expect(fragment.context.engine).toBe("vllm");
    expect(fragment.context.workload).toEqual({ dataset: "synthetic", input_len: 550 });
  });
});

describe("hand-made traps", () => {
  it("converts ns, us and sec by the unit each metric states; a NaN statistic is no data with a warning", () => {
    const fragment = parseOne(RATE_UNITS_NAN);
    const point = onlyPoint(fragment);
    expect(point.mean_ttft_ms).toBeCloseTo(45.25, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(120, 9);
    expect(point.std_ttft_ms).toBeUndefined();
    expect(point.mean_e2el_ms).toBeCloseTo(1234.5, 9);
    expect(point.std_e2el_ms).toBeCloseTo(210, 9);
    expect(point.mean_itl_ms).toBeCloseTo(9.6125, 9);
    expect(point.p99_itl_ms).toBeCloseTo(20, 9);
    expect(point.mean_tpot_ms).toBeCloseTo(9.5, 9);
    expect(point.duration_s).toBeCloseTo(300.012345678, 9);
    expect(fragment.warnings).toEqual([`${RATE_UNITS_NAN}: time_to_first_token.std is NaN; stored as no data.`]);
  });

  it("a rate phase after a warmup phase: the profiling phase's rate and concurrency cap", () => {
    const fragment = parseOne(RATE_UNITS_NAN);
    const point = onlyPoint(fragment);
    expect(point.request_rate).toBe(8.5);
    expect(point.concurrency).toBe(32);
    expect(point.sources?.request_rate).toBe("input_config.phases.1.rate");
    expect(point.sources?.concurrency).toBe("input_config.phases.1.concurrency");
    expect(point.completed).toBe(2523);
    expect(point.failed).toBe(2);
    expect(point.total_token_throughput).toBeCloseTo(5702.1, 9);
    expect(fragment.context.model).toBe("Qwen/Qwen3-8B");
    expect(fragment.context.workload).toEqual({
      dataset: "synthetic",
      input_len: 550,
      output_len: 128,
      temperature: 0.7,
    });
    // start_time states its zone here, so it dates the run.
    expect(fragment.context.measured_at).toBe("2026-05-04T10:00:00.000Z");
  });

  it("every request failed: no figures, a warning, never 0 tok/s", () => {
    const fragment = parseOne(ALL_FAILED);
    const point = onlyPoint(fragment);
    expect(point.concurrency).toBe(16);
    expect(point.failed).toBe(16);
    expect(point.completed).toBeUndefined();
    expect(point.output_throughput).toBeUndefined();
    expect(point.request_throughput).toBeUndefined();
    expect(point.sources?.output_throughput).toBeUndefined();
    expect(fragment.warnings).toEqual([
      `${ALL_FAILED}: no request completed (16 failed); its figures are stored as no data.`,
    ]);
  });

  it("every request failed and nothing else stated: still a warning", () => {
    const data = {
      schema_version: "1.3",
      aiperf_version: "0.11.0",
      error_request_count: { unit: "requests", avg: 5 },
      request_count: undefined,
      request_throughput: { unit: "requests/sec", avg: null },
      input_config: { phases: [{ name: "profiling", type: "concurrency", concurrency: 2 }] },
    };
    const [fragment] = aiperfProfileParser.parse(inline(data));
    expect(fragment!.points[0]).toEqual({
      concurrency: 2,
      failed: 5,
      sources: { concurrency: "input_config.phases.0.concurrency", failed: "error_request_count.avg" },
    });
    expect(fragment!.warnings).toEqual([
      "inline/profile_export_aiperf.json: no request completed (5 failed); it has no figures.",
    ]);
  });

  it("a broken statistic throws a FormatError naming its path", () => {
    const error = formatErrorOf(() => aiperfProfileParser.parse(loadFixture(BROKEN)));
    expect(error.path).toBe("request_latency.avg");
    expect(error.message).toContain("should be a number");
  });

  it("the sweep aggregate is recognized and holds no load points of its own", () => {
    const source = loadFixture(SWEEP);
    expect(aiperfAggregateParser.detect(source)).toBe(true);
    expect(aiperfProfileParser.detect(source)).toBe(false);
    expect(aiperfAggregateParser.parse(source)).toEqual([]);
    const older = inline({
      metadata: { aggregation_type: "sweep", parameter_name: "concurrency" },
      per_value_metrics: { "10": { request_throughput_avg: { mean: 1 } } },
    });
    expect(detecting(older)).toEqual([aiperfAggregateParser]);
  });

  const base = {
    schema_version: "1.0",
    aiperf_version: "0.8.0",
    request_throughput: { unit: "requests/sec", avg: 10 },
    request_latency: { unit: "ms", avg: 100, p50: 90 },
    request_count: { unit: "requests", avg: 50 },
    input_config: { phases: [{ name: "profiling", type: "concurrency", concurrency: 4 }] },
  };

  it("a unit it cannot convert is an error, never a guess", () => {
    const badTime = { ...base, request_latency: { unit: "fortnights", avg: 100 } };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(badTime))).path).toBe("request_latency.unit");
    const noUnit = { ...base, time_to_first_token: { avg: 12 } };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(noUnit))).path).toBe("time_to_first_token.unit");
    const perUser = { ...base, output_token_throughput: { unit: "tokens/sec/user", avg: 50 } };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(perUser))).path).toBe("output_token_throughput.unit");
  });

  it("a run without a stated load level cannot be a point", () => {
    const { input_config: _config, ...noConfig } = base;
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(noConfig))).path).toBe("input_config");
    const noLevel = { ...base, input_config: { phases: [{ name: "profiling", type: "fixed_schedule" }] } };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(noLevel))).path).toBe("input_config");
    const badLevel = {
      ...base,
      input_config: { phases: [{ name: "profiling", type: "concurrency", concurrency: { max: 4 } }] },
    };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(badLevel))).path).toBe(
      "input_config.phases.0.concurrency",
    );
    const badRate = { ...base, input_config: { request_rate: "fast", concurrency: null } };
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(badRate))).path).toBe("input_config.request_rate");
  });

  it("several profiling phases: one load point only when they share the level", () => {
    const two = (second: number) => ({
      ...base,
      input_config: {
        phases: [
          { name: "warmup", type: "concurrency", concurrency: 1, exclude_from_results: true },
          { name: "baseline", kind: "profiling", type: "concurrency", concurrency: 4 },
          { name: "stress", kind: "profiling", type: "concurrency", concurrency: second },
        ],
      },
    });
    expect(aiperfProfileParser.parse(inline(two(4)))[0]!.points[0]!.concurrency).toBe(4);
    expect(formatErrorOf(() => aiperfProfileParser.parse(inline(two(8)))).path).toBe("input_config.phases");
  });

  it("a versioned file with the early input_config sections (loadgen, endpoint.model_names, input.prompt)", () => {
    const middle = {
      aiperf_version: "0.3.0",
      request_throughput: { unit: "requests/sec", avg: 12 },
      time_to_first_token: { unit: "ms", avg: 20, p50: 19 },
      input_config: {
        endpoint: { model_names: ["Qwen/Qwen3-0.6B"], type: "chat", streaming: true },
        input: { prompt: { input_tokens: { mean: 1000 }, output_tokens: { mean: 200 } } },
        loadgen: { concurrency: 32, request_count: 640 },
      },
    };
    const [fragment] = aiperfProfileParser.parse(inline(middle));
    expect(fragment!.points[0]).toMatchObject({
      concurrency: 32,
      request_throughput: 12,
      mean_ttft_ms: 20,
      median_ttft_ms: 19,
    });
    expect(fragment!.points[0]!.sources?.concurrency).toBe("input_config.loadgen.concurrency");
    expect(fragment!.context.model).toBe("Qwen/Qwen3-0.6B");
    expect(fragment!.context.workload).toEqual({ input_len: 1000, output_len: 200, num_prompts: 640 });
  });

  it("an early-format request-rate run keeps its rate", () => {
    const early = {
      records: {
        request_throughput: { tag: "request_throughput", unit: "requests/sec", avg: "3.9" },
        request_count: { unit: "requests", avg: 40 },
      },
      input_config: {
        endpoint: { model_names: ["m1", "m2"] },
        loadgen: { request_rate: "4", request_rate_mode: "poisson" },
      },
      start_time: "2025-10-01T00:00:00",
    };
    const [fragment] = aiperfProfileParser.parse(inline(early));
    expect(fragment!.points[0]).toMatchObject({ request_rate: 4, request_throughput: 3.9, completed: 40 });
    expect(fragment!.points[0]!.sources?.request_rate).toBe("input_config.loadgen.request_rate");
    expect(fragment!.context.model).toBe("m1, m2");
  });
});

describe("upload pipeline", () => {
  it("a run folder imports one point; the CSV and the per-request records are skipped", () => {
    const files = [RUN1_JSON, RUN1_CSV, RUN1_JSONL].map((file) => ({
      name: file,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)),
    }));
    const parsed = readUploads(files, aiperfParsers);
    expect(parsed.fragments.map((fragment) => fragment.file)).toEqual([RUN1_JSON]);
    expect(parsed.fragments[0]!.points[0]!.concurrency).toBe(100);
    expect(parsed.skipped.map((skip) => skip.file)).toEqual([RUN1_CSV, RUN1_JSONL]);
    // run1/ is no folder name of the tools' convention: the CSV asks for a level.
    expect(parsed.skipped[0]!.needs_level).toBe(true);
    expect(parsed.skipped.every((skip) => skip.format === "aiperf")).toBe(true);
  });
});
