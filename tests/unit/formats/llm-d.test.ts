import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { decodeText } from "@/lib/formats/decode";
import { llmdReportParser } from "@/lib/formats/llm-d";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./fixtures";

const DIR = "llm-d-benchmark-report";
const V01 = `${DIR}/br_v0_1_example.yaml`;
const V02 = `${DIR}/br_v0_2_example.yaml`;
const V021 = `${DIR}/br_v0_2_1_example.yaml`;
const V021_JSON = `${DIR}/hand-made-br_v0_2_1_example.json`;
const VLLM_C16 = `${DIR}/hand-made-v0_2_1-vllm-concurrency.json`;
const GUIDELLM = `${DIR}/hand-made-v0_2-guidellm-disaggregated.yaml`;
const SCHEMAS = {
  "0.1": `${DIR}/br_v0_1_json_schema.json`,
  "0.2": `${DIR}/br_v0_2_json_schema.json`,
  "0.2.1": `${DIR}/br_v0_2_1_json_schema.json`,
} as const;

type Json = Record<string, unknown>;

/** The raw document of a YAML or JSON fixture, to compare with the numbers the file states. */
function raw(file: string): Json {
  const text = fs.readFileSync(path.join(FIXTURES_DIR, file), "utf8");
  return (file.endsWith(".json") ? readFixtureJson(file) : parseYaml(text)) as Json;
}

function at(value: unknown, dotted: string): unknown {
  return dotted.split(".").reduce<unknown>((current, key) => (current as Json | undefined)?.[key], value);
}

function parseOne(file: SourceFile) {
  const fragments = llmdReportParser.parse(file);
  expect(fragments).toHaveLength(1);
  return fragments[0]!;
}

