/** The engine a launch command starts, read from its program, through prefixes, wrappers and container images. */
import { describe, expect, it } from "vitest";
import { canonicalEngine, engineOfCommand } from "@/lib/document/engine-of";
import { defaultRunName, engineDisplayName } from "@/lib/document/names";

describe("engineOfCommand", () => {
  it.each([
    ["vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 8", "vllm", "vllm serve"],
    [
      "python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m",
      "vllm",
      "-m vllm.entrypoints.openai.api_server",
    ],
    ["python3 -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8", "sglang", "-m sglang.launch_server"],
    ["sglang serve --model-path Qwen/Qwen3-8B", "sglang", "sglang serve"],
    ["trtllm-serve Qwen/Qwen3-8B --backend pytorch", "tensorrt-llm", "trtllm-serve"],
    ["llama-server -m model.gguf -c 4096", "llama.cpp", "llama-server"],
    ["./build/bin/llama-server -hf ggml-org/gpt-oss-20b-GGUF", "llama.cpp", "./build/bin/llama-server"],
    ["lmdeploy serve api_server internlm/internlm2_5-7b-chat", "lmdeploy", "lmdeploy serve"],
    ["text-generation-launcher --model-id Qwen/Qwen3-8B", "tgi", "text-generation-launcher"],
    [
      "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B",
      "vllm",
      "vllm/vllm-openai:v0.11.0",
    ],
    [
      "docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
      "sglang",
      "lmsysorg/sglang:latest",
    ],
    ["CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B", "vllm", "vllm serve"],
    ["uv run vllm serve Qwen/Qwen3-8B", "vllm", "vllm serve"],
    ["/opt/venv/bin/vllm serve Qwen/Qwen3-8B \\\n  --max-num-seqs 64", "vllm", "/opt/venv/bin/vllm serve"],
  ])("%s → %s", (command, engine, evidence) => {
    expect(engineOfCommand(command)).toEqual({ engine, evidence });
  });

  it("says nothing when no word names a server program", () => {
    expect(engineOfCommand("python serve.py --model x")).toBeNull();
    expect(engineOfCommand("--tensor-parallel-size 8")).toBeNull();
    expect(engineOfCommand("")).toBeNull();
    expect(engineOfCommand(undefined)).toBeNull();
    // A flag's value that happens to be a program's name is not the program.
    expect(engineOfCommand("myserver --served-model-name vllm")).toBeNull();
  });

  it("spells an engine one way, so a file's word and a command's agree", () => {
    expect(canonicalEngine("TRTLLM")).toBe("tensorrt-llm");
    expect(canonicalEngine("llama-cpp")).toBe("llama.cpp");
    expect(canonicalEngine("vllm")).toBe("vllm");
  });
});

describe("the unknown engine", () => {
  it("reads as not stated and is left out of a run's automatic name", () => {
    expect(engineDisplayName("unknown")).toBe("engine not stated");
    expect(defaultRunName("unknown", undefined, "facebook/opt-125m", { dataset: "random" })).toBe("opt-125m · random");
    expect(defaultRunName("vllm", "0.11.0", "facebook/opt-125m")).toBe("vLLM 0.11.0 · opt-125m");
  });
});
