import { describe, expect, it, test } from "vitest";
import { z } from "zod";
import { defaultRunName, issuesFromZod, normalizeRunDocument, validationError } from "@/lib/document/normalize";
import { RunDocumentSchema } from "@/lib/document/schema";
import { AppError, type ErrorIssue } from "@/lib/errors";

const MINIMAL = {
  format: "servebench/v1",
  engine: "SGLang",
  model: "m",
  results: [{ concurrency: 1, output_throughput: 27 }],
};

function withFields(fields: Record<string, unknown>): Record<string, unknown> {
  return { ...MINIMAL, ...fields };
}

function issuesOf(raw: unknown): ErrorIssue[] {
  try {
    normalizeRunDocument(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe("validation_failed");
    return appError.issues ?? [];
  }
  throw new Error("expected normalizeRunDocument to throw");
}

describe("normalizeRunDocument: canonical form", () => {
  it("normalizes a minimal document", () => {
    expect(normalizeRunDocument(MINIMAL)).toEqual({
      format: "servebench/v1",
      name: "SGLang · m",
      engine: "sglang",
      model: "m",
      flags: {},
      env: {},
      tags: [],
      metadata: {},
      warnings: [],
      not_imported: [],
      source_format: "servebench/v1",
      results: [{ concurrency: 1, output_throughput: 27 }],
    });
  });

  it("leaves optional fields out when they are absent", () => {
    const doc = normalizeRunDocument(MINIMAL);
    expect(Object.keys(doc).sort()).toEqual(
      [
        "engine",
        "env",
        "flags",
        "format",
        "metadata",
        "model",
        "name",
        "results",
        "source_format",
        "tags",
        "warnings",
        "not_imported",
      ].sort(),
    );
  });

  it("includes the engine version in the default name", () => {
    expect(normalizeRunDocument(withFields({ engine_version: "0.5.8" })).name).toBe("SGLang 0.5.8 · m");
  });

  it("keeps an explicit name, trimmed", () => {
    expect(normalizeRunDocument(withFields({ name: "  SGLang TP8, CUDA graphs on " })).name).toBe(
      "SGLang TP8, CUDA graphs on",
    );
  });

  it("keeps hardware, workload, speculative and server startup", () => {
    const doc = normalizeRunDocument(
      withFields({
        engine_version: "0.5.8",
        hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 },
        workload: { dataset: "fixed chat prompt", output_len: 256, temperature: 0 },
        speculative: { method: "eagle3", num_speculative_tokens: 3 },
        server_startup_s: 313,
        notes: "first try",
      }),
    );
    expect(doc.hardware).toEqual({ gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 });
    expect(doc.workload).toEqual({ dataset: "fixed chat prompt", output_len: 256, temperature: 0 });
    expect(doc.speculative).toEqual({ method: "eagle3", num_speculative_tokens: 3 });
    expect(doc.server_startup_s).toBe(313);
    expect(doc.notes).toBe("first try");
    expect(doc.engine_version).toBe("0.5.8");
  });

  it("drops blank notes and empty sub-objects", () => {
    const doc = normalizeRunDocument(withFields({ notes: "   ", hardware: {}, workload: {} }));
    expect("notes" in doc).toBe(false);
    expect("hardware" in doc).toBe(false);
    expect("workload" in doc).toBe(false);
  });
});

describe("normalizeRunDocument: command, flags and env", () => {
  it("parses the command into flags and env and keeps the command", () => {
    const command =
      "NCCL_P2P_LEVEL=SYS python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --disable-cuda-graph";
    const doc = normalizeRunDocument(withFields({ command }));
    expect(doc.command).toBe(command);
    expect(doc.flags).toEqual({ "--model-path": "moonshotai/Kimi-K2.5", "--tp": "8", "--disable-cuda-graph": true });
    expect(doc.env).toEqual({ NCCL_P2P_LEVEL: "SYS" });
  });

  it("merges explicit flags (object form) over the command's, numbers as strings", () => {
    const doc = normalizeRunDocument(
      withFields({
        command: "python -m sglang.launch_server --tp 8 --disable-cuda-graph",
        flags: { "--tp": 4, mem_fraction_static: 0.9, "--cuda-graph-bs": [1, 2, 4], "--enable-prefix-caching": false },
      }),
    );
    expect(doc.flags).toEqual({
      "--tp": "4",
      "--disable-cuda-graph": true,
      "--mem-fraction-static": "0.9",
      "--cuda-graph-bs": ["1", "2", "4"],
      "--enable-prefix-caching": false,
    });
  });

  it("merges explicit flags (array of tokens) over the command's", () => {
    const doc = normalizeRunDocument(
      withFields({
        command: "vllm serve m --tensor-parallel-size 4 --max-model-len 8192",
        flags: ["--tensor-parallel-size", 8, "--disable_log_requests", "--cuda-graph-sizes", 1, 2],
      }),
    );
    expect(doc.flags).toEqual({
      "--tensor-parallel-size": "8",
      "--max-model-len": "8192",
      "--disable-log-requests": true,
      "--cuda-graph-sizes": ["1", "2"],
      "--model": "m",
    });
  });

  it("turns env values into strings and lets explicit env win over the command prefix", () => {
    const doc = normalizeRunDocument(
      withFields({
        command: "NCCL_P2P_LEVEL=SYS CUDA_VISIBLE_DEVICES=0,1 vllm serve m",
        env: { NCCL_P2P_LEVEL: "NVL", OMP_NUM_THREADS: 4, VLLM_USE_V1: true },
      }),
    );
    expect(doc.env).toEqual({
      NCCL_P2P_LEVEL: "NVL",
      CUDA_VISIBLE_DEVICES: "0,1",
      OMP_NUM_THREADS: "4",
      VLLM_USE_V1: "true",
    });
  });
});

