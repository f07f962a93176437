import { describe, expect, it, test } from "vitest";
import {
  DOCUMENT_KEYS,
  LATENCY_KEYS,
  RequestRateSchema,
  ResultPointSchema,
  RunDocumentSchema,
  runDocumentJsonSchema,
} from "@/lib/document/schema";

interface JsonSchemaObject {
  $id?: string;
  title?: string;
  type?: string;
  properties?: Record<string, { type?: string; const?: string; items?: { properties?: Record<string, unknown> } }>;
  required?: string[];
}

describe("runDocumentJsonSchema", () => {
  const schema = runDocumentJsonSchema() as JsonSchemaObject;

  it("is identified and titled", () => {
    expect(schema.$id).toBe("servebench/v1");
    expect(schema.title).toBe("servebench/v1 run document");
    expect(schema.type).toBe("object");
  });

  test.each([
    "format",
    "name",
    "engine",
    "engine_version",
    "model",
    "hardware",
    "command",
    "flags",
    "env",
    "workload",
    "speculative",
    "tags",
    "measured_at",
    "metadata",
    "results",
  ])("has property %s", (key) => {
    expect(Object.keys(schema.properties ?? {})).toContain(key);
  });

  it("requires exactly format, engine, model and results", () => {
    expect([...(schema.required ?? [])].sort()).toEqual(["engine", "format", "model", "results"]);
  });

  it("fixes format to servebench/v1", () => {
    expect(schema.properties?.format?.const).toBe("servebench/v1");
  });

  it("describes every latency key of a result point", () => {
    const pointProperties = Object.keys(schema.properties?.results?.items?.properties ?? {});
    for (const key of LATENCY_KEYS) expect(pointProperties).toContain(key);
    expect(pointProperties).toContain("concurrency");
    expect(pointProperties).toContain("request_rate");
    expect(pointProperties).toContain("output_throughput");
  });
});

describe("LATENCY_KEYS", () => {
  it("crosses six statistics with five metrics", () => {
    expect(LATENCY_KEYS).toHaveLength(30);
    expect(LATENCY_KEYS.slice(0, 5)).toEqual([
      "mean_ttft_ms",
      "mean_tpot_ms",
      "mean_itl_ms",
      "mean_e2el_ms",
      "mean_e2el_per_token_ms",
    ]);
    expect(LATENCY_KEYS).toContain("std_tpot_ms");
    expect(LATENCY_KEYS).toContain("p95_ttft_ms");
    expect(LATENCY_KEYS).toContain("p99_e2el_per_token_ms");
    expect(LATENCY_KEYS).toContain("p99_e2el_ms");
    expect(LATENCY_KEYS).toContain("median_itl_ms");
    expect(LATENCY_KEYS).toContain("p90_ttft_ms");
  });
});

describe("ResultPointSchema", () => {
  it("accepts every latency field", () => {
    const point: Record<string, number> = { concurrency: 4 };
    LATENCY_KEYS.forEach((key, index) => {
      point[key] = index + 0.5;
    });
    const parsed = ResultPointSchema.safeParse(point);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual(point);
  });

  test.each(LATENCY_KEYS)("accepts %s alone and rejects it negative", (key) => {
    expect(ResultPointSchema.safeParse({ concurrency: 1, [key]: 12.5 }).success).toBe(true);
    expect(ResultPointSchema.safeParse({ concurrency: 1, [key]: -1 }).success).toBe(false);
  });

  it("accepts a full vLLM bench point", () => {
    const point = {
      concurrency: 128,
      completed: 1280,
      failed: 0,
      duration_s: 147.8,
      total_input_tokens: 1280000,
      total_output_tokens: 327680,
      request_throughput: 8.66,
      output_throughput: 2216,
      total_token_throughput: 10876,
    };
    expect(ResultPointSchema.parse(point)).toEqual(point);
  });

  test.each<[string, Record<string, unknown>, boolean]>([
    ["concurrency only", { concurrency: 1 }, true],
    ["request_rate only", { request_rate: 2 }, true],
    ["request_rate inf", { request_rate: "inf" }, true],
    ["neither", { output_throughput: 5 }, false],
    ["concurrency 0", { concurrency: 0 }, false],
    ["concurrency 1.5", { concurrency: 1.5 }, false],
    ["concurrency over a million", { concurrency: 1_000_001 }, false],
    ["completed 2.5", { concurrency: 1, completed: 2.5 }, false],
    ["unknown key", { concurrency: 1, tokens_per_second: 5 }, false],
  ])("%s → valid %s", (_label, point, valid) => {
    expect(ResultPointSchema.safeParse(point).success).toBe(valid);
  });
});

describe("RequestRateSchema", () => {
  test.each<[unknown, boolean]>([
    [1, true],
    [0.25, true],
    ["inf", true],
    [0, false],
    [-1, false],
    ["fast", false],
    ["Infinity", false],
    ["2", false],
  ])("%j → valid %s", (rate, valid) => {
    expect(RequestRateSchema.safeParse(rate).success).toBe(valid);
  });
});

describe("RunDocumentSchema", () => {
  it("allows extra scalar keys and rejects extra objects", () => {
    const base = { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] };
    expect(RunDocumentSchema.safeParse({ ...base, driver: "570.86", runs: 3, ecc: true }).success).toBe(true);
    expect(RunDocumentSchema.safeParse({ ...base, driver: { version: "570.86" } }).success).toBe(false);
  });

  it("knows its document keys", () => {
    for (const key of ["format", "engine", "model", "results", "id", "created_at", "source_format", "metadata"]) {
      expect(DOCUMENT_KEYS.has(key)).toBe(true);
    }
    expect(DOCUMENT_KEYS.has("driver")).toBe(false);
  });
});
