import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { aiperfParsers } from "@/lib/formats/aiperf";
import { decodeFile, decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import {
  inferencePerfLifecycleParser,
  inferencePerfParsers,
  inferencePerfPrometheusParser,
} from "@/lib/formats/inference-perf";
import { FormatError, type FormatParser, type Fragment, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Raw = Record<string, unknown>;
type Stats = Record<string, number>;

const DIR = "inference-perf/kubecon-na-2025-vllm";
const STAGES = [0, 1, 2, 3, 4, 5, 6];
const stageFile = (stage: number) => `${DIR}/stage_${stage}_lifecycle_metrics.json`;
const V06 = "inference-perf/hand-made-v0.6-concurrent-stage_0_lifecycle_metrics.json";
const ALL_FAILED = "inference-perf/hand-made-all-requests-failed-stage_2_lifecycle_metrics.json";
const TPOT_WARNING =
  "successes.latency.time_per_output_token not imported: the report predates inference-perf v0.5.0, which timed stream lines or events instead of tokens, so it is not a time per output token.";

/** servebench statistic ← inference-perf key (it writes no std). */
const STATS = [
  ["mean", "mean"],
  ["median", "median"],
  ["p90", "p90"],
  ["p95", "p95"],
  ["p99", "p99"],
] as const;

function raw(file: string): Raw {
  return readFixtureJson(file) as Raw;
}

function at(file: string, key: string): unknown {
  return key.split(".").reduce<unknown>((value, part) => (value as Raw)[part], raw(file));
}

function detecting(file: SourceFile, parsers: readonly FormatParser[] = inferencePerfParsers): FormatParser[] {
  return parsers.filter((parser) => parser.detect(file));
}

function parseStage(file: string): Fragment {
  const fragments = inferencePerfLifecycleParser.parse(loadFixture(file));
  expect(fragments).toHaveLength(1);
  return fragments[0]!;
}

function onlyPoint(fragment: Fragment): ResultPoint {
  expect(fragment.points).toHaveLength(1);
  return fragment.points[0]!;
}

/** Seconds in the file → ms in the point, with the source `successes.latency.<key>.<stat>`. */
function expectLatency(point: ResultPoint, metric: string, file: string, key: string): void {
  const source = at(file, `successes.latency.${key}`) as Stats;
  for (const [stat, name] of STATS) {
    const field = `${stat}_${metric}_ms` as keyof ResultPoint;
    expect(point[field], field).toBeCloseTo(source[name]! * 1000, 9);
    expect(point.sources?.[field], field).toBe(`successes.latency.${key}.${name}`);
  }
  expect(point[`std_${metric}_ms` as keyof ResultPoint]).toBeUndefined();
  // Every other percentile the summary states (p0.1, p1, p5, p10, p25, p75, p99.9) is in `percentiles`, in ms.
  const extra = Object.keys(source).filter(
    (name) => /^p\d+(\.\d+)?$/.test(name) && !["p50", "p90", "p95", "p99"].includes(name),
  );
  expect(extra.length).toBeGreaterThanOrEqual(7);
  const kept = (point.percentiles as Record<string, Record<string, number>> | undefined)?.[metric] ?? {};
  expect(Object.keys(kept).sort()).toEqual(extra.sort());
  for (const name of extra) {
    expect(kept[name], `${metric} ${name}`).toBeCloseTo(source[name]! * 1000, 9);
    expect(point.sources?.[`percentiles.${metric}.${name}`]).toBe(`successes.latency.${key}.${name}`);
  }
}

function inline(data: unknown, name = "inline/stage_0_lifecycle_metrics.json"): SourceFile {
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

describe("inference-perf: detection", () => {
  const files = fixtureFiles("inference-perf").filter((file) => !file.endsWith(".txt"));

  test.each(files)("%s is recognized by exactly one inference-perf parser and by no AIPerf parser", (file) => {
    const source = loadFixture(file);
    const expected = file.includes("prometheus") ? inferencePerfPrometheusParser : inferencePerfLifecycleParser;
    expect(detecting(source)).toEqual([expected]);
    expect(detecting(source, aiperfParsers)).toEqual([]);
  });

  it("both parsers have the inference-perf id", () => {
    for (const parser of inferencePerfParsers) expect(parser.id).toBe("inference-perf");
  });

  it("does not claim the other tools' shapes", () => {
    const others: unknown[] = [
      {
        date: "20250513-045648",
        backend: "vllm",
        request_rate: "inf",
        max_concurrency: 8,
        completed: 10,
        output_throughput: 100,
        mean_ttft_ms: 20,
      },
      { backend: "sglang", dataset_name: "random", request_rate: "Infinity", completed: 10, output_throughput: 99.5 },
      { benchmarks: [{ type_: "generative_benchmark", metrics: {} }] },
      { num_concurrent_requests: 4, results_ttft_s_mean: 0.1 },
      {
        schema_version: "1.3",
        aiperf_version: "0.11.0",
        request_throughput: { unit: "requests/sec", avg: 1 },
        input_config: {},
      },
      { records: { ttft: { unit: "ms", avg: 1 } }, input_config: {} },
      [{ build_commit: "abc", n_prompt: 512, avg_ts: 456.7 }],
      { version: "0.1", scenario: { load: {} }, results: { request_performance: {} } },
      { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] },
      // GuideLLM-like successes/failures without inference-perf's load_summary
      { successes: { count: 1, latency: { request_latency: { mean: 1 } } }, failures: { count: 0 } },
    ];
    for (const data of others) expect(detecting(inline(data)), JSON.stringify(data).slice(0, 60)).toEqual([]);
  });

  it("does not claim the other tools' fixture files", () => {
    const folders = fs
      .readdirSync(FIXTURES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "inference-perf")
      .map((entry) => entry.name);
    expect(folders).toContain("aiperf");
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
      { name: "b", kind: "json", data: [1, 2], bytes: 4 },
      { name: "c", kind: "json", data: { load_summary: 1, successes: "x", failures: null }, bytes: 4 },
      { name: "d", kind: "csv", data: [["load_summary"], ["x"]], bytes: 4 },
    ];
    for (const file of odd) for (const parser of inferencePerfParsers) expect(parser.detect(file)).toBe(false);
  });
});

describe("kubecon-na-2025-vllm: stage_N_lifecycle_metrics.json (v0.2-era report, constant-rate sweep)", () => {
  test.each(STAGES)("stage %i is one point at its requested rate, with the figures the file states", (stage) => {
    const file = stageFile(stage);
    const fragment = parseStage(file);
    const point = onlyPoint(fragment);
    expect(fragment.format).toBe("inference-perf");
    expect(fragment.file).toBe(file);
    expect(fragment.part).toBe("");

    expect(point.request_rate).toBe(at(file, "load_summary.requested_rate"));
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("load_summary.requested_rate");
    expect(point.completed).toBe(at(file, "successes.count"));
    expect(point.failed).toBe(0);
    expect(point.sources?.completed).toBe("successes.count");
    expect(point.sources?.failed).toBe("failures.count");

    for (const [key, field] of [
      ["requests_per_sec", "request_throughput"],
      ["output_tokens_per_sec", "output_throughput"],
      ["total_tokens_per_sec", "total_token_throughput"],
    ] as const) {
      expect(point[field]).toBeCloseTo(at(file, `successes.throughput.${key}`) as number, 9);
      expect(point.sources?.[field]).toBe(`successes.throughput.${key}`);
    }
    expectLatency(point, "ttft", file, "time_to_first_token");
    expectLatency(point, "e2el", file, "request_latency");
    expectLatency(point, "e2el_per_token", file, "normalized_time_per_output_token");
    // Not TPOT (stream-line timing before v0.5.0), not ITL (per-token gaps, not chunk gaps): nor their percentiles,
    // which the import report lists with the reason.
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point.mean_itl_ms).toBeUndefined();
    expect(point.percentiles?.tpot).toBeUndefined();
    expect(point.percentiles?.itl).toBeUndefined();
    expect(fragment.notImported).toContainEqual(
      expect.objectContaining({
        field: "successes.latency.time_per_output_token.p99.9",
        reason:
          "the report predates inference-perf v0.5.0, which timed stream lines or events instead of tokens, so this is not a time per output token",
      }),
    );
    expect(fragment.notImported).toContainEqual(
      expect.objectContaining({ field: "successes.latency.inter_token_latency.p25" }),
    );
    expect(point.duration_s).toBeUndefined();

    expect(fragment.context.model).toBeUndefined();
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.metadata).toEqual({
      achieved_rate: at(file, "load_summary.achieved_rate"),
      report_layout: "before v0.5 (stream-timed)",
    });
    expect(fragment.warnings).toEqual([TPOT_WARNING]);
  });

  it("stage 0 in numbers: 1 req/s, TTFT 31.1 ms, e2e 480.5 ms, 64.2 tok/s", () => {
    const point = onlyPoint(parseStage(stageFile(0)));
    expect(point.request_rate).toBe(1);
    expect(point.completed).toBe(60);
    expect(point.mean_ttft_ms).toBeCloseTo(31.12733216257766, 9);
    // biome-ignore lint/correctness/noPrecisionLoss: the figure as the file writes it
    expect(point.mean_e2el_ms).toBeCloseTo(480.48226445680486, 9);
    expect(point.p99_e2el_per_token_ms).toBeCloseTo(10.64582721341003, 9);
    expect(point.output_throughput).toBeCloseTo(64.23350089997027, 9);
    // time_to_first_token.p99.9 = 0.040956884782877775 s; request_latency.p0.1 = 0.4726674221145222 s.
    expect(point.percentiles?.ttft?.["p99.9"]).toBeCloseTo(40.95688478287777, 9);
    expect(point.percentiles?.e2el?.["p0.1"]).toBeCloseTo(472.6674221145222, 9);
    expect(point.percentiles?.e2el_per_token?.p75).toBeCloseTo(7.612397971411516, 9);
    // The file's TPOT (3.47 ms) is half of (e2e − TTFT) / (output − 1) ≈ 7.2 ms: stream lines, not tokens.
    const implied = (0.48048226445680486 - 0.03112733216257766) / (63.15 - 1);
    expect((at(stageFile(0), "successes.latency.time_per_output_token.mean") as number) / implied).toBeLessThan(0.5);
  });

  it("the seven stages are seven distinct request rates", () => {
    const rates = STAGES.map((stage) => onlyPoint(parseStage(stageFile(stage))).request_rate);
    expect(rates).toEqual([1, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38]);
  });

  it("summary_lifecycle_metrics.json covers every stage at once: recognized, nothing to import", () => {
    const source = loadFixture(`${DIR}/summary_lifecycle_metrics.json`);
    expect(detecting(source)).toEqual([inferencePerfLifecycleParser]);
    expect(at(`${DIR}/summary_lifecycle_metrics.json`, "successes.count")).toBe(38717);
    expect(inferencePerfLifecycleParser.parse(source)).toEqual([]);
  });

  test.each(STAGES)(
    "stage_%s_prometheus_metrics.json (the server's own metrics, an early 2025 layout) is a supplement for stage N's point",
    (stage) => {
      const file = `${DIR}/stage_${stage}_prometheus_metrics.json`;
      const source = loadFixture(file);
      expect(detecting(source)).toEqual([inferencePerfPrometheusParser]);
      const fragments = inferencePerfPrometheusParser.parse(source);
      expect(fragments).toHaveLength(1);
      const fragment = fragments[0]!;
      expect(fragment.points).toEqual([]);
      const supplement = fragment.supplement!;
      expect(supplement.pairKey).toBe(`${DIR}/stage_${stage}`);
      expect(supplement.serverRequests).toBe(at(file, "successes.count"));
      // The layout before inference-perf's February 2026 metrics: time_per_output_token came from
      // vllm:time_per_output_token_seconds, which observed every gap between tokens: an ITL.
      expect(supplement.figures).toEqual({
        server_waiting_requests_mean: at(file, "successes.queue_len.mean"),
        server_mean_ttft_ms: (at(file, "successes.time_to_first_token.mean") as number) * 1000,
        server_mean_itl_ms: (at(file, "successes.time_per_output_token.mean") as number) * 1000,
      });
      expect(supplement.sources.server_mean_itl_ms).toBe(
        `stage_${stage}_prometheus_metrics.json: successes.time_per_output_token.mean`,
      );
      // Zeros that cannot be true, and a key that meant something else then, are left out and said.
      expect(fragment.warnings).toEqual([
        "inference-perf Prometheus report: successes.kv_cache_usage_percentage not imported: it is 0 while the server completed requests, which is how inference-perf writes a query that found nothing (the metric is not exposed under the name it asked for)",
        "inference-perf Prometheus report: successes.num_preemptions_total not imported: before inference-perf's February 2026 layout it is the mean, over the stage's window, of vLLM's cumulative preemption counter (preemptions since the server started), not preemptions during the stage",
        "inference-perf Prometheus report: successes.prefix_cache_hit_percent not imported: it is 0, which inference-perf writes both when no prompt token was looked up and when the prefix-cache counters could not be read",
      ]);
    },
  );

  it("summary_prometheus_metrics.json spans every stage: recognized, not imported", () => {
    const source = loadFixture(`${DIR}/summary_prometheus_metrics.json`);
    expect(detecting(source)).toEqual([inferencePerfPrometheusParser]);
    expect(inferencePerfPrometheusParser.parse(source)).toEqual([]);
  });
});

