import { describe, expect, it, test } from "vitest";
import {
  type ComparableConfig,
  type ConfigChange,
  canonicalSetting,
  diffConfigs,
  diffEnv,
  diffFlags,
} from "@/lib/analysis/config-diff";
import { DEMO_RUNS } from "@/lib/demo/runs";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { Flags } from "@/lib/document/schema";
import { SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, seedDocument, VLLM_RUN } from "./seeds";

const BASE: ComparableConfig = {
  engine: "sglang",
  engine_version: "0.5.7",
  model: "Kimi-K2.5 INT4",
  hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8, gpu_memory_mib: 97887 },
  flags: { "--tp": "8", "--attention-backend": "triton" },
  env: { NCCL_P2P_LEVEL: "NVL" },
  workload: { dataset: "fixed chat prompt", output_len: 256, temperature: 0 },
};

function variant(changes: Partial<ComparableConfig>): ComparableConfig {
  return { ...BASE, ...changes };
}

describe("diffFlags", () => {
  test.each<[string, Flags, Flags, ConfigChange[]]>([
    [
      "a removed switch",
      { "--disable-cuda-graph": true },
      {},
      [
        {
          section: "flag",
          key: "--disable-cuda-graph",
          kind: "removed",
          from: "on",
          to: null,
          text: "--disable-cuda-graph removed",
        },
      ],
    ],
    [
      "an added flag with a value",
      {},
      { "--x": "1" },
      [{ section: "flag", key: "--x", kind: "added", from: null, to: "1", text: "--x 1 added" }],
    ],
    [
      "a changed value",
      { "--tp": "4" },
      { "--tp": "8" },
      [{ section: "flag", key: "--tp", kind: "changed", from: "4", to: "8", text: "--tp: 4 → 8" }],
    ],
    [
      "an added negation",
      {},
      { "--enable-prefix-caching": false },
      [
        {
          section: "flag",
          key: "--enable-prefix-caching",
          kind: "added",
          from: null,
          to: "off",
          text: "--no-enable-prefix-caching added",
        },
      ],
    ],
    [
      "a switch turned off",
      { "--enable-prefix-caching": true },
      { "--enable-prefix-caching": false },
      [
        {
          section: "flag",
          key: "--enable-prefix-caching",
          kind: "changed",
          from: "on",
          to: "off",
          text: "--enable-prefix-caching: on → off",
        },
      ],
    ],
    [
      "a changed list",
      { "--cuda-graph-bs": ["1", "2", "4"] },
      { "--cuda-graph-bs": ["1", "2", "4", "8"] },
      [
        {
          section: "flag",
          key: "--cuda-graph-bs",
          kind: "changed",
          from: "1 2 4",
          to: "1 2 4 8",
          text: "--cuda-graph-bs: 1 2 4 → 1 2 4 8",
        },
      ],
    ],
    ["equal lists", { "--cuda-graph-bs": ["1", "2"] }, { "--cuda-graph-bs": ["1", "2"] }, []],
    [
      "identical flags",
      { "--tp": "8", "--disable-cuda-graph": true },
      { "--disable-cuda-graph": true, "--tp": "8" },
      [],
    ],
    ["no flags", {}, {}, []],
  ])("%s", (_label, base, other, expected) => {
    expect(diffFlags(base, other)).toEqual(expected);
  });

  it("lists changes sorted by flag name", () => {
    const changes = diffFlags({ "--tp": "4", "--b": "x" }, { "--tp": "8", "--a": true, "--c": "1" });
    expect(changes.map((change) => change.text)).toEqual(["--a added", "--b x removed", "--c 1 added", "--tp: 4 → 8"]);
  });
});

