/** `servebench bench` options and prompts: defaults, parsing and the mistakes they catch before sending anything. */
import { describe, expect, it, test } from "vitest";
import {
  BENCH_USAGE,
  BenchUsageError,
  parseBaseUrl,
  parseBenchArgs,
  parseConcurrencyList,
  parseEnvPairs,
} from "@/lib/bench/options";
import {
  BUILTIN_PROMPTS,
  builtinPrompts,
  PromptFileError,
  parsePromptFile,
  syntheticPrompt,
  syntheticPrompts,
} from "@/lib/bench/prompts";
import { apiUrl, requestBody, requestsFor, serverRoot } from "@/lib/bench/runner";

describe("parseBenchArgs", () => {
  it("has the documented defaults", () => {
    const options = parseBenchArgs(["--base-url", "http://host:8000/v1"]);
    expect(options).toMatchObject({
      concurrency: [1, 4, 8, 16, 32, 64, 128],
      requests: null,
      maxTokens: 256,
      temperature: 0,
      ignoreEos: false,
      endpoint: "chat",
      apiKeyEnv: "OPENAI_API_KEY",
      apiKeyEnvGiven: false,
      timeoutMs: 600_000,
      warmup: 1,
      run: {},
    });
    expect(options.baseUrl.href).toBe("http://host:8000/v1");
  });

  it("reads every option", () => {
    const options = parseBenchArgs([
      "--base-url",
      "https://gpu:30000/v1/",
      "--model",
      "qwen3",
      "--concurrency",
      "8, 1,4,4",
      "--requests",
      "20",
      "--max-tokens",
      "128",
      "--temperature",
      "0.6",
      "--endpoint",
      "completions",
      "--api-key-env",
      "MY_KEY",
      "--timeout",
      "2.5",
      "--warmup",
      "0",
      "--out",
      "run.json",
      "--upload",
      "http://dash:3000/",
      "--token",
      "write-token-123",
      "--name",
      "n",
      "--engine",
      "SGLang",
      "--engine-version",
      "0.5.8",
      "--command",
      "python -m sglang.launch_server --tp 8",
      "--gpu",
      "H100",
      "--gpu-count",
      "8",
      "--tag",
      "a",
      "--tag",
      "b",
      "--env",
      "NCCL_P2P_LEVEL=SYS",
      "--env",
      "EMPTY=",
      "--notes",
      "hello",
    ]);
    expect(options).toMatchObject({
      model: "qwen3",
      concurrency: [1, 4, 8],
      requests: 20,
      maxTokens: 128,
      temperature: 0.6,
      endpoint: "completions",
      apiKeyEnv: "MY_KEY",
      apiKeyEnvGiven: true,
      timeoutMs: 2500,
      warmup: 0,
      out: "run.json",
      upload: "http://dash:3000",
      token: "write-token-123",
      engine: "SGLang",
      engineVersion: "0.5.8",
      run: {
        name: "n",
        command: "python -m sglang.launch_server --tp 8",
        gpu: "H100",
        gpu_count: 8,
        tags: ["a", "b"],
        env: { NCCL_P2P_LEVEL: "SYS", EMPTY: "" },
        notes: "hello",
      },
    });
    expect(options.baseUrl.href).toBe("https://gpu:30000/v1");
  });

  it("--output-len sets max_tokens and ignore_eos; --input-len makes synthetic prompts", () => {
    expect(parseBenchArgs(["--base-url", "http://h/v1", "--output-len", "64", "--input-len", "512"])).toMatchObject({
      maxTokens: 64,
      ignoreEos: true,
      inputLen: 512,
    });
    expect(parseBenchArgs(["--base-url", "http://h/v1", "--output-len", "64", "--max-tokens", "64"])).toMatchObject({
      maxTokens: 64,
      ignoreEos: true,
    });
  });

  test.each([
    [[], "--base-url is required, e.g. --base-url http://localhost:8000/v1"],
    [["--base-url", "host:8000"], '--base-url must be http:// or https://, not "host:8000"'],
    [["--base-url", "nope"], '--base-url is not a URL: "nope"'],
    [
      ["--base-url", "http://h/v1", "--concurrency", "1,0"],
      '--concurrency: "0" is not a whole number between 1 and 100000',
    ],
    [["--base-url", "http://h/v1", "--concurrency", ","], "--concurrency needs at least one level, e.g. 1,4,8"],
    [["--base-url", "http://h/v1", "--requests", "2.5"], '--requests must be a whole number ≥ 1, not "2.5"'],
    [["--base-url", "http://h/v1", "--max-tokens", "0"], '--max-tokens must be a whole number ≥ 1, not "0"'],
    [["--base-url", "http://h/v1", "--temperature=-1"], '--temperature must be a number ≥ 0, not "-1"'],
    [["--base-url", "http://h/v1", "--timeout", "0"], '--timeout must be a number > 0, not "0"'],
    [["--base-url", "http://h/v1", "--endpoint", "embeddings"], '--endpoint is chat or completions, not "embeddings"'],
    [
      ["--base-url", "http://h/v1", "--output-len", "64", "--max-tokens", "128"],
      "--output-len 64 and --max-tokens 128 disagree: --output-len sets max_tokens",
    ],
    [
      ["--base-url", "http://h/v1", "--prompts", "p.txt", "--input-len", "8"],
      "--input-len shapes random prompts and excludes --prompts: the prompts come from one source",
    ],
    [
      ["--base-url", "http://h/v1", "--env", "1X=2"],
      '--env takes KEY=VALUE with a variable name of letters, digits and _, not "1X=2"',
    ],
    [["--base-url", "http://h/v1", "--api-key-env", "$KEY"], '--api-key-env takes a variable name, not "$KEY"'],
    [
      ["--base-url", "http://h/v1", "--upload", "dash:3000"],
      '--upload must be the http(s) URL of a servebench server, not "dash:3000"',
    ],
    [["--base-url", "http://h/v1", "--gpu-count", "0"], '--gpu-count must be a whole number ≥ 1, not "0"'],
  ])("rejects %j", (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(new BenchUsageError(message));
  });

  it("rejects unknown options", () => {
    expect(() => parseBenchArgs(["--base-url", "http://h/v1", "--concurency", "1"])).toThrow(BenchUsageError);
  });

  it("the usage text lists every option", () => {
    for (const option of [
      "--base-url",
      "--model",
      "--concurrency",
      "--requests",
      "--max-tokens",
      "--temperature",
      "--prompts",
      "--input-len",
      "--output-len",
      "--endpoint",
      "--api-key-env",
      "--timeout",
      "--warmup",
      "--out",
      "--upload",
      "--token",
      "--name",
      "--engine",
      "--engine-version",
      "--command",
      "--gpu",
      "--gpu-count",
      "--tag",
      "--env",
      "--notes",
    ]) {
      expect(BENCH_USAGE).toContain(`  ${option} `);
    }
  });
});

