/**
 * The model of a comparison: what buildComparison (lib/comparisons/build.ts) computes once from the runs and the
 * view, and the compare page, saved comparisons, the link preview image and the CSV export all read.
 */
import type { AccuracyComparison } from "@/lib/analysis/accuracy";
import type { LoadDomain } from "@/lib/analysis/axis";
import type { ConfigChange } from "@/lib/analysis/config-diff";
import type { DeltaTable, HeadlineComparison, Verdict } from "@/lib/analysis/deltas";
import type { EfficiencyPoint } from "@/lib/analysis/efficiency";
import type { FairnessReport } from "@/lib/analysis/fairness";
import type { Spread } from "@/lib/analysis/intervals";
import type { LevelUncertainty } from "@/lib/analysis/level-uncertainty";
import type { CompareStat, LineChartData, ResolvedStat } from "@/lib/analysis/lines";
import type { MetricKey } from "@/lib/analysis/metrics";
import type { SingleStreamBar } from "@/lib/analysis/series";
import type { SloPoint } from "@/lib/analysis/slo";
import type { VerdictSentence } from "@/lib/analysis/verdict";
import type { ResultPoint } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import type { ValidityReport } from "@/lib/validity/checks";
import type { CapacityReport } from "./capacity";
import type { CompareView } from "./view";

/**
 * At most this many load levels are drawn (per run and chart, and in the charts' shared tooltip and tables). A
 * sweep of 1,000 levels on a chart a few hundred pixels wide shows nothing that 32 of them spread along the axis do
 * not (on a log2 axis most of the 1,000 crowd its last octave), and every level drawn costs the page its figures
 * for every run (the tooltip alone ~8 kB a level for 12 runs): 12 runs of 1,000 levels made a 47 MB page.
 */
export const DRAWN_LEVELS_MAX = 32;
/**
 * At most this many rows in each delta table on the page: a row is a cell for every run in each of up to 15 tables,
 * ~200 bytes a cell in the page's HTML and its data together (12 runs: up to 2,880 cells). The CSV export has every
 * level.
 */
export const TABLE_LEVELS_MAX = 16;

export interface SeriesSlo extends SloPoint {
  /** Output tok/s per GPU at the SLO point; null when the GPU count is unknown. */
  tok_s_per_gpu: number | null;
  /** $ per million output tokens there. */
  cost_per_m_tokens: number | null;
  /**
   * The share of that level's requests that met the targets each on their own (repeats pooled), with its Wilson
   * 95% interval; null without per-request results.
   */
  attainment: { met: number; total: number; share: number; interval: [number, number] } | null;
  /** The figure compared against the baseline's: per GPU when both state a GPU count, else all GPUs. */
  compared: { value: number | null; base: number | null; unit: string; change: number | null; verdict: Verdict };
}

export interface EqualInteractivity {
  /** tok/s per user the two are compared at. */
  at: number;
  value: number;
  base: number;
  change: number | null;
  verdict: Verdict;
}