describe("the 2026 Prometheus layout (hand-made, inference-perf #348 keys)", () => {
  const FOLDER = "inference-perf/hand-made-2026-report";
  const files = ["stage_0_lifecycle_metrics.json", "stage_0_prometheus_metrics.json"].map((name) => ({
    name: `${FOLDER}/${name}`,
    bytes: fs.readFileSync(path.join(FIXTURES_DIR, FOLDER, name)),
  }));

  it("merges the stage's server figures into its point: requests running and waiting, KV cache, preemptions, prefix cache, engine TTFT, TPOT and ITL", () => {
    const parsed = readUploads(files, inferencePerfParsers);
    expect(parsed.fragments).toHaveLength(1);
    expect(parsed.skipped).toEqual([]);
    const point = parsed.fragments[0]!.points[0]!;
    const file = `${FOLDER}/stage_0_prometheus_metrics.json`;
    expect(point).toMatchObject({
      concurrency: 16,
      completed: 398,
      server_waiting_requests_mean: 3.2,
      server_running_requests_mean: 12.8,
      server_kv_cache_usage_mean: 0.41,
      // The increase of vllm:num_preemptions over the stage: preemptions during it.
      server_preemptions: 3,
      server_prefix_cache_hit_rate: 0.375,
    });
    expect(point.server_mean_ttft_ms).toBeCloseTo((at(file, "successes.time_to_first_token.mean") as number) * 1000, 9);
    // From #348 on, time_per_output_token is vllm:request_time_per_output_token_seconds: per request, vLLM's TPOT.
    expect(point.server_mean_tpot_ms).toBeCloseTo(8.7, 9);
    expect(point.server_mean_itl_ms).toBeCloseTo(8.5, 9);
    // A p99 of the gauge is not its maximum: no max is imported.
    expect(point.server_kv_cache_usage_max).toBeUndefined();
    expect(point.sources?.server_preemptions).toBe(
      "stage_0_prometheus_metrics.json: successes.num_preemptions_total.mean",
    );
    // The client's figures keep their own sources.
    expect(point.sources?.completed).toBe("successes.count");
    expect(parsed.fragments[0]!.warnings).toEqual([]);
  });

  it("a stage's Prometheus report without its lifecycle report is skipped, saying why", () => {
    const parsed = readUploads([files[1]!], inferencePerfParsers);
    expect(parsed.fragments).toEqual([]);
    expect(parsed.skipped).toEqual([
      {
        file: `${FOLDER}/stage_0_prometheus_metrics.json`,
        format: "inference-perf",
        reason:
          "server-side figures with no client-side file of the same load level beside it to attach them to (stage_0)",
      },
    ]);
  });
});

