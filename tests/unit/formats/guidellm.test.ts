import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { decodeText } from "@/lib/formats/decode";
import { guidellmParser } from "@/lib/formats/guidellm";
import { readUploads } from "@/lib/formats/import";
import { llmperfIndividualParser, llmperfSummaryParser } from "@/lib/formats/llmperf";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { REASONS } from "@/lib/formats/report";
import { FormatError, type Fragment, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

const QWEN = "guidellm/Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json";
const GPT_OSS = "guidellm/openai_gpt-oss-20b_tp4_quant-none_benchmarks.json";
const V2 = "guidellm/guidellm_report_v2.json";
const STRIPPED = "guidellm/benchmarks_stripped.json";
const SWEEP_V03 = "guidellm/hand-made-sweep-v0.3.json";
const CONCURRENT_V1 = "guidellm/hand-made-concurrent-report-v1.json";
const BROKEN = "guidellm/hand-made-broken-throughput-object.json";

function parse(relativePath: string): Fragment[] {
  return guidellmParser.parse(loadFixture(relativePath));
}

function onlyPoint(fragment: Fragment): ResultPoint {
  expect(fragment.points).toHaveLength(1);
  return fragment.points[0]!;
}

/** A value at a dotted path, through objects and arrays ("benchmarks.0.metrics"). */
function get(value: unknown, dotted: string): unknown {
  let current = value;
  for (const key of dotted.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function benchmark(relativePath: string, index: number): unknown {
  return get(readFixtureJson(relativePath), `benchmarks.${index}`);
}

/** servebench field ← GuideLLM path (relative to the benchmark), and the factor to ms. */
const LATENCY_MAP: ReadonlyArray<[keyof ResultPoint, string, number]> = [
  ["mean_ttft_ms", "metrics.time_to_first_token_ms.successful.mean", 1],
  ["median_ttft_ms", "metrics.time_to_first_token_ms.successful.percentiles.p50", 1],
  ["std_ttft_ms", "metrics.time_to_first_token_ms.successful.std_dev", 1],
  ["p90_ttft_ms", "metrics.time_to_first_token_ms.successful.percentiles.p90", 1],
  ["p95_ttft_ms", "metrics.time_to_first_token_ms.successful.percentiles.p95", 1],
  ["p99_ttft_ms", "metrics.time_to_first_token_ms.successful.percentiles.p99", 1],
  ["mean_tpot_ms", "metrics.inter_token_latency_ms.successful.mean", 1],
  ["median_tpot_ms", "metrics.inter_token_latency_ms.successful.percentiles.p50", 1],
  ["std_tpot_ms", "metrics.inter_token_latency_ms.successful.std_dev", 1],
  ["p90_tpot_ms", "metrics.inter_token_latency_ms.successful.percentiles.p90", 1],
  ["p95_tpot_ms", "metrics.inter_token_latency_ms.successful.percentiles.p95", 1],
  ["p99_tpot_ms", "metrics.inter_token_latency_ms.successful.percentiles.p99", 1],
  ["mean_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.mean", 1],
  ["median_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.percentiles.p50", 1],
  ["std_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.std_dev", 1],
  ["p90_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.percentiles.p90", 1],
  ["p95_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.percentiles.p95", 1],
  ["p99_e2el_per_token_ms", "metrics.time_per_output_token_ms.successful.percentiles.p99", 1],
  ["mean_e2el_ms", "metrics.request_latency.successful.mean", 1000],
  ["median_e2el_ms", "metrics.request_latency.successful.percentiles.p50", 1000],
  ["std_e2el_ms", "metrics.request_latency.successful.std_dev", 1000],
  ["p90_e2el_ms", "metrics.request_latency.successful.percentiles.p90", 1000],
  ["p95_e2el_ms", "metrics.request_latency.successful.percentiles.p95", 1000],
  ["p99_e2el_ms", "metrics.request_latency.successful.percentiles.p99", 1000],
];

const THROUGHPUT_MAP: ReadonlyArray<[keyof ResultPoint, string]> = [
  ["completed", "metrics.request_totals.successful"],
  ["failed", "metrics.request_totals.errored"],
  ["duration_s", "duration"],
  ["total_input_tokens", "metrics.prompt_token_count.successful.total_sum"],
  ["total_output_tokens", "metrics.output_token_count.successful.total_sum"],
  ["request_throughput", "metrics.requests_per_second.successful.mean"],
  ["output_throughput", "metrics.output_tokens_per_second.successful.mean"],
  ["total_token_throughput", "metrics.tokens_per_second.successful.mean"],
];

/** GuideLLM's percentile names → servebench's keys: p001 is the 0.1th percentile, p01 the 1st, p999 the 99.9th. */
const PERCENTILE_KEYS: ReadonlyArray<[string, string]> = [
  ["p001", "p0.1"],
  ["p01", "p1"],
  ["p05", "p5"],
  ["p10", "p10"],
  ["p25", "p25"],
  ["p75", "p75"],
  ["p999", "p99.9"],
];

/** servebench metric ← GuideLLM distribution, and the factor to ms. */
const PERCENTILE_METRICS: ReadonlyArray<[string, string, number]> = [
  ["ttft", "metrics.time_to_first_token_ms.successful", 1],
  ["tpot", "metrics.inter_token_latency_ms.successful", 1],
  ["e2el_per_token", "metrics.time_per_output_token_ms.successful", 1],
  ["e2el", "metrics.request_latency.successful", 1000],
];

/** Every percentile without a field of its own is in `percentiles`, converted to ms, with its source. */
function expectExtraPercentiles(point: ResultPoint, bench: unknown, layout: "v0.3" | "report"): void {
  for (const [metric, base, factor] of PERCENTILE_METRICS) {
    const kept = (point.percentiles as Record<string, Record<string, number>> | undefined)?.[metric];
    if (layout === "v0.3" && metric === "e2el_per_token") {
      expect(kept, metric).toBeUndefined();
      continue;
    }
    const stated = PERCENTILE_KEYS.filter(([name]) => typeof get(bench, `${base}.percentiles.${name}`) === "number");
    // Every real report states all seven; the hand-made ones at least p25 and p999.
    expect(stated.length, `${base}.percentiles in the fixture`).toBeGreaterThanOrEqual(2);
    for (const [name, key] of stated) {
      const value = get(bench, `${base}.percentiles.${name}`) as number;
      expect(kept?.[key], `${metric} ${key}`).toBeCloseTo(value * factor, 9);
      expect(point.sources?.[`percentiles.${metric}.${key}`]).toBe(`${base}.percentiles.${name}`);
    }
    expect(Object.keys(kept ?? {}).sort()).toEqual(stated.map(([, key]) => key).sort());
  }
}

/** Every mapped figure of a GuideLLM ≥ 0.4 benchmark equals the number the file states, with its source. */
function expectReportFigures(point: ResultPoint, bench: unknown): void {
  expectExtraPercentiles(point, bench, "report");
  for (const [field, source] of THROUGHPUT_MAP) {
    const stated = get(bench, source) as number;
    expect(typeof stated, `${source} in the fixture`).toBe("number");
    expect(point[field], field).toBeCloseTo(stated, 6);
    expect(point.sources?.[field], field).toBe(source);
  }
  for (const [field, source, factor] of LATENCY_MAP) {
    const stated = get(bench, source) as number;
    expect(typeof stated, `${source} in the fixture`).toBe("number");
    expect(point[field], field).toBeCloseTo(stated * factor, 6);
    expect(point.sources?.[field], field).toBe(source);
  }
}

describe("GuideLLM detection", () => {
  test.each([QWEN, GPT_OSS, V2, STRIPPED, SWEEP_V03, CONCURRENT_V1, BROKEN])("%s is GuideLLM, not LLMPerf", (file) => {
    const source = loadFixture(file);
    expect(guidellmParser.detect(source)).toBe(true);
    expect(llmperfSummaryParser.detect(source)).toBe(false);
    expect(llmperfIndividualParser.detect(source)).toBe(false);
  });

  it("covers every copied GuideLLM fixture", () => {
    const files = fixtureFiles("guidellm").filter((file) => file.endsWith(".json"));
    expect(files.sort()).toEqual([QWEN, V2, STRIPPED, BROKEN, CONCURRENT_V1, SWEEP_V03, GPT_OSS].sort());
  });

  it("does not claim other tools' shapes, and never throws", () => {
    const others = [
      // vLLM bench serve --save-result
      '{"date": "20250513-045648", "backend": "vllm", "model_id": "m", "num_prompts": 10, "max_concurrency": 4, "output_throughput": 100.5, "mean_tpot_ms": 12.0}',
      // SGLang bench_serving JSONL
      '{"backend": "sglang", "max_concurrency": 1, "output_throughput": 50}\n{"backend": "sglang", "max_concurrency": 8, "output_throughput": 300}',
      // LLMPerf summary
      '{"model": "m", "num_concurrent_requests": 5, "results_ttft_s_mean": 0.2, "results_mean_output_throughput_token_per_s": 400}',
      // llama-bench
      '[{"build_commit": "abc", "model_type": "llama 8B", "n_prompt": 512, "n_gen": 0, "avg_ts": 1000.5, "stddev_ts": 3.2}]',
      // servebench/v1
      '{"format": "servebench/v1", "engine": "vllm", "model": "m", "results": [{"concurrency": 1, "output_throughput": 10}]}',
      // inference-perf lifecycle metrics
      '{"load_summary": {"count": 10}, "successes": {"throughput": {"output_tokens_per_sec": 12}}}',
      // something else with a benchmarks list
      '{"benchmarks": [{"name": "BM_Foo", "real_time": 12.5, "iterations": 100}]}',
      '{"benchmarks": []}',
      '{"benchmarks": [null, 3, "x"]}',
      "[]",
      "null",
      '"benchmarks"',
      "a,b\n1,2",
    ];
    for (const text of others) {
      const file = decodeText("other.json", text);
      expect(() => guidellmParser.detect(file)).not.toThrow();
      expect(guidellmParser.detect(file), text).toBe(false);
    }
    expect(guidellmParser.detect({ name: "x", kind: "json", data: undefined, bytes: 0 })).toBe(false);
  });

  it("does not claim any other tool's fixture under tests/fixtures", () => {
    const folders = fs
      .readdirSync(FIXTURES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "guidellm")
      .map((entry) => entry.name);
    for (const folder of folders) {
      for (const file of fixtureFiles(folder)) {
        if (path.basename(file) === "SOURCE.txt" || /\.md$/.test(file)) continue;
        let source: SourceFile;
        try {
          source = loadFixture(file);
        } catch {
          continue; // not decodable: not this parser's business
        }
        expect(guidellmParser.detect(source), file).toBe(false);
      }
    }
  });

  it("recognizes an empty report by its metadata and explains that it holds no benchmark", () => {
    const file = decodeText(
      "empty.json",
      '{"metadata": {"version": 2, "guidellm_version": "0.8.0"}, "config": {}, "benchmarks": []}',
    );
    expect(guidellmParser.detect(file)).toBe(true);
    expect(() => guidellmParser.parse(file)).toThrow(FormatError);
    try {
      guidellmParser.parse(file);
    } catch (error) {
      expect((error as FormatError).path).toBe("benchmarks");
      expect((error as FormatError).message).toMatch(/no benchmark/);
    }
  });
});

describe("GuideLLM 0.5 report (metadata.version 1, top-level args)", () => {
  it("Qwen3-4B: one concurrent benchmark at 4 streams", () => {
    const fragments = parse(QWEN);
    expect(fragments).toHaveLength(1);
    const [fragment] = fragments;
    expect(fragment!.format).toBe("guidellm");
    expect(fragment!.file).toBe(QWEN);
    expect(fragment!.part).toBe("");
    expect(fragment!.warnings).toEqual([]);
    const point = onlyPoint(fragment!);
    expect(point.concurrency).toBe(4);
    expect(point.request_rate).toBeUndefined();
    expect(point.sources?.concurrency).toBe("config.strategy.streams");
    // The numbers the file states.
    expect(point.output_throughput).toBe(165.59511945248636);
    expect(point.completed).toBe(4);
    expect(point.failed).toBe(0);
    expect(point.total_output_tokens).toBe(4096);
    expect(point.total_input_tokens).toBe(396);
    expect(point.median_ttft_ms).toBe(171.52166366577148);
    expect(point.median_tpot_ms).toBe(24.178653868062757);
    expect(point.median_e2el_per_token_ms).toBe(24.32254352606833);
    expect(point.mean_e2el_ms).toBeCloseTo(24908.65981578827, 6);
    expect(point.duration_s).toBe(24.909644603729248);
    expectReportFigures(point, benchmark(QWEN, 0));
    // No chunk-gap ITL in GuideLLM.
    expect(point.mean_itl_ms).toBeUndefined();
    expect(fragment!.context).toEqual({
      model: "Qwen/Qwen3-4B-Thinking-2507",
      workload: { dataset: "/root/aime_2024_v2.jsonl", num_prompts: 4 },
      measured_at: "2026-03-02T16:58:16.679Z",
      metadata: {
        guidellm_version: "0.5.0.dev0",
        guidellm_report_version: 1,
        profile: "concurrent",
        backend_target: "http://0.0.0.0:8000",
        backend_type: "openai_http",
        request_format: "/v1/completions",
      },
    });
    // A client's backend is no engine (trap 9).
    expect(fragment!.context.engine).toBeUndefined();
  });

  it("gpt-oss-20b: one synchronous benchmark, concurrency 1", () => {
    const fragments = parse(GPT_OSS);
    expect(fragments).toHaveLength(1);
    const point = onlyPoint(fragments[0]!);
    expect(point.concurrency).toBe(1);
    expect(point.sources?.concurrency).toBe("config.strategy.type_");
    expect(point.output_throughput).toBe(33.417378943280085);
    expect(point.completed).toBe(25);
    expect(point.total_output_tokens).toBe(25600);
    expect(point.mean_ttft_ms).toBeCloseTo(
      get(benchmark(GPT_OSS, 0), "metrics.time_to_first_token_ms.successful.mean") as number,
      9,
    );
    expect(point.median_ttft_ms).toBe(47.66058921813965);
    expect(point.median_tpot_ms).toBe(29.910243734469745);
    expect(point.median_e2el_per_token_ms).toBe(29.92664952762425);
    expect(point.median_e2el_ms).toBeCloseTo(30646.172523498535, 6);
    expectReportFigures(point, benchmark(GPT_OSS, 0));
    // Checked by hand against the file: p999 of TTFT is 60.776 ms, p001 of the request latency 30.488 s.
    expect(point.percentiles?.ttft?.["p99.9"]).toBe(60.7762336730957);
    expect(point.percentiles?.e2el?.["p0.1"]).toBeCloseTo(30488.404750823975, 9);
    expect(point.percentiles?.e2el_per_token?.p25).toBe(29.8109189607203);
    expect(fragments[0]!.warnings).toEqual([]);
    expect(fragments[0]!.context.model).toBe("openai/gpt-oss-20b");
    expect(fragments[0]!.context.workload).toEqual({ dataset: "/root/aime_2024_v2.jsonl", num_prompts: 30 });
    expect(fragments[0]!.context.metadata).toMatchObject({
      profile: "synchronous",
      max_seconds: 900,
      guidellm_version: "0.5.0.dev0",
    });
    expect(fragments[0]!.context.measured_at).toBe("2026-03-02T17:21:22.226Z");
  });

  it("takes TPOT from inter_token_latency_ms and puts time_per_output_token_ms (first token included) apart", () => {
    const point = onlyPoint(parse(QWEN)[0]!);
    // (TTFT + TPOT × (n − 1)) / n = e2el per token, for these 1024-token requests.
    const n = 1024;
    const request = get(benchmark(QWEN, 0), "requests.successful.0") as Record<string, number>;
    expect((request.time_to_first_token_ms! + request.inter_token_latency_ms! * (n - 1)) / n).toBeCloseTo(
      request.time_per_output_token_ms!,
      3,
    );
    expect(point.mean_tpot_ms!).toBeLessThan(point.mean_e2el_per_token_ms!);
    expect(point.sources?.mean_tpot_ms).toBe("metrics.inter_token_latency_ms.successful.mean");
    expect(point.sources?.mean_e2el_per_token_ms).toBe("metrics.time_per_output_token_ms.successful.mean");
  });
});

describe("GuideLLM 0.8 report (metadata.version 2, config.spec)", () => {
  it("two constant-rate benchmarks, filed under request rates 2 and 4", () => {
    const fragments = parse(V2);
    expect(fragments).toHaveLength(2);
    expect(fragments.map((fragment) => fragment.part)).toEqual([
      "benchmark 1 (constant 2 req/s)",
      "benchmark 2 (constant 4 req/s)",
    ]);
    const rates = [2, 4];
    fragments.forEach((fragment, index) => {
      const point = onlyPoint(fragment);
      expect(point.request_rate).toBe(rates[index]);
      expect(point.concurrency).toBeUndefined(); // strategy.max_concurrency 10240 is GuideLLM's own process limit
      expect(point.sources?.request_rate).toBe("config.strategy.rate");
      expectReportFigures(point, benchmark(V2, index));
      expect(fragment.warnings).toEqual([]);
      expect(fragment.context).toEqual({
        model: "e2e-mock-model",
        workload: { dataset: "synthetic", input_len: 32, output_len: 8, num_prompts: 2 },
        measured_at: fragments[0]!.context.measured_at,
        metadata: {
          guidellm_version: "0.8.0.dev18",
          guidellm_report_version: 2,
          profile: "constant",
          backend_target: "http://127.0.0.1:8765",
          backend_type: "openai_http",
          request_format: "/v1/chat/completions",
        },
      });
    });
    expect(onlyPoint(fragments[0]!).output_throughput).toBe(3.1950675815128577);
    expect(onlyPoint(fragments[1]!).output_throughput).toBe(6.377131566888984);
    expect(onlyPoint(fragments[0]!).median_ttft_ms).toBe(11.276006698608398);
    expect(onlyPoint(fragments[1]!).median_e2el_ms).toBeCloseTo(15.973806381225586, 9);
    // measured_at: the earliest benchmark start, the same for every fragment of the file.
    const starts = [0, 1].map((index) => get(benchmark(V2, index), "start_time") as number);
    expect(fragments[0]!.context.measured_at).toBe(new Date(Math.min(...starts) * 1000).toISOString());
  });
});

describe("GuideLLM ≤ 0.3 layout ({benchmarks} with args, run_stats)", () => {
  it("benchmarks_stripped.json: the synchronous member of a sweep", () => {
    const fragments = parse(STRIPPED);
    expect(fragments).toHaveLength(1);
    const fragment = fragments[0]!;
    const point = onlyPoint(fragment);
    const bench = benchmark(STRIPPED, 0);
    expect(point.concurrency).toBe(1);
    expect(point.sources?.concurrency).toBe("args.strategy.type_");
    expect(point.output_throughput).toBe(198.13346751788123);
    expect(point.sources?.output_throughput).toBe("metrics.output_tokens_per_second.successful.mean");
    // successful, not total (which also counts the incomplete request): the file states both.
    expect(get(bench, "metrics.output_tokens_per_second.total.mean")).toBe(198.08514508750469);
    expect(point.completed).toBe(46);
    expect(point.failed).toBe(0); // 1 incomplete request is not a failure
    expect(point.sources?.completed).toBe("request_totals.successful");
    expect(point.sources?.failed).toBe("request_totals.errored");
    expect(point.duration_s).toBe(29.997201442718506);
    // p50 is absent from this version's percentiles: the median comes from `median`.
    expect(point.median_ttft_ms).toBe(16.38054847717285);
    expect(point.sources?.median_ttft_ms).toBe("metrics.time_to_first_token_ms.successful.median");
    expect(point.mean_ttft_ms).toBe(16.792535781860348);
    expect(point.p99_ttft_ms).toBe(21.281957626342773);
    expect(point.mean_tpot_ms).toBe(4.941609043733832);
    expect(point.median_tpot_ms).toBe(4.9241227427805505);
    expect(point.mean_e2el_ms).toBeCloseTo(644.4743664368339, 9);
    expect(point.median_e2el_ms).toBeCloseTo(642.4565315246582, 9);
    expect(point.p99_e2el_ms).toBeCloseTo(689.1846656799316, 9);
    expect(point.total_input_tokens).toBe(
      Math.round(get(bench, "metrics.prompt_token_count.successful.total_sum") as number),
    );
    expectExtraPercentiles(point, bench, "v0.3");
    expect(point.percentiles?.ttft?.p25).toBe(16.111373901367188);
    expect(point.percentiles?.tpot?.["p99.9"]).toBe(5.258346167136365);
    // ≤ 0.3 time_per_output_token_ms = (last − first token) / n: neither TPOT nor e2el per token; left out.
    expect(get(bench, "metrics.time_per_output_token_ms.successful.mean")).toBe(4.90300272307966);
    expect(point.mean_e2el_per_token_ms).toBeUndefined();
    expect(Object.keys(point).filter((key) => key.includes("e2el_per_token"))).toEqual([]);
    expect(fragment.warnings).toEqual([]);
    expect(fragment.context).toEqual({
      model: "example_model",
      workload: { dataset: "synthetic", input_len: 256, output_len: 128 },
      measured_at: "2025-06-05T20:59:28.182Z",
      metadata: { profile: "sweep", backend_target: "example_target", backend_type: "openai_http", max_seconds: 30 },
    });
  });

  it("hand-made sweep: synchronous, throughput (inf), constant and Poisson rates, NaN, and a level that all failed", () => {
    const fragments = parse(SWEEP_V03);
    expect(fragments).toHaveLength(5);
    expect(fragments.map((fragment) => fragment.part)).toEqual([
      "benchmark 1 (synchronous)",
      "benchmark 2 (throughput (all at once))",
      "benchmark 3 (constant 2.5 req/s)",
      "benchmark 4 (constant 3.5 req/s)",
      "benchmark 5 (poisson 5 req/s)",
    ]);
    const points = fragments.map(onlyPoint);
    expect(points.map((point) => point.concurrency ?? null)).toEqual([1, null, null, null, null]);
    expect(points.map((point) => point.request_rate ?? null)).toEqual([null, "inf", 2.5, 3.5, 5]);
    expect(points[1]!.sources?.request_rate).toBe("args.strategy.type_");
    expect(points[2]!.sources?.request_rate).toBe("args.strategy.rate");
    // Figures: the file's successful means.
    expect(points[0]!.output_throughput).toBe(100);
    expect(points[1]!.output_throughput).toBe(400);
    expect(points[2]!.output_throughput).toBe(200);
    expect(points[2]!.mean_ttft_ms).toBe(80);
    expect(points[2]!.median_ttft_ms).toBe(76);
    expect(points[2]!.mean_tpot_ms).toBe(15.6);
    expect(points[2]!.mean_e2el_ms).toBeCloseTo(1000, 9);
    expect(points[2]!.p99_e2el_ms).toBeCloseTo(1250, 9);
    expect(points[0]!.total_input_tokens).toBe(5120);
    expect(points[0]!.completed).toBe(10);
    expect(points[0]!.failed).toBe(0);
    for (const point of points) expect(point.mean_e2el_per_token_ms).toBeUndefined();
    // NaN p99 TTFT: no data, with a warning naming the field.
    expect(points[3]!.p99_ttft_ms).toBeUndefined();
    expect(points[3]!.mean_ttft_ms).toBe(120);
    expect(fragments[3]!.warnings).toEqual([
      "benchmark 4 (constant 3.5 req/s): metrics.time_to_first_token_ms.successful.percentiles.p99 is NaN; stored as no data.",
    ]);
    // Every request errored: the level is kept with its counts, its zero figures are no data.
    expect(points[4]).toEqual({
      request_rate: 5,
      completed: 0,
      failed: 7,
      duration_s: 60,
      sources: {
        request_rate: "args.strategy.rate",
        completed: "request_totals.successful",
        failed: "request_totals.errored",
        duration_s: "duration",
      },
    });
    expect(fragments[4]!.warnings).toEqual([
      "benchmark 5 (poisson 5 req/s): no request completed (7 failed); its figures are stored as no data.",
    ]);
    for (const fragment of fragments) {
      expect(fragment.context.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
      expect(fragment.context.workload).toEqual({ dataset: "synthetic", input_len: 512, output_len: 256 });
      expect(fragment.context.measured_at).toBe("2025-06-15T15:06:40.500Z");
      expect(fragment.context.metadata).toEqual({
        profile: "sweep",
        backend_target: "http://localhost:8000/v1",
        backend_type: "openai_http",
        max_seconds: 60,
      });
    }
  });
});

describe("GuideLLM hand-made report v1: concurrent streams, numbers as strings, a trace benchmark", () => {
  it("files each benchmark under its stream count and reads strings as numbers", () => {
    const fragments = parse(CONCURRENT_V1);
    expect(fragments).toHaveLength(3);
    expect(fragments.map((fragment) => fragment.part)).toEqual([
      "benchmark 1 (concurrent 1 streams)",
      "benchmark 2 (concurrent 8 streams)",
      "benchmark 3 (concurrent 32 streams)",
    ]);
    const points = fragments.map(onlyPoint);
    expect(points.map((point) => point.concurrency)).toEqual([1, 8, 32]);
    expect(points[1]!.output_throughput).toBe(1234.5); // "1,234.5"
    expect(points[1]!.mean_ttft_ms).toBe(321); // "321"
    expect(points[1]!.completed).toBe(198);
    expect(points[1]!.failed).toBe(2);
    expect(points[2]!.output_throughput).toBe(2000);
    expect(points[2]!.mean_e2el_per_token_ms).toBe(160);
    expect(points[2]!.sources?.mean_e2el_per_token_ms).toBe("metrics.time_per_output_token_ms.successful.mean");
    expectReportFigures(points[0]!, benchmark(CONCURRENT_V1, 0));
    // The trace-replay benchmark has no load level: left out, said once.
    expect(fragments[0]!.warnings).toEqual([
      'benchmark 4 (strategy "trace") has no concurrency or request rate, so it was not imported.',
    ]);
    expect(fragments[1]!.warnings).toEqual([]);
    expect(fragments[0]!.context).toEqual({
      model: "Qwen/Qwen3-8B",
      workload: { dataset: "synthetic", input_len: 1024, output_len: 128, num_prompts: 200 },
      measured_at: "2026-02-25T06:13:20.250Z",
      metadata: {
        guidellm_version: "0.5.0",
        guidellm_report_version: 1,
        profile: "concurrent",
        backend_target: "http://10.0.0.5:8000",
        backend_type: "openai_http",
        request_format: "/v1/chat/completions",
        max_seconds: 120,
      },
    });
  });
});

describe("GuideLLM broken files", () => {
  function parseError(run: () => unknown): FormatError {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(FormatError);
      return error as FormatError;
    }
    throw new Error("expected a FormatError");
  }

  it("an object where the output throughput belongs names its path", () => {
    const error = parseError(() => parse(BROKEN));
    expect(error.path).toBe("benchmarks.1.metrics.output_tokens_per_second.successful.mean");
    expect(error.message).toMatch(/should be a number, but it is an object/);
  });

  it("a benchmark without metrics, without a strategy, or with a bad rate or stream count", () => {
    const base = (benchmark: unknown) => decodeText("b.json", JSON.stringify({ benchmarks: [benchmark] }));
    const metrics = { output_tokens_per_second: { successful: { mean: 1 } } };
    expect(
      parseError(() =>
        guidellmParser.parse(base({ type_: "generative_benchmark", config: { strategy: { type_: "synchronous" } } })),
      ).path,
    ).toBe("benchmarks.0.metrics");
    expect(
      parseError(() => guidellmParser.parse(base({ type_: "generative_benchmark", config: {}, metrics }))).path,
    ).toBe("benchmarks.0.config.strategy");
    expect(
      parseError(() =>
        guidellmParser.parse(
          base({ type_: "generative_benchmark", config: { strategy: { type_: "constant", rate: "fast" } }, metrics }),
        ),
      ).path,
    ).toBe("benchmarks.0.config.strategy.rate");
    expect(
      parseError(() =>
        guidellmParser.parse(
          base({ type_: "generative_benchmark", args: { strategy: { type_: "concurrent", streams: 0 } }, metrics }),
        ),
      ).path,
    ).toBe("benchmarks.0.args.strategy.streams");
    expect(
      parseError(() =>
        guidellmParser.parse(decodeText("b.json", '{"benchmarks": [{"type_": "generative_benchmark"}, 5]}')),
      ).path,
    ).toBe("benchmarks.1");
  });

  it("a report whose only benchmark has no load level", () => {
    const file = decodeText(
      "t.json",
      JSON.stringify({
        benchmarks: [{ type_: "generative_benchmark", config: { strategy: { type_: "trace" } }, metrics: {} }],
      }),
    );
    const error = parseError(() => guidellmParser.parse(file));
    expect(error.path).toBe("benchmarks");
    expect(error.message).toMatch(/no concurrency or request rate/);
  });
});

describe("GuideLLM small inline cases", () => {
  const make = (strategy: unknown, mean: unknown) =>
    decodeText(
      "inline.json",
      JSON.stringify({
        benchmarks: [
          {
            type_: "generative_benchmark",
            config: { strategy },
            metrics: { output_tokens_per_second: { successful: { mean } } },
          },
        ],
      }),
    );

  it.each([
    [{ type_: "constant", rate: "inf" }, "inf"],
    [{ type_: "constant", rate: "Infinity" }, "inf"],
    [{ type_: "poisson", rate: -1 }, "inf"],
    [{ type_: "poisson", rate: "0.5" }, 0.5],
    [{ kind: "throughput" }, "inf"],
  ])("strategy %j → request_rate %j", (strategy, rate) => {
    const point = onlyPoint(guidellmParser.parse(make(strategy, 10))[0]!);
    expect(point.request_rate).toBe(rate);
    expect(point.concurrency).toBeUndefined();
    expect(point.output_throughput).toBe(10);
  });

  it("reads bare Infinity/NaN written by Python", () => {
    const file = decodeText(
      "nan.json",
      '{"benchmarks": [{"type_": "generative_benchmark", "config": {"strategy": {"type_": "constant", "rate": Infinity}}, "metrics": {"output_tokens_per_second": {"successful": {"mean": NaN}}, "time_to_first_token_ms": {"successful": {"mean": 12.5}}}}]}',
    );
    const [fragment] = guidellmParser.parse(file);
    const point = onlyPoint(fragment!);
    expect(point.request_rate).toBe("inf");
    expect(point.output_throughput).toBeUndefined();
    expect(point.mean_ttft_ms).toBe(12.5);
    expect(fragment!.warnings).toEqual([
      "benchmark 1 (constant inf req/s): metrics.output_tokens_per_second.successful.mean is NaN; stored as no data.",
    ]);
  });

  it("accepts the same report decoded from YAML", () => {
    const yaml = [
      "benchmarks:",
      "  - type_: generative_benchmark",
      "    config:",
      "      strategy: {type_: concurrent, streams: 16}",
      "    metrics:",
      "      output_tokens_per_second: {successful: {mean: 1500.25}}",
    ].join("\n");
    const file = decodeText("benchmarks.yaml", yaml);
    expect(file.kind).toBe("yaml");
    expect(guidellmParser.detect(file)).toBe(true);
    const point = onlyPoint(guidellmParser.parse(file)[0]!);
    expect(point.concurrency).toBe(16);
    expect(point.output_throughput).toBe(1500.25);
  });
});

describe("GuideLLM: the import report", () => {
  it("lists no figure a point keeps, and gives the median beside p50 as the same statistic", () => {
    const fragments = guidellmParser.parse(loadFixture(GPT_OSS));
    const parsed = readUploads(
      [{ name: GPT_OSS, bytes: fs.readFileSync(path.join(FIXTURES_DIR, GPT_OSS)) }],
      FORMAT_PARSERS,
    );
    const report = parsed.fragments.flatMap((fragment) => fragment.notImported ?? []);
    const fields = report.map((entry) => entry.field);
    const base = "benchmarks[0].metrics.time_to_first_token_ms.successful";
    expect(fields).not.toContain(`${base}.mean`);
    expect(fields).not.toContain(`${base}.percentiles.p25`);
    expect(fields).not.toContain(`${base}.percentiles.p999`);
    expect(report).toContainEqual({
      file: GPT_OSS,
      field: `${base}.median`,
      value: 47.66058921813965,
      reason:
        "GuideLLM's median, the same statistic as metrics.time_to_first_token_ms.successful.percentiles.p50, which the point keeps as its median",
    });
    // The extremes stay reported: they are no percentiles.
    expect(report).toContainEqual(expect.objectContaining({ field: `${base}.max`, reason: REASONS.extreme }));
    expect(fragments[0]!.root).toBe("benchmarks[0]");
  });

  it("reports a benchmark without a load level (trace replay) figure by figure, with that reason", () => {
    const parsed = readUploads(
      [{ name: CONCURRENT_V1, bytes: fs.readFileSync(path.join(FIXTURES_DIR, CONCURRENT_V1)) }],
      FORMAT_PARSERS,
    );
    const report = parsed.fragments.flatMap((fragment) => fragment.notImported ?? []);
    const stated = get(benchmark(CONCURRENT_V1, 3), "metrics.time_to_first_token_ms.successful.mean");
    expect(report).toContainEqual({
      file: CONCURRENT_V1,
      field: "benchmarks[3].metrics.time_to_first_token_ms.successful.mean",
      value: stated,
      reason:
        'benchmark 4 (strategy "trace") has no concurrency or request rate, so none of its figures is a load point',
    });
  });
});
