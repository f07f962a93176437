import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type BenchOptions, parseBenchArgs } from "@/lib/bench/options";
import { BENCH_COMMAND, benchArgs, benchCommandLine, shellWord } from "@/lib/bench/reproduce";

/** The options that decide what is measured (the run's context and where it is written are not among them). */
function measured(options: BenchOptions) {
  const { help: _help, baseUrlNote: _note, out: _out, upload: _upload, token: _token, run: _run, ...rest } = options;
  const { engine: _engine, engineVersion: _version, ...kept } = rest;
  return kept;
}

const CASES: [string, string[]][] = [
  ["the defaults", ["--base-url", "http://gpu-box:8000/v1"]],
  [
    "a closed loop with every option that shapes the requests",
    [
      "--base-url",
      "http://10.0.0.7:30000/v1",
      "--model",
      "moonshotai/Kimi-K2.5",
      "--concurrency",
      "128,1,4",
      "--requests",
      "64",
      "--dataset",
      "random",
      "--input-len",
      "1024",
      "--prefix-len",
      "256",
      "--range-ratio",
      "0.25",
      "--output-len",
      "512",
      "--temperature",
      "0.7",
      "--endpoint",
      "completions",
      "--goodput",
      "ttft:500",
      "tpot:50",
      "--percentiles",
      "50,99.9",
      "--save-detailed",
      "--metrics-interval",
      "500",
      "--api-key-env",
      "VLLM_KEY",
      "--timeout",
      "120",
      "--warmup",
      "3",
      "--seed",
      "7",
    ],
  ],
  [
    "an open loop, and the context options that are left out",
    [
      "--base-url",
      "https://user:secret@inference.example/v1?x=1",
      "--request-rate",
      "inf,2,0.5",
      "--burstiness",
      "inf",
      "--max-concurrency",
      "32",
      "--dataset",
      "sharegpt",
      "/data/Share GPT's file.json",
      "--max-tokens",
      "300",
      "--no-metrics",
      "--token",
      "write-token",
      "--upload",
      "http://servebench:3000",
      "--name",
      "nightly",
      "--gpu",
      "H200",
      "--tag",
      "a",
    ],
  ],
  [
    "a prompts file",
    ["--base-url", "http://h/v1", "--prompts", "prompts.jsonl", "--metrics-url", "http://h:9400/metrics"],
  ],
];

describe("the bench command that measures a run again", () => {
  it.each(CASES)("%s: read back, it sets every measured option to the same value", (_label, argv) => {
    const options = parseBenchArgs(argv);
    const again = parseBenchArgs(benchArgs(options, options.model));
    const expected = measured(options);
    // A URL's user, password and query are never written into the command.
    expected.baseUrl = new URL(`${options.baseUrl.origin}${options.baseUrl.pathname}`);
    expect(measured(again)).toEqual(expected);
  });

  it("names the model the server resolved, and leaves out every secret and the run's context", () => {
    const options = parseBenchArgs(CASES[2]![1]);
    const line = benchCommandLine(options, "MiniMax-M2.5");
    expect(line).toBe(
      `${BENCH_COMMAND} --base-url https://inference.example/v1 --model MiniMax-M2.5 --request-rate 0.5,2,inf ` +
        "--burstiness inf --max-concurrency 32 --dataset sharegpt '/data/Share GPT'\\''s file.json' --max-tokens 300 --no-metrics",
    );
    for (const secret of ["secret", "write-token", "user", "x=1", "nightly", "H200"])
      expect(line).not.toContain(secret);
  });

  it("quotes each word so that a POSIX shell reads it back unchanged", () => {
    const words = [
      "plain",
      "",
      "two words",
      "it's",
      "$HOME",
      "`id`",
      'a"b',
      "back\\slash",
      "new\nline",
      "ünï",
      "*",
      "-x",
    ];
    const script = `printf '%s\\0' ${words.map(shellWord).join(" ")}`;
    const result = spawnSync("sh", ["-c", script], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout.split("\0").slice(0, -1)).toEqual(words);
  });
});
