import { describe, expect, it } from "vitest";
import { RUN_COLORS, runColor } from "@/lib/analysis/colors";
import { historyRowOf, historyRowsOf } from "@/lib/runs/history-rows";
import type { RunSummary } from "@/lib/runs/summaries";

const SUMMARY: RunSummary = {
  id: "r1",
  url: "/runs/r1",
  name: "SGLang TP8, CUDA graphs on",
  engine: "sglang",
  engine_version: "0.4.3",
  model: "meta-llama/Llama-3.3-70B-Instruct",
  hardware: { gpu: "NVIDIA H100 80GB HBM3", gpu_count: 8 },
  tags: ["demo", "tp8"],
  measured_at: "2026-11-29T21:04:00.000Z",
  created_at: "2026-12-01T08:00:00.000Z",
  point_count: 8,
  source_format: "servebench/v1",
  series_id: "s1",
  single_stream: { output_tok_s: 63.6, derived: false },
  peak: { output_tok_s: 2370.4, concurrency: 128, request_rate: null },
};

describe("historyRowOf", () => {
  it("formats a run's row as the history shows it", () => {
    expect(historyRowOf(SUMMARY)).toEqual({
      id: "r1",
      name: "SGLang TP8, CUDA graphs on",
      color: runColor("r1"),
      engine: "sglang",
      engine_version: "0.4.3",
      model: "meta-llama/Llama-3.3-70B-Instruct",
      hardware: "8× NVIDIA H100 80GB HBM3",
      single_stream: "63.6",
      single_stream_derived: false,
      peak: "2,370",
      peak_level: "C=128",
      date: "2026-11-29",
      measured: true,
      tags: ["demo", "tp8"],
      demo: true,
      series_id: "s1",
    });
  });

  it("says what is missing, and dates an unmeasured run by its upload", () => {
    const row = historyRowOf({
      ...SUMMARY,
      hardware: { gpu: null, gpu_count: null },
      tags: [],
      measured_at: null,
      single_stream: { output_tok_s: 27, derived: true },
      peak: { output_tok_s: 950, concurrency: null, request_rate: "inf" },
    });
    expect(row).toMatchObject({
      hardware: "—",
      single_stream: "27",
      single_stream_derived: true,
      peak_level: "rate ∞",
      date: "2026-12-01",
      measured: false,
      demo: false,
    });
    expect(historyRowOf({ ...SUMMARY, single_stream: null, peak: null })).toMatchObject({
      single_stream: null,
      peak: null,
      peak_level: null,
    });
  });
});

describe("historyRowsOf", () => {
  it("tells apart the runs of a page that would share a colour, as a comparison of them does", () => {
    // "h" and "IMHjvd1CahGN" both take colour 7 on their own (tests/unit/colors.test.ts).
    expect(runColor("h")).toBe(runColor("IMHjvd1CahGN"));
    const rows = historyRowsOf([
      { ...SUMMARY, id: "h" },
      { ...SUMMARY, id: "IMHjvd1CahGN" },
      { ...SUMMARY, id: "a" },
    ]);
    expect(rows.map((row) => row.color)).toEqual([RUN_COLORS[0], RUN_COLORS[7], RUN_COLORS[4]]);
  });
});
