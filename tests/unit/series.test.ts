import { describe, expect, it } from "vitest";
import { RUN_COLORS, runColor } from "@/lib/analysis/colors";
import { seriesOf, singleStreamBars } from "@/lib/analysis/series";
import type { ResultPoint } from "@/lib/document/schema";
import { SGLANG_GRAPHS_RUN, SGLANG_NO_GRAPHS_RUN, VLLM_RUN } from "./seeds";

const SEEDS = [VLLM_RUN, SGLANG_NO_GRAPHS_RUN, SGLANG_GRAPHS_RUN];

function run(name: string, results: ResultPoint[]) {
  return { name, results };
}

describe("seriesOf", () => {
  it("keys runs s0, s1… with the colours of their positions when they have no id", () => {
    // FNV-1a of "#0", "#1", "#2" modulo 7: 6, 4, 3.
    expect(seriesOf(SEEDS)).toEqual([
      { key: "s0", label: "vLLM TP8 baseline", color: "#64748b" },
      { key: "s1", label: "SGLang TP8, --disable-cuda-graph", color: "#ea580c" },
      { key: "s2", label: "SGLang TP8, CUDA graphs on", color: "#2563eb" },
    ]);
  });

  it("colours a run with an id by its id, wherever it stands in the list", () => {
    const alone = seriesOf([{ id: "a", name: "a", results: [] }]);
    const second = seriesOf([
      { id: "b", name: "b", results: [] },
      { id: "a", name: "a", results: [] },
    ]);
    expect(alone[0]!.color).toBe(runColor("a"));
    expect(second[1]!.color).toBe(runColor("a"));
  });

  it("gives thirteen runs thirteen keys, every colour used and none by more than two", () => {
    const runs = Array.from({ length: 13 }, (_, index) => run(`run ${index}`, []));
    const series = seriesOf(runs);
    expect(series.map((entry) => entry.key)).toEqual(Array.from({ length: 13 }, (_, index) => `s${index}`));
    expect(new Set(series.map((entry) => entry.color)).size).toBe(RUN_COLORS.length);
    const uses = new Map<string, number>();
    for (const entry of series) uses.set(entry.color, (uses.get(entry.color) ?? 0) + 1);
    expect(Math.max(...uses.values())).toBe(2);
  });

  it("is empty for no runs", () => {
    expect(seriesOf([])).toEqual([]);
  });
});

describe("singleStreamBars", () => {
  it("gives the seed runs' single-stream tok/s in order", () => {
    expect(singleStreamBars(SEEDS)).toEqual([
      { key: "s0", label: "vLLM TP8 baseline", color: "#64748b", output_tok_s: 82.5, derived: false },
      { key: "s1", label: "SGLang TP8, --disable-cuda-graph", color: "#ea580c", output_tok_s: 27, derived: false },
      { key: "s2", label: "SGLang TP8, CUDA graphs on", color: "#2563eb", output_tok_s: 63.6, derived: false },
    ]);
  });

  it("marks a TPOT-derived bar and gives null without a C=1 point", () => {
    expect(
      singleStreamBars([
        run("tpot only", [{ concurrency: 1, mean_tpot_ms: 20 }]),
        run("no single stream", [{ concurrency: 8, output_throughput: 400 }]),
      ]),
    ).toEqual([
      { key: "s0", label: "tpot only", color: "#64748b", output_tok_s: 50, derived: true },
      { key: "s1", label: "no single stream", color: "#ea580c", output_tok_s: null, derived: false },
    ]);
  });
});