function parseError(file: SourceFile): FormatError {
  try {
    llmdReportParser.parse(file);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected a FormatError");
}

/** A copy of a JSON fixture with fields replaced (`undefined` deletes); "__NaN__" becomes a bare NaN. */
function variant(fixture: string, changes: Record<string, unknown>, name = "variant.json"): SourceFile {
  const copy = structuredClone(readFixtureJson(fixture)) as Json;
  for (const [dotted, value] of Object.entries(changes)) {
    const keys = dotted.split(".");
    let target = copy;
    for (const key of keys.slice(0, -1)) target = target[key] as Json;
    const last = keys[keys.length - 1]!;
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  return decodeText(name, JSON.stringify(copy, null, 2).replace(/"__NaN__"/g, "NaN"));
}

// ---------------------------------------------------------------------------------------------------------
// The parser held to the published JSON Schemas: every field it reads must exist in the report's schema.

type Schema = Record<string, unknown>;

function resolveRef(root: Schema, ref: string): Schema {
  const pointer = ref.replace(/^#\//, "").split("/");
  return pointer.reduce<Schema>((node, key) => node[key] as Schema, root);
}

/** A schema node → its concrete alternatives ($ref, anyOf, oneOf and allOf expanded). */
function alternatives(root: Schema, node: Schema): Schema[] {
  if (typeof node.$ref === "string")
    return alternatives(root, { ...resolveRef(root, node.$ref), ...omit(node, "$ref") });
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    if (Array.isArray(node[key])) {
      const rest = omit(node, key);
      return (node[key] as Schema[]).flatMap((option) => alternatives(root, { ...rest, ...option }));
    }
  }
  return [node];
}

function omit(node: Schema, key: string): Schema {
  const { [key]: _dropped, ...rest } = node;
  return rest;
}

/** True when the schema allows the path (segments; "[]" = an array item) in at least one alternative. */
function schemaHasPath(root: Schema, segments: readonly string[]): boolean {
  let nodes = alternatives(root, root);
  for (const segment of segments) {
    const next: Schema[] = [];
    for (const node of nodes) {
      const keys = Object.keys(node).filter((key) => !["title", "description", "default"].includes(key));
      if (keys.length === 0) return true; // {}: anything goes below
      if (segment === "[]") {
        if (node.items && typeof node.items === "object") next.push(...alternatives(root, node.items as Schema));
        continue;
      }
      const properties = node.properties as Record<string, Schema> | undefined;
      if (properties && segment in properties) next.push(...alternatives(root, properties[segment]!));
      else if (node.type === "object" && node.additionalProperties === true) return true;
      else if (node.additionalProperties && typeof node.additionalProperties === "object") {
        next.push(...alternatives(root, node.additionalProperties as Schema));
      }
    }
    if (next.length === 0) return false;
    nodes = next;
  }
  return true;
}

/** Wrap decoded data so every property the parser reads (or tests with `in`) is recorded as a path. */
function recordReads(data: unknown): { data: unknown; paths: Map<string, string[]> } {
  const paths = new Map<string, string[]>();
  const note = (segments: string[]) => paths.set(JSON.stringify(segments), segments);
  const wrap = (value: unknown, at: string[]): unknown => {
    if (typeof value !== "object" || value === null) return value;
    const isArray = Array.isArray(value);
    return new Proxy(value, {
      get(target, key, receiver) {
        const child: unknown = Reflect.get(target, key, receiver);
        // Symbols, array length and methods, and JSON.stringify's toJSON probe are not field reads.
        if (typeof key === "symbol" || key === "toJSON") return child;
        if (isArray) return /^\d+$/.test(key) ? wrap(child, [...at, "[]"]) : child;
        note([...at, key]);
        return wrap(child, [...at, key]);
      },
      has(target, key) {
        if (typeof key === "string" && !isArray) note([...at, key]);
        return Reflect.has(target, key);
      },
    });
  };
  return { data: wrap(data, []), paths };
}

describe("llm-d: every field the parser reads exists in the report's published JSON Schema", () => {
  const cases = [
    [V01, "0.1"],
    [V02, "0.2"],
    [V021, "0.2.1"],
    [V021_JSON, "0.2.1"],
    [VLLM_C16, "0.2.1"],
    [GUIDELLM, "0.2"],
  ] as const;

  it("the schema walker itself rejects fields a schema does not have", () => {
    const v02 = readFixtureJson(SCHEMAS["0.2"]) as Schema;
    expect(
      schemaHasPath(v02, ["results", "request_performance", "aggregate", "latency", "time_per_output_token", "p99"]),
    ).toBe(true);
    expect(schemaHasPath(v02, ["scenario", "stack", "[]", "standardized", "accelerator", "count"])).toBe(true);
    expect(schemaHasPath(v02, ["scenario", "stack", "[]", "native", "args", "--any-flag"])).toBe(true);
    expect(schemaHasPath(v02, ["results", "request_performance", "aggregate", "latency", "tpot"])).toBe(false);
    expect(schemaHasPath(v02, ["metrics", "throughput"])).toBe(false);
    expect(schemaHasPath(v02, ["results", "session_performance"])).toBe(false);
    const v021 = readFixtureJson(SCHEMAS["0.2.1"]) as Schema;
    expect(schemaHasPath(v021, ["results", "session_performance"])).toBe(true);
    const v01 = readFixtureJson(SCHEMAS["0.1"]) as Schema;
    expect(schemaHasPath(v01, ["metrics", "throughput", "output_tokens_per_sec"])).toBe(true);
    expect(schemaHasPath(v01, ["scenario", "load", "standardized"])).toBe(false);
  });

  for (const [fixture, version] of cases) {
    it(`${fixture} (schema ${version})`, () => {
      const file = loadFixture(fixture);
      const recorded = recordReads(file.data);
      const fragments = llmdReportParser.parse({ ...file, data: recorded.data });
      expect(fragments).toHaveLength(1);
      const schema = readFixtureJson(SCHEMAS[version]) as Schema;
      const read = [...recorded.paths.values()];
      expect(read.length).toBeGreaterThan(25);
      const unknown = read.filter((segments) => !schemaHasPath(schema, segments)).map((segments) => segments.join("."));
      expect(unknown).toEqual([]);
    });
  }
});

// ---------------------------------------------------------------------------------------------------------

describe("llm-d v0.2 example (dummy values; inference-perf at 10 QPS against llm-d)", () => {
  const file = loadFixture(V02);
  const doc = raw(V02);
  const fragment = parseOne(file);
  const point = fragment.points[0]!;
  const agg = "results.request_performance.aggregate";

  it("is detected as YAML", () => {
    expect(file.kind).toBe("yaml");
    expect(llmdReportParser.detect(file)).toBe(true);
    expect(fragment.format).toBe("llm-d-benchmark-report");
    expect(fragment.part).toBe("");
    expect(fragment.warnings).toEqual([]);
  });

  it("files the point at rate_qps 10 (concurrency .inf is no cap)", () => {
    expect(at(doc, "scenario.load.standardized.concurrency")).toBe(Infinity);
    expect(point.request_rate).toBe(10);
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("scenario.load.standardized.rate_qps");
  });

  it("states the throughputs (tokens/s, queries/s) and request counts", () => {
    expect(point.output_throughput).toBe(at(doc, `${agg}.throughput.output_token_rate.mean`));
    expect(point.output_throughput).toBe(2262.448);
    expect(point.total_token_throughput).toBe(2262.448);
    expect(point.request_throughput).toBe(2262.448);
    expect(point.completed).toBe(500);
    expect(point.failed).toBe(0);
    expect(point.duration_s).toBeCloseTo(49.97206788184121, 9);
    expect(point.sources).toMatchObject({
      output_throughput: `${agg}.throughput.output_token_rate.mean`,
      total_token_throughput: `${agg}.throughput.total_token_rate.mean`,
      request_throughput: `${agg}.throughput.request_rate.mean`,
      completed: `${agg}.requests.total − failures`,
      failed: `${agg}.requests.failures`,
      duration_s: "run.time.duration",
    });
  });

  it("converts latencies from s and s/token to ms; TPOT, ITL and NTPOT go to their own metrics", () => {
    const ttft = at(doc, `${agg}.latency.time_to_first_token`) as Record<string, number>;
    expect(point.mean_ttft_ms).toBeCloseTo(ttft.mean! * 1000, 9);
    expect(point.median_ttft_ms).toBeCloseTo(ttft.p50! * 1000, 9);
    expect(point.p90_ttft_ms).toBeCloseTo(ttft.p90! * 1000, 9);
    expect(point.p95_ttft_ms).toBeCloseTo(ttft.p95! * 1000, 9);
    expect(point.p99_ttft_ms).toBeCloseTo(ttft.p99! * 1000, 9);
    expect(point.mean_ttft_ms).toBeCloseTo(36.8578234128654, 9);
    expect(point.mean_tpot_ms).toBeCloseTo(36.8578234128654, 9);
    expect(point.mean_itl_ms).toBeCloseTo(36.8578234128654, 9);
    expect(point.mean_e2el_per_token_ms).toBeCloseTo(36.8578234128654, 9);
    expect(point.mean_e2el_ms).toBeCloseTo(36.8578234128654, 9);
    // The schema's other percentiles, p0p1 (0.1) … p99p9 (99.9), are in `percentiles`, converted alike.
    expect(point.percentiles?.ttft).toEqual({
      "p0.1": ttft.p0p1! * 1000,
      p1: ttft.p1! * 1000,
      p5: ttft.p5! * 1000,
      p10: ttft.p10! * 1000,
      p25: ttft.p25! * 1000,
      p75: ttft.p75! * 1000,
      "p99.9": ttft.p99p9! * 1000,
    });
    // p99p9: 0.057014757215045425 s in the file.
    expect(point.percentiles?.ttft?.["p99.9"]).toBeCloseTo(57.01475721504543, 9);
    expect(point.sources?.["percentiles.ttft.p99.9"]).toBe(`${agg}.latency.time_to_first_token.p99p9`);
    expect(point.sources).toMatchObject({
      p99_ttft_ms: `${agg}.latency.time_to_first_token.p99`,
      mean_tpot_ms: `${agg}.latency.time_per_output_token.mean`,
      mean_itl_ms: `${agg}.latency.inter_token_latency.mean`,
      mean_e2el_per_token_ms: `${agg}.latency.normalized_time_per_output_token.mean`,
      mean_e2el_ms: `${agg}.latency.request_latency.mean`,
    });
  });

  it("carries the stack: llm-d serves with vLLM, its image is no vLLM version; GPUs = count × replicas", () => {
    const context = fragment.context;
    expect(context.engine).toBe("vllm");
    expect(context.engine_version).toBeUndefined();
    expect(context.model).toBe("Qwen/Qwen3-0.6B");
    expect(context.hardware).toEqual({ gpu: "NVIDIA-H100-80GB-HBM3", gpu_count: 16 });
    expect(context.flags).toEqual({
      "--block-size": 1024,
      "--kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
      "--no-enable-log-requests": true,
      "--disable-uvicorn-access-log": true,
      "--max-model-len": 1024,
      "--tensor-parallel-size": 8,
    });
    expect(context.env).toMatchObject({
      UCX_TLS: "rc,sm,cuda_ipc,cuda_copy,tcp",
      VLLM_NIXL_SIDE_CHANNEL_PORT: "5557",
      VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1",
    });
    expect(Object.keys(context.env ?? {})).toHaveLength(8);
    expect(context.workload).toEqual({ input_len: 2148, output_len: 1000, num_prompts: 500 });
    expect(context.measured_at).toBe("2025-11-05T18:00:42.000Z");
    expect(context.tags).toEqual(["baseline", "latency", "qwen3"]);
    expect(context.notes).toBe("Baseline latency test for Qwen3-0.6B on inference-scheduling stack");
    expect(context.metadata).toMatchObject({
      engine_tool: "llm-d",
      engine_tool_version: "ghcr.io/llm-d/llm-d-cuda:0.3.1",
      roles: "decode",
      tp: 8,
      report_version: "0.2",
      load_tool: "inference-perf",
      load_tool_version: "0.3.0",
      stage: 3,
      load_source: "sampled",
      run_uid: "38b1f169ca178b756f7483523b17de61",
    });
  });
});

describe("llm-d v0.2.1 example, as YAML and as hand-made JSON", () => {
  const yamlFragment = parseOne(loadFixture(V021));
  const jsonFile = loadFixture(V021_JSON);
  const jsonFragment = parseOne(jsonFile);
  const v02Point = parseOne(loadFixture(V02)).points[0];

  it("is detected in both forms", () => {
    expect(llmdReportParser.detect(loadFixture(V021))).toBe(true);
    expect(jsonFile.kind).toBe("json");
    expect(llmdReportParser.detect(jsonFile)).toBe(true);
  });

  it("states the same figures as the v0.2 example (multimodal and session extras are not imported)", () => {
    expect(yamlFragment.points[0]).toEqual(v02Point);
    expect(yamlFragment.points[0]?.request_rate).toBe(10);
    expect(yamlFragment.points[0]?.output_throughput).toBe(2262.448);
    expect(yamlFragment.context.metadata?.report_version).toBe("0.2.1");
    expect(yamlFragment.context.engine).toBe("vllm");
    expect(yamlFragment.context.hardware).toEqual({ gpu: "NVIDIA-H100-80GB-HBM3", gpu_count: 16 });
  });

  it("the JSON form gives what the YAML gives (its concurrency is null: JSON has no .inf)", () => {
    expect(at(raw(V021_JSON), "scenario.load.standardized.concurrency")).toBeNull();
    expect(jsonFragment.points).toEqual(yamlFragment.points);
    expect(jsonFragment.context).toEqual(yamlFragment.context);
    expect(jsonFragment.warnings).toEqual([]);
  });
});

describe("llm-d v0.1 example (dummy values; legacy layout)", () => {
  const file = loadFixture(V01);
  const doc = raw(V01);
  const fragment = parseOne(file);
  const point = fragment.points[0]!;

  it("is detected", () => {
    expect(llmdReportParser.detect(file)).toBe(true);
  });

  it("files the point at the harness's qps_values (1.34 req/s)", () => {
    expect(point.request_rate).toBe(1.34);
    expect(point.sources?.request_rate).toBe("scenario.load.args.qps_values");
  });

  it("reads metrics.* with units ms and ms/token; completed excludes failures and incomplete", () => {
    expect(point.output_throughput).toBe(32.544923821416);
    expect(point.total_token_throughput).toBe(676.121568007739);
    expect(point.request_throughput).toBe(1.0238155253639);
    expect(point.duration_s).toBe(16.531641244888306);
    expect(point.completed).toBe(31);
    expect(point.failed).toBe(0);
    expect(point.sources?.completed).toBe("metrics.requests.total − failures − incomplete");
    const latency = at(doc, "metrics.latency") as Record<string, Record<string, number>>;
    expect(point.mean_ttft_ms).toBe(latency.time_to_first_token!.mean);
    expect(point.median_ttft_ms).toBe(latency.time_to_first_token!.p50);
    expect(point.std_ttft_ms).toBe(latency.time_to_first_token!.stddev);
    expect(point.p90_ttft_ms).toBe(latency.time_to_first_token!.p90);
    expect(point.p99_ttft_ms).toBeUndefined();
    // v0.1 states p10 beside p50 and p90: kept in percentiles (ms as written).
    expect(point.percentiles?.ttft).toEqual({ p10: latency.time_to_first_token!.p10 });
    expect(point.percentiles?.ttft?.p10).toBe(0.072068731742911);
    expect(point.percentiles?.itl?.p10).toBe(0.0534287681337446);
    expect(point.mean_e2el_ms).toBe(3.31325431142327);
    expect(point.mean_tpot_ms).toBe(0.0836929455635872);
    expect(point.median_tpot_ms).toBe(0.0611870964678625);
    expect(point.median_itl_ms).toBe(0.0591336835059337);
    expect(point.mean_e2el_per_token_ms).toBe(0.104340420636009);
    expect(point.sources?.mean_e2el_per_token_ms).toBe("metrics.latency.normalized_time_per_output_token.mean");
  });

  it("carries engine, model, heterogeneous accelerators and the shared launch arguments", () => {
    const context = fragment.context;
    expect(context.engine).toBe("vllm");
    expect(context.engine_version).toBe("0.9.0.1");
    expect(context.model).toBe("deepseek-ai/DeepSeek-R1-0528");
    expect(context.hardware).toEqual({ gpu: "H100", gpu_count: 17 });
    expect(context.flags).toEqual({
      "--dtype": "fp16",
      "--pipeline-parallel-size": 1,
      "--enable-expert-parallel": true,
      "--data-parallel-size-local": 1,
    });
    expect(context.measured_at).toBe("2025-06-10T15:49:43.571Z");
    expect(context.workload).toEqual({ num_prompts: 32 });
    expect(context.metadata).toMatchObject({
      roles: "prefill, decode, decode",
      load_tool: "inference-perf",
      quantization: "fp16",
      report_version: "0.1",
    });
    expect(fragment.warnings).toEqual([
      `${V01}: the engine components (prefill, decode, decode) were launched with different arguments; only the ones they share are kept as flags.`,
    ]);
  });
});

describe("llm-d hand-made reports", () => {
  it("vllm-benchmark at concurrency 16 on a standalone vLLM (v0.2.1 JSON, ms and s units)", () => {
    const file = loadFixture(VLLM_C16);
    expect(llmdReportParser.detect(file)).toBe(true);
    const fragment = parseOne(file);
    const point = fragment.points[0]!;
    expect(point.concurrency).toBe(16);
    // rate_qps is null; the benchmark's own request_rate "inf" (JSON has no infinity) says every request at once.
    expect(point.request_rate).toBe("inf");
    expect(point.sources?.request_rate).toBe("scenario.load.native.args.request_rate");
    expect(point.sources?.concurrency).toBe("scenario.load.standardized.concurrency");
    expect(point.completed).toBe(198);
    expect(point.failed).toBe(2);
    expect(point.duration_s).toBeCloseTo(125.25, 9);
    expect(point.output_throughput).toBe(1044.6);
    expect(point.mean_ttft_ms).toBe(85.2);
    expect(point.std_ttft_ms).toBe(21.4);
    expect(point.p99_ttft_ms).toBe(170.9);
    expect(point.mean_tpot_ms).toBe(14.6);
    expect(point.p99_tpot_ms).toBe(17.8);
    expect(point.mean_itl_ms).toBe(14.5);
    expect(point.p99_itl_ms).toBe(31.5);
    expect(point.mean_e2el_ms).toBeCloseTo(3813, 9);
    expect(point.p99_e2el_ms).toBeCloseTo(4620, 9);
    expect(point.mean_e2el_per_token_ms).toBeUndefined();
    const context = fragment.context;
    expect(context.engine).toBe("vllm");
    expect(context.engine_version).toBe("0.11.0");
    expect(context.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(context.hardware).toEqual({ gpu: "NVIDIA-L40S", gpu_count: 2 });
    expect(context.flags).toEqual({
      "--tensor-parallel-size": 2,
      "--max-num-seqs": 256,
      "--enable-prefix-caching": true,
      "--gpu-memory-utilization": 0.92,
    });
    expect(context.env).toEqual({ VLLM_USE_V1: "1" });
    expect(context.workload).toEqual({ input_len: 1024, output_len: 256, num_prompts: 200, dataset: "random" });
    expect(context.tags).toEqual(["hand-made", "concurrency"]);
    expect(fragment.warnings).toEqual([]);
  });

  it("GuideLLM against SGLang prefill/decode (v0.2 YAML): GuideLLM's TPOT includes the first token", () => {
    const file = loadFixture(GUIDELLM);
    expect(file.kind).toBe("yaml");
    expect(llmdReportParser.detect(file)).toBe(true);
    const fragment = parseOne(file);
    const point = fragment.points[0]!;
    const agg = "results.request_performance.aggregate.latency";
    expect(point.concurrency).toBe(1);
    // GuideLLM inter_token_latency_ms is (e2e − TTFT) / (tokens − 1): TPOT here.
    expect(point.mean_tpot_ms).toBe(9.63);
    expect(point.p99_tpot_ms).toBe(10.2);
    expect(point.sources?.mean_tpot_ms).toBe(`${agg}.inter_token_latency.mean`);
    // GuideLLM time_per_output_token_ms counts the first token: e2e latency per token.
    expect(point.mean_e2el_per_token_ms).toBe(9.87);
    expect(point.sources?.mean_e2el_per_token_ms).toBe(`${agg}.time_per_output_token.mean`);
    expect(point.mean_itl_ms).toBeUndefined();
    expect(point.mean_e2el_ms).toBeCloseTo(1263.4, 9);
    expect(point.completed).toBe(60);
    expect(point.duration_s).toBe(60);
    const context = fragment.context;
    expect(context.engine).toBe("sglang");
    expect(context.engine_version).toBe("0.5.2");
    expect(context.model).toBe("Qwen/Qwen3-32B");
    expect(context.hardware).toEqual({ gpu: "NVIDIA-H200", gpu_count: 8 });
    expect(context.flags).toEqual({ "--mem-fraction-static": 0.85 });
    expect(context.metadata).toMatchObject({ roles: "prefill, decode", load_tool: "guidellm", stage: 0 });
    expect(context.metadata?.tp).toBeUndefined();
    expect(fragment.warnings).toEqual([
      `${GUIDELLM}: the engine components (prefill, decode) were launched with different arguments; only the ones they share are kept as flags.`,
    ]);
  });
});

describe("llm-d traps", () => {
  const agg = "results.request_performance.aggregate";

  test("AIPerf's inter_token_latency is TPOT", () => {
    const point = parseOne(
      variant(VLLM_C16, {
        "scenario.load.standardized.tool": "aiperf",
        [`${agg}.latency.time_per_output_token`]: undefined,
      }),
    ).points[0]!;
    expect(point.mean_tpot_ms).toBe(14.5);
    expect(point.sources?.mean_tpot_ms).toBe(`${agg}.latency.inter_token_latency.mean`);
    expect(point.mean_itl_ms).toBeUndefined();
  });

  test("a second statistics object mapped to a metric already taken is reported, not merged", () => {
    const fragment = parseOne(variant(VLLM_C16, { "scenario.load.standardized.tool": "aiperf" }));
    const point = fragment.points[0]!;
    // AIPerf's converter fills both time_per_output_token and inter_token_latency; the first is TPOT.
    expect(point.sources?.mean_tpot_ms).toBe(`${agg}.latency.time_per_output_token.mean`);
    expect(fragment.notImported).toContainEqual(
      expect.objectContaining({
        field: `${agg}.latency.inter_token_latency.mean`,
        value: 14.5,
        reason: `a second statistics object for the metric of ${agg}.latency.time_per_output_token, which the point keeps`,
      }),
    );
  });

  test("GuideLLM before 0.4 (or of no stated version) computed time_per_output_token differently: not imported", () => {
    const text = fs.readFileSync(path.join(FIXTURES_DIR, GUIDELLM), "utf8");
    expect(text).toContain("tool_version: 0.4.0");
    const old = parseOne(decodeText("old-guidellm.yaml", text.replace("tool_version: 0.4.0", "tool_version: 0.3.0")));
    expect(old.points[0]?.mean_e2el_per_token_ms).toBeUndefined();
    expect(old.points[0]?.mean_tpot_ms).toBe(9.63);
    expect(old.warnings).toContain(
      "old-guidellm.yaml: results.request_performance.aggregate.latency.time_per_output_token is not imported: GuideLLM 0.3.0 " +
        "computed it as (last token − first token) / output tokens, neither TPOT nor e2e latency per token.",
    );
  });

  test("a level with both a concurrency cap and a rate keeps both", () => {
    const point = parseOne(variant(VLLM_C16, { "scenario.load.standardized.rate_qps": 4 })).points[0]!;
    expect(point.concurrency).toBe(16);
    expect(point.request_rate).toBe(4);
  });

  test("numbers written as strings are read", () => {
    const point = parseOne(
      variant(VLLM_C16, {
        [`${agg}.throughput.output_token_rate.mean`]: "1,044.6",
        [`${agg}.latency.time_to_first_token.p99`]: "170.9",
        "scenario.load.standardized.concurrency": "16",
      }),
    ).points[0]!;
    expect(point.output_throughput).toBe(1044.6);
    expect(point.p99_ttft_ms).toBe(170.9);
    expect(point.concurrency).toBe(16);
  });

  test("a NaN statistic is no data with a warning", () => {
    const fragment = parseOne(variant(VLLM_C16, { [`${agg}.latency.time_to_first_token.p99`]: "__NaN__" }, "nan.json"));
    expect(fragment.points[0]?.p99_ttft_ms).toBeUndefined();
    expect(fragment.points[0]?.mean_ttft_ms).toBe(85.2);
    expect(fragment.warnings).toEqual([`nan.json: ${agg}.latency.time_to_first_token.p99 is NaN; stored as no data.`]);
  });

  test("a level whose requests all failed is no data, never a 0 tok/s point", () => {
    const zero = (units: string) => ({ units, mean: 0, p50: 0, p99: 0 });
    const fragment = parseOne(
      variant(
        VLLM_C16,
        {
          [`${agg}.requests.failures`]: 200,
          [`${agg}.latency`]: { time_to_first_token: zero("ms"), request_latency: zero("s") },
          [`${agg}.throughput`]: { output_token_rate: zero("tokens/s"), request_rate: zero("queries/s") },
        },
        "failed.json",
      ),
    );
    expect(fragment.points[0]).toMatchObject({ concurrency: 16, completed: 0, failed: 200 });
    expect(fragment.points[0]?.output_throughput).toBeUndefined();
    expect(fragment.points[0]?.mean_ttft_ms).toBeUndefined();
    expect(fragment.warnings).toEqual([
      "failed.json: no request completed (200 failed); its figures are stored as no data.",
    ]);
  });

  test("units that do not fit the statistic are a FormatError naming the units field", () => {
    expect(parseError(variant(VLLM_C16, { [`${agg}.throughput.output_token_rate.units`]: "queries/s" })).path).toBe(
      `${agg}.throughput.output_token_rate.units`,
    );
    const latency = parseError(variant(VLLM_C16, { [`${agg}.latency.time_per_output_token.units`]: "count" }));
    expect(latency.path).toBe(`${agg}.latency.time_per_output_token.units`);
    expect(latency.message).toContain('"count"');
    expect(parseError(variant(VLLM_C16, { [`${agg}.latency.request_latency.units`]: undefined })).path).toBe(
      `${agg}.latency.request_latency.units`,
    );
  });

  test("a statistic or figure of the wrong type is a FormatError naming its path", () => {
    expect(parseError(variant(VLLM_C16, { [`${agg}.throughput.output_token_rate`]: 1044.6 })).path).toBe(
      `${agg}.throughput.output_token_rate`,
    );
    const error = parseError(variant(VLLM_C16, { [`${agg}.latency.time_to_first_token.mean`]: { value: 85.2 } }));
    expect(error.path).toBe(`${agg}.latency.time_to_first_token.mean`);
    expect(error.message).toContain("an object");
  });

  test("a report without a load level (a results-only partial) is refused, naming scenario.load.standardized", () => {
    const noLevel = parseError(
      variant(VLLM_C16, {
        "scenario.load.standardized.concurrency": null,
        "scenario.load.native.args.request_rate": null,
      }),
    );
    expect(noLevel.path).toBe("scenario.load.standardized");
    const partial = parseError(variant(VLLM_C16, { scenario: undefined }));
    expect(partial.path).toBe("scenario.load.standardized");
    expect(partial.message).toContain("partial");
  });

  test("a report with only observability results holds no load point of its own", () => {
    expect(llmdReportParser.parse(variant(VLLM_C16, { "results.request_performance": null }))).toEqual([]);
    expect(llmdReportParser.parse(variant(VLLM_C16, { results: { observability: null } }))).toEqual([]);
  });

  test("llama.cpp's build is its version; a word such as latest is none", () => {
    const build = parseOne(
      variant(VLLM_C16, {
        "scenario.stack.0.standardized.tool": "llama.cpp",
        "scenario.stack.0.standardized.tool_version": "b5163 (8cf427ff)",
      }),
    );
    expect(build.context).toMatchObject({ engine: "llama.cpp", engine_version: "b5163 (8cf427ff)" });
    const latest = parseOne(
      variant(VLLM_C16, { "scenario.stack.0.standardized.tool_version": "vllm/vllm-openai:latest" }),
    );
    expect(latest.context.engine_version).toBeUndefined();
  });

  test("a sequence length of 0 (llm-d-benchmark's {distribution: other, value: 0}) is not stated", () => {
    const fragment = parseOne(
      variant(VLLM_C16, {
        "scenario.load.standardized.input_seq_len": { distribution: "other", value: 0 },
        "scenario.load.standardized.output_seq_len": null,
      }),
    );
    expect(fragment.context.workload?.input_len).toBeUndefined();
    expect(fragment.context.workload?.output_len).toBeUndefined();
    expect(fragment.context.workload?.num_prompts).toBe(200);
  });

  test("without concurrency or rate_qps, the benchmark's own request_rate inf is the level", () => {
    const point = parseOne(variant(VLLM_C16, { "scenario.load.standardized.concurrency": null })).points[0]!;
    expect(point.concurrency).toBeUndefined();
    expect(point.request_rate).toBe("inf");
    expect(point.sources?.request_rate).toBe("scenario.load.native.args.request_rate");
  });

  test("an engine tool the parser does not know is kept in metadata, not guessed", () => {
    const fragment = parseOne(
      variant(VLLM_C16, {
        "scenario.stack.0.standardized.tool": "acme-serve",
        "scenario.stack.0.standardized.tool_version": "2.1",
      }),
    );
    expect(fragment.context.engine).toBeUndefined();
    expect(fragment.context.engine_version).toBeUndefined();
    expect(fragment.context.metadata).toMatchObject({ engine_tool: "acme-serve", engine_tool_version: "2.1" });
  });
});

describe("llm-d detection", () => {
  it("claims every report fixture and none of the JSON Schemas", () => {
    const files = fixtureFiles(DIR);
    const reports = files.filter(
      (name) => name.endsWith(".yaml") || (name.includes("hand-made") && name.endsWith(".json")),
    );
    const schemas = files.filter((name) => name.endsWith("_json_schema.json"));
    expect(reports).toHaveLength(6);
    expect(schemas).toHaveLength(3);
    for (const name of reports) expect(llmdReportParser.detect(loadFixture(name)), name).toBe(true);
    for (const name of schemas) {
      const schema = loadFixture(name);
      expect(llmdReportParser.detect(schema), name).toBe(false);
      expect(() => llmdReportParser.parse(schema)).toThrow(FormatError);
    }
    let source: SourceFile | undefined;
    try {
      source = loadFixture(`${DIR}/SOURCE.txt`);
    } catch {
      source = undefined;
    }
    if (source) expect(llmdReportParser.detect(source)).toBe(false);
  });

  it("claims no other tool's file, and no report of an unknown version", () => {
    const others: Record<string, unknown> = {
      vllm: { backend: "vllm", model_id: "m", max_concurrency: 4, output_throughput: 10, mean_tpot_ms: 5 },
      guidellm: { benchmarks: [{ metrics: {} }] },
      aiperf: { output_token_throughput: { avg: 1, unit: "tokens/sec" }, input_config: {} },
      llmperf: { results_mean_output_throughput_token_per_s: 1, num_concurrent_requests: 1 },
      inferencePerf: { load_summary: { count: 1 }, successes: { throughput: { output_tokens_per_sec: 1 } } },
      trtllm: readFixtureJson("trtllm/hand-made-streaming.json"),
      llamaBench: [{ build_commit: "a", n_prompt: 0, n_gen: 128, avg_ts: 1 }],
      servebench: { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] },
      futureVersion: { ...(readFixtureJson(VLLM_C16) as Json), version: "0.3" },
      runWithoutResults: { run: { uid: "x" } },
      nullish: null,
    };
    for (const [name, data] of Object.entries(others)) {
      expect(llmdReportParser.detect({ name, kind: "json", data, bytes: 1 }), name).toBe(false);
    }
    expect(
      llmdReportParser.detect({
        name: "x.csv",
        kind: "csv",
        data: [
          ["version", "run"],
          ["0.2", "x"],
        ],
        bytes: 1,
      }),
    ).toBe(false);
    expect(
      llmdReportParser.detect({
        name: "x.jsonl",
        kind: "jsonl",
        data: [readFixtureJson(VLLM_C16), readFixtureJson(VLLM_C16)],
        bytes: 1,
      }),
    ).toBe(false);
  });

  it("claims a report without a version by its sections", () => {
    expect(llmdReportParser.detect(variant(VLLM_C16, { version: undefined }))).toBe(true);
    expect(parseOne(variant(VLLM_C16, { version: undefined })).points[0]?.concurrency).toBe(16);
  });
});
