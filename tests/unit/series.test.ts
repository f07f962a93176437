import { describe, expect, it, test } from "vitest";
import { concurrencySeries, SERIES_COLORS, seriesColor, seriesOf, singleStreamBars } from "@/lib/analysis/series";
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

describe("concurrencySeries", () => {
  it("aligns the seed runs by concurrency", () => {
    const data = concurrencySeries(SEEDS, "output_throughput");
    expect(data.series.map((entry) => entry.key)).toEqual(["s0", "s1", "s2"]);
    expect(data.rows).toEqual([
      { concurrency: 1, x: 0, s0: 82.5, s1: 27, s2: 63.6 },
      { concurrency: 128, x: 7, s0: 1536, s1: 2216, s2: 2370 },
    ]);
    expect(data.ticks).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("aligns by concurrency, not by array position, and gives missing levels null", () => {
    const data = concurrencySeries(
      [
        run("a", [
          { concurrency: 64, output_throughput: 1900 },
          { concurrency: 1, output_throughput: 60 },
          { concurrency: 8, output_throughput: 420 },
        ]),
        run("b", [
          { concurrency: 1, output_throughput: 30 },
          { concurrency: 8, output_throughput: 200 },
          { concurrency: 32, output_throughput: 900 },
          { concurrency: 64, output_throughput: 1500 },
        ]),
      ],
      "output_throughput",
    );
    expect(data.rows).toEqual([
      { concurrency: 1, x: 0, s0: 60, s1: 30 },
      { concurrency: 8, x: 3, s0: 420, s1: 200 },
      { concurrency: 32, x: 5, s0: null, s1: 900 },
      { concurrency: 64, x: 6, s0: 1900, s1: 1500 },
    ]);
    expect(data.ticks).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("gives null, never 0, for a level where a run lacks the metric", () => {
    const data = concurrencySeries(
      [
        run("a", [{ concurrency: 1, mean_ttft_ms: 80 }, { concurrency: 16 }]),
        run("b", [{ concurrency: 16, mean_ttft_ms: 240 }]),
      ],
      "mean_ttft_ms",
    );
    expect(data.rows).toEqual([
      { concurrency: 1, x: 0, s0: 80, s1: null },
      { concurrency: 16, x: 4, s0: null, s1: 240 },
    ]);
  });

  it("keeps a measured zero as 0", () => {
    const data = concurrencySeries([run("a", [{ concurrency: 2, request_throughput: 0 }])], "request_throughput");
    expect(data.rows).toEqual([{ concurrency: 2, x: 1, s0: 0 }]);
  });

  it("leaves out request-rate-only points and levels no run measured the metric at", () => {
    const data = concurrencySeries(
      [
        run("a", [
          { request_rate: "inf", output_throughput: 2400 },
          { request_rate: 4, output_throughput: 800 },
          { concurrency: 4, output_throughput: 250 },
          { concurrency: 256, mean_tpot_ms: 90 },
        ]),
      ],
      "output_throughput",
    );
    expect(data.rows).toEqual([{ concurrency: 4, x: 2, s0: 250 }]);
    expect(data.ticks).toEqual([2]);
  });

  test.each<[number[], number[]]>([
    [
      [1, 128],
      [0, 1, 2, 3, 4, 5, 6, 7],
    ],
    [
      [3, 100],
      [1, 2, 3, 4, 5, 6, 7],
    ],
    [[16], [4]],
    [
      [6, 12],
      [2, 3, 4],
    ],
  ])("levels %j give ticks %j", (levels, ticks) => {
    const data = concurrencySeries(
      [
        run(
          "a",
          levels.map((concurrency) => ({ concurrency, output_throughput: concurrency * 10 })),
        ),
      ],
      "output_throughput",
    );
    expect(data.ticks).toEqual(ticks);
    expect(data.rows.map((row) => row.x)).toEqual(levels.map((level) => Math.log2(level)));
  });

  it("draws a request-rate sweep against request rate, leaving the unbounded rate out", () => {
    expect(
      concurrencySeries(
        [
          run("a", [
            { request_rate: 4, output_throughput: 900 },
            { request_rate: 1, output_throughput: 240 },
            { request_rate: "inf", output_throughput: 1500 },
          ]),
          run("b", [{ request_rate: 4, output_throughput: 800 }]),
        ],
        "output_throughput",
      ),
    ).toEqual({
      series: [
        { key: "s0", label: "a", color: "#2563eb" },
        { key: "s1", label: "b", color: "#ea580c" },
      ],
      rows: [
        { concurrency: null, x: 1, s0: 240, s1: null },
        { concurrency: null, x: 4, s0: 900, s1: 800 },
      ],
      ticks: [],
      axis: "request_rate",
    });
  });

  it("prefers concurrency when any run has the figure at a concurrency level", () => {
    const data = concurrencySeries(
      [run("a", [{ request_rate: 2, output_throughput: 5 }]), run("b", [{ concurrency: 4, output_throughput: 50 }])],
      "output_throughput",
    );
    expect(data.axis).toBe("concurrency");
    expect(data.rows).toEqual([{ concurrency: 4, x: 2, s0: null, s1: 50 }]);
  });

  it("gives no rows and no ticks when nothing was measured", () => {
    expect(concurrencySeries([run("a", [{ request_rate: 2 }])], "output_throughput")).toEqual({
      series: [{ key: "s0", label: "a", color: "#2563eb" }],
      rows: [],
      ticks: [],
      axis: "concurrency",
    });
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