describe("hand-made v0.6 report: a concurrent-load stage", () => {
  const fragment = parseStage(V06);
  const point = onlyPoint(fragment);

  it("is filed under its concurrency; the stage's requested_rate (its request count) is not a rate", () => {
    expect(point.concurrency).toBe(16);
    expect(point.sources?.concurrency).toBe("load_summary.concurrency");
    expect(point.request_rate).toBeUndefined();
    expect(at(V06, "load_summary.requested_rate")).toBe(400);
  });

  it("imports TPOT from the token-timed time_per_output_token, and the v0.5+ totals and duration", () => {
    expectLatency(point, "tpot", V06, "time_per_output_token");
    expectLatency(point, "ttft", V06, "time_to_first_token");
    expectLatency(point, "e2el", V06, "request_latency");
    expectLatency(point, "e2el_per_token", V06, "normalized_time_per_output_token");
    expect(point.mean_tpot_ms).toBeCloseTo(8.9, 9);
    expect(point.mean_itl_ms).toBeUndefined();
    expect(point.duration_s).toBeCloseTo(62.4137, 9);
    expect(point.sources?.duration_s).toBe("benchmark_time_seconds");
    expect(point.total_input_tokens).toBe(81592);
    expect(point.sources?.total_input_tokens).toBe("successes.prompt_tokens.total");
    expect(point.total_output_tokens).toBe(101888);
    expect(point.sources?.total_output_tokens).toBe("successes.output_tokens.total");
    expect(point.completed).toBe(398);
    expect(point.failed).toBe(2);
    expect(point.output_throughput).toBeCloseTo(1632.4418, 9);
    expect(fragment.warnings).toEqual([]);
    expect(fragment.context.metadata).toEqual({ achieved_rate: 7.2450642, report_layout: "v0.5+ (token-timed)" });
  });
});

