/**
 * A comparison of long sweeps (12 runs × 1,000 load levels) is drawn and listed in part on the page: at most
 * DRAWN_LEVELS_MAX levels on the charts (and their tooltip and tables), TABLE_LEVELS_MAX rows in each delta table,
 * always with the lowest and highest load, single stream and each run's peak; the CSV export keeps every level.
 */
import { AppRouterContext } from "next/dist/shared/lib/app-router-context.shared-runtime";
import { PathnameContext, SearchParamsContext } from "next/dist/shared/lib/hooks-client-context.shared-runtime";
import { createElement } from "react";
import { prerenderToNodeStream } from "react-dom/static";
import { describe, expect, it } from "vitest";
import { ComparisonView } from "@/components/compare/ComparisonView";
import { paretoFrontier } from "@/lib/analysis/efficiency";
import { buildComparison } from "@/lib/comparisons/build";
import { comparisonCsv } from "@/lib/comparisons/csv";
import { pickLevels } from "@/lib/comparisons/levels-shown";
import { DRAWN_LEVELS_MAX, TABLE_LEVELS_MAX } from "@/lib/comparisons/model";
import { parseCompareView } from "@/lib/comparisons/view";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { StoredRun } from "@/lib/document/stored-run";

const LEVELS = 1_000;

/** Run `index` of 12: its throughput peaks at C=80 × (index + 1), then falls. */
function sweep(index: number): StoredRun {
  const peakAt = 80 * (index + 1);
  const doc = normalizeRunDocument({
    format: "servebench/v1",
    name: `sweep ${index}`,
    engine: "vllm",
    model: "Qwen/Qwen3-32B",
    hardware: { gpu: "H100", gpu_count: 8 },
    flags: { "max-num-seqs": 16 * (index + 1) },
    results: Array.from({ length: LEVELS }, (_, level) => {
      const concurrency = level + 1;
      return {
        concurrency,
        output_throughput: concurrency <= peakAt ? concurrency * 10 : peakAt * 10 - (concurrency - peakAt) / 10,
        mean_tpot_ms: 8 + concurrency * 0.05,
        mean_ttft_ms: 30 + concurrency * 0.5,
      };
    }),
  });
  return { ...doc, id: `sweep${String(index).padStart(7, "0")}`, created_at: "2026-02-14T09:30:00.000Z" };
}

const runs = Array.from({ length: 12 }, (_, index) => sweep(index));
const view = parseCompareView({ runs: runs.map((run) => run.id).join(","), slo_tpot: "40" });

describe("pickLevels", () => {
  const levels = Array.from({ length: 100 }, (_, index) => ({ key: `c:${index + 1}`, x: Math.log2(index + 1) }));

  it("keeps every level that fits", () => {
    expect(pickLevels(levels.slice(0, 10), [], 10)).toBeNull();
  });

  it("keeps the ends and the asked-for levels, and spreads the rest along the axis", () => {
    const picked = pickLevels(levels, ["c:37", "c:1000"], 8)!;
    expect(picked.size).toBe(8);
    expect([...picked].slice(0, 3)).toEqual(["c:1", "c:100", "c:37"]);
    // On the log2 axis 1, 37 and 100 sit at 0, 5.2 and 6.6: the widest gap is filled first (C=6 at 2.6), then the
    // next widest (C=15 at 3.9), and so on; c:1000 is no level here and is passed over.
    expect([...picked].slice(3)).toEqual(["c:6", "c:15", "c:2", "c:61", "c:24"]);
  });
});