describe("normalizeRunDocument: tags, metadata and dates", () => {
  it("trims, lower-cases and deduplicates tags in first-seen order", () => {
    const doc = normalizeRunDocument(withFields({ tags: [" Blackwell ", "blackwell", "TP8", "tp8 ", "Kimi-K2.5"] }));
    expect(doc.tags).toEqual(["blackwell", "tp8", "kimi-k2.5"]);
  });

  it("moves extra top-level scalars into metadata, keeps the source format and ignores server keys", () => {
    const doc = normalizeRunDocument(
      withFields({
        id: "run_123",
        created_at: "2026-02-14T09:30:00Z",
        source_format: "vllm-bench",
        metadata: { driver: "570.86" },
        gpu_clock_mhz: 2400,
        cuda: "12.8",
        ecc: true,
      }),
    );
    expect(doc.metadata).toEqual({ driver: "570.86", gpu_clock_mhz: 2400, cuda: "12.8", ecc: true });
    expect("id" in doc).toBe(false);
    expect("created_at" in doc).toBe(false);
    expect(doc.source_format).toBe("vllm-bench");
  });

  test.each([
    ["2026-02-14T10:30:00+01:00", "2026-02-14T09:30:00.000Z"],
    ["2026-02-14T10:30:00Z", "2026-02-14T10:30:00.000Z"],
    ["2026-02-14T23:30:00-05:00", "2026-02-15T04:30:00.000Z"],
    ["2026-02-14T10:30:00.250+00:00", "2026-02-14T10:30:00.250Z"],
  ])("measured_at %s → %s", (input, expected) => {
    expect(normalizeRunDocument(withFields({ measured_at: input })).measured_at).toBe(expected);
  });

  it("drops undefined fields of result points", () => {
    const doc = normalizeRunDocument(
      withFields({ results: [{ concurrency: 1, output_throughput: 27, mean_tpot_ms: undefined }] }),
    );
    expect(doc.results).toEqual([{ concurrency: 1, output_throughput: 27 }]);
    expect(Object.keys(doc.results[0] ?? {})).toEqual(["concurrency", "output_throughput"]);
  });

  it('accepts request_rate "inf" and numeric rates', () => {
    const doc = normalizeRunDocument(
      withFields({ results: [{ request_rate: "inf", output_throughput: 2370 }, { request_rate: 2.5 }] }),
    );
    expect(doc.results).toEqual([{ request_rate: "inf", output_throughput: 2370 }, { request_rate: 2.5 }]);
  });
});

describe("normalizeRunDocument: round trip", () => {
  test.each<[string, Record<string, unknown>]>([
    ["minimal", MINIMAL],
    [
      "a full document",
      {
        format: "servebench/v1",
        name: "SGLang TP8, --disable-cuda-graph",
        engine: "SGLang",
        engine_version: "0.5.8",
        model: "Kimi-K2.5 INT4",
        hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 },
        command:
          "NCCL_P2P_LEVEL=SYS python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 " +
          "--attention-backend triton --disable-cuda-graph --no-enable-prefix-caching --cuda-graph-bs 1 2 4",
        flags: { mem_fraction_static: 0.9, "--tp": 8 },
        env: { NCCL_P2P_LEVEL: "NVL", OMP_NUM_THREADS: 4 },
        workload: { dataset: "fixed chat prompt", output_len: 256, temperature: 0 },
        speculative: { method: "eagle3", num_speculative_tokens: 3, acceptance_rate: 0.62 },
        server_startup_s: 313,
        tags: ["Demo", "blackwell", "TP8", "tp8"],
        notes: "Example data.",
        measured_at: "2026-02-14T10:30:00+01:00",
        metadata: { driver: "570.86" },
        cuda: "12.8",
        id: "ignored",
        results: [
          { concurrency: 128, output_throughput: 2216 },
          { concurrency: 1, output_throughput: 27, mean_tpot_ms: 37 },
          { request_rate: "inf", output_throughput: 2300 },
        ],
      },
    ],
  ])("normalizing %s twice changes nothing", (_label, raw) => {
    const once = normalizeRunDocument(raw);
    const twice = normalizeRunDocument(JSON.parse(JSON.stringify(once)));
    expect(twice).toEqual(once);
  });
});

