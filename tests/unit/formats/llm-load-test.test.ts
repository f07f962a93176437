import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { llmLoadTestParser } from "@/lib/formats/llm-load-test";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture } from "./fixtures";

const OUTPUT = "llm-load-test/output.json";

interface Raw {
  config: { plugin_options: Record<string, unknown>; load_options: Record<string, unknown> };
  summary: Record<string, unknown>;
}

/** The fixture's text with some JSON edits; Python's bare NaN survives as the placeholder "__NaN__". */
function variant(edit: (raw: Raw) => void, name = "output-002.json"): SourceFile {
  const text = fs.readFileSync(path.join(FIXTURES_DIR, OUTPUT), "utf8").replace(/\bNaN\b/g, '"__NaN__"');
  const raw = JSON.parse(text) as Raw;
  edit(raw);
  return decodeText(name, JSON.stringify(raw, null, 2).replace(/"__NaN__"/g, "NaN"));
}

function parseError(file: SourceFile): FormatError {
  try {
    llmLoadTestParser.parse(file);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected a FormatError");
}

describe("llm-load-test output.json (non-streaming, concurrency 2, 30 s, NaN statistics)", () => {
  const file = loadFixture(OUTPUT);
  const [fragment] = llmLoadTestParser.parse(file);
  const point = fragment!.points[0]!;

  it("is detected and is one point at the configured concurrency", () => {
    expect(llmLoadTestParser.detect(file)).toBe(true);
    expect(fragment?.format).toBe("llm-load-test");
    expect(fragment?.points).toHaveLength(1);
    expect(point.concurrency).toBe(2);
    expect(point.request_rate).toBeUndefined();
    expect(point.sources?.concurrency).toBe("config.load_options.concurrency");
  });

  it("reads the request counts and the throughput over the requests' real duration", () => {
    expect(point.completed).toBe(36);
    expect(point.failed).toBe(0);
    expect(point.output_throughput).toBe(54.9520303880812);
    expect(point.sources?.output_throughput).toBe("summary.throughput_full_duration");
    expect(point.duration_s).toBe(31.136247158050537);
    // 36 requests / 31.136247158050537 s
    expect(point.request_throughput).toBeCloseTo(1.156209, 6);
    // throughput_full_duration × full_duration = 54.952 × 31.136 = 1711 tokens, the sum over the results
    expect(point.total_output_tokens).toBe(1711);
    expect(point.total_input_tokens).toBe(3062);
  });

  it("stores its tpot (response time / output tokens) as e2el_per_token, never as TPOT", () => {
    expect(point.mean_e2el_per_token_ms).toBe(37.82829892563885);
    expect(point.median_e2el_per_token_ms).toBe(35.59918197474085);
    expect(point.p99_e2el_per_token_ms).toBe(54.91224527359009);
    expect(point.percentiles?.e2el_per_token).toEqual({ p80: 41.002436117692426 });
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point.median_tpot_ms).toBeUndefined();
  });

  it("reads response_time as end-to-end latency, in ms", () => {
    expect(point.mean_e2el_ms).toBe(1707.1980569097732);
    expect(point.median_e2el_ms).toBe(1815.2185678482056);
    expect(point.p90_e2el_ms).toBe(2625.767230987549);
    expect(point.p95_e2el_ms).toBe(2920.8669662475586);
    expect(point.p99_e2el_ms).toBe(3267.7210688591003);
    expect(point.percentiles?.e2el).toEqual({ p80: 2205.724000930786 });
  });

  it("has no TTFT: the run did not stream, and says so once instead of per NaN figure", () => {
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(fragment?.warnings).toHaveLength(1);
    expect(fragment?.warnings[0]).toMatch(/did not stream/);
  });

  it("keeps the configuration it ran with in the context", () => {
    expect(fragment?.context.model).toBeUndefined();
    expect(fragment?.context.workload?.dataset).toBe("openorca_large_subset_011.jsonl");
    const metadata = fragment?.context.metadata ?? {};
    expect(metadata.model_name).toBe("/mnt/models/");
    expect(metadata.load_duration_s).toBe(30);
    expect(metadata.streaming).toBe(false);
    expect(metadata.dataset_max_output_tokens).toBe(100);
    expect(metadata.uuid).toBe("ABCDEFGH-0123-4567-9910-ABCDEFGH1234");
  });

  it("goes through the upload pipeline, its `results` list not taken for a run document", () => {
    const parsed = readUploads(
      [{ name: OUTPUT, bytes: fs.readFileSync(path.join(FIXTURES_DIR, OUTPUT)) }],
      FORMAT_PARSERS,
    );
    expect(parsed.documents).toEqual([]);
    expect(parsed.fragments).toHaveLength(1);
    const report = [...(parsed.fragments[0]?.notImported ?? []), ...(parsed.fragments[0]?.fileNotImported ?? [])];
    const throughput = report.find((entry) => entry.field === "summary.throughput");
    expect(throughput?.value).toBe(57.03333333333333);
    expect(throughput?.reason).toMatch(/configured duration/);
    expect(report.find((entry) => entry.field === "summary.tt_ack.min")).toBeUndefined(); // NaN: no figure
    expect(report.find((entry) => entry.field === "results[*].response_time")?.value).toBe(
      "36 values, 439.008 to 3298.56",
    );
  });
});