describe("a comparison of 12 runs × 1,000 load levels", () => {
  const comparison = buildComparison(runs, view);

  it("draws at most DRAWN_LEVELS_MAX levels per chart, with single stream, the ends and every run's peak", () => {
    expect(comparison.domain.levels).toHaveLength(LEVELS);
    expect(comparison.drawnDomain.levels).toHaveLength(DRAWN_LEVELS_MAX);
    const drawn = comparison.drawnDomain.levels.map((level) => level.key);
    for (const key of ["c:1", "c:1000", ...runs.map((_, index) => `c:${80 * (index + 1)}`)]) {
      expect(drawn).toContain(key);
    }
    for (const chart of [comparison.charts.throughput, comparison.charts.tpot, comparison.charts.ttft]) {
      expect(chart.rows).toHaveLength(DRAWN_LEVELS_MAX);
    }
    expect(comparison.tooltip).toHaveLength(DRAWN_LEVELS_MAX);
    expect(comparison.tooltip[0]).toHaveLength(12);
    for (const points of Object.values(comparison.charts.efficiency.points)) {
      expect(points.length).toBe(DRAWN_LEVELS_MAX);
    }
    // A peak is drawn at its own value, not averaged away: run 4 peaks at C=400 with 4,000 tok/s.
    const row400 = comparison.charts.throughput.rows.find((row) => row.level === "C=400");
    expect(row400?.s4).toBe(4_000);
  });

  it("lists TABLE_LEVELS_MAX rows in each delta table, and says which", () => {
    expect(comparison.levelCount).toBe(LEVELS);
    expect(comparison.tableLevelKeys).toHaveLength(TABLE_LEVELS_MAX);
    for (const key of ["c:1", "c:1000", ...runs.map((_, index) => `c:${80 * (index + 1)}`)]) {
      expect(comparison.tableLevelKeys).toContain(key);
    }
    for (const table of comparison.deltaTables) {
      expect(table.rows.map((row) => row.level.key)).toEqual(comparison.tableLevelKeys);
      expect(table.rows[0]!.cells).toHaveLength(12);
    }
    // The headline still reads every level: each run's peak, at its own level.
    expect(comparison.series.map((item) => item.headline.peak.concurrency)).toEqual(
      runs.map((_, index) => 80 * (index + 1)),
    );
  });

  it("keeps every level for the CSV export", () => {
    const everyLevel = buildComparison(runs, view, { everyLevel: true });
    expect(everyLevel.deltaTables[0]!.rows).toHaveLength(LEVELS);
    const lines = comparisonCsv(everyLevel).trimEnd().split("\n");
    const capacity = /^(tier:|plan:|tok_s_per_gpu_at_tok_s_per_user,)/;
    // A header, then one line per figure × level × run; then each run's capacity at each of the 4 preset tiers.
    expect(lines.filter((line) => !capacity.test(line))).toHaveLength(1 + everyLevel.deltaTables.length * LEVELS * 12);
    expect(lines.filter((line) => line.startsWith("tier:"))).toHaveLength(4 * 12);
  });
});

/** The comparison as /compare renders it, to HTML (the page sends its data for hydration besides, ~1.5× as much). */
async function pageHtml(comparison: ReturnType<typeof buildComparison>): Promise<string> {
  const router = { push() {}, replace() {}, refresh() {}, back() {}, forward() {}, prefetch() {} };
  const view = createElement(ComparisonView, {
    comparison,
    candidates: [],
    editable: true,
    notFound: [],
    truncated: false,
  });
  // Rendered to the end (the page renders its heavy sections a turn of the event loop later: AfterATurn).
  const { prelude } = await prerenderToNodeStream(
    createElement(
      AppRouterContext.Provider,
      { value: router as never },
      createElement(
        SearchParamsContext.Provider,
        { value: new URLSearchParams() as never },
        createElement(PathnameContext.Provider, { value: "/compare" }, view),
      ),
    ),
  );
  let html = "";
  for await (const chunk of prelude) html += chunk.toString();
  return html;
}

describe("the page of 12 runs × 1,000 load levels", () => {
  it("is under 400 kB of HTML and says how many levels it draws and lists", async () => {
    const html = await pageHtml(buildComparison(runs, view));
    expect(html.length).toBeLessThan(400_000);
    // React marks where text and values meet with empty comments; what a reader sees is without them.
    const text = html.replaceAll("<!-- -->", "");
    expect(text).toContain(`The charts draw ${DRAWN_LEVELS_MAX} of the 1000 load levels`);
    expect(text).toContain(`${TABLE_LEVELS_MAX} of the 1000 load levels are listed`);
    // Rows of the up to 15 delta tables, the three load charts' tables and the efficiency table (a row per run and
    // drawn level), the single-stream table: no table of 1,000 rows.
    expect(html.match(/<th scope="row"/g)?.length).toBeLessThanOrEqual(
      15 * TABLE_LEVELS_MAX + 3 * DRAWN_LEVELS_MAX + 12 * DRAWN_LEVELS_MAX + 12,
    );
  });

  it("of a few levels lists them all, with no note", async () => {
    const short = runs.slice(0, 3).map((run) => ({ ...run, results: run.results.slice(0, 8) }));
    const html = await pageHtml(
      buildComparison(short, parseCompareView({ runs: short.map((run) => run.id).join(",") })),
    );
    expect(html).not.toContain("load levels are listed");
    expect(html).not.toContain("The charts draw");
  });
});

describe("paretoFrontier", () => {
  it("keeps the points no other beats on both axes, one of two equal points, in interactivity order", () => {
    const points = [
      { tok_s_per_user: 10, tok_s_per_gpu: 1000, label: "a" },
      { tok_s_per_user: 20, tok_s_per_gpu: 800, label: "b" },
      { tok_s_per_user: 20, tok_s_per_gpu: 700, label: "c" },
      { tok_s_per_user: 15, tok_s_per_gpu: 800, label: "d" },
      { tok_s_per_user: 40, tok_s_per_gpu: 300, label: "e" },
      { tok_s_per_user: 40, tok_s_per_gpu: 300, label: "f" },
      { tok_s_per_user: 5, tok_s_per_gpu: 1000, label: "g" },
    ];
    expect(paretoFrontier(points).map((point) => point.label)).toEqual(["a", "b", "e"]);
  });
});