export interface ComparisonSeries {
  key: string;
  /** The id of the series' first run: how the URL names it (baseline, hide). */
  id: string;
  /** The series' name: its run's, or "… · mean of N repeats". */
  label: string;
  /** The run name without the repeats' wording. */
  name: string;
  color: string;
  runs: { id: string; name: string }[];
  isBaseline: boolean;
  hidden: boolean;
  /** The configuration of the series (its runs share it). */
  run: StoredRun;
  /** Means over the repeats, one point per load level. */
  results: ResultPoint[];
  spreads: Record<string, Partial<Record<MetricKey, Spread>>>;
  /**
   * A level's uncertainty of each latency percentile, by level key: its 95% interval from the requests, or "≈ max".
   * Computed when first asked for (lib/analysis/level-uncertainty.ts seriesUncertaintyAt).
   */
  uncertaintyAt: (levelKey: string) => LevelUncertainty | undefined;
  /** The validity checks of the series' runs; marked when any run is. */
  validity: ValidityReport;
  /** The most repeats a load level has (1: none). */
  repeats: number;
  gpuCount: number | null;
  /** $/GPU-hour that applies to the series' GPU, when prices are set. */
  price: number | null;
  headline: HeadlineComparison;
  /** Configuration changes against the baseline series; empty for the baseline. */
  changes: ConfigChange[];
  /** The verdict against the baseline; null for the baseline. */
  verdict: VerdictSentence | null;
  /** The statistic shown for TPOT and TTFT (the asked-for one, or what the run states instead). */
  stats: Record<"tpot" | "ttft" | "itl" | "e2el", ResolvedStat | null>;
  slo: SeriesSlo | null;
  /** Throughput per GPU against interactivity: every level, and the frontier. */
  efficiency: { points: EfficiencyPoint[]; frontier: EfficiencyPoint[] };
  /** Against the baseline at equal interactivity; a reason when it cannot be said. */
  atInteractivity: EqualInteractivity | { reason: string } | null;
  /** The accuracy scores against the baseline's (null for the baseline, or when neither side states any). */
  accuracy: AccuracyComparison | null;
}

export interface TooltipFigure {
  name: string;
  text: string;
  change: string | null;
  verdict: Verdict;
}

export interface TooltipEntry {
  key: string;
  label: string;
  color: string;
  isBaseline: boolean;
  overSlo: boolean;
  figures: TooltipFigure[];
}

export interface EfficiencyChartData {
  series: { key: string; label: string; color: string; id: string; hidden: boolean }[];
  points: Record<string, EfficiencyPoint[]>;
  frontiers: Record<string, EfficiencyPoint[]>;
  /** Series left out because their GPU count or TPOT is unknown, with why. */
  notes: string[];
  /** The TPOT statistic interactivity (1000 / TPOT) is computed at: the axis title names it. */
  tpotStat: string;
}

export interface Comparison {
  view: CompareView;
  series: ComparisonSeries[];
  baselineIndex: number;
  domain: LoadDomain;
  /**
   * The levels the page draws: `domain` with at most DRAWN_LEVELS_MAX of its levels (every one when it has no more).
   * The charts, their tooltip and the tables under them are of these.
   */
  drawnDomain: LoadDomain;
  /**
   * The levels the page's delta tables list when the runs have more than TABLE_LEVELS_MAX (null: every level).
   * `deltaTables` hold only these unless the comparison was built with `everyLevel` (the CSV export).
   */
  tableLevelKeys: string[] | null;
  /** How many load levels the runs have together (the rows of a complete delta table). */
  levelCount: number;
  fairness: FairnessReport;
  /** The noise threshold in use, in percent, and where it came from. */
  noise: { pct: number; source: "view" | "default" | "repeats" };
  deltaTables: DeltaTable[];
  /** Per row of the line charts (same order), every series' figures at that level: the shared tooltip. */
  tooltip: TooltipEntry[][];
  charts: {
    throughput: LineChartData;
    tpot: LineChartData;
    ttft: LineChartData;
    efficiency: EfficiencyChartData;
    singleStream: SingleStreamBar[];
  };
  /** The verdicts of the non-baseline series, in order (the first is the page's headline). */
  verdicts: VerdictSentence[];
  /** SLO tiers, the capacity planner, the inverse questions and the per-interactivity bucket table. */
  capacity: CapacityReport;
  /** One-line summary for link previews: "SGLang … vs SGLang …" and the headline deltas. */
  summary: { title: string; description: string };
}

export interface BuildOptions {
  /**
   * Delta tables of every load level (the CSV export). Otherwise of the levels the page lists (tableLevelKeys):
   * the rest of 12 runs × 1,000 levels was ~100 ms of a page's 200 ms for rows it does not show.
   */
  everyLevel?: boolean;
}

export function statName(stat: CompareStat): string {
  return stat === "mean" ? "Mean" : stat === "median" ? "Median" : stat.toUpperCase();
}