describe("diffEnv", () => {
  test.each<[string, Record<string, string>, Record<string, string>, ConfigChange[]]>([
    [
      "a changed value",
      { NCCL_P2P_LEVEL: "NVL" },
      { NCCL_P2P_LEVEL: "SYS" },
      [
        {
          section: "env",
          key: "NCCL_P2P_LEVEL",
          kind: "changed",
          from: "NVL",
          to: "SYS",
          text: "NCCL_P2P_LEVEL: NVL → SYS",
        },
      ],
    ],
    [
      "an added variable",
      {},
      { CUDA_VISIBLE_DEVICES: "0,1" },
      [
        {
          section: "env",
          key: "CUDA_VISIBLE_DEVICES",
          kind: "added",
          from: null,
          to: "0,1",
          text: "CUDA_VISIBLE_DEVICES=0,1 added",
        },
      ],
    ],
    [
      "a removed variable",
      { NCCL_IB_DISABLE: "1" },
      {},
      [
        {
          section: "env",
          key: "NCCL_IB_DISABLE",
          kind: "removed",
          from: "1",
          to: null,
          text: "NCCL_IB_DISABLE=1 removed",
        },
      ],
    ],
    ["an empty value that stays empty", { FOO: "" }, { FOO: "" }, []],
    ["identical env", { A: "1", B: "2" }, { B: "2", A: "1" }, []],
  ])("%s", (_label, base, other, expected) => {
    expect(diffEnv(base, other)).toEqual(expected);
  });

  it("sorts by variable name", () => {
    expect(diffEnv({ B: "1" }, { A: "1", C: "2" }).map((change) => change.key)).toEqual(["A", "B", "C"]);
  });
});

