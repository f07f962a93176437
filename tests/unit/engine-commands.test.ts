/**
 * Launch commands as the engines' own documentation writes them, and how they diff. Each case is a
 * command from vLLM, SGLang, TensorRT-LLM or llama.cpp docs (quick starts, speculative decoding pages).
 */
import { describe, expect, it, test } from "vitest";
import { diffConfigs, diffFlags } from "@/lib/analysis/config-diff";
import { parseCommand } from "@/lib/document/flags";
import { normalizeRunDocument, REDACTED, redactCommand } from "@/lib/document/normalize";

describe("commands from the engines' docs", () => {
  test.each<[string, Record<string, unknown>, Record<string, string>]>([
    [
      // vLLM, speculative decoding with EAGLE-3
      `vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4 --speculative-config '{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 5, "method": "eagle3"}'`,
      {
        "--model": "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size": "4",
        "--speculative-config":
          '{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 5, "method": "eagle3"}',
      },
      {},
    ],
    [
      // vLLM quick start with env vars and a negated option
      "VLLM_USE_V1=1 CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen2.5-7B-Instruct --dtype auto --max-model-len=32768 --no-enable-prefix-caching --enforce-eager",
      {
        "--model": "Qwen/Qwen2.5-7B-Instruct",
        "--dtype": "auto",
        "--max-model-len": "32768",
        "--enable-prefix-caching": false,
        "--enforce-eager": true,
      },
      { VLLM_USE_V1: "1", CUDA_VISIBLE_DEVICES: "0,1" },
    ],
    [
      // SGLang, EAGLE-3 speculative decoding
      "python3 -m sglang.launch_server --model meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3 --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B --speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 32 --mem-fraction 0.6 --cuda-graph-max-bs 2 --dtype float16",
      {
        "--model": "meta-llama/Llama-3.1-8B-Instruct",
        "--speculative-algorithm": "EAGLE3",
        "--speculative-draft-model-path": "jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B",
        "--speculative-num-steps": "5",
        "--speculative-eagle-topk": "8",
        "--speculative-num-draft-tokens": "32",
        "--mem-fraction": "0.6",
        "--cuda-graph-max-bs": "2",
        "--dtype": "float16",
      },
      {},
    ],
    [
      // SGLang with repeated and multi-value options
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --cuda-graph-bs 1 2 4 8 --enable-torch-compile --torch-compile-max-bs 8",
      {
        "--model-path": "deepseek-ai/DeepSeek-V3",
        "--tp": "8",
        "--trust-remote-code": true,
        "--cuda-graph-bs": ["1", "2", "4", "8"],
        "--enable-torch-compile": true,
        "--torch-compile-max-bs": "8",
      },
      {},
    ],
    [
      // TensorRT-LLM
      'trtllm-serve "TinyLlama/TinyLlama-1.1B-Chat-v1.0" --host localhost --port 8000 --backend pytorch --tp_size 2 --extra_llm_api_options extra-llm-api-config.yml',
      {
        "--model": "TinyLlama/TinyLlama-1.1B-Chat-v1.0",
        "--host": "localhost",
        "--port": "8000",
        "--backend": "pytorch",
        "--tp-size": "2",
        "--extra-llm-api-options": "extra-llm-api-config.yml",
      },
      {},
    ],
    [
      // llama.cpp server
      "llama-server -m models/7B/ggml-model.gguf -c 2048 -ngl 99 --flash-attn on --host 0.0.0.0 --port 8080",
      {
        "-m": "models/7B/ggml-model.gguf",
        "-c": "2048",
        "-ngl": "99",
        "--flash-attn": "on",
        "--host": "0.0.0.0",
        "--port": "8080",
      },
      {},
    ],
  ])("%s", (command, flags, env) => {
    const parsed = parseCommand(command);
    expect(parsed.flags).toEqual(flags);
    expect(parsed.env).toEqual(env);
  });

  it("treats SGLang's server_info spelling and the command line's as one flag", () => {
    const fromServerInfo = normalizeRunDocument({
      format: "servebench/v1",
      engine: "sglang",
      model: "m",
      flags: { disable_cuda_graph: true, tp_size: 8 },
      results: [{ concurrency: 1 }],
    });
    const fromCommand = normalizeRunDocument({
      format: "servebench/v1",
      engine: "sglang",
      model: "m",
      command: "python -m sglang.launch_server --disable-cuda-graph --tp-size 8",
      results: [{ concurrency: 1 }],
    });
    expect(fromServerInfo.flags).toEqual({ "--disable-cuda-graph": true, "--tp-size": "8" });
    expect(diffConfigs(fromServerInfo, fromCommand)).toEqual([]);
  });

  it("sees one tensor parallelism across engines that spell it differently", () => {
    const sglang = parseCommand("python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8").flags;
    const vllm = parseCommand("vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8").flags;
    const trtllm = parseCommand("trtllm-serve moonshotai/Kimi-K2.5 --tp_size 8").flags;
    expect(diffFlags(sglang, vllm)).toEqual([]);
    expect(diffFlags(vllm, trtllm)).toEqual([]);
    expect(
      diffFlags(sglang, parseCommand("vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 4").flags).map(
        (change) => change.text,
      ),
    ).toEqual(["--tensor-parallel-size: 8 → 4 (was --tp)"]);
  });
});

