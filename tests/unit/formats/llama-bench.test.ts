import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { llamaBenchParser, MAX_TEST_SPEEDS } from "@/lib/formats/llama-bench";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FormatError, type Fragment, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

type Raw = Record<string, unknown>;

const CONCURRENCY_SOURCE = "single sequence (llama-bench runs one sequence per test)";

const JSON_FIXTURES = [
  {
    file: "llama-bench/amd-7900xtx/rocm-7.12/gpt-oss-20b-q8_0-q8_0-20260206.json",
    version: "b7951 (01ec0cc)",
    gpu: "AMD Radeon RX 7900 XTX",
    backends: "ROCm 7.12",
    cpu: "AMD Ryzen 9 7950X 16-Core Processor",
    // The values of the file's tests, as it states them.
    tg128: 168.128437,
    tg128Stddev: 0.276733,
    tg128AvgMs: 761.3241,
    tg128StddevMs: 1.252471,
    pp512: 1847.25974,
    tg128d4096: 154.748149,
    pp512d4096: 1591.810938,
    pp8192d8192: 1751.265918,
    earliest: "2026-02-06T06:07:29.000Z",
  },
  {
    file: "llama-bench/amd-8060s/vulkan-radv/gpt-oss-20b-q8_0-q8_0-20260206.json",
    version: "b7951 (3967fad)",
    gpu: "Radeon 8060S Graphics",
    backends: "Vulkan RADV",
    cpu: undefined,
    tg128: 79.537445,
    tg128Stddev: 0.320158,
    tg128AvgMs: 1609.322278,
    tg128StddevMs: 6.472641,
    pp512: 1607.218293,
    tg128d4096: 74.817762,
    pp512d4096: 1290.945267,
    pp8192d8192: 1132.98116,
    earliest: "2026-02-06T06:21:19.000Z",
  },
] as const;

/** The metadata key of a test's speed, written the way the parser labels tests. */
function speedKey(raw: Raw): string {
  const p = Number(raw.n_prompt);
  const g = Number(raw.n_gen);
  const d = raw.n_depth === undefined ? 0 : Number(raw.n_depth);
  const shape = g === 0 ? `pp${p}` : p === 0 ? `tg${g}` : `pp${p}+tg${g}`;
  return `${d ? `${shape}@d${d}` : shape}_tok_s`;
}

function speedKeys(fragment: Fragment): string[] {
  return Object.keys(fragment.context.metadata ?? {}).filter((key) => key.endsWith("_tok_s"));
}