describe("hand-made traps", () => {
  it("every request failed: no figures, a warning, never 0 tok/s", () => {
    const fragment = parseStage(ALL_FAILED);
    const point = onlyPoint(fragment);
    expect(point.request_rate).toBe(1);
    expect(point.completed).toBe(0);
    expect(point.failed).toBe(25);
    expect(point.output_throughput).toBeUndefined();
    expect(point.request_throughput).toBeUndefined();
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(fragment.warnings).toEqual([
      `${ALL_FAILED}: no request completed (25 failed); its figures are stored as no data.`,
    ]);
  });

  const stage = (patch: (report: Raw) => void): SourceFile => {
    const report = structuredClone(raw(stageFile(1)));
    patch(report);
    return inline(report);
  };

  it("numbers written as strings are read; a NaN statistic is no data with a warning", () => {
    const source = stage((report) => {
      (report.load_summary as Raw).requested_rate = "31.4";
      ((report.successes as Raw).throughput as Raw).output_tokens_per_sec = "1,943.0109854644684";
      (((report.successes as Raw).latency as Raw).time_to_first_token as Raw).p99 = "NaN";
    });
    const [fragment] = inferencePerfLifecycleParser.parse(source);
    const point = fragment!.points[0]!;
    expect(point.request_rate).toBe(31.4);
    expect(point.output_throughput).toBeCloseTo(1943.0109854644684, 9);
    expect(point.p99_ttft_ms).toBeUndefined();
    expect(point.p95_ttft_ms).toBeCloseTo(38.19209508947097, 9);
    expect(fragment!.warnings).toContain(
      "inline/stage_0_lifecycle_metrics.json: successes.latency.time_to_first_token.p99 is NaN; stored as no data.",
    );
  });

  it("a broken figure throws a FormatError naming its path", () => {
    const cases: Array<[(report: Raw) => void, string]> = [
      [(report) => ((report.successes as Raw).count = { n: 1884 }), "successes.count"],
      [
        (report) => ((((report.successes as Raw).latency as Raw).time_to_first_token as Raw).mean = [0.03]),
        "successes.latency.time_to_first_token.mean",
      ],
      [
        (report) => (((report.successes as Raw).latency as Raw).request_latency = 0.5),
        "successes.latency.request_latency",
      ],
      [(report) => ((report.load_summary as Raw).requested_rate = "fast"), "load_summary.requested_rate"],
      [(report) => ((report.load_summary as Raw).concurrency = 2.5), "load_summary.concurrency"],
      [(report) => ((report.failures as Raw).count = "none"), "failures.count"],
    ];
    for (const [patch, where] of cases) {
      const source = stage(patch);
      expect(inferencePerfLifecycleParser.detect(source), where).toBe(true);
      expect(formatErrorOf(() => inferencePerfLifecycleParser.parse(source)).path).toBe(where);
    }
  });
});