describe("diffConfigs", () => {
  it("finds nothing between identical configs", () => {
    expect(diffConfigs(BASE, { ...BASE })).toEqual([]);
  });

  test.each<[string, Partial<ComparableConfig>, ConfigChange]>([
    [
      "engine version",
      { engine_version: "0.5.8" },
      {
        section: "engine",
        key: "engine_version",
        kind: "changed",
        from: "0.5.7",
        to: "0.5.8",
        text: "engine version: 0.5.7 → 0.5.8",
      },
    ],
    [
      "engine",
      { engine: "vllm" },
      { section: "engine", key: "engine", kind: "changed", from: "sglang", to: "vllm", text: "engine: sglang → vllm" },
    ],
    [
      "removed engine version",
      { engine_version: undefined },
      {
        section: "engine",
        key: "engine_version",
        kind: "removed",
        from: "0.5.7",
        to: null,
        text: "engine version: 0.5.7 → not set",
      },
    ],
    [
      "model",
      { model: "Kimi-K2.5 FP8" },
      {
        section: "model",
        key: "model",
        kind: "changed",
        from: "Kimi-K2.5 INT4",
        to: "Kimi-K2.5 FP8",
        text: "model: Kimi-K2.5 INT4 → Kimi-K2.5 FP8",
      },
    ],
    [
      "GPU count",
      { hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 4, gpu_memory_mib: 97887 } },
      { section: "hardware", key: "gpu_count", kind: "changed", from: "8", to: "4", text: "GPU count: 8 → 4" },
    ],
    [
      "workload output_len",
      { workload: { dataset: "fixed chat prompt", output_len: 1024, temperature: 0 } },
      {
        section: "workload",
        key: "output_len",
        kind: "changed",
        from: "256",
        to: "1024",
        text: "output length: 256 → 1024",
      },
    ],
    [
      "added workload input_len",
      { workload: { dataset: "fixed chat prompt", input_len: 1000, output_len: 256, temperature: 0 } },
      {
        section: "workload",
        key: "input_len",
        kind: "added",
        from: null,
        to: "1000",
        text: "input length: not set → 1000",
      },
    ],
    [
      "speculative method",
      { speculative: { method: "eagle3" } },
      {
        section: "speculative",
        key: "method",
        kind: "added",
        from: null,
        to: "eagle3",
        text: "speculative method: not set → eagle3",
      },
    ],
    [
      "env",
      { env: { NCCL_P2P_LEVEL: "SYS" } },
      {
        section: "env",
        key: "NCCL_P2P_LEVEL",
        kind: "changed",
        from: "NVL",
        to: "SYS",
        text: "NCCL_P2P_LEVEL: NVL → SYS",
      },
    ],
    [
      "an added flag",
      { flags: { "--tp": "8", "--attention-backend": "triton", "--x": "1" } },
      { section: "flag", key: "--x", kind: "added", from: null, to: "1", text: "--x 1 added" },
    ],
    [
      "a changed flag",
      { flags: { "--tp": "4", "--attention-backend": "triton" } },
      {
        section: "flag",
        key: "--tp",
        kind: "changed",
        from: "8",
        to: "4",
        text: "--tp: 8 → 4",
        effective: {
          setting: "tensor-parallel-size",
          label: "tensor parallel size",
          from: { value: "8", source: "flag" },
          to: { value: "4", source: "flag" },
          changed: true,
          text: "tensor parallel size: 8 → 4",
        },
      },
    ],
  ])("reports a change of %s alone", (_label, changes, expected) => {
    expect(diffConfigs(BASE, variant(changes))).toEqual([expected]);
  });

  it("orders engine, model, hardware, workload, speculative, env, then flags", () => {
    const other = variant({
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Kimi-K2.5 FP8",
      hardware: { gpu: "B200", gpu_count: 8, gpu_memory_mib: 97887 },
      workload: { dataset: "fixed chat prompt", output_len: 512, temperature: 0 },
      speculative: { num_speculative_tokens: 3 },
      env: { NCCL_P2P_LEVEL: "SYS" },
      flags: { "--tensor-parallel-size": "8" },
    });
    expect(diffConfigs(BASE, other).map((change) => change.text)).toEqual([
      "engine: sglang → vllm",
      "engine version: 0.5.7 → 0.11.0",
      "model: Kimi-K2.5 INT4 → Kimi-K2.5 FP8",
      "GPU: RTX PRO 6000 Blackwell → B200",
      "output length: 256 → 512",
      "speculative tokens: not set → 3",
      "NCCL_P2P_LEVEL: NVL → SYS",
      "--attention-backend triton removed",
    ]);
  });

  it("gives the seed pair exactly one change: --disable-cuda-graph removed", () => {
    const base = normalizeRunDocument(seedDocument(SGLANG_NO_GRAPHS_RUN));
    const other = normalizeRunDocument(seedDocument(SGLANG_GRAPHS_RUN));
    expect(diffConfigs(base, other)).toEqual([
      {
        section: "flag",
        key: "--disable-cuda-graph",
        kind: "removed",
        from: "on",
        to: null,
        text: "--disable-cuda-graph removed",
        effective: {
          setting: "cuda-graphs",
          label: "CUDA graphs",
          from: { value: "off", source: "flag" },
          to: { value: "on", source: "default" },
          changed: true,
          text: "CUDA graphs: off → on (default)",
        },
      },
    ]);
  });

  it("gives the reverse seed pair --disable-cuda-graph added", () => {
    const base = normalizeRunDocument(seedDocument(SGLANG_GRAPHS_RUN));
    const other = normalizeRunDocument(seedDocument(SGLANG_NO_GRAPHS_RUN));
    expect(diffConfigs(base, other).map((change) => [change.kind, change.text])).toEqual([
      ["added", "--disable-cuda-graph added"],
    ]);
  });

  it("lists engine and every flag between the vLLM seed and the SGLang seed", () => {
    const base = normalizeRunDocument(seedDocument(VLLM_RUN));
    const other = normalizeRunDocument(seedDocument(SGLANG_GRAPHS_RUN));
    // --tp and --tensor-parallel-size, --model-path and vllm serve's positional model: the same settings.
    expect(diffConfigs(base, other).map((change) => change.text)).toEqual([
      "engine: vllm → sglang",
      "--attention-backend triton added",
    ]);
  });

  it("names a changed setting by its new spelling and says how it was spelled before", () => {
    expect(
      diffFlags({ "--tp": "4", "--model-path": "a" }, { "--tensor-parallel-size": "8", "--model": "a" }).map(
        (change) => change.text,
      ),
    ).toEqual(["--tensor-parallel-size: 4 → 8 (was --tp)"]);
  });

  it("gives the shipped demo SGLang pair the same single change", () => {
    const [, noGraphs, graphs] = DEMO_RUNS.map((run) => normalizeRunDocument(run));
    expect(noGraphs && graphs ? diffConfigs(noGraphs, graphs).map((change) => change.text) : null).toEqual([
      "--disable-cuda-graph removed",
    ]);
  });
});

