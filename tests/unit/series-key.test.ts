import { describe, expect, it } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { seriesIdentity } from "@/lib/series/key";
import { leadingMetric, parseMetricKey } from "@/lib/series/metrics";
import { mergeSettings, resolveSettings } from "@/lib/series/settings";

const base = {
  format: "servebench/v1",
  engine: "vllm",
  engine_version: "0.11.0",
  model: "Llama-3.1-8B",
  hardware: { gpu: "H100", gpu_count: 1 },
  command: "vllm serve meta-llama/Llama-3.1-8B --max-num-seqs 256 --port 8000",
  workload: { dataset: "random", input_len: 1024, output_len: 128 },
  results: [{ concurrency: 1, output_throughput: 80 }],
};
const key = (doc: Record<string, unknown>) => seriesIdentity(normalizeRunDocument(doc));

describe("series keys", () => {
  it("keep upgrades, commits and the port inside one series; the launch flags, GPU and workload split it", () => {
    const first = key(base);
    expect(first.explicit).toBe(false);
    // Named as run names read, with the launch flags of its key: series that differ in a flag read apart.
    expect(first.name).toBe("vLLM · Llama-3.1-8B · 1× H100 · random 1024→128 · --max-num-seqs 256");
    expect(key({ ...base, engine_version: "0.12.0", git_commit: "abcdef1" }).key).toBe(first.key);
    expect(key({ ...base, command: base.command.replace("8000", "9000") }).key).toBe(first.key);
    expect(key({ ...base, command: base.command.replace("256", "512") }).key).not.toBe(first.key);
    expect(key({ ...base, hardware: { gpu: "H100", gpu_count: 2 } }).key).not.toBe(first.key);
    expect(key({ ...base, workload: { ...base.workload, output_len: 256 } }).key).not.toBe(first.key);
    expect(key({ ...base, env: { HF_HOME: "/cache" } }).key).toBe(first.key);
  });

  it("a named series is that series whatever the configuration", () => {
    expect(key({ ...base, series: "nightly" })).toEqual({ key: "name:nightly", name: "nightly", explicit: true });
    expect(key({ ...base, engine: "sglang", series: "nightly" }).key).toBe("name:nightly");
  });

  it("validates series, git_commit, git_branch and ci_url", () => {
    expect(normalizeRunDocument({ ...base, git_commit: "ABCDEF1234", ci_url: "https://ci.example/1" })).toMatchObject({
      git_commit: "abcdef1234",
      ci_url: "https://ci.example/1",
    });
    expect(() => normalizeRunDocument({ ...base, git_commit: "main" })).toThrow(
      /git_commit: must be a git commit hash/,
    );
    expect(() => normalizeRunDocument({ ...base, ci_url: "javascript:alert(1)" })).toThrow(
      /ci_url: must be an http\(s\) URL/,
    );
    expect(() => normalizeRunDocument({ ...base, series: "" })).toThrow(/series: must not be empty/);
  });
});

describe("metrics and settings", () => {
  it("parse metric keys with their direction", () => {
    expect(parseMetricKey("single_stream_tok_s")).toMatchObject({ better: "higher", level: null, unit: "tok/s" });
    expect(parseMetricKey("mean_tpot_ms@c:64")).toMatchObject({
      better: "lower",
      level: "c:64",
      label: "Mean TPOT at C=64",
    });
    expect(parseMetricKey("mean_tpot_ms")).toBeNull();
    expect(parseMetricKey("bogus@c:1")).toBeNull();
  });

  it("lead with the first judged figure the series shows, in the order its settings name them", () => {
    const shown = [{ key: "peak_tok_s" }, { key: "output_throughput@c:16" }, { key: "p99_tpot_ms@c:16" }];
    // The default figures: single stream is not shown, so peak leads, as the first shown figure did before.
    expect(leadingMetric(shown, null)?.key).toBe("peak_tok_s");
    expect(leadingMetric(shown, ["p99_tpot_ms", "output_throughput"])?.key).toBe("p99_tpot_ms@c:16");
    // Judged figures the series has no value for: the first shown figure.
    expect(leadingMetric(shown, ["mean_ttft_ms"])?.key).toBe("peak_tok_s");
    expect(leadingMetric([], ["mean_ttft_ms"])).toBeNull();
  });

  it("merge overrides over the defaults; null restores a default", () => {
    const stored = mergeSettings("{}", { window: 10, consecutive: 3 });
    expect(resolveSettings(stored)).toMatchObject({ window: 10, consecutive: 3, threshold_pct: 5, z_threshold: 2.5 });
    expect(resolveSettings(mergeSettings(stored, { window: null }))).toMatchObject({ window: 30, consecutive: 3 });
    expect(resolveSettings("not json")).toMatchObject({ window: 30 });
  });
});