function parseError(file: SourceFile): FormatError {
  try {
    llamaBenchParser.parse(file);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected a FormatError");
}

function upload(name: string) {
  return readUploads([{ name, bytes: fs.readFileSync(path.join(FIXTURES_DIR, name)) }], FORMAT_PARSERS);
}

describe("llama-bench -o json (real files, 84 tests each)", () => {
  for (const fixture of JSON_FIXTURES) {
    describe(fixture.file, () => {
      const file = loadFixture(fixture.file);
      const raw = readFixtureJson(fixture.file) as Raw[];
      const fragments = llamaBenchParser.parse(file);
      const fragment = fragments[0]!;
      const metadata = fragment.context.metadata ?? {};

      it("is detected", () => {
        expect(file.kind).toBe("json");
        expect(llamaBenchParser.detect(file)).toBe(true);
      });

      it("gives one fragment: all 84 tests share one launch configuration", () => {
        expect(raw).toHaveLength(84);
        expect(fragments).toHaveLength(1);
        expect(fragment.format).toBe("llama-bench");
        expect(fragment.file).toBe(fixture.file);
        expect(fragment.part).toBe("");
        expect(fragment.warnings).toEqual([]);
        expect(metadata.tests).toBe(84);
      });

      it("has one point, C=1, whose output throughput is the tg128 test at depth 0", () => {
        const rawTg128 = raw.find((record) => record.n_prompt === 0 && record.n_gen === 128 && record.n_depth === 0)!;
        expect(rawTg128.avg_ts).toBe(fixture.tg128);
        expect(fragment.points).toEqual([
          {
            concurrency: 1,
            output_throughput: fixture.tg128,
            sources: { concurrency: CONCURRENCY_SOURCE, output_throughput: "avg_ts" },
          },
        ]);
        expect(metadata.single_stream_test).toBe("tg128");
        expect(metadata.output_tok_s_stddev).toBe(fixture.tg128Stddev);
        expect(metadata.output_tok_s_stddev).toBe(rawTg128.stddev_ts);
        expect(metadata.single_stream_avg_ms).toBe(fixture.tg128AvgMs);
        expect(metadata.single_stream_stddev_ms).toBe(fixture.tg128StddevMs);
        expect(metadata.repetitions).toBe(3);
        expect(fragment.context.workload).toEqual({ output_len: 128 });
      });

      it("keeps every test's speed as <label>_tok_s metadata, equal to the file's avg_ts", () => {
        expect(metadata.pp512_tok_s).toBe(fixture.pp512);
        expect(metadata.tg128_tok_s).toBe(fixture.tg128);
        expect(metadata["tg128@d4096_tok_s"]).toBe(fixture.tg128d4096);
        expect(metadata["pp512@d4096_tok_s"]).toBe(fixture.pp512d4096);
        expect(metadata["pp8192@d8192_tok_s"]).toBe(fixture.pp8192d8192);
        expect(speedKeys(fragment)).toHaveLength(84);
        for (const record of raw) expect(metadata[speedKey(record)], speedKey(record)).toBe(record.avg_ts);
      });

      it("drops the per-test timing and shape keys, and never derives a latency", () => {
        for (const key of [
          "avg_ms",
          "stddev_ms",
          "test",
          "n_prompt",
          "n_gen",
          "n_depth",
          "prompt_tok_s",
          "prompt_tok_s_stddev",
        ]) {
          expect(metadata[key], key).toBeUndefined();
        }
        expect(Object.keys(fragment.points[0]!).filter((key) => key.endsWith("_ms"))).toEqual([]);
        // 84 speeds + 11 other keys, under the run document's 200 (the pipeline adds source_files).
        expect(Object.keys(metadata)).toHaveLength(95);
      });

      it("carries engine, build, model, GPU, the earliest test time and the launch options as flags (no -d)", () => {
        const context = fragment.context;
        expect(context.engine).toBe("llama.cpp");
        expect(context.engine_version).toBe(fixture.version);
        expect(context.model).toBe("gpt-oss-20b-mxfp4");
        expect(context.name).toBe("llama-bench · gpt-oss-20b-mxfp4");
        expect(context.hardware).toEqual({ gpu: fixture.gpu, gpu_count: 1 });
        expect(context.measured_at).toBe(fixture.earliest);
        const earliestInFile = raw.map((record) => new Date(record.test_time as string).toISOString()).sort()[0];
        expect(context.measured_at).toBe(earliestInFile);
        expect(metadata.model_type).toBe("gpt-oss 20B MXFP4 MoE");
        expect(metadata.backends).toBe(fixture.backends);
        if (fixture.cpu) expect(metadata.cpu_info).toBe(fixture.cpu);
        else expect(metadata.cpu_info).toBe(raw[0]!.cpu_info);
        expect(metadata.model_size).toBe(12096558336);
        expect(metadata.model_n_params).toBe(20914757184);
        expect(context.flags).toEqual({
          "-b": 8192,
          "-ub": 2048,
          "-ctk": "q8_0",
          "-ctv": "q8_0",
          "-t": 16,
          "-C": "0x0",
          "--cpu-strict": false,
          "--poll": 50,
          "-ngl": 99,
          "-ncmoe": 0,
          "-sm": "layer",
          "-mg": 0,
          "-nkvo": false,
          "-fa": true,
          "-dev": "auto",
          "-ts": "0.00",
          "-ot": "none",
          "-mmp": false,
          "-dio": false,
          "-embd": false,
          "-nopo": false,
          "--no-host": false,
        });
      });
    });
  }
});

describe("llama-bench -o csv (README sample, every cell a quoted string)", () => {
  const file = loadFixture("llama-bench/README-example-output.csv");
  const fragments = llamaBenchParser.parse(file);
  const metadata = fragments[0]?.context.metadata ?? {};

  it("is detected", () => {
    expect(file.kind).toBe("csv");
    expect(llamaBenchParser.detect(file)).toBe(true);
  });

  it("reads the pp512 and tg128 rows into one fragment, numbers from strings", () => {
    expect(fragments).toHaveLength(1);
    expect(fragments[0]?.part).toBe("");
    expect(fragments[0]?.points).toEqual([
      {
        concurrency: 1,
        output_throughput: 119.915244,
        sources: { concurrency: CONCURRENCY_SOURCE, output_throughput: "avg_ts" },
      },
    ]);
    expect(metadata.single_stream_test).toBe("tg128");
    expect(metadata.tg128_tok_s).toBe(119.915244);
    expect(metadata.pp512_tok_s).toBe(7285.676949);
    expect(metadata.output_tok_s_stddev).toBe(0.430617);
    expect(metadata.single_stream_avg_ms).toBe(1067.4316);
    expect(metadata.single_stream_stddev_ms).toBe(3.834831);
    expect(metadata.tests).toBe(2);
    // The CSV output has no samples_ns column, so no repetition count.
    expect(metadata.repetitions).toBeUndefined();
    expect(speedKeys(fragments[0]!)).toEqual(["pp512_tok_s", "tg128_tok_s"]);
    expect(fragments[0]?.context.workload).toEqual({ output_len: 128 });
    // The pp512 row (11:57:09) is earlier than the tg128 row (11:57:10).
    expect(fragments[0]?.context.measured_at).toBe("2025-04-24T11:57:09.000Z");
    expect(fragments[0]?.warnings).toEqual([]);
  });

  it("carries the context, with CSV cells typed like the JSON output", () => {
    const context = fragments[0]!.context;
    expect(context.engine).toBe("llama.cpp");
    expect(context.engine_version).toBe("b5163 (8cf427ff)");
    expect(context.model).toBe("Qwen2.5-7B-Instruct-Q4_K_M");
    expect(context.name).toBe("llama-bench · Qwen2.5-7B-Instruct-Q4_K_M");
    expect(context.hardware).toEqual({ gpu: "NVIDIA GeForce RTX 4080", gpu_count: 1 });
    expect(metadata.model_size).toBe(4677120000);
    expect(metadata.model_n_params).toBe(7615616512);
    expect(metadata.model_type).toBe("qwen2 7B Q4_K - Medium");
    expect(metadata.backends).toBe("CUDA");
    expect(context.flags).toEqual({
      "-b": 2048,
      "-ub": 512,
      "-ctk": "f16",
      "-ctv": "f16",
      "-t": 8,
      "-C": "0x0",
      "--cpu-strict": false,
      "--poll": 50,
      "-ngl": 99,
      "-sm": "layer",
      "-mg": 0,
      "-nkvo": false,
      "-fa": false,
      "-ts": "0.00",
      "-mmp": true,
      "-embd": false,
    });
  });
});

describe("llama-bench -o jsonl (hand-made from the 7900 XTX JSON file)", () => {
  it("reads one test per line into one fragment, the same figures as the JSON output", () => {
    const file = loadFixture("llama-bench/hand-made-jsonl.jsonl");
    expect(file.kind).toBe("jsonl");
    expect(llamaBenchParser.detect(file)).toBe(true);
    const fragments = llamaBenchParser.parse(file);
    expect(fragments).toHaveLength(1);
    const [fragment] = fragments;
    expect(fragment?.part).toBe("");
    expect(fragment?.points[0]?.output_throughput).toBe(168.128437);
    expect(fragment?.context.metadata).toMatchObject({
      single_stream_test: "tg128",
      tests: 3,
      repetitions: 3,
      pp256_tok_s: 1250.725477,
      tg128_tok_s: 168.128437,
      "tg128@d512_tok_s": 162.050604,
    });
    expect(speedKeys(fragment!)).toEqual(["pp256_tok_s", "tg128_tok_s", "tg128@d512_tok_s"]);
    expect(fragment?.context.measured_at).toBe("2026-02-06T06:07:30.000Z");
    expect(fragment?.context.flags?.["-d"]).toBeUndefined();
    expect(fragment?.warnings).toEqual([]);
  });

  it("reads a one-line file, which decodes as a single JSON object", () => {
    const file = loadFixture("llama-bench/hand-made-one-line.jsonl");
    expect(file.kind).toBe("json");
    expect(llamaBenchParser.detect(file)).toBe(true);
    const fragments = llamaBenchParser.parse(file);
    expect(fragments).toHaveLength(1);
    expect(fragments[0]?.part).toBe("");
    expect(fragments[0]?.points[0]?.output_throughput).toBe(168.128437);
    expect(fragments[0]?.context.metadata?.tg128_tok_s).toBe(168.128437);
    expect(fragments[0]?.context.metadata?.tests).toBe(1);
    expect(fragments[0]?.context.workload).toEqual({ output_len: 128 });
    expect(fragments[0]?.context.measured_at).toBe("2026-02-06T06:07:56.000Z");
    expect(fragments[0]?.context.engine_version).toBe("b7951 (01ec0cc)");
  });
});

describe("llama-bench traps (hand-made-traps.json)", () => {
  const file = loadFixture("llama-bench/hand-made-traps.json");
  const fragments = llamaBenchParser.parse(file);
  const [layer, none] = fragments;

  it("is detected; -sm layer over two GPUs and -sm none are two configurations", () => {
    expect(llamaBenchParser.detect(file)).toBe(true);
    expect(fragments.map((fragment) => fragment.part)).toEqual([
      "2× NVIDIA GeForce RTX 4090, -sm layer, -mg 0, 2 tests",
      "NVIDIA GeForce RTX 4090, -sm none, -mg 1, 1 test",
    ]);
    expect(layer?.context.hardware).toEqual({ gpu: "NVIDIA GeForce RTX 4090", gpu_count: 2 });
    expect(none?.context.hardware).toEqual({ gpu: "NVIDIA GeForce RTX 4090", gpu_count: 1 });
    for (const fragment of fragments) expect(fragment.context.name).toBe("llama-bench · Llama-3.1-8B-Instruct-Q4_K_M");
  });

  it("reads numbers written as strings: the string-typed test joins the native-typed one", () => {
    expect(layer?.context.metadata?.tests).toBe(2);
    expect(layer?.context.flags).toEqual({
      "-b": 2048,
      "-ub": 512,
      "-ctk": "f16",
      "-ctv": "f16",
      "-t": 32,
      "-ngl": 99,
      "-sm": "layer",
      "-mg": 0,
      "-nkvo": false,
      "-fa": true,
      "-ts": "0.00",
      "-mmp": true,
      "-embd": false,
    });
    expect(layer?.context.model).toBe("Llama-3.1-8B-Instruct-Q4_K_M");
    expect(layer?.context.engine_version).toBe("b6120 (5a32f10)");
    expect(layer?.context.metadata?.model_size).toBe(4920734720);
    expect(layer?.context.measured_at).toBe("2025-08-10T09:15:00.000Z");
  });

  it("keeps a pp+tg test's speed ((prompt + generated) tokens per second) as metadata only", () => {
    expect(layer?.context.metadata?.["pp512+tg128_tok_s"]).toBe(518.4);
    expect(layer?.points[0]?.total_token_throughput).toBeUndefined();
  });

  it("a NaN speed is no data with a warning; here it is the only generation test, so C=1 has no figure", () => {
    expect(layer?.points).toEqual([{ concurrency: 1, sources: { concurrency: CONCURRENCY_SOURCE } }]);
    expect(layer?.warnings).toEqual([
      "llama-bench/hand-made-traps.json (test 2: tg128@d4096): avg_ts is NaN; stored as no data.",
    ]);
    expect(layer?.context.metadata?.single_stream_test).toBe("tg128@d4096");
    expect(layer?.context.metadata?.["tg128@d4096_tok_s"]).toBeUndefined();
    expect(layer?.context.metadata?.output_tok_s_stddev).toBeUndefined();
    expect(layer?.context.metadata?.single_stream_avg_ms).toBeUndefined();
    expect(layer ? speedKeys(layer) : []).toEqual(["pp512+tg128_tok_s"]);
    expect(layer?.context.workload).toEqual({ output_len: 128 });
  });

  it("a 0 t/s test is no data with a warning, never a 0 tok/s point", () => {
    expect(none?.points).toEqual([{ concurrency: 1, sources: { concurrency: CONCURRENCY_SOURCE } }]);
    expect(none?.warnings).toEqual([
      "llama-bench/hand-made-traps.json (test 3: tg256): avg_ts is 0 t/s; stored as no data, never a 0 tok/s figure.",
    ]);
    expect(none?.context.metadata?.tg256_tok_s).toBeUndefined();
    expect(none?.context.metadata?.single_stream_test).toBe("tg256");
    expect(none?.context.metadata?.repetitions).toBe(1);
    expect(none?.context.workload).toEqual({ output_len: 256 });
    expect(none?.context.measured_at).toBe("2025-08-10T09:17:00.000Z");
  });
});

describe("llama-bench with two -fa values (hand-made-two-configs.json)", () => {
  const name = "llama-bench/hand-made-two-configs.json";
  const file = loadFixture(name);
  const fragments = llamaBenchParser.parse(file);
  const [fa0, fa1] = fragments;

  it("gives one fragment per configuration, named by the flag that differs and the number of tests", () => {
    expect(llamaBenchParser.detect(file)).toBe(true);
    expect(fragments.map((fragment) => fragment.part)).toEqual(["-fa 0, 3 tests", "-fa 1, 4 tests"]);
    expect(fa0?.context.flags?.["-fa"]).toBe(false);
    expect(fa1?.context.flags?.["-fa"]).toBe(true);
    const { "-fa": _fa0, ...rest0 } = fa0?.context.flags ?? {};
    const { "-fa": _fa1, ...rest1 } = fa1?.context.flags ?? {};
    expect(rest0).toEqual(rest1);
    expect(rest0["-ngl"]).toBe(99);
    for (const fragment of fragments) {
      expect(fragment.context.name).toBe("llama-bench · gpt-oss-20b-mxfp4");
      expect(fragment.context.engine_version).toBe("b7951 (01ec0cc)");
      expect(fragment.warnings).toEqual([]);
    }
  });

  it("files each configuration's tests, wherever they are in the file", () => {
    expect(fa0?.points[0]?.output_throughput).toBe(165.25);
    expect(fa0?.context.metadata).toMatchObject({
      single_stream_test: "tg128",
      output_tok_s_stddev: 0.31,
      tests: 3,
      repetitions: 3,
    });
    expect(fa0 ? speedKeys(fa0) : []).toEqual(["pp512_tok_s", "tg128_tok_s", "tg128@d4096_tok_s"]);
    expect(fa0?.context.metadata?.pp512_tok_s).toBe(1702.5);
    expect(fa0?.context.metadata?.["tg128@d4096_tok_s"]).toBe(141.75);
    expect(fa0?.context.measured_at).toBe("2026-02-07T10:00:05.000Z");

    expect(fa1?.points[0]?.output_throughput).toBe(168.5);
    expect(fa1?.context.metadata).toMatchObject({ single_stream_test: "tg128", output_tok_s_stddev: 0.25, tests: 4 });
    expect(fa1 ? speedKeys(fa1) : []).toEqual(["pp512_tok_s", "tg128_tok_s", "pp512@d4096_tok_s", "tg128@d4096_tok_s"]);
    expect(fa1?.context.metadata?.pp512_tok_s).toBe(1847.5);
    expect(fa1?.context.metadata?.["pp512@d4096_tok_s"]).toBe(1591.75);
    expect(fa1?.context.metadata?.["tg128@d4096_tok_s"]).toBe(154.75);
    // Its earliest test (pp512 @ d4096, 10:04:58) comes after its later-run tests in the file.
    expect(fa1?.context.measured_at).toBe("2026-02-07T10:04:58.000Z");
  });

  it("is reported by the import plan as two configurations, or stored as two runs with split", () => {
    const parsed = upload(name);
    expect(parsed.fragments).toHaveLength(2);
    const refused = planRuns(parsed, { split: false });
    expect(refused.conflicts).toHaveLength(1);
    expect(refused.conflicts[0]).toContain("2 different configurations");
    const plan = planRuns(parsed, { split: true });
    expect(plan.runs).toHaveLength(2);
    expect(
      plan.runs.map((run) => run.document.results.map((point) => [point.concurrency, point.output_throughput])),
    ).toEqual([[[1, 165.25]], [[1, 168.5]]]);
  });
});

describe("llama-bench with prompt processing tests only (hand-made-pp-only.csv)", () => {
  const file = loadFixture("llama-bench/hand-made-pp-only.csv");
  const fragments = llamaBenchParser.parse(file);

  it("gives a C=1 point with no figure and says why; the pp speeds are kept", () => {
    expect(llamaBenchParser.detect(file)).toBe(true);
    expect(fragments).toHaveLength(1);
    const [fragment] = fragments;
    expect(fragment?.part).toBe("");
    expect(fragment?.points).toEqual([{ concurrency: 1, sources: { concurrency: CONCURRENCY_SOURCE } }]);
    expect(fragment?.warnings).toEqual([
      "llama-bench/hand-made-pp-only.csv: no generation test (n_gen > 0, n_prompt 0) was run, so there is no single-stream speed; the tests' speeds are kept as metadata.",
    ]);
    expect(fragment ? speedKeys(fragment) : []).toEqual(["pp512_tok_s", "pp2048_tok_s", "pp512@d4096_tok_s"]);
    expect(fragment?.context.metadata).toMatchObject({
      pp512_tok_s: 7284.5,
      pp2048_tok_s: 6974.5,
      "pp512@d4096_tok_s": 5483,
      tests: 3,
    });
    expect(fragment?.context.metadata?.single_stream_test).toBeUndefined();
    expect(fragment?.context.metadata?.single_stream_avg_ms).toBeUndefined();
    expect(fragment?.context.workload).toBeUndefined();
    expect(fragment?.context.flags?.["-fa"]).toBe(true);
    expect(fragment?.context.measured_at).toBe("2025-04-24T12:10:01.000Z");
  });

  it("still goes through the import plan as one run, with the warning", () => {
    const plan = planRuns(upload("llama-bench/hand-made-pp-only.csv"), { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    expect(plan.runs[0]?.document.results).toEqual([{ concurrency: 1, sources: { concurrency: CONCURRENCY_SOURCE } }]);
    expect(plan.runs[0]?.document.warnings).toHaveLength(1);
    expect(plan.runs[0]?.document.warnings?.[0]).toContain("no generation test");
  });
});

describe("llama-bench: which generation test is the single-stream figure", () => {
  const base = { build_commit: "b1c2d3e", build_number: 4000, n_prompt: 0, test_time: "2025-01-01T00:00:00Z" };
  const parseTests = (tests: Raw[]) =>
    llamaBenchParser.parse(decodeText("picks.json", JSON.stringify(tests.map((test) => ({ ...base, ...test })))));

  test("at depth 0 without tg128, the smallest n_gen", () => {
    const [fragment, ...rest] = parseTests([
      { n_gen: 256, n_depth: 0, avg_ts: 40.25 },
      { n_gen: 64, n_depth: 0, avg_ts: 41.5 },
      { n_gen: 128, n_depth: 512, avg_ts: 39.75 },
      { n_gen: 32, n_depth: 0, avg_ts: 42.25 },
    ]);
    expect(rest).toEqual([]);
    expect(fragment?.points[0]?.output_throughput).toBe(42.25);
    expect(fragment?.context.metadata?.single_stream_test).toBe("tg32");
    expect(fragment?.context.workload).toEqual({ output_len: 32 });
  });

  test("tg128 before any other length at the same depth, wherever it is in the file", () => {
    const [fragment] = parseTests([
      { n_gen: 64, n_depth: 0, avg_ts: 41.5 },
      { n_prompt: 512, n_gen: 0, n_depth: 0, avg_ts: 900.5 },
      { n_gen: 128, n_depth: 0, avg_ts: 40.75 },
    ]);
    expect(fragment?.points[0]?.output_throughput).toBe(40.75);
    expect(fragment?.context.metadata?.single_stream_test).toBe("tg128");
    expect(fragment?.context.metadata?.tg64_tok_s).toBe(41.5);
    expect(fragment?.context.metadata?.pp512_tok_s).toBe(900.5);
  });

  test("without a depth-0 generation test, the smallest depth", () => {
    const [fragment] = parseTests([
      { n_gen: 128, n_depth: 1024, avg_ts: 38.5 },
      { n_gen: 256, n_depth: 512, avg_ts: 39.25 },
      { n_gen: 128, n_depth: 512, avg_ts: 39.5 },
      { n_prompt: 512, n_gen: 128, n_depth: 0, avg_ts: 300.5 },
    ]);
    expect(fragment?.points[0]?.output_throughput).toBe(39.5);
    expect(fragment?.context.metadata?.single_stream_test).toBe("tg128@d512");
    expect(fragment?.context.metadata?.["pp512+tg128_tok_s"]).toBe(300.5);
    expect(fragment?.context.workload).toEqual({ output_len: 128 });
  });

  test("a test repeated in one configuration (appended runs) keeps its first speed, with a warning", () => {
    const [fragment] = parseTests([
      { n_gen: 128, n_depth: 0, avg_ts: 40.5 },
      { n_gen: 128, n_depth: 0, avg_ts: 44.5 },
    ]);
    expect(fragment?.points[0]?.output_throughput).toBe(40.5);
    expect(fragment?.context.metadata?.tg128_tok_s).toBe(40.5);
    expect(fragment?.warnings).toEqual([
      "picks.json (test 2: tg128): the same test as test 1; only the speed of test 1 is kept.",
    ]);
  });
});

describe("llama-bench field sets of other builds", () => {
  test("a build without n_depth and with -fa on/off/auto: no depth, flash_attn kept as written", () => {
    const older = {
      build_commit: "b1c2d3e",
      build_number: 3000,
      gpu_info: "",
      n_prompt: 0,
      n_gen: 64,
      avg_ts: 41.5,
      flash_attn: "auto",
      n_gpu_layers: 0,
    };
    const fragments = llamaBenchParser.parse(
      decodeText("old.json", JSON.stringify([older, { ...older, n_gen: 32, avg_ts: 42.25 }])),
    );
    expect(fragments).toHaveLength(1);
    const [fragment] = fragments;
    expect(fragment?.part).toBe("");
    expect(fragment?.points[0]?.output_throughput).toBe(42.25);
    expect(fragment?.context.metadata?.single_stream_test).toBe("tg32");
    expect(fragment?.context.metadata?.tg64_tok_s).toBe(41.5);
    expect(fragment?.context.metadata?.tg32_tok_s).toBe(42.25);
    expect(fragment?.context.flags).toEqual({ "-fa": "auto", "-ngl": 0 });
    expect(fragment?.context.hardware).toBeUndefined();
    expect(fragment?.context.model).toBeUndefined();
    expect(fragment?.context.name).toBeUndefined();
    expect(fragment?.context.measured_at).toBeUndefined();
    expect(fragment?.context.engine_version).toBe("b3000 (b1c2d3e)");
  });
});

describe("llama-bench with more test speeds than a run's metadata holds", () => {
  const lengths = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
  const depths = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 0];
  // 216 tests; the depth-0 tests come last in the file, so keeping them is not a matter of file order.
  const tests: Raw[] = depths.flatMap((depth) =>
    lengths.flatMap((length) => [
      { n_prompt: length, n_gen: 0, n_depth: depth },
      { n_prompt: 0, n_gen: length, n_depth: depth },
    ]),
  );
  const records: Raw[] = tests.map((test, index) => ({
    build_commit: "abc1234",
    build_number: 7000,
    model_filename: "models/m.gguf",
    gpu_info: "NVIDIA H100 80GB HBM3",
    n_gpu_layers: 99,
    flash_attn: true,
    ...test,
    test_time: `2026-01-01T00:${String(Math.floor(index / 60)).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}Z`,
    avg_ts: 100 + index * 0.25,
    stddev_ts: 0.5,
    samples_ns: [1, 2, 3],
  }));
  const name = "many-tests.json";
  const text = JSON.stringify(records);
  const [fragment, ...rest] = llamaBenchParser.parse(decodeText(name, text));
  const metadata = fragment?.context.metadata ?? {};

  it("keeps the single-stream test and the depth-0 tests first, and says how many speeds were left out", () => {
    expect(records).toHaveLength(216);
    expect(rest).toEqual([]);
    expect(MAX_TEST_SPEEDS).toBe(180);
    expect(fragment ? speedKeys(fragment) : []).toHaveLength(180);
    expect(fragment?.warnings).toEqual([
      "many-tests.json: 36 of the 216 test speeds were left out, as a run keeps at most 180; the single-stream test and the tests at depth 0 were kept first.",
    ]);
    const tg128 = records.findIndex((record) => record.n_gen === 128 && record.n_depth === 0);
    expect(tg128).toBe(199);
    expect(fragment?.points[0]?.output_throughput).toBe(100 + 199 * 0.25);
    expect(metadata.tg128_tok_s).toBe(149.75);
    for (const record of records.filter((r) => r.n_depth === 0))
      expect(metadata[speedKey(record)], speedKey(record)).toBe(record.avg_ts);
    // The 156 other places go to the first tests of the file; the rest (from index 156 on, at depth 65536) are left out.
    expect(metadata.pp16_tok_s).toBe(148);
    expect(metadata["pp16@d512_tok_s"]).toBe(100);
    expect(metadata["tg512@d32768_tok_s"]).toBe(138.75);
    expect(metadata["pp1024@d32768_tok_s"]).toBeUndefined();
    expect(metadata["pp16384@d32768_tok_s"]).toBeUndefined();
    expect(metadata["tg32768@d65536_tok_s"]).toBeUndefined();
    expect(metadata.tests).toBe(216);
  });

  it("gives a run document that passes validation (at most 200 metadata keys)", () => {
    const parsed = readUploads([{ name, bytes: new TextEncoder().encode(text) }], FORMAT_PARSERS);
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const document = normalizeRunDocument(plan.runs[0]!.document);
    expect(Object.keys(document.metadata).length).toBeLessThanOrEqual(200);
    expect(document.results).toHaveLength(1);
    expect(document.results[0]?.output_throughput).toBe(149.75);
  });
});

describe("llama-bench broken files", () => {
  const record = (over: Raw) =>
    JSON.stringify({
      build_commit: "abc1234",
      build_number: 1,
      n_prompt: 0,
      n_gen: 128,
      n_depth: 0,
      avg_ts: 50.5,
      ...over,
    });

  test("avg_ts of the wrong type names its path", () => {
    const error = parseError(decodeText("x.json", `[${record({})}, ${record({ avg_ts: { mean: 1 } })}]`));
    expect(error.path).toBe("[1].avg_ts");
    expect(error.message).toBe("avg_ts must be a number of tokens per second, got an object");
  });

  test("a broken test in another configuration of the file is refused too", () => {
    const error = parseError(decodeText("x.json", `[${record({})}, ${record({ flash_attn: true, avg_ts: [1, 2] })}]`));
    expect(error.path).toBe("[1].avg_ts");
    expect(error.message).toContain("an array");
  });

  test("in JSON lines the path names the line", () => {
    const error = parseError(decodeText("x.jsonl", `${record({})}\n${record({ avg_ts: "fast" })}\n`));
    expect(error.path).toBe("line 2: avg_ts");
    expect(error.message).toContain('"fast"');
  });

  test("a test without a token count, or with none of either, is refused", () => {
    expect(parseError(decodeText("x.json", `[${record({ n_gen: null })}]`)).path).toBe("[0].n_gen");
    expect(parseError(decodeText("x.json", `[${record({ n_prompt: 0, n_gen: 0 })}]`)).path).toBe("[0].n_prompt");
  });

  test("a CSV row with a non-numeric avg_ts names its row", () => {
    const csv = [
      "build_commit,build_number,n_prompt,n_gen,avg_ts",
      '"abc","1","0","128","12.5"',
      '"abc","1","0","256","n/a"',
    ].join("\n");
    const file = decodeText("x.csv", csv);
    expect(llamaBenchParser.detect(file)).toBe(true);
    expect(parseError(file).path).toBe("row 3: avg_ts");
  });

  test("the upload pipeline names the file and the field", () => {
    const bytes = new TextEncoder().encode(`[${record({})}, ${record({ avg_ts: { mean: 1 } })}]`);
    expect(() => readUploads([{ name: "broken.json", bytes }], FORMAT_PARSERS)).toThrow(
      /"broken\.json" \(llama\.cpp llama-bench \(-o json, jsonl, csv or its markdown table\)\) could not be imported: \[1\]\.avg_ts: /,
    );
  });
});

describe("llama-bench detection", () => {
  it("claims no other tool's file", () => {
    const others: Record<string, unknown> = {
      vllm: { backend: "vllm", model_id: "m", max_concurrency: 4, output_throughput: 10, mean_tpot_ms: 5 },
      sglang: [
        { backend: "sglang", max_concurrency: 1, output_throughput: 10 },
        { backend: "sglang", max_concurrency: 2, output_throughput: 20 },
      ],
      guidellm: { benchmarks: [{ metrics: {} }] },
      aiperf: { output_token_throughput: { avg: 1, unit: "tokens/sec" }, input_config: {} },
      llmperf: { results_mean_output_throughput_token_per_s: 1, num_concurrent_requests: 1 },
      inferencePerf: { load_summary: { count: 1 }, successes: { throughput: { output_tokens_per_sec: 1 } } },
      trtllm: {
        engine: { model: "m" },
        world_info: { tp_size: 1 },
        performance: { system_output_throughput_tok_s: 1 },
      },
      llmd: { version: "0.2", run: { uid: "x" }, results: { request_performance: {} } },
      servebench: { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] },
      emptyArray: [],
      numbers: [1, 2, 3],
      nullish: null,
      text: "build_commit n_prompt n_gen avg_ts",
    };
    for (const [name, data] of Object.entries(others)) {
      const kind = Array.isArray(data) && name === "sglang" ? "jsonl" : "json";
      expect(llamaBenchParser.detect({ name, kind, data, bytes: 1 }), name).toBe(false);
    }
    expect(
      llamaBenchParser.detect({
        name: "x.csv",
        kind: "csv",
        data: [
          ["a", "b"],
          ["1", "2"],
        ],
        bytes: 1,
      }),
    ).toBe(false);
    expect(llamaBenchParser.detect({ name: "x.csv", kind: "csv", data: "not rows", bytes: 1 })).toBe(false);
    expect(
      llamaBenchParser.detect({
        name: "x.yaml",
        kind: "yaml",
        data: { build_commit: "a", n_prompt: 1, n_gen: 0, avg_ts: 1 },
        bytes: 1,
      }),
    ).toBe(false);
  });

  it("does not claim the other tools' fixtures of this module, nor SOURCE.txt", () => {
    const files = [...fixtureFiles("llm-d-benchmark-report"), ...fixtureFiles("trtllm")];
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) {
      let file: SourceFile;
      try {
        file = loadFixture(name);
      } catch {
        continue; // not decodable at all (SOURCE.txt may not be), so nothing to claim
      }
      expect(llamaBenchParser.detect(file), name).toBe(false);
    }
    const source = fs.readFileSync(path.join(FIXTURES_DIR, "llama-bench", "SOURCE.txt"), "utf8");
    let decoded: SourceFile | undefined;
    try {
      decoded = decodeText("SOURCE.txt", source);
    } catch {
      decoded = undefined;
    }
    if (decoded) expect(llamaBenchParser.detect(decoded)).toBe(false);
  });
});

