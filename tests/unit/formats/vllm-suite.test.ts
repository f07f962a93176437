import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { AppError } from "@/lib/errors";
import { decodeAsText, decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { isSuiteMarkdown, testFamily, vllmSuiteJsonParser, vllmSuiteMarkdownParser } from "@/lib/formats/vllm-suite";
import { FIXTURES_DIR, fixtureFiles } from "./fixtures";

type Doc = {
  results: ResultPoint[];
  not_imported?: { field: string; value: unknown; reason: string }[];
  metadata?: Record<string, unknown>;
  engine?: string;
  model?: string;
  name?: string;
  flags?: Record<string, unknown>;
  workload?: Record<string, unknown>;
  source_format: string;
};

const REAL = "vllm-suite/deepseek-v2.5-tp8-pp2-ib";

function bytes(file: string): Buffer {
  return fs.readFileSync(path.join(FIXTURES_DIR, file));
}

function upload(file: string, split = false): Doc[] {
  const parsed = readUploads([{ name: file, bytes: bytes(file) }], FORMAT_PARSERS);
  const plan = planRuns(parsed, { split });
  if (!split) expect(plan.conflicts).toEqual([]);
  return plan.runs.map((run) => run.document as unknown as Doc);
}

function byRate(points: ResultPoint[], rate: number | "inf"): ResultPoint {
  const point = points.find((candidate) => candidate.request_rate === rate);
  if (!point) throw new Error(`no point at request rate ${rate}`);
  return point;
}

describe("vLLM performance benchmark suite: benchmark_results.md (real, DeepSeek-V2.5 TP8 PP2 over InfiniBand)", () => {
  const docs = upload(`${REAL}/benchmark_results.md`);

  it("is read as the suite's markdown report, not as the JSON block it restates", () => {
    const source = decodeAsText("benchmark_results.md", bytes(`${REAL}/benchmark_results.md`));
    expect(source && vllmSuiteMarkdownParser.detect(source)).toBe(true);
    expect(docs).toHaveLength(1);
    expect(docs[0]?.source_format).toBe("vllm-benchmark-suite");
  });

  it("files the four QPS rows of one test family as one run, the level from the test name (01 → 1 req/s, inf)", () => {
    const doc = docs[0]!;
    expect(doc.name).toBe("serving_deepseek-ai-DeepSeek-V2.5_tp8_pp2_sharegpt");
    expect(doc.engine).toBe("vllm");
    expect(doc.results.map((point) => point.request_rate)).toEqual([1, 4, 16, "inf"]);
    expect(doc.results.every((point) => point.concurrency === undefined)).toBe(true);
    expect(byRate(doc.results, 1).sources?.request_rate).toBe("Test name (_qps_01)");
    expect(byRate(doc.results, "inf").sources?.request_rate).toBe("Test name (_qps_inf)");
  });

  it("keeps the table's figures as printed, each under its column title", () => {
    const qps1 = byRate(docs[0]!.results, 1);
    expect(qps1).toMatchObject({
      completed: 200,
      request_throughput: 0.651377,
      output_throughput: 139.014,
      total_token_throughput: 292.722,
      mean_ttft_ms: 227.47,
      median_ttft_ms: 203.671,
      p99_ttft_ms: 1241.54,
      mean_tpot_ms: 137.99,
      median_tpot_ms: 137.408,
      p99_tpot_ms: 162.498,
      mean_itl_ms: 136.986,
      median_itl_ms: 128.114,
      p99_itl_ms: 278.476,
    });
    expect(qps1.sources).toMatchObject({
      output_throughput: "Output Tput (tok/s)",
      mean_ttft_ms: "Mean TTFT (ms)",
      median_tpot_ms: "Median TPOT (ms)",
      total_token_throughput: "Total Tput (tok/s)",
    });
    const inf = byRate(docs[0]!.results, "inf");
    expect(inf).toMatchObject({ output_throughput: 335.703, mean_ttft_ms: 1838.06, p99_tpot_ms: 471.125 });
  });

  it("keeps the GPU column as written, and reports the restated JSON block instead of dropping it", () => {
    expect(docs[0]?.metadata?.gpu).toBe("1xib-Standard_ND96asr_v4 x 2");
    const restated = docs[0]?.not_imported?.find((entry) => entry.field.includes("json version"));
    expect(restated?.reason).toMatch(/same rows as the markdown tables/);
  });
});

describe("vLLM performance benchmark suite: benchmark_results.json (real, the same run)", () => {
  const docs = upload(`${REAL}/benchmark_results.json`);

  it("has the unrounded figures of the same rows", () => {
    expect(docs).toHaveLength(1);
    const doc = docs[0]!;
    expect(doc.results.map((point) => point.request_rate)).toEqual([1, 4, 16, "inf"]);
    const qps16 = byRate(doc.results, 16);
    expect(qps16.output_throughput).toBe(311.0185948961913);
    expect(qps16.mean_ttft_ms).toBe(239.2556627650265);
    expect(qps16.median_tpot_ms).toBe(169.58904850702328);
    // The markdown table prints the same figure rounded to 6 significant digits.
    expect(qps16.output_throughput).toBeCloseTo(311.019, 3);
    expect(doc.not_imported ?? []).toEqual([]);
  });

  it("is claimed by the JSON parser only", () => {
    const source = decodeText("benchmark_results.json", bytes(`${REAL}/benchmark_results.json`).toString("utf8"));
    expect(FORMAT_PARSERS.filter((parser) => parser.detect(source)).map((parser) => parser.label)).toEqual([
      vllmSuiteJsonParser.label,
    ]);
  });
});

describe("vLLM performance benchmark suite: the newer columns (hand-made from convert-results-json-to-markdown.py)", () => {
  for (const file of ["vllm-suite/hand-made-newer-columns.md", "vllm-suite/hand-made-newer-columns.json"]) {
    it(`${file}: the qps and max concurrency columns are the level; TP tells the two families apart`, () => {
      const parsed = readUploads([{ name: file, bytes: bytes(file) }], FORMAT_PARSERS);
      // Two configurations (TP 1 and TP 2) in one report: refused as one run, stored as two when split.
      expect(planRuns(parsed, { split: false }).conflicts[0]).toMatch(
        /--tensor-parallel-size 1.*--tensor-parallel-size 2/,
      );
      const docs = upload(file, true);
      expect(docs).toHaveLength(2);
      const tp1 = docs.find((doc) => doc.flags?.["--tensor-parallel-size"] === "1")!;
      const tp2 = docs.find((doc) => doc.flags?.["--tensor-parallel-size"] === "2")!;
      expect(tp1.name).toMatch(/^serving_llama8B_tp1_random/);
      expect(tp1.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
      expect(tp1.flags).toEqual({
        "--tensor-parallel-size": "1",
        "--pipeline-parallel-size": "1",
        "--dtype": "bfloat16",
      });
      expect(tp1.workload).toEqual({ dataset: "random", input_len: 1024, output_len: 128 });
      expect(tp1.results.map((point) => [point.concurrency, point.request_rate])).toEqual([
        [16, "inf"],
        [64, "inf"],
      ]);
      const c64 = tp1.results.find((point) => point.concurrency === 64)!;
      expect(c64.sources?.concurrency).toBe("# of max concurrency.");
      expect(c64.sources?.request_rate).toBe("qps");
      // The script titles the TPOT median and p99 only "Median" and "P99".
      expect(c64).toMatchObject({
        completed: 640,
        output_throughput: 2432.43,
        total_token_throughput: 21891.9,
        std_ttft_ms: 176.225,
        mean_tpot_ms: 24.8813,
        median_tpot_ms: 24.7021,
        p99_tpot_ms: 27.9904,
        std_tpot_ms: 1.20471,
      });
      expect(c64.sources?.median_tpot_ms).toBe("Median");
      expect(c64.sources?.p99_tpot_ms).toBe("P99");
      expect(tp2.results).toHaveLength(1);
      expect(tp2.results[0]).toMatchObject({ concurrency: 16, output_throughput: 1277.84 });
    });

    it(`${file}: the offline latency and throughput rows are reported, not made into points`, () => {
      const docs = upload(file, true);
      const report = docs.flatMap((doc) => doc.not_imported ?? []);
      const latency = report.find((entry) => entry.value === 1125.43);
      expect(latency?.reason).toMatch(/offline test/);
      const throughput = report.find((entry) => entry.value === 9099.01);
      expect(throughput?.reason).toMatch(/offline test/);
      for (const doc of docs) expect(doc.results.some((point) => point.output_throughput === 9099.01)).toBe(false);
    });
  }

  it("reports the platform table's numbers", () => {
    const docs = upload("vllm-suite/hand-made-newer-columns.md", true);
    const cores = docs[0]?.not_imported?.find((entry) => entry.field.endsWith("Total cores"));
    expect(cores).toMatchObject({ value: 104 });
    expect(cores?.reason).toMatch(/platform table/);
  });
});

describe("vLLM performance benchmark suite: traps", () => {
  it("refuses a serving row with no load level anywhere, naming its test name", () => {
    const file = "vllm-suite/hand-made-broken-no-level.json";
    expect(() => readUploads([{ name: file, bytes: bytes(file) }], FORMAT_PARSERS)).toThrow(AppError);
    try {
      readUploads([{ name: file, bytes: bytes(file) }], FORMAT_PARSERS);
    } catch (error) {
      expect((error as AppError).code).toBe("validation_failed");
      expect((error as AppError).message).toMatch(/\[0\]\.Test name: no load level/);
    }
  });

  it("strips only the level from a test name", () => {
    expect(testFamily("serving_llama8B_tp1_sharegpt_qps_16")).toBe("serving_llama8B_tp1_sharegpt");
    expect(testFamily("serving_llama8B_tp1_random_qps_inf_concurrency_64")).toBe("serving_llama8B_tp1_random");
    expect(testFamily("serving_llama8B_tp1_sharegpt_qps_4_in_1024")).toBe("serving_llama8B_tp1_sharegpt_in_1024");
  });

  it("claims no llama-bench markdown table nor any other tool's printed report", () => {
    const others = [
      ...fixtureFiles("llama-bench"),
      ...fixtureFiles("trtllm"),
      ...fixtureFiles("vllm"),
      ...fixtureFiles("sglang"),
    ];
    let texts = 0;
    for (const file of others) {
      const text = decodeAsText(file, bytes(file));
      if (!text) continue;
      texts += 1;
      expect(isSuiteMarkdown(String(text.data)), file).toBe(false);
      expect(vllmSuiteMarkdownParser.detect(text), file).toBe(false);
    }
    expect(texts).toBeGreaterThan(10);
  });

  it("claims no JSON list of another tool", () => {
    const list = decodeText("x.json", JSON.stringify([{ test: "pp512", model: "m", "t/s": 12 }]));
    expect(vllmSuiteJsonParser.detect(list)).toBe(false);
    const names = decodeText("y.json", JSON.stringify([{ "Test name": "a" }]));
    expect(vllmSuiteJsonParser.detect(names)).toBe(false);
  });
});
