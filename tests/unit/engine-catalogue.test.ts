/**
 * The engine flag catalogue (lib/engines/flag-catalogue.json), its version ranges, and effective settings: what each
 * engine ran with, flag or default, with the expectations written out by hand from the engines' sources.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { parseCommand } from "@/lib/document/flags";
import type { Flags } from "@/lib/document/schema";
import {
  catalogueEngine,
  defaultFor,
  diffNameOf,
  type EngineId,
  FLAG_CATALOGUE,
  parseCatalogue,
} from "@/lib/engines/catalogue";
import { renderCatalogueTables, TABLE_END, TABLE_START, withCatalogueTables } from "@/lib/engines/catalogue-table";
import { type EffectiveChange, type EngineLaunch, effectiveChanges } from "@/lib/engines/effective";
import catalogueJson from "@/lib/engines/flag-catalogue.json";
import { compareEngineVersions, parseEngineVersion, parseVersionRange, versionInRange } from "@/lib/engines/version";

function defaultOf(settingId: string, engine: EngineId, version: string | undefined) {
  const entry = FLAG_CATALOGUE.settingById.get(settingId)?.engines.get(engine);
  if (!entry) throw new Error(`${settingId} is not catalogued for ${engine}`);
  const answer = defaultFor(entry, version);
  return answer.kind === "known" ? answer.value : answer.kind;
}

/** A launch command names at least the model (`vllm serve MODEL`): a run with no flags at all did not record them. */
function launch(engine: string, version: string | undefined, flags: Flags): EngineLaunch {
  return { engine, engine_version: version, flags: { "--model": "m", ...flags } };
}