describe("llama-bench through the import plan", () => {
  it("stores the real 84-test file as one run with one point at C=1, without asking to split or pick", () => {
    const name = JSON_FIXTURES[0].file;
    const parsed = upload(name);
    expect(parsed.fragments).toHaveLength(1);
    expect(parsed.fragments[0]?.format).toBe("llama-bench");
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const document = plan.runs[0]!.document;
    expect(document.results).toEqual([
      {
        concurrency: 1,
        output_throughput: 168.128437,
        sources: { concurrency: CONCURRENCY_SOURCE, output_throughput: "avg_ts" },
      },
    ]);
    expect(document.name).toBe("llama-bench · gpt-oss-20b-mxfp4");
    expect(document.engine).toBe("llama.cpp");
    expect(document.engine_version).toBe("b7951 (01ec0cc)");
    expect(document.measured_at).toBe("2026-02-06T06:07:29.000Z");
    expect(document.workload).toEqual({ output_len: 128 });
    expect(document.metadata?.["tg128@d4096_tok_s"]).toBe(154.748149);
    expect(document.metadata?.source_files).toBe(name);
    const stored = normalizeRunDocument(document);
    expect(stored.results).toHaveLength(1);
    expect(stored.metadata.pp512_tok_s).toBe(1847.25974);
  });
});

