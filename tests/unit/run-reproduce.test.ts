import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";
import { reproductionOf } from "@/lib/runs/reproduce";

function stored(document: Record<string, unknown>): StoredRun {
  return {
    ...normalizeRunDocument({
      format: "servebench/v1",
      results: [{ concurrency: 1, output_throughput: 27 }],
      ...document,
    }),
    id: "run123456789",
    created_at: "2026-12-01T00:00:00.000Z",
  };
}

describe("the reproduce block of a run", () => {
  it("holds the bench command servebench bench recorded, the launch command, the environment and the commit", () => {
    const run = stored({
      name: "nightly vLLM",
      engine: "vllm",
      engine_version: "0.11.0",
      model: "moonshotai/Kimi-K2.5",
      hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8 },
      command: "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8",
      env: { VLLM_USE_V1: "1", NCCL_P2P_LEVEL: "SYS" },
      git_commit: "abc1234",
      git_branch: "main",
      measured_at: "2026-11-30T02:00:00Z",
      metadata: {
        client: "servebench bench",
        bench_command:
          "npx servebench bench --base-url http://gpu:8000/v1 --model moonshotai/Kimi-K2.5 --concurrency 1,128",
      },
    });
    const { text, benchmarkCommand } = reproductionOf(run);
    expect(benchmarkCommand).toBe(
      "npx servebench bench --base-url http://gpu:8000/v1 --model moonshotai/Kimi-K2.5 --concurrency 1,128",
    );
    expect(text).toBe(
      [
        "# nightly vLLM (servebench run run123456789)",
        "# Engine: vllm 0.11.0, commit abc1234 on main",
        "# Model: moonshotai/Kimi-K2.5",
        "# Hardware: 8× RTX PRO 6000 Blackwell",
        "# Measured: 2026-11-30T02:00:00.000Z",
        "",
        "# The server's environment",
        "export NCCL_P2P_LEVEL=SYS",
        "export VLLM_USE_V1=1",
        "",
        "# The server's launch command",
        "vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8",
        "",
        "# The benchmark",
        "npx servebench bench --base-url http://gpu:8000/v1 --model moonshotai/Kimi-K2.5 --concurrency 1,128",
        "",
      ].join("\n"),
    );
  });

  it("says what an imported run does not record, and names its files", () => {
    const run = stored({
      engine: "sglang",
      model: "Llama-3.3-70B",
      source_format: "sglang-bench-serving",
      flags: { "--tp-size": "8", "--enable-dp-attention": true, "--disable-radix-cache": false },
      metadata: { source_files: "sweep/c1.jsonl, sweep/c8.jsonl" },
    });
    const { text, benchmarkCommand } = reproductionOf(run);
    expect(benchmarkCommand).toBeNull();
    expect(text).toContain("# Engine: sglang (version not recorded)\n");
    expect(text).toContain("# Hardware: not recorded\n");
    expect(text).toContain("# From: SGLang bench_serving file(s) sweep/c1.jsonl, sweep/c8.jsonl\n");
    expect(text).toContain("# (no environment variables recorded)\n");
    expect(text).toContain(
      "# The server's launch command\n# not recorded; the flags it was launched with: --tp-size 8 --enable-dp-attention\n",
    );
    expect(text).toContain(
      "# The benchmark\n# not recorded: the SGLang bench_serving file does not state the command it was run with\n",
    );
  });

  it("pastes into a shell as it is: names and values are comments or quoted, never run", () => {
    const run = stored({
      name: "evil $(touch /tmp/x) name",
      engine: "vllm",
      model: "m; echo injected",
      env: { PROMPT_NOTE: "a b'$(id)`id`" },
      metadata: { bench_command: "true" },
    });
    const { text } = reproductionOf(run);
    const result = spawnSync("sh", ["-c", `${text}\nprintf '%s' "$PROMPT_NOTE"`], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("a b'$(id)`id`");
    expect(text).toContain("# Model: m; echo injected\n");
  });
});