describe("upload pipeline", () => {
  it("the report folder becomes seven points with their stages' server figures; the two summaries are skipped", () => {
    const files = fixtureFiles(DIR).map((file) => ({
      name: file,
      bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)),
    }));
    const parsed = readUploads(files, inferencePerfParsers);
    expect(parsed.fragments).toHaveLength(7);
    expect(
      parsed.fragments.map((fragment) => fragment.points[0]!.request_rate).sort((a, b) => Number(a) - Number(b)),
    ).toEqual([1, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38]);
    expect(parsed.skipped.map((skip) => path.basename(skip.file)).sort()).toEqual([
      "summary_lifecycle_metrics.json",
      "summary_prometheus_metrics.json",
    ]);
    for (const stage of STAGES) {
      const fragment = parsed.fragments.find((candidate) =>
        candidate.file.endsWith(`stage_${stage}_lifecycle_metrics.json`),
      )!;
      const point = fragment.points[0]!;
      const prometheus = `${DIR}/stage_${stage}_prometheus_metrics.json`;
      expect(point.request_rate).toBe(at(stageFile(stage), "load_summary.requested_rate"));
      expect(point.server_waiting_requests_mean).toBe(at(prometheus, "successes.queue_len.mean"));
      expect(point.server_mean_ttft_ms).toBeCloseTo(
        (at(prometheus, "successes.time_to_first_token.mean") as number) * 1000,
        9,
      );
    }
    // The server's count over stage 0's window is not the stage's 60 requests: the figures are kept, and the
    // run says they may include other traffic.
    const first = parsed.fragments.find((fragment) => fragment.file.endsWith("stage_0_lifecycle_metrics.json"))!;
    expect(at(stageFile(0), "successes.count")).toBe(60);
    expect(first.warnings).toContain(
      `The server counted other numbers of requests over these load levels' windows than the client completed (server vs client: ${DIR}/stage_0_prometheus_metrics.json: 937 vs 60; ${DIR}/stage_1_prometheus_metrics.json: 4071 vs 1884; ${DIR}/stage_2_prometheus_metrics.json: 7458 vs 3707; ${DIR}/stage_3_prometheus_metrics.json: 10938 vs 5531; ${DIR}/stage_4_prometheus_metrics.json: 14849 vs 7355; ${DIR}/stage_5_prometheus_metrics.json: 18353 vs 9178; and 1 more): its figures there may include other traffic or a wider window than the level's.`,
    );
  });
});
