/** What the server says about itself fills the run's context, and never overrides what the user said. */
import { describe, expect, it } from "vitest";
import { buildRunDocument } from "@/lib/bench/document";
import { aggregateLevel } from "@/lib/bench/metrics";
import { builtinPrompts } from "@/lib/bench/prompts";
import {
  ContextError,
  parseModelList,
  parseVersion,
  resolveContext,
  type ServerProbe,
  sglangFlags,
} from "@/lib/bench/server-info";
import { normalizeRunDocument } from "@/lib/document/normalize";

/** Shaped like SGLang 0.5's /get_server_info: server arguments, scheduler state, internal states, version. */
const SGLANG_INFO = {
  model_path: "Qwen/Qwen3-8B",
  tokenizer_path: "Qwen/Qwen3-8B",
  served_model_name: "qwen3",
  tp_size: 2,
  mem_fraction_static: 0.88,
  attention_backend: "triton",
  disable_cuda_graph: false,
  enable_torch_compile: true,
  cuda_graph_bs: [1, 2, 4, 8],
  speculative_algorithm: null,
  json_model_override_args: "{}",
  chat_template: "",
  api_key: "sk-very-secret",
  hf_token: "hf_secret",
  ssl_keyfile_password: "pw",
  max_total_tokens: 65536,
  lora_paths: { adapter: "/loras/a" },
  nested_list: [{ a: 1 }],
  max_total_num_tokens: 123456,
  max_req_input_len: 32000,
  status: "ready",
  internal_states: [{ last_gen_throughput: 12.5 }],
  version: "0.5.8",
};

function probe(overrides: Partial<ServerProbe> = {}): ServerProbe {
  return { models: [{ id: "qwen3", max_model_len: 40960 }], sglang_info: null, vllm_version: null, ...overrides };
}

describe("parseModelList / parseVersion", () => {
  it("reads ids and max_model_len", () => {
    expect(
      parseModelList({
        object: "list",
        data: [
          { id: "meta-llama/Llama-3.1-8B-Instruct", object: "model", owned_by: "vllm", max_model_len: 131072 },
          { id: "lora-a", object: "model" },
          { object: "model" },
        ],
      }),
    ).toEqual([{ id: "meta-llama/Llama-3.1-8B-Instruct", max_model_len: 131072, owned_by: "vllm" }, { id: "lora-a" }]);
    expect(parseModelList({ detail: "Not Found" })).toBeNull();
  });

  it("reads a version", () => {
    expect(parseVersion({ version: "0.11.0" })).toBe("0.11.0");
    expect(parseVersion({ version: 11 })).toBeNull();
  });
});

describe("sglangFlags", () => {
  it("turns server arguments into flags, skipping unset, off, empty, nested, state and secret values", () => {
    expect(sglangFlags(SGLANG_INFO)).toEqual({
      "--model-path": "Qwen/Qwen3-8B",
      "--tokenizer-path": "Qwen/Qwen3-8B",
      "--served-model-name": "qwen3",
      "--tp-size": 2,
      "--mem-fraction-static": 0.88,
      "--attention-backend": "triton",
      "--enable-torch-compile": true,
      "--cuda-graph-bs": [1, 2, 4, 8],
      "--json-model-override-args": "{}",
      "--max-total-tokens": 65536,
    });
  });
});