describe("the markdown table names the architecture, not the model", () => {
  // `llama-bench -m a.gguf -m b.gguf` printed as its default markdown table: the model column is `model_type`
  // (architecture, size, quantization); no model file name appears anywhere in the output.
  const table = [
    "| model                          |       size |     params | backend    | ngl |            test |                  t/s |",
    "| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |",
    "| deepseek2 30B.A3B Q8_0         |  29.65 GiB |    29.94 B | CUDA       |  99 |           tg128 |         81.25 ± 0.31 |",
    "| qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |           tg128 |        142.50 ± 0.40 |",
    "",
    "build: 4807e8f9 (6609)",
  ].join("\n");
  const parsed = readUploads([{ name: "bench.md", bytes: Buffer.from(table) }], FORMAT_PARSERS);
  const fragments = parsed.fragments;

  it("leaves the model to be stated, names each configuration by its model type", () => {
    expect(fragments).toHaveLength(2);
    expect(fragments.map((fragment) => fragment.context.model)).toEqual([undefined, undefined]);
    expect(fragments.map((fragment) => fragment.context.name)).toEqual([
      "llama-bench · deepseek2 30B.A3B Q8_0",
      "llama-bench · qwen3moe 30B.A3B Q4_K - Medium",
    ]);
    expect(fragments.map((fragment) => fragment.part)).toEqual([
      "deepseek2 30B.A3B Q8_0, 1 test",
      "qwen3moe 30B.A3B Q4_K - Medium, 1 test",
    ]);
    expect(fragments.map((fragment) => fragment.points[0]?.output_throughput)).toEqual([81.25, 142.5]);
    expect(fragments[0]?.context.metadata?.model_type).toBe("deepseek2 30B.A3B Q8_0");
  });
});