describe("credentials in commands", () => {
  it("never stores an API key or token typed into a command, flags or env", () => {
    const doc = normalizeRunDocument({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      command: "HF_TOKEN=hf_abc123 vllm serve m --api-key sk-secret --hf-token=hf_xyz --port 8000",
      env: { OPENAI_API_KEY: "sk-env", NCCL_P2P_LEVEL: "SYS" },
      flags: { "--client-secret": "s3cr3t" },
      results: [{ concurrency: 1 }],
    });
    expect(doc.command).toBe(
      `HF_TOKEN=${REDACTED} vllm serve m --api-key ${REDACTED} --hf-token=${REDACTED} --port 8000`,
    );
    expect(doc.flags).toEqual({
      "--model": "m",
      "--api-key": REDACTED,
      "--hf-token": REDACTED,
      "--port": "8000",
      "--client-secret": REDACTED,
    });
    expect(doc.env).toEqual({ HF_TOKEN: REDACTED, OPENAI_API_KEY: REDACTED, NCCL_P2P_LEVEL: "SYS" });
    expect(JSON.stringify(doc)).not.toMatch(/sk-secret|hf_abc123|hf_xyz|sk-env|s3cr3t/);
  });

  it("leaves ordinary flags alone", () => {
    const command =
      "MAX_TOKENS=256 vllm serve m --max-num-batched-tokens 8192 --tokenizer-mode auto --skip-tokenizer-init";
    expect(redactCommand(command)).toBe(command);
    expect(
      normalizeRunDocument({
        format: "servebench/v1",
        engine: "vllm",
        model: "m",
        command,
        results: [{ concurrency: 1 }],
      }).flags,
    ).toEqual({
      "--model": "m",
      "--max-num-batched-tokens": "8192",
      "--tokenizer-mode": "auto",
      "--skip-tokenizer-init": true,
    });
  });
});

describe("redacting credentials in linear time", () => {
  // The patterns redactCommand used before: the reference for what is redacted. Their nested quantifiers
  // backtracked exponentially on a run of underscores (64 characters blocked the server for 15 s).
  const WORDS = "api[-_]?key|token|secret|password|passwd|credentials?";
  function referenceRedaction(command: string): string {
    const flag = new RegExp(
      `(^|\\s)(-{1,2}(?:[\\w]+[-_])*(?:${WORDS})(?:[-_][\\w-]+)?)(=|\\s+)("[^"]*"|'[^']*'|[^\\s"']+)`,
      "gi",
    );
    const variable = new RegExp(
      `(^|\\s)((?:[A-Za-z0-9]+_)*(?:${WORDS})(?:_[A-Za-z0-9_]+)?)=("[^"]*"|'[^']*'|\\S+)`,
      "gi",
    );
    return command.replace(flag, `$1$2$3${REDACTED}`).replace(variable, `$1$2=${REDACTED}`);
  }

  it("redacts what the old patterns redacted, on 3,000 generated commands", () => {
    const pieces = [
      "vllm",
      "serve",
      "m",
      "--api-key",
      "--hf-token",
      "--tp",
      "8",
      "--token-file",
      "-t",
      "--max-num-batched-tokens",
      "HF_TOKEN=abc",
      "OPENAI_API_KEY=sk",
      "MAX_TOKENS=1",
      "x",
      '"quoted value"',
      "'single'",
      '"open',
      "--secret=s",
      "--client_secret",
      "=",
      "--password",
      "--no-token",
      "a_b",
      "PASSWD='p w'",
      "--x=y",
      "--credentials",
      "\t",
      "  ",
    ];
    let state = 7;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state;
    };
    for (let sample = 0; sample < 3_000; sample += 1) {
      const length = 1 + (next() % 12);
      const command = Array.from({ length }, () => pieces[next() % pieces.length]).join(next() % 3 === 0 ? "  " : " ");
      expect(redactCommand(command), command).toBe(referenceRedaction(command));
    }
  });

  it("normalizes the commands that froze the server, at once", () => {
    for (const underscores of [46, 48, 190]) {
      const command = `vllm serve m --a${"_".repeat(underscores)} 1`;
      const doc = normalizeRunDocument({
        format: "servebench/v1",
        engine: "vllm",
        model: "m",
        command,
        results: [{ concurrency: 1 }],
      });
      expect(doc.command).toBe(command);
    }
    expect(redactCommand(`vllm serve m --a${"_".repeat(19_000)} 1`)).toBe(`vllm serve m --a${"_".repeat(19_000)} 1`);
    expect(redactCommand(`A${"_".repeat(19_000)}=1 --x${"-_".repeat(9_000)}token "unclosed`)).toBe(
      `A${"_".repeat(19_000)}=1 --x${"-_".repeat(9_000)}token "unclosed`,
    );
    // Quotes that never close cost one scan in all; the answer is the old patterns' (linear for these inputs).
    const quotes = `--api-key ${'"'.repeat(3)} ${"--token '".repeat(201)} ${'PASSWORD="'.repeat(200)}`;
    expect(redactCommand(quotes)).toBe(referenceRedaction(quotes));
  });
});