describe("URLs", () => {
  it("a bare host gets /v1; a path is kept", () => {
    expect(parseBaseUrl("http://host:8000")).toEqual({
      url: new URL("http://host:8000/v1"),
      note: "--base-url has no path: using http://host:8000/v1",
    });
    expect(parseBaseUrl("http://host:8000/openai/v1/").url.href).toBe("http://host:8000/openai/v1");
  });

  it("the server root drops /v1 (SGLang's /get_server_info and vLLM's /version live there)", () => {
    expect(apiUrl(serverRoot(new URL("http://host:8000/v1")), "version").href).toBe("http://host:8000/version");
    expect(apiUrl(new URL("http://host:8000/v1"), "chat/completions").href).toBe(
      "http://host:8000/v1/chat/completions",
    );
  });

  it("lists and pairs", () => {
    expect(parseConcurrencyList("128,1,16")).toEqual([1, 16, 128]);
    expect(parseEnvPairs(["A=b=c"])).toEqual({ A: "b=c" });
  });
});

describe("requests per level", () => {
  it("defaults to max(3 × concurrency, 10): at least three full waves", () => {
    expect([1, 4, 8, 16, 32, 64, 128].map((c) => requestsFor(c, null))).toEqual([10, 12, 24, 48, 96, 192, 384]);
    expect(requestsFor(128, 8)).toBe(8);
  });
});