describe("resolveContext", () => {
  it("fills engine, version and flags from SGLang's /get_server_info and says so", () => {
    const context = resolveContext({ model: "qwen3" }, probe({ sglang_info: SGLANG_INFO }));
    expect(context.engine).toBe("sglang");
    expect(context.engine_version).toBe("0.5.8");
    expect(context.flags["--tp-size"]).toBe(2);
    expect(context.max_model_len).toBe(40960);
    expect(context.filled).toEqual([
      "/v1/models: max_model_len",
      "sglang /get_server_info: engine, engine_version, flags",
    ]);
    expect(context.lines).toEqual([
      "max_model_len: 40960 (/v1/models)",
      "from the server (sglang /get_server_info): engine sglang, version 0.5.8, 10 launch flags",
    ]);
  });

  it("fills engine and version from vLLM's /version", () => {
    const context = resolveContext({ model: "qwen3" }, probe({ vllm_version: "0.11.0" }));
    expect(context).toMatchObject({ engine: "vllm", engine_version: "0.11.0", flags: {} });
    expect(context.filled).toContain("vllm /version: engine, engine_version");
  });

  it("does not take /version for vLLM when the model list names another owner", () => {
    const trtllm = probe({ models: [{ id: "qwen3", owned_by: "tensorrt_llm" }], vllm_version: "1.0.0" });
    // Its model list's owner names the engine (TensorRT-LLM's ModelCard says "tensorrt_llm"), but not a version.
    const told = resolveContext({ model: "qwen3" }, trtllm);
    expect(told).toMatchObject({ engine: "tensorrt-llm", flags: {} });
    expect(told.engine_version).toBeUndefined();
    expect(told.filled).toEqual(["/v1/models: engine"]);
    const context = resolveContext({ model: "qwen3", engine: "tensorrt-llm" }, trtllm);
    expect(context.engine_version).toBeUndefined();
    expect(context.lines).toEqual([
      'note: the server answers /version (1.0.0) but /v1/models says its models are owned by "tensorrt_llm": it is not taken for vLLM\'s version',
    ]);
    expect(
      resolveContext({ model: "qwen3" }, probe({ models: [{ id: "qwen3", owned_by: "vllm" }], vllm_version: "0.11.0" }))
        .engine,
    ).toBe("vllm");
  });

  it("never overrides an explicit engine version", () => {
    const context = resolveContext(
      { model: "qwen3", engine: "vllm", engine_version: "0.10.2-custom" },
      probe({ vllm_version: "0.11.0" }),
    );
    expect(context.engine_version).toBe("0.10.2-custom");
    expect(context.filled).toEqual(["/v1/models: max_model_len"]);
  });

  it("an explicit engine that is not the server's keeps the server's version and flags out", () => {
    const context = resolveContext({ model: "qwen3", engine: "my-fork" }, probe({ sglang_info: SGLANG_INFO }));
    expect(context).toMatchObject({ engine: "my-fork", flags: {} });
    expect(context.engine_version).toBeUndefined();
    expect(context.lines).toContain(
      "note: --engine my-fork was given, but the server answers like sglang (sglang /get_server_info); its version and flags are not used",
    );
  });

  it("keeps the values of flags the user's --command sets, through to the stored run", () => {
    const command = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --tp-size 4";
    const context = resolveContext({ model: "qwen3", command }, probe({ sglang_info: SGLANG_INFO }));
    expect(context.flags).not.toHaveProperty("--tp-size");
    expect(context.flags).not.toHaveProperty("--model-path");
    expect(context.flags["--attention-backend"]).toBe("triton");
    const level = aggregateLevel(1, [
      {
        status: "ok",
        start_ms: 0,
        end_ms: 100,
        text_chunk_ms: [50, 60],
        usage_output_tokens: 2,
        usage_input_tokens: 3,
      },
    ]);
    const doc = buildRunDocument(
      {
        baseUrl: new URL("http://h:30000/v1"),
        concurrency: [1],
        requests: 1,
        maxTokens: 2,
        temperature: 0,
        ignoreEos: false,
        endpoint: "chat",
        prompts: builtinPrompts(),
        timeoutMs: 1000,
        warmup: 0,
      },
      { command },
      { context, levels: [level], warnings: [], partial: false, started_at: new Date() },
    );
    expect(normalizeRunDocument(doc).flags).toMatchObject({
      "--tp-size": "4",
      "--tp": "2",
      "--attention-backend": "triton",
      "--model-path": "Qwen/Qwen3-8B",
    });
  });

  it("chooses the first served model when none is given", () => {
    const context = resolveContext({}, probe({ models: [{ id: "a" }, { id: "b" }], vllm_version: "0.11.0" }));
    expect(context.model).toBe("a");
    expect(context.lines[0]).toBe("model: a (the first of 2 the server lists in /v1/models)");
    expect(context.filled[0]).toBe("/v1/models: model");
  });

  it("refuses a model the server does not serve, naming those it does", () => {
    expect(() => resolveContext({ model: "llama" }, probe({ vllm_version: "0.11.0" }))).toThrow(
      new ContextError('the server does not serve model "llama"; /v1/models lists: qwen3'),
    );
  });

  it("asks for --model when the model list is unavailable; an engine nobody tells is stored as unknown", () => {
    expect(() => resolveContext({}, probe({ models: null, models_error: "connection refused (h:1)" }))).toThrow(
      "pass --model: GET /v1/models did not answer with a model list (connection refused (h:1))",
    );
    const untold = resolveContext({ model: "qwen3" }, probe());
    expect(untold.engine).toBe("unknown");
    expect(untold.lines).toContain(
      'engine: not told by the server (no SGLang /get_server_info, no vLLM /version); stored as "unknown" (pass --engine NAME to name it)',
    );
    // The owner a server writes in its model list names it: llama.cpp's "llamacpp", SGLang's "sglang".
    const llama = resolveContext({ model: "qwen3" }, probe({ models: [{ id: "qwen3", owned_by: "llamacpp" }] }));
    expect(llama.engine).toBe("llama.cpp");
    expect(llama.lines).toContain('engine: llama.cpp (/v1/models says its models are owned by "llamacpp")');
    // An owner no server writes about itself says nothing; the --command program does.
    const fromCommand = resolveContext(
      { model: "qwen3", command: "./build/bin/llama-server -m qwen3.gguf" },
      probe({ models: [{ id: "qwen3", owned_by: "openai" }] }),
    );
    expect(fromCommand.engine).toBe("llama.cpp");
    expect(fromCommand.filled).toEqual(["--command: engine"]);
    // A server that cannot be reached at all is still measured (every request fails) when the user says enough.
    expect(resolveContext({ model: "m", engine: "vllm" }, probe({ models: null }))).toMatchObject({
      model: "m",
      engine: "vllm",
      filled: [],
    });
  });
});
