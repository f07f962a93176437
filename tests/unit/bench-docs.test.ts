/** The benchmark's documentation says what the code does: every option, and vLLM's definitions. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BENCH_USAGE } from "@/lib/bench/options";

const root = path.join(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

describe("bench docs", () => {
  it("docs/bench.md documents every option of `servebench bench --help`", () => {
    const options = [...BENCH_USAGE.matchAll(/^ {2}(--[a-z-]+)/gm)].map((match) => match[1]!);
    expect(options).toHaveLength(41);
    const text = read("docs/bench.md");
    expect(options.filter((option) => !text.includes(`\`${option}`))).toEqual([]);
  });

  it("docs/metrics.md says the measured figures follow vLLM's calculate_metrics and numpy's percentiles", () => {
    const text = read("docs/metrics.md");
    const section = text.slice(text.indexOf("## servebench bench"));
    expect(text).toContain("## servebench bench");
    expect(section).toContain("`calculate_metrics` in `vllm/benchmarks/serve.py`");
    expect(section).toContain("(e2e latency − TTFT) / (output tokens − 1)");
    expect(section).toContain("linear\ninterpolation at rank (n − 1) · p / 100");
    // The section is appended: the existing text comes first, unchanged in its opening.
    expect(text.startsWith("# Metrics: one definition each")).toBe(true);
  });

  it("the README says how to measure a server and links the details", () => {
    const readme = read("README.md");
    const section = readme.slice(readme.indexOf("\n## Measuring a server\n"));
    expect(section).toContain("npx servebench bench --base-url");
    expect(section).toContain("[docs/bench.md](docs/bench.md)");
  });
});