describe("requestBody", () => {
  const base = { endpoint: "chat" as const, maxTokens: 256, temperature: 0, ignoreEos: false };

  it("streams with include_usage, so one request gives timings and exact counts", () => {
    expect(requestBody(base, "m", { kind: "text", text: "Hi" })).toEqual({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 256,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("sends chat messages as given, a completions prompt as text, and ignore_eos with --output-len", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ];
    expect(requestBody(base, "m", { kind: "chat", messages }).messages).toEqual(messages);
    expect(
      requestBody({ ...base, endpoint: "completions", ignoreEos: true }, "m", { kind: "text", text: "Once" }),
    ).toEqual({
      model: "m",
      prompt: "Once",
      max_tokens: 256,
      temperature: 0,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe("prompts", () => {
  it("built-in prompts are varied and cycle", () => {
    const source = builtinPrompts();
    expect(new Set(BUILTIN_PROMPTS).size).toBe(BUILTIN_PROMPTS.length);
    expect(source.at(0)).toEqual({ kind: "text", text: "Explain the theory of general relativity in detail." });
    expect(source.at(BUILTIN_PROMPTS.length)).toEqual(source.at(0));
  });

  it("a text file is one prompt per line, empty lines skipped", () => {
    const source = parsePromptFile("first prompt\r\n\nsecond {not json}\n", "p.txt");
    expect(source).toMatchObject({ dataset: "p.txt", distinct: 2 });
    expect([source.at(0), source.at(1), source.at(2)]).toEqual([
      { kind: "text", text: "first prompt" },
      { kind: "text", text: "second {not json}" },
      { kind: "text", text: "first prompt" },
    ]);
  });

  it("a JSONL file of chat messages, as arrays or {messages}", () => {
    const source = parsePromptFile(
      '[{"role":"user","content":"Hi"}]\n{"messages":[{"role":"system","content":"S"},{"role":"user","content":"Q"}]}\n',
      "chat.jsonl",
    );
    expect(source.at(0)).toEqual({ kind: "chat", messages: [{ role: "user", content: "Hi" }] });
    expect(source.at(1)).toEqual({
      kind: "chat",
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "Q" },
      ],
    });
  });

  it("rejects a JSONL file with a line that is not messages, and an empty file", () => {
    expect(() => parsePromptFile('[{"role":"user","content":"Hi"}]\nplain text\n', "chat.jsonl")).toThrow(
      new PromptFileError(
        'chat.jsonl:2: expected a JSON array of {"role", "content"} messages (or {"messages": [...]}) like line 1',
      ),
    );
    expect(() => parsePromptFile("\n\n", "empty.txt")).toThrow(new PromptFileError("empty.txt has no prompts"));
  });

  it("synthetic prompts have the asked number of words, differ per request and are the same on every run", () => {
    expect(syntheticPrompt(128, 0).split(" ")).toHaveLength(128);
    expect(syntheticPrompt(128, 0)).toBe(syntheticPrompt(128, 0));
    expect(syntheticPrompt(128, 1)).not.toBe(syntheticPrompt(128, 0));
    const source = syntheticPrompts(16);
    expect(source).toMatchObject({ dataset: "random synthetic", distinct: null });
    expect(source.at(5)).toEqual({ kind: "text", text: syntheticPrompt(16, 5) });
  });
});
