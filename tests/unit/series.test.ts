import { describe, expect, it, test } from "vitest";
import { SERIES_COLORS, seriesColor, seriesOf, singleStreamBars } from "@/lib/analysis/series";
import type { ResultPoint } from "@/lib/runs/schema";
import { SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, VLLM_RUN } from "./seeds";

const SEEDS = [VLLM_RUN, SGLANG_NO_GRAPHS_RUN, SGLANG_GRAPHS_RUN];

function run(name: string, results: ResultPoint[]) {
  return { name, results };
}

describe("seriesColor and SERIES_COLORS", () => {
  it("has twelve distinct colours", () => {
    expect(SERIES_COLORS).toHaveLength(12);
    expect(new Set(SERIES_COLORS).size).toBe(12);
  });

  test.each([
    [0, "#2563eb"],
    [1, "#ea580c"],
    [2, "#16a34a"],
    [11, "#a16207"],
    [12, "#2563eb"],
    [13, "#ea580c"],
  ])("index %d → %s", (index, colour) => {
    expect(seriesColor(index)).toBe(colour);
  });
});

describe("seriesOf", () => {
  it("keys runs s0, s1… with colours in order", () => {
    expect(seriesOf(SEEDS)).toEqual([
      { key: "s0", label: "vLLM TP8 baseline", color: "#2563eb" },
      { key: "s1", label: "SGLang TP8, --disable-cuda-graph", color: "#ea580c" },
      { key: "s2", label: "SGLang TP8, CUDA graphs on", color: "#16a34a" },
    ]);
  });

  it("gives each of thirteen runs the colour at its position, wrapping after twelve", () => {
    const runs = Array.from({ length: 13 }, (_, index) => run(`run ${index}`, []));
    const series = seriesOf(runs);
    expect(series.map((entry) => entry.key)).toEqual(Array.from({ length: 13 }, (_, index) => `s${index}`));
    expect(series.map((entry) => entry.color)).toEqual([...SERIES_COLORS, SERIES_COLORS[0]]);
  });

  it("is empty for no runs", () => {
    expect(seriesOf([])).toEqual([]);
  });
});

describe("singleStreamBars", () => {
  it("gives the seed runs' single-stream tok/s in order", () => {
    expect(singleStreamBars(SEEDS)).toEqual([
      { key: "s0", label: "vLLM TP8 baseline", color: "#2563eb", output_tok_s: 82.5, derived: false },
      { key: "s1", label: "SGLang TP8, --disable-cuda-graph", color: "#ea580c", output_tok_s: 27, derived: false },
      { key: "s2", label: "SGLang TP8, CUDA graphs on", color: "#16a34a", output_tok_s: 63.6, derived: false },
    ]);
  });

  it("marks a TPOT-derived bar and gives null without a C=1 point", () => {
    expect(
      singleStreamBars([
        run("tpot only", [{ concurrency: 1, mean_tpot_ms: 20 }]),
        run("no single stream", [{ concurrency: 8, output_throughput: 400 }]),
      ]),
    ).toEqual([
      { key: "s0", label: "tpot only", color: "#2563eb", output_tok_s: 50, derived: true },
      { key: "s1", label: "no single stream", color: "#ea580c", output_tok_s: null, derived: false },
    ]);
  });
});