describe("normalizeRunDocument: validation errors", () => {
  test.each<[string, unknown, ErrorIssue[]]>([
    [
      "missing engine",
      { format: "servebench/v1", model: "m", results: [{ concurrency: 1 }] },
      [{ path: "engine", message: "is required" }],
    ],
    ["blank engine", withFields({ engine: "   " }), [{ path: "engine", message: "must not be empty" }]],
    ["empty results", withFields({ results: [] }), [{ path: "results", message: "needs at least one result point" }]],
    [
      "point with neither concurrency nor request_rate",
      withFields({ results: [{ output_throughput: 3 }] }),
      [{ path: "results.0.concurrency", message: "a result point needs `concurrency` or `request_rate`" }],
    ],
    [
      "duplicate concurrency",
      withFields({ results: [{ concurrency: 4 }, { concurrency: 4 }] }),
      [
        {
          path: "results.1.concurrency",
          message:
            "concurrency 4 appears twice (also at results.0); a run has one point per load level and repeat (number repeats with `repeat`: 1, 2, …)",
        },
      ],
    ],
    [
      "duplicate request_rate",
      withFields({ results: [{ request_rate: 2 }, { request_rate: 8 }, { request_rate: 2 }] }),
      [
        {
          path: "results.2.request_rate",
          message:
            "request_rate 2 appears twice (also at results.0); a run has one point per load level and repeat (number repeats with `repeat`: 1, 2, …)",
        },
      ],
    ],
    [
      "unknown key in a point",
      withFields({ results: [{ concurrency: 1, output_througput: 27 }] }),
      [{ path: "results.0.output_througput", message: 'unknown field "output_througput"' }],
    ],
    [
      "unknown key in hardware",
      withFields({ hardware: { gpus: 8 } }),
      [{ path: "hardware.gpus", message: 'unknown field "gpus"' }],
    ],
    ["wrong format", withFields({ format: "servebench/v2" }), [{ path: "format", message: 'must be "servebench/v1"' }]],
    [
      "extra top-level key with an object value",
      withFields({ gpu_info: { name: "B200" } }),
      [
        {
          path: "gpu_info",
          message: "unknown top-level field: extra fields are kept as metadata and must be a string, number or boolean",
        },
      ],
    ],
    [
      "extra top-level key with an array value",
      withFields({ gpus: ["a", "b"] }),
      [
        {
          path: "gpus",
          message: "unknown top-level field: extra fields are kept as metadata and must be a string, number or boolean",
        },
      ],
    ],
    ["tag with a comma", withFields({ tags: ["a,b"] }), [{ path: "tags.0", message: "must not contain a comma" }]],
  ])("%s", (_label, raw, expected) => {
    expect(issuesOf(raw)).toEqual(expected);
  });

  test.each<[string, unknown, string]>([
    ["concurrency 0", withFields({ results: [{ concurrency: 0 }] }), "results.0.concurrency"],
    ["concurrency 1.5", withFields({ results: [{ concurrency: 1.5 }] }), "results.0.concurrency"],
    [
      "negative output_throughput",
      withFields({ results: [{ concurrency: 1, output_throughput: -1 }] }),
      "results.0.output_throughput",
    ],
    [
      "negative mean_ttft_ms",
      withFields({ results: [{ concurrency: 1, mean_ttft_ms: -5 }] }),
      "results.0.mean_ttft_ms",
    ],
    ['request_rate "fast"', withFields({ results: [{ request_rate: "fast" }] }), "results.0.request_rate"],
    ["request_rate 0", withFields({ results: [{ request_rate: 0 }] }), "results.0.request_rate"],
    ["measured_at without offset", withFields({ measured_at: "2026-02-14T10:30:00" }), "measured_at"],
    ["measured_at not a date", withFields({ measured_at: "yesterday" }), "measured_at"],
    ["gpu_count 0", withFields({ hardware: { gpu_count: 0 } }), "hardware.gpu_count"],
    ["env name starting with a digit", withFields({ env: { "1BAD": "x" } }), "env.1BAD"],
    ["id that is not a string", withFields({ id: 5 }), "id"],
  ])("%s is reported at its path", (_label, raw, path) => {
    const issues = issuesOf(raw);
    expect(issues.map((issue) => issue.path)).toEqual([path]);
    expect(issues[0]?.message.length).toBeGreaterThan(0);
  });

  test.each<[string, unknown]>([
    ["an array", []],
    ["a string", "servebench/v1"],
    ["null", null],
    ["a number", 42],
    ["undefined", undefined],
  ])('rejects %s as the document with path ""', (_label, raw) => {
    expect(issuesOf(raw)).toEqual([{ path: "", message: "a run document must be a JSON object" }]);
  });

  it("reports every violation at once", () => {
    const issues = issuesOf({
      format: "nope",
      engine: "",
      results: [{ concurrency: 0 }, { concurrency: 2, output_througput: 1 }],
    });
    expect(issues).toEqual([
      { path: "format", message: 'must be "servebench/v1"' },
      { path: "engine", message: "must not be empty" },
      { path: "model", message: "is required" },
      { path: "results.0.concurrency", message: "Too small: expected number to be >=1" },
      { path: "results.1.output_througput", message: 'unknown field "output_througput"' },
    ]);
  });

  it("summarizes the first issue and counts the rest in the error message", () => {
    try {
      normalizeRunDocument({ format: "servebench/v1", results: [] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toBe("The run document is invalid. engine: is required (and 2 more)");
    }
  });
});

describe("issuesFromZod", () => {
  it("maps the issues of a RunDocumentSchema parse to paths and messages", () => {
    const parsed = RunDocumentSchema.safeParse({
      format: "servebench/v1",
      engine: "vllm",
      results: [{ concurrency: 1, p99_ttft: 5 }],
      extra: { nested: true },
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(issuesFromZod(parsed.error)).toEqual([
      { path: "model", message: "is required" },
      { path: "results.0.p99_ttft", message: 'unknown field "p99_ttft"' },
      {
        path: "extra",
        message: "unknown top-level field: extra fields are kept as metadata and must be a string, number or boolean",
      },
    ]);
  });

  it("reports each unrecognized key on its own", () => {
    const parsed = z.strictObject({ a: z.string() }).safeParse({ a: "x", b: 1, c: 2 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(issuesFromZod(parsed.error)).toEqual([
      { path: "b", message: 'unknown field "b"' },
      { path: "c", message: 'unknown field "c"' },
    ]);
  });
});

describe("validationError", () => {
  test.each<[ErrorIssue[], string]>([
    [[{ path: "engine", message: "is required" }], "The run document is invalid. engine: is required"],
    [
      [
        { path: "engine", message: "is required" },
        { path: "model", message: "is required" },
        { path: "results", message: "needs at least one result point" },
      ],
      "The run document is invalid. engine: is required (and 2 more)",
    ],
    [
      [{ path: "", message: "a run document must be a JSON object" }],
      "The run document is invalid. document: a run document must be a JSON object",
    ],
    [[], "The run document is invalid. invalid document"],
  ])("message for %j", (issues, message) => {
    const error = validationError(issues);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe("validation_failed");
    expect(error.message).toBe(message);
    expect(error.issues).toEqual(issues);
  });
});

describe("defaultRunName", () => {
  test.each<[string, string | undefined, string, string]>([
    ["sglang", undefined, "m", "SGLang · m"],
    ["vllm", "0.11.0", "Kimi-K2.5 INT4", "vLLM 0.11.0 · Kimi-K2.5 INT4"],
    ["sglang", "", "m", "SGLang · m"],
    ["tensorrt-llm", "0.20", "meta-llama/Llama-3.3-70B-Instruct", "TensorRT-LLM 0.20 · Llama-3.3-70B-Instruct"],
    ["my-engine", undefined, "/models/Qwen3-8B/", "my-engine · Qwen3-8B"],
  ])("%s %j %s → %j", (engine, version, model, expected) => {
    expect(defaultRunName(engine, version, model)).toBe(expected);
  });
});

describe("the canonical document is a valid upload of itself", () => {
  test.each([
    ["a minimal document", MINIMAL],
    ["dotted capital I tags and engine", withFields({ engine: "İ".repeat(32), tags: ["İ".repeat(20), "Tp8"] })],
    [
      "credentials in the command, flags and env",
      withFields({
        command: "HF_TOKEN=x vllm serve m --api-key k --tp 8",
        flags: { "--client-secret": "s" },
        env: { OPENAI_API_KEY: "k" },
      }),
    ],
    ["extra top-level fields", withFields({ backend: "openai", run_id: 7, ok: true })],
    [
      "a generated name at the limit",
      withFields({ engine: "e".repeat(64), engine_version: "v".repeat(64), model: "m".repeat(200) }),
    ],
  ])("%s: normalizing the stored form again changes nothing", (_label, raw) => {
    const once = normalizeRunDocument(raw);
    expect(normalizeRunDocument(once)).toEqual(once);
  });
});
