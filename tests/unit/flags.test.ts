import { describe, expect, it, test } from "vitest";
import {
  canonicalFlagName,
  formatFlag,
  formatFlagValue,
  normalizeFlagObject,
  parseCommand,
  parseFlagTokens,
  tokenizeCommand,
} from "@/lib/document/flags";

const SGLANG_SEED_BASE =
  "python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --attention-backend triton";

describe("canonicalFlagName", () => {
  test.each([
    ["--tp", "--tp"],
    ["--disable_cuda_graph", "--disable-cuda-graph"],
    ["disable_cuda_graph", "--disable-cuda-graph"],
    ["tp", "--tp"],
    ["-ngl", "-ngl"],
    ["-c", "-c"],
    ["  --tp_size  ", "--tp-size"],
    ["--mem_fraction_static", "--mem-fraction-static"],
    ["---odd", "---odd"],
  ])("%j → %j", (input, expected) => {
    expect(canonicalFlagName(input)).toBe(expected);
  });
});

describe("tokenizeCommand", () => {
  test.each<[string, string[]]>([
    ["vllm serve m --tp 8", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m \\\n  --tp 8 \\\n  --foo bar", ["vllm", "serve", "m", "--tp", "8", "--foo", "bar"]],
    ["vllm serve m \\\r\n  --tp 8", ["vllm", "serve", "m", "--tp", "8"]],
    [`x --cfg '{"a": 1}'`, ["x", "--cfg", '{"a": 1}']],
    [`x --name "two words"`, ["x", "--name", "two words"]],
    ["x --dir $HOME/models", ["x", "--dir", "$HOME/models"]],
    ["x --dir $HOME", ["x", "--dir", "$HOME"]],
    ["x --pattern *.txt", ["x", "--pattern", "*.txt"]],
    ["vllm serve m --tp 8 | tee log.txt", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m --tp 8 > log.txt", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m --tp 8 &> log.txt", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m --tp 8; echo done", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m --tp 8 # a comment", ["vllm", "serve", "m", "--tp", "8"]],
    ["VAR='a b' x", ["VAR=a b", "x"]],
    ["", []],
  ])("%j", (command, expected) => {
    expect(tokenizeCommand(command)).toEqual(expected);
  });

  test.each<[string, string[]]>([
    ["vllm serve m --tp 8 2>&1 | tee log.txt", ["vllm", "serve", "m", "--tp", "8"]],
    ["vllm serve m --tp 8 2> err.txt", ["vllm", "serve", "m", "--tp", "8"]],
  ])("drops the file-descriptor number of a redirect: %j", (command, expected) => {
    expect(tokenizeCommand(command)).toEqual(expected);
  });
});

describe("parseFlagTokens", () => {
  test.each<[string[], Record<string, unknown>]>([
    [["--tp", "8"], { "--tp": "8" }],
    [["--tp=8"], { "--tp": "8" }],
    [["--flag=a=b"], { "--flag": "a=b" }],
    [["--flag="], { "--flag": "" }],
    [["--disable-cuda-graph"], { "--disable-cuda-graph": true }],
    [["--no-enable-prefix-caching"], { "--enable-prefix-caching": false }],
    [["--cuda-graph-bs", "1", "2", "4"], { "--cuda-graph-bs": ["1", "2", "4"] }],
    [["--lora-modules", "a", "--lora-modules", "b", "--lora-modules", "c"], { "--lora-modules": ["a", "b", "c"] }],
    [["--tp=8", "--tp", "4"], { "--tp": ["8", "4"] }],
    [["--cuda-graph-bs", "1", "2", "--cuda-graph-bs", "4"], { "--cuda-graph-bs": ["1", "2", "4"] }],
    [["--foo", "-1"], { "--foo": "-1" }],
    [["--foo", "-0.5", "--bar", "-1e3"], { "--foo": "-0.5", "--bar": "-1e3" }],
    [["--disable_cuda_graph"], { "--disable-cuda-graph": true }],
    [["stray", "--tp", "8"], { "--tp": "8" }],
    [["-ngl", "99", "-c", "4096"], { "-ngl": "99", "-c": "4096" }],
    [["--disable-cuda-graph", "--no-disable-cuda-graph"], { "--disable-cuda-graph": false }],
    [["--a", "1", "--a"], { "--a": true }],
    [["--a", "--a", "1"], { "--a": "1" }],
    [[], {}],
  ])("%j", (tokens, expected) => {
    expect(parseFlagTokens(tokens)).toEqual(expected);
  });
});

describe("parseCommand", () => {
  test.each<[string, Record<string, unknown>]>([
    ["--tp 8", { "--tp": "8" }],
    ["--tp=8", { "--tp": "8" }],
    ["x --disable-cuda-graph", { "--disable-cuda-graph": true }],
    ["x --no-enable-prefix-caching", { "--enable-prefix-caching": false }],
    ["x --disable_cuda_graph", { "--disable-cuda-graph": true }],
    ["x --cuda-graph-bs 1 2 4", { "--cuda-graph-bs": ["1", "2", "4"] }],
    ["x --lora-modules a --lora-modules b", { "--lora-modules": ["a", "b"] }],
    ["x --foo -1", { "--foo": "-1" }],
    ["x --download-dir $HOME", { "--download-dir": "$HOME" }],
    ["x --download-dir $HOME/models", { "--download-dir": "$HOME/models" }],
  ])("flags of %j", (command, expected) => {
    expect(parseCommand(command).flags).toEqual(expected);
  });

  it("keeps a quoted JSON value as one string", () => {
    const parsed = parseCommand(
      `python -m sglang.launch_server --speculative-config '{"method": "eagle3", "num_speculative_tokens": 3}' --tp 8`,
    );
    expect(parsed.flags).toEqual({
      "--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}',
      "--tp": "8",
    });
    expect(JSON.parse(parsed.flags["--speculative-config"] as string)).toEqual({
      method: "eagle3",
      num_speculative_tokens: 3,
    });
  });

  it("moves leading VAR=value words into env", () => {
    expect(
      parseCommand("NCCL_P2P_LEVEL=SYS CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --model-path X --tp 8"),
    ).toEqual({
      program: ["python", "-m", "sglang.launch_server"],
      flags: { "--model-path": "X", "--tp": "8" },
      env: { NCCL_P2P_LEVEL: "SYS", CUDA_VISIBLE_DEVICES: "0,1" },
    });
  });

  it("skips wrapper commands around env assignments", () => {
    expect(parseCommand("env FOO=1 nohup vllm serve m --tp 8")).toEqual({
      program: ["vllm", "serve", "m"],
      flags: { "--tp": "8", "--model": "m" },
      env: { FOO: "1" },
    });
  });

  it("keeps a quoted env value with spaces", () => {
    expect(parseCommand("VAR='a b' vllm serve m").env).toEqual({ VAR: "a b" });
  });

  test.each<[string, string[], Record<string, unknown>]>([
    [
      "python -m sglang.launch_server --model-path X --tp 8",
      ["python", "-m", "sglang.launch_server"],
      { "--model-path": "X", "--tp": "8" },
    ],
    [
      "python3 -u -m sglang.launch_server --model-path X --tp 8",
      ["python3", "-u", "-m", "sglang.launch_server"],
      { "--model-path": "X", "--tp": "8" },
    ],
    ["/usr/bin/python3.10 serve.py --x 1", ["/usr/bin/python3.10", "serve.py"], { "--x": "1" }],
    [
      "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8",
      ["vllm", "serve", "moonshotai/Kimi-K2.5"],
      { "--tensor-parallel-size": "8", "--model": "moonshotai/Kimi-K2.5" },
    ],
    [
      "trtllm-serve MODEL --backend pytorch --tp_size 8",
      ["trtllm-serve", "MODEL"],
      { "--backend": "pytorch", "--tp-size": "8", "--model": "MODEL" },
    ],
    [
      "llama-server -m model.gguf -ngl 99 -c 4096",
      ["llama-server"],
      { "-m": "model.gguf", "-ngl": "99", "-c": "4096" },
    ],
    ["", [], {}],
  ])("program and flags of %j", (command, program, flags) => {
    const parsed = parseCommand(command);
    expect(parsed.program).toEqual(program);
    expect(parsed.flags).toEqual(flags);
    expect(parsed.env).toEqual({});
  });

  it("joins backslash-newline continuations", () => {
    const command = [
      "CUDA_VISIBLE_DEVICES=0,1,2,3 \\",
      "vllm serve moonshotai/Kimi-K2.5 \\",
      "  --tensor-parallel-size 4 \\",
      "  --max-model-len 32768 \\",
      "  --enable-prefix-caching",
    ].join("\n");
    expect(parseCommand(command)).toEqual({
      program: ["vllm", "serve", "moonshotai/Kimi-K2.5"],
      flags: {
        "--tensor-parallel-size": "4",
        "--max-model-len": "32768",
        "--enable-prefix-caching": true,
        "--model": "moonshotai/Kimi-K2.5",
      },
      env: { CUDA_VISIBLE_DEVICES: "0,1,2,3" },
    });
  });

  test.each([
    "vllm serve m --tp 8 | tee log.txt",
    "vllm serve m --tp 8 > log.txt",
    "vllm serve m --tp 8 > log.txt 2>&1",
    "vllm serve m --tp 8; echo done",
  ])("ignores what follows a pipe, redirect or ; in %j", (command) => {
    expect(parseCommand(command)).toEqual({
      program: ["vllm", "serve", "m"],
      flags: { "--tp": "8", "--model": "m" },
      env: {},
    });
  });

  test.each<[string, Record<string, unknown>]>([
    ["vllm serve m --tp 8 2>&1 | tee log.txt", { "--tp": "8", "--model": "m" }],
    ["vllm serve m --disable-log-requests 2>&1 | tee log.txt", { "--disable-log-requests": true, "--model": "m" }],
  ])("ignores a trailing 2>&1 | tee in %j", (command, flags) => {
    expect(parseCommand(command)).toEqual({ program: ["vllm", "serve", "m"], flags, env: {} });
  });

  test.each<[string, string | undefined]>([
    ["vllm serve meta-llama/Llama-3.1-8B-Instruct --model other", "other"],
    ["/opt/venv/bin/vllm serve Qwen/Qwen3-8B", "Qwen/Qwen3-8B"],
    ["trtllm-serve serve nvidia/Llama-3.1-8B-Instruct-FP8 --tp_size 2", "nvidia/Llama-3.1-8B-Instruct-FP8"],
    ["python -m vllm.entrypoints.openai.api_server --model m", "m"],
    ["vllm bench serve --model m", "m"],
    ["llama-server -m model.gguf", undefined],
  ])("takes the model of %j as --model", (command, model) => {
    expect(parseCommand(command).flags["--model"]).toBe(model);
  });

  it("parses the vLLM seed command", () => {
    expect(parseCommand("vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8")).toEqual({
      program: ["vllm", "serve", "moonshotai/Kimi-K2.5"],
      flags: { "--tensor-parallel-size": "8", "--model": "moonshotai/Kimi-K2.5" },
      env: {},
    });
  });

  it("parses the SGLang seed command with --disable-cuda-graph", () => {
    expect(parseCommand(`${SGLANG_SEED_BASE} --disable-cuda-graph`)).toEqual({
      program: ["python", "-m", "sglang.launch_server"],
      flags: {
        "--model-path": "moonshotai/Kimi-K2.5",
        "--tp": "8",
        "--attention-backend": "triton",
        "--disable-cuda-graph": true,
      },
      env: {},
    });
  });

  it("parses the SGLang seed command with CUDA graphs on", () => {
    expect(parseCommand(SGLANG_SEED_BASE).flags).toEqual({
      "--model-path": "moonshotai/Kimi-K2.5",
      "--tp": "8",
      "--attention-backend": "triton",
    });
  });
});

describe("normalizeFlagObject", () => {
  it("canonicalizes names and turns numbers into strings", () => {
    expect(
      normalizeFlagObject({
        tp: 8,
        "--disable_cuda_graph": true,
        "--enable-prefix-caching": false,
        mem_fraction_static: 0.85,
        "--cuda-graph-bs": [1, 2, "4"],
        "-ngl": "99",
      }),
    ).toEqual({
      "--tp": "8",
      "--disable-cuda-graph": true,
      "--enable-prefix-caching": false,
      "--mem-fraction-static": "0.85",
      "--cuda-graph-bs": ["1", "2", "4"],
      "-ngl": "99",
    });
  });

  it("returns an empty object for no flags", () => {
    expect(normalizeFlagObject({})).toEqual({});
  });
});

describe("formatFlagValue", () => {
  test.each<[string | boolean | string[], string]>([
    [true, "on"],
    [false, "off"],
    ["8", "8"],
    [["1", "2", "4"], "1 2 4"],
    ["", ""],
  ])("%j → %j", (value, expected) => {
    expect(formatFlagValue(value)).toBe(expected);
  });
});

describe("formatFlag", () => {
  test.each<[string, string | boolean | string[], string]>([
    ["--tp", "8", "--tp 8"],
    ["--disable-cuda-graph", true, "--disable-cuda-graph"],
    ["--enable-prefix-caching", false, "--no-enable-prefix-caching"],
    ["-fa", false, "-fa=false"],
    ["--cuda-graph-bs", ["1", "2", "4"], "--cuda-graph-bs 1 2 4"],
    ["-ngl", "99", "-ngl 99"],
  ])("%s %j → %j", (name, value, expected) => {
    expect(formatFlag(name, value)).toBe(expected);
  });

  test.each(["--tp 8 --disable-cuda-graph --no-enable-prefix-caching --cuda-graph-bs 1 2 4", "-ngl 99 -c 4096"])(
    "formatted flags parse back to the same flags: %j",
    (line) => {
      const flags = parseFlagTokens(tokenizeCommand(line));
      const formatted = Object.entries(flags)
        .map(([name, value]) => formatFlag(name, value))
        .join(" ");
      expect(formatted).toBe(line);
      expect(parseFlagTokens(tokenizeCommand(formatted))).toEqual(flags);
    },
  );
});