describe("effective settings in diffConfigs", () => {
  const VLLM: ComparableConfig = {
    engine: "vllm",
    engine_version: "0.11.0",
    model: "Qwen3-8B",
    flags: { "--model": "Qwen/Qwen3-8B" },
    env: {},
  };

  function flagChanges(base: ComparableConfig, other: ComparableConfig): ConfigChange[] {
    return diffConfigs(base, other).filter((change) => change.section === "flag");
  }

  it("says a flag that turns on what the version's default already turns on changes nothing", () => {
    const [change] = flagChanges(VLLM, { ...VLLM, flags: { ...VLLM.flags, "--enable-chunked-prefill": true } });
    expect(change?.text).toBe("--enable-chunked-prefill added: chunked prefill on (default) → on, no change");
    expect(change?.effective).toEqual({
      setting: "chunked-prefill",
      label: "chunked prefill",
      from: { value: "on", source: "default" },
      to: { value: "on", source: "flag" },
      changed: false,
      text: "chunked prefill: on (default) → on",
    });
  });

  it("keeps the literal text of a flag that changes its setting, with the setting attached", () => {
    const [change] = flagChanges(VLLM, { ...VLLM, flags: { ...VLLM.flags, "--enforce-eager": true } });
    expect(change).toMatchObject({
      text: "--enforce-eager added",
      effective: { setting: "cuda-graphs", changed: true, text: "CUDA graphs: on (default) → off" },
    });
  });

  it("says a changed spelling of the same value changes nothing", () => {
    const changes = flagChanges(
      { ...VLLM, flags: { "--gpu-memory-utilization": "0.90" } },
      { ...VLLM, flags: { "--gpu-memory-utilization": "0.9" } },
    );
    expect(changes.map((change) => change.text)).toEqual([
      "--gpu-memory-utilization: 0.90 → 0.9; GPU memory utilization 0.9 → 0.9, no change",
    ]);
  });

  it("leaves the text alone when a default is unknown for the version, and says it cannot tell", () => {
    const old = { ...VLLM, engine_version: "0.5.3" };
    const [change] = flagChanges(old, { ...old, flags: { ...old.flags, "--enable-chunked-prefill": true } });
    expect(change?.text).toBe("--enable-chunked-prefill added");
    expect(change?.effective).toMatchObject({
      changed: null,
      text: "chunked prefill: default unknown for vLLM 0.5.3 → on",
    });
  });

  it("reads each engine's own spelling across an engine switch: CUDA graphs off on both sides", () => {
    const changes = flagChanges(
      { ...VLLM, flags: { "--enforce-eager": true, "--tensor-parallel-size": "8" } },
      { ...VLLM, engine: "sglang", engine_version: "0.5.8", flags: { "--disable-cuda-graph": true, "--tp": "8" } },
    );
    expect(changes.map((change) => change.text)).toEqual([
      "--disable-cuda-graph added: CUDA graphs off → off, no change",
      "--enforce-eager removed: CUDA graphs off → off, no change",
    ]);
  });

  it("attaches nothing to a flag the catalogue does not know", () => {
    const [change] = flagChanges(VLLM, { ...VLLM, flags: { ...VLLM.flags, "--x": "1" } });
    expect(change).toEqual({ section: "flag", key: "--x", kind: "added", from: null, to: "1", text: "--x 1 added" });
  });

  it("keeps every spelling the literal diff read as one setting before the catalogue", () => {
    expect(["--tp", "--tp-size", "-tp", "--tensor-parallel-size"].map((name) => canonicalSetting(name))).toEqual(
      Array(4).fill("--tensor-parallel-size"),
    );
    expect(["--pp", "--pp-size", "-pp"].map((name) => canonicalSetting(name))).toEqual(
      Array(3).fill("--pipeline-parallel-size"),
    );
    expect(["--dp", "--dp-size", "-dp"].map((name) => canonicalSetting(name))).toEqual(
      Array(3).fill("--data-parallel-size"),
    );
    expect(canonicalSetting("--model-path")).toBe("--model");
    expect(canonicalSetting("--context-length")).toBe("--max-model-len");
    expect(canonicalSetting("--max-seq-len")).toBe("--max-seq-len");
    expect(canonicalSetting("__proto__")).toBe("__proto__");
    expect(canonicalSetting("constructor")).toBe("constructor");
  });
});