function only(changes: EffectiveChange[], setting: string): EffectiveChange {
  const found = changes.filter((change) => change.setting === setting);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** A deep copy of the catalogue's JSON to break on purpose. */
function editedCatalogue(edit: (data: { settings: Record<string, unknown>[] }) => void): unknown {
  const data = structuredClone(catalogueJson) as unknown as { settings: Record<string, unknown>[] };
  edit(data);
  return data;
}

function settingEntry(data: { settings: Record<string, unknown>[] }, id: string): Record<string, unknown> {
  const found = data.settings.find((setting) => setting.id === id);
  if (!found) throw new Error(`no setting ${id}`);
  return found;
}

describe("the catalogue", () => {
  it("parses, with 15 or more settings for vLLM and SGLang and 10 or more for TensorRT-LLM and llama.cpp", () => {
    const counts = new Map<EngineId, number>();
    for (const setting of FLAG_CATALOGUE.settings) {
      if (setting.spellingsOnly) continue;
      for (const engine of setting.engines.keys()) counts.set(engine, (counts.get(engine) ?? 0) + 1);
    }
    expect(counts.get("vllm")).toBeGreaterThanOrEqual(15);
    expect(counts.get("sglang")).toBeGreaterThanOrEqual(15);
    expect(counts.get("tensorrt-llm")).toBeGreaterThanOrEqual(10);
    expect(counts.get("llama.cpp")).toBeGreaterThanOrEqual(10);
  });

  it("gives every default a source", () => {
    for (const setting of FLAG_CATALOGUE.settings) {
      for (const entry of setting.engines.values()) {
        for (const fallback of entry.defaults) expect(fallback.source).toMatch(/^https:\/\//);
      }
    }
  });

  it("knows the engines by the names runs give them", () => {
    expect(catalogueEngine("vllm")?.id).toBe("vllm");
    expect(catalogueEngine("TRTLLM")?.id).toBe("tensorrt-llm");
    expect(catalogueEngine(" llama.cpp ")?.id).toBe("llama.cpp");
    expect(catalogueEngine("tgi")).toBeUndefined();
    expect(catalogueEngine("constructor")).toBeUndefined();
    expect(catalogueEngine("__proto__")).toBeUndefined();
  });

  it("renames exactly the spellings the literal diff renamed before the catalogue (series keys depend on it)", () => {
    expect(Object.fromEntries(FLAG_CATALOGUE.renames)).toEqual({
      "-tp": "--tensor-parallel-size",
      "--tp-size": "--tensor-parallel-size",
      "--tp": "--tensor-parallel-size",
      "-pp": "--pipeline-parallel-size",
      "--pp-size": "--pipeline-parallel-size",
      "--pp": "--pipeline-parallel-size",
      "-dp": "--data-parallel-size",
      "--dp-size": "--data-parallel-size",
      "--dp": "--data-parallel-size",
      "--model-path": "--model",
      "--context-length": "--max-model-len",
    });
    expect(diffNameOf("--max-seq-len")).toBe("--max-seq-len");
    expect(diffNameOf("__proto__")).toBe("__proto__");
    expect(diffNameOf("constructor")).toBe("constructor");
  });

  test.each<[string, (data: { settings: Record<string, unknown>[] }) => void, RegExp]>([
    [
      "a range that is not one",
      (data) => {
        const vllm = (
          settingEntry(data, "chunked-prefill").engines as Record<string, { defaults: { versions: string }[] }>
        ).vllm;
        vllm!.defaults[2]!.versions = "≥0.8";
      },
      /setting "chunked-prefill"\.engines\.vllm\.defaults\[2\]: "≥0\.8" is not a version range/,
    ],
    [
      "a kind that does not exist",
      (data) => {
        settingEntry(data, "cuda-graphs").kind = "toggle";
      },
      /setting "cuda-graphs"\.kind/,
    ],
    [
      "a default without a source",
      (data) => {
        const sglang = (settingEntry(data, "prefix-caching").engines as Record<string, { defaults: object[] }>).sglang;
        delete (sglang!.defaults[0] as { source?: string }).source;
      },
      /setting "prefix-caching"\.engines\.sglang\.defaults\.0\.source/,
    ],
    [
      "overlapping ranges",
      (data) => {
        const vllm = (
          settingEntry(data, "prefix-caching").engines as Record<string, { defaults: { versions: string }[] }>
        ).vllm;
        vllm!.defaults[0]!.versions = ">=0.4.0 <0.9.0";
      },
      /setting "prefix-caching"\.engines\.vllm\.defaults\[0\] and defaults\[1\]: the ranges overlap/,
    ],
    [
      "one spelling for two settings on one engine",
      (data) => {
        const vllm = (settingEntry(data, "dtype").engines as Record<string, { flags: { name: string }[] }>).vllm;
        vllm!.flags.push({ name: "--kv-cache-dtype" });
      },
      /setting "dtype"\.engines\.vllm: --kv-cache-dtype is also a spelling of "kv-cache-dtype"/,
    ],
    [
      "a switch default other than on or off",
      (data) => {
        const sglang = (settingEntry(data, "cuda-graphs").engines as Record<string, { defaults: { value: string }[] }>)
          .sglang;
        sglang!.defaults[0]!.value = "yes";
      },
      /setting "cuda-graphs"\.engines\.sglang\.defaults\[0\]: a switch's default is "on" or "off"/,
    ],
  ])("refuses %s, naming the entry", (_label, edit, message) => {
    expect(() => parseCatalogue(editedCatalogue(edit))).toThrow(message);
  });
});

describe("engine versions", () => {
  test.each<[string, string, number]>([
    ["0.11.0", "0.8.0", 1],
    ["v0.5.8", "0.5.8", 0],
    ["0.5.8.post1", "0.5.8", 1],
    ["0.5.8.post1", "0.5.9", -1],
    ["1.0.0rc3", "1.0.0", -1],
    ["1.0.0rc3", "1.0.0rc10", -1],
    ["0.6.4.dev12+g1234abc", "0.6.4rc1", -1],
    ["0.10.1.1", "0.10.1", 1],
    ["0.11.0+cu128", "0.11.0", 0],
    ["b6200", "b6199", 1],
    ["b6200 (abc1234)", "b6200", 0],
  ])("%s against %s", (left, right, expected) => {
    const a = parseEngineVersion(left);
    const b = parseEngineVersion(right);
    expect(a && b ? compareEngineVersions(a, b) : "unparsed").toBe(expected);
  });

  it("does not read a missing or free-form version, and does not compare a build with a release", () => {
    expect(parseEngineVersion(undefined)).toBeNull();
    expect(parseEngineVersion("  ")).toBeNull();
    expect(parseEngineVersion("main")).toBeNull();
    expect(parseEngineVersion("nightly-2025-01-01")).toBeNull();
    expect(compareEngineVersions(parseEngineVersion("b6200")!, parseEngineVersion("0.8.0")!)).toBeNull();
    expect(versionInRange(parseEngineVersion("b6200")!, ">=0.8.0")).toBe(false);
  });

  it("reads ranges: * and bounds that all hold", () => {
    expect(parseVersionRange("*")).toEqual([]);
    expect(parseVersionRange(">=0.8.0 <0.9")).toHaveLength(2);
    expect(parseVersionRange("0.8.0")).toBeNull();
    expect(parseVersionRange(">=0.8.0 <b6000")).toBeNull();
    expect(versionInRange(parseEngineVersion("0.5.8")!, ">=0.5.4 <0.8.0")).toBe(true);
    expect(versionInRange(parseEngineVersion("0.8.0")!, ">=0.5.4 <0.8.0")).toBe(false);
    expect(versionInRange(parseEngineVersion("1.0.0rc3")!, ">=1.0.0rc0")).toBe(true);
    expect(versionInRange(parseEngineVersion("b6400")!, ">=b6327")).toBe(true);
  });
});

describe("defaults per version", () => {
  test.each<[string, EngineId, string | undefined, string]>([
    // vLLM: chunked prefill was opt-in, then on for >32k contexts in V0, then always on in V1 (0.8.0).
    ["chunked-prefill", "vllm", "0.4.2", "off"],
    ["chunked-prefill", "vllm", "0.5.3", "unknown"],
    ["chunked-prefill", "vllm", "0.6.3", "depends"],
    ["chunked-prefill", "vllm", "0.6.6.post1", "depends"],
    ["chunked-prefill", "vllm", "0.11.0", "on"],
    ["chunked-prefill", "vllm", undefined, "unknown"],
    ["chunked-prefill", "vllm", "main", "unknown"],
    ["prefix-caching", "vllm", "0.6.3", "off"],
    ["prefix-caching", "vllm", "0.8.5", "on"],
    ["cuda-graphs", "vllm", "0.11.0", "on"],
    ["async-scheduling", "vllm", "0.11.0", "off"],
    ["async-scheduling", "vllm", "0.14.1", "on"],
    ["tensor-parallel-size", "vllm", undefined, "1"],
    ["gpu-memory-utilization", "vllm", "0.11.0", "0.9"],
    ["max-model-len", "vllm", "0.11.0", "depends"],
    // SGLang: RadixAttention (prefix caching) and CUDA graphs are on unless disabled.
    ["prefix-caching", "sglang", "0.5.8", "on"],
    ["prefix-caching", "sglang", undefined, "on"],
    ["cuda-graphs", "sglang", "v0.4.3.post2", "on"],
    ["async-scheduling", "sglang", "0.4.3", "on"],
    ["torch-compile", "sglang", "0.5.8", "off"],
    // TensorRT-LLM: the PyTorch backend is trtllm-serve's default from 1.0.
    ["backend", "tensorrt-llm", "1.0.0rc3", "pytorch"],
    ["backend", "tensorrt-llm", "0.18.2", "tensorrt"],
    ["backend", "tensorrt-llm", "0.20.0", "unknown"],
    ["kv-cache-free-gpu-memory-fraction", "tensorrt-llm", "1.1.0", "0.9"],
    // llama.cpp: build numbers.
    ["batch-size", "llama.cpp", "b6500", "2048"],
    ["ubatch-size", "llama.cpp", "b6500 (abc1234)", "512"],
    ["flash-attention", "llama.cpp", "b6500", "depends"],
    ["flash-attention", "llama.cpp", "b5000", "unknown"],
    ["batch-size", "llama.cpp", "0.5.0", "unknown"],
  ])("%s on %s %s: %s", (setting, engine, version, expected) => {
    expect(defaultOf(setting, engine, version)).toBe(expected);
  });
});

describe("effectiveChanges", () => {
  it("reads --enable-chunked-prefill added to vLLM 0.11.0 as no change: chunked prefill is on by default", () => {
    const change = only(
      effectiveChanges(launch("vllm", "0.11.0", {}), launch("vllm", "0.11.0", { "--enable-chunked-prefill": true })),
      "chunked-prefill",
    );
    expect(change).toEqual({
      setting: "chunked-prefill",
      label: "chunked prefill",
      from: { value: "on", source: "default" },
      to: { value: "on", source: "flag" },
      changed: false,
      text: "chunked prefill: on (default) → on",
    });
  });

  it("reads --enforce-eager added as CUDA graphs turned off", () => {
    const change = only(
      effectiveChanges(launch("vllm", "0.11.0", {}), launch("vllm", "0.11.0", { "--enforce-eager": true })),
      "cuda-graphs",
    );
    expect(change.changed).toBe(true);
    expect(change.text).toBe("CUDA graphs: on (default) → off");
    expect(change.to).toEqual({ value: "off", source: "flag" });
  });

  it("reads SGLang's --disable-radix-cache as prefix caching turned off", () => {
    const change = only(
      effectiveChanges(launch("sglang", "0.5.8", {}), launch("sglang", "0.5.8", { "--disable-radix-cache": true })),
      "prefix-caching",
    );
    expect(change).toMatchObject({ changed: true, text: "prefix caching: on (default) → off" });
  });

  it("sees the same tensor parallelism across a switch from vLLM to SGLang spelled differently", () => {
    const vllm = parseCommand("vllm serve m --tensor-parallel-size 8").flags;
    const sglang = parseCommand("python -m sglang.launch_server --model-path m --tp 8").flags;
    const changes = effectiveChanges(launch("vllm", "0.11.0", vllm), launch("sglang", "0.5.8", sglang));
    expect(changes).toEqual([
      {
        setting: "tensor-parallel-size",
        label: "tensor parallel size",
        from: { value: "8", source: "flag" },
        to: { value: "8", source: "flag" },
        changed: false,
        text: "tensor parallel size: 8 → 8",
      },
    ]);
  });

  it("cannot tell when the baseline's version has no catalogued default: default unknown for that version", () => {
    const change = only(
      effectiveChanges(launch("vllm", "0.5.3", {}), launch("vllm", "0.5.3", { "--enable-chunked-prefill": true })),
      "chunked-prefill",
    );
    expect(change.changed).toBeNull();
    expect(change.from).toEqual({ value: null, source: "unknown" });
    expect(change.text).toBe("chunked prefill: default unknown for vLLM 0.5.3 → on");
  });

  it("says so when no version is given and the catalogued versions disagree", () => {
    const change = only(
      effectiveChanges(launch("vllm", undefined, {}), launch("vllm", undefined, { "--enable-prefix-caching": true })),
      "prefix-caching",
    );
    expect(change.changed).toBeNull();
    expect(change.text).toBe("prefix caching: default unknown for vLLM (no version given) → on");
  });

  it("names what a default depends on, and cannot tell the change", () => {
    const change = only(
      effectiveChanges(launch("vllm", "0.11.0", {}), launch("vllm", "0.11.0", { "--max-model-len": "32768" })),
      "max-model-len",
    );
    expect(change.changed).toBeNull();
    expect(change.text).toBe("max model length: default (the model's context length) → 32768");
  });

  it("reads negations however they are stored: --no-x parsed as --x: false, or kept as --no-x: true", () => {
    const parsed = parseCommand("vllm serve m --no-enable-prefix-caching").flags;
    expect(parsed["--enable-prefix-caching"]).toBe(false);
    const base = launch("vllm", "0.11.0", {});
    for (const flags of [parsed, { "--no-enable-prefix-caching": true }, { "--enable-prefix-caching": "False" }]) {
      expect(only(effectiveChanges(base, launch("vllm", "0.11.0", flags)), "prefix-caching").text).toBe(
        "prefix caching: on (default) → off",
      );
    }
    expect(
      only(effectiveChanges(base, launch("vllm", "0.11.0", { "--enforce-eager": "false" })), "cuda-graphs").text,
    ).toBe("CUDA graphs: on (default) → on");
  });

  it("compares values as numbers and reads llama-bench's 0/1 switches and llama-server's on/off/auto", () => {
    const memory = only(
      effectiveChanges(
        launch("vllm", "0.11.0", { "--gpu-memory-utilization": "0.90" }),
        launch("vllm", "0.11.0", { "--gpu-memory-utilization": "0.9" }),
      ),
      "gpu-memory-utilization",
    );
    expect(memory).toMatchObject({ changed: false, text: "GPU memory utilization: 0.9 → 0.9" });
    const flash = only(
      effectiveChanges(launch("llama.cpp", "b6500", { "-fa": "auto" }), launch("llama.cpp", "b6500", { "-fa": "1" })),
      "flash-attention",
    );
    expect(flash).toMatchObject({ changed: true, text: "flash attention: auto → on" });
    const offload = only(
      effectiveChanges(launch("llama.cpp", "b6500", {}), launch("llama.cpp", "b6500", { "-nkvo": "1" })),
      "kv-offload",
    );
    expect(offload.text).toBe("KV cache offload to GPU: on (default) → off");
  });

  it("reads each side by its own engine: a setting the other engine lacks is not catalogued there", () => {
    const changes = effectiveChanges(
      launch("vllm", "0.11.0", { "--enforce-eager": true, "--gpu-memory-utilization": "0.85" }),
      launch("sglang", "0.5.8", { "--disable-cuda-graph": true, "--mem-fraction-static": "0.85" }),
    );
    expect(changes.map((change) => [change.text, change.changed])).toEqual([
      ["GPU memory utilization: 0.85 → not catalogued for SGLang", null],
      ["static memory fraction: not catalogued for vLLM → 0.85", null],
      ["CUDA graphs: off → off", false],
    ]);
  });

  it("does not guess defaults for a run that recorded no launch flags at all", () => {
    const unrecorded: EngineLaunch = { engine: "sglang", engine_version: "0.4.3", flags: {} };
    const changes = effectiveChanges(launch("vllm", "0.11.0", { "--enforce-eager": true }), unrecorded);
    expect(changes.map((change) => [change.text, change.changed])).toEqual([
      ["CUDA graphs: off → launch flags not recorded", null],
    ]);
  });

  it("lists nothing for engines or flags the catalogue does not know, whatever their names", () => {
    const odd = JSON.parse('{"__proto__": "1", "constructor": "2", "--toString": true}') as Flags;
    expect(effectiveChanges(launch("vllm", "0.11.0", odd), launch("vllm", "0.11.0", {}))).toEqual([]);
    expect(effectiveChanges(launch("tgi", "3.0", { "--max-batch-size": "8" }), launch("tgi", "3.0", {}))).toEqual([]);
    expect(effectiveChanges(launch("__proto__", "1", {}), launch("constructor", "1", odd))).toEqual([]);
    const toUnknownEngine = effectiveChanges(launch("vllm", "0.11.0", { "-tp": "2" }), launch("tgi", "3.0", {}));
    expect(toUnknownEngine.map((change) => change.text)).toEqual(["tensor parallel size: 2 → not catalogued for TGI"]);
  });
});

describe("docs/engine-settings.md", () => {
  it("holds the catalogue's tables as the data says (npx tsx scripts/engine-settings-table.ts rewrites them)", () => {
    const doc = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "engine-settings.md"), "utf8");
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(withCatalogueTables(doc)).toBe(doc);
    expect(doc).toContain(renderCatalogueTables());
  });
});