describe("llm-load-test output, streaming (the fixture made to stream)", () => {
  const file = variant((raw) => {
    raw.config.plugin_options.streaming = true;
    raw.config.plugin_options.model_name = "granite-3.1-8b-instruct";
    raw.summary.ttft = {
      min: 50,
      max: 400,
      median: 120,
      mean: 150.5,
      percentile_80: 200,
      percentile_90: 250,
      percentile_95: 300,
      percentile_99: 390,
    };
    raw.summary.itl = {
      min: 20,
      max: 40,
      median: 25,
      mean: 26.5,
      percentile_80: 30,
      percentile_90: 33,
      percentile_95: 35,
      percentile_99: 39,
    };
  });
  const [fragment] = llmLoadTestParser.parse(file);
  const point = fragment!.points[0]!;

  it("stores its itl, (end − first token) / (tokens − 1), as TPOT and its ttft as TTFT", () => {
    expect(point.mean_tpot_ms).toBe(26.5);
    expect(point.median_tpot_ms).toBe(25);
    expect(point.p99_tpot_ms).toBe(39);
    expect(point.sources?.mean_tpot_ms).toBe("summary.itl.mean");
    expect(point.percentiles?.tpot).toEqual({ p80: 30 });
    expect(point.mean_ttft_ms).toBe(150.5);
    expect(point.p95_ttft_ms).toBe(300);
    expect(point.mean_itl_ms).toBeUndefined();
    expect(fragment?.context.model).toBe("granite-3.1-8b-instruct");
  });

  it("warns for each NaN figure when a streaming run still has some", () => {
    const [nan] = llmLoadTestParser.parse(
      variant((raw) => {
        raw.config.plugin_options.streaming = true;
      }),
    );
    expect(nan?.warnings.some((warning) => /summary\.ttft\.mean is NaN/.test(warning))).toBe(true);
    expect(nan?.points[0]?.mean_ttft_ms).toBeUndefined();
  });
});

describe("llm-load-test output: refusals and detection", () => {
  it("refuses a file without a summary (the draft of version 2)", () => {
    const error = parseError(variant((raw) => Reflect.deleteProperty(raw, "summary")));
    expect(error.path).toBe("summary");
  });

  it("refuses a list of concurrencies, which no single output file is measured at", () => {
    const error = parseError(variant((raw) => (raw.config.load_options.concurrency = [1, 2, 4])));
    expect(error.path).toBe("config.load_options.concurrency");
  });

  it("claims no other tool's fixture", () => {
    const others = fs
      .readdirSync(FIXTURES_DIR)
      .filter((folder) => folder !== "llm-load-test" && fs.statSync(path.join(FIXTURES_DIR, folder)).isDirectory())
      .flatMap((folder) => fixtureFiles(folder));
    for (const other of others) {
      let source: SourceFile | null = null;
      try {
        source = loadFixture(other);
      } catch {
        source = null;
      }
      if (source) expect(llmLoadTestParser.detect(source), other).toBe(false);
    }
  });
});
