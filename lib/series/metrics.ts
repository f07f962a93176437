/**
 * The figures a series is charted and judged by. Two headline figures of the run (lib/document/derived.ts) and
 * figures at one chosen load level. The list is data, so a new figure (goodput at an SLO, per-GPU
 * throughput) is one more entry here.
 */
import { type LoadLevel, levelOf } from "@/lib/analysis/levels";
import type { ResultPoint } from "@/lib/document/schema";
import { formatLoadLevel } from "@/lib/format";

/** The figures of a result point a series can follow at its chosen load level. */
export const LEVEL_FIGURES = [
  "output_throughput",
  "request_throughput",
  "request_goodput",
  "mean_ttft_ms",
  "p99_ttft_ms",
  "mean_tpot_ms",
  "p99_tpot_ms",
  "mean_itl_ms",
  "mean_e2el_ms",
] as const satisfies readonly (keyof ResultPoint)[];
export type LevelFigure = (typeof LEVEL_FIGURES)[number];

export const HEADLINE_FIGURES = ["single_stream_tok_s", "peak_tok_s"] as const;
export type HeadlineFigure = (typeof HEADLINE_FIGURES)[number];

export interface SeriesMetric {
  /**
   * `single_stream_tok_s`, `peak_tok_s`, `<figure>@<level key>` such as `mean_tpot_ms@c:64`, or an accuracy score,
   * `accuracy:<evaluator>,<task>,<metric>,<filter>` (each part URI-encoded; the filter empty when there is none).
   */
  key: string;
  figure: HeadlineFigure | LevelFigure | "accuracy";
  /** The accuracy score this metric follows; absent for the speed figures. */
  accuracy?: AccuracyKey;
  /** The load level key for level figures; null for the headline figures. */
  level: string | null;
  label: string;
  unit: string;
  better: "higher" | "lower";
}

const FIGURE_INFO: Record<HeadlineFigure | LevelFigure, { label: string; unit: string; better: "higher" | "lower" }> = {
  single_stream_tok_s: { label: "Single stream", unit: "tok/s", better: "higher" },
  peak_tok_s: { label: "Peak throughput", unit: "tok/s", better: "higher" },
  output_throughput: { label: "Output throughput", unit: "tok/s", better: "higher" },
  request_throughput: { label: "Request throughput", unit: "req/s", better: "higher" },
  request_goodput: { label: "Goodput", unit: "req/s", better: "higher" },
  mean_ttft_ms: { label: "Mean TTFT", unit: "ms", better: "lower" },
  p99_ttft_ms: { label: "P99 TTFT", unit: "ms", better: "lower" },
  mean_tpot_ms: { label: "Mean TPOT", unit: "ms", better: "lower" },
  p99_tpot_ms: { label: "P99 TPOT", unit: "ms", better: "lower" },
  mean_itl_ms: { label: "Mean ITL", unit: "ms", better: "lower" },
  mean_e2el_ms: { label: "Mean E2E latency", unit: "ms", better: "lower" },
};

/** The figures judged when a series' settings name none: what a team tuning a server watches. */
export const DEFAULT_JUDGED_FIGURES: readonly (HeadlineFigure | LevelFigure)[] = [
  "single_stream_tok_s",
  "peak_tok_s",
  "output_throughput",
  "mean_ttft_ms",
  "mean_tpot_ms",
];

export function levelFromKey(key: string): LoadLevel | null {
  const match = /^(c|r):(.+)$/.exec(key);
  if (!match) return null;
  if (match[1] === "c") {
    const concurrency = Number(match[2]);
    return Number.isInteger(concurrency) && concurrency > 0 ? { key, concurrency, request_rate: null } : null;
  }
  if (match[2] === "inf") return { key, concurrency: null, request_rate: "inf" };
  const rate = Number(match[2]);
  return Number.isFinite(rate) && rate > 0 ? { key: `r:${rate}`, concurrency: null, request_rate: rate } : null;
}

export function levelLabel(levelKey: string): string {
  const level = levelFromKey(levelKey);
  return level ? formatLoadLevel(level) : levelKey;
}

/** Every figure a series can follow: the names settings and metric keys may use, and no other. */
export const SERIES_FIGURES: readonly (HeadlineFigure | LevelFigure)[] = [...HEADLINE_FIGURES, ...LEVEL_FIGURES];
const FIGURE_NAMES: ReadonlySet<string> = new Set(SERIES_FIGURES);

/** Which accuracy score of a run an accuracy metric follows. */
export interface AccuracyKey {
  evaluator: string;
  task: string;
  metric: string;
  filter: string | null;
}

const ACCURACY_PREFIX = "accuracy:";

export function accuracyMetricKey(score: AccuracyKey): string {
  return `${ACCURACY_PREFIX}${[score.evaluator, score.task, score.metric, score.filter ?? ""].map(encodeURIComponent).join(",")}`;
}

/**
 * The series metric of an accuracy score. Accuracy is judged by the evaluator's standard errors (detect-accuracy.ts),
 * and shown in points when the scores are fractions where higher is better (`scale` 100), as stated otherwise.
 */
export function accuracySeriesMetric(score: AccuracyKey, better: "higher" | "lower", scale: number): SeriesMetric {
  const filter = score.filter && score.filter !== "none" ? ` (${score.filter})` : "";
  return {
    key: accuracyMetricKey(score),
    figure: "accuracy",
    accuracy: score,
    level: null,
    label: `${score.task} · ${score.metric}${filter}, ${score.evaluator}`,
    unit: scale === 100 ? "%" : "",
    better,
  };
}

function parseAccuracyKey(key: string): AccuracyKey | null {
  if (!key.startsWith(ACCURACY_PREFIX)) return null;
  const parts = key.slice(ACCURACY_PREFIX.length).split(",");
  if (parts.length !== 4) return null;
  try {
    const [evaluator, task, metric, filter] = parts.map(decodeURIComponent) as [string, string, string, string];
    if (!evaluator || !task || !metric) return null;
    return { evaluator, task, metric, filter: filter === "" ? null : filter };
  } catch {
    return null;
  }
}

/** A Set lookup, not `name in FIGURE_INFO`: "constructor" and "toString" are properties of every object, not figures. */
export function isFigure(name: string): name is HeadlineFigure | LevelFigure {
  return FIGURE_NAMES.has(name);
}

export function seriesMetric(figure: HeadlineFigure | LevelFigure, level: string | null): SeriesMetric {
  const info = FIGURE_INFO[figure];
  const atLevel = (HEADLINE_FIGURES as readonly string[]).includes(figure) ? null : level;
  return {
    key: atLevel === null ? figure : `${figure}@${atLevel}`,
    figure,
    level: atLevel,
    label: atLevel === null ? info.label : `${info.label} at ${levelLabel(atLevel)}`,
    unit: info.unit,
    better: info.better,
  };
}

/** `mean_tpot_ms@c:64` → the metric; null for anything that is not one. */
export function parseMetricKey(key: string): SeriesMetric | null {
  const accuracy = parseAccuracyKey(key);
  // A stored change names its score; its direction and scale are the series' to say, so the key alone reads "higher".
  if (accuracy) return accuracySeriesMetric(accuracy, "higher", 1);
  const at = key.indexOf("@");
  const figure = at === -1 ? key : key.slice(0, at);
  if (!isFigure(figure)) return null;
  const isHeadline = (HEADLINE_FIGURES as readonly string[]).includes(figure);
  if (isHeadline) return at === -1 ? seriesMetric(figure, null) : null;
  if (at === -1) return null;
  const level = levelFromKey(key.slice(at + 1));
  return level ? seriesMetric(figure, level.key) : null;
}

/**
 * The figure a series leads with (its page's chart, its list's trend): the first of its judged figures, in the
 * order its settings name them, that it shows; else the first it shows. With the default figures that is single
 * stream or peak, as before; a series judged on p99 TPOT first opens on p99 TPOT, not on an unjudged peak.
 */
export function leadingMetric<M extends { key: string }>(
  shown: readonly M[],
  figures: readonly string[] | null,
): M | null {
  for (const figure of figures ?? DEFAULT_JUDGED_FIGURES) {
    const found = shown.find((metric) => parseMetricKey(metric.key)?.figure === figure);
    if (found) return found;
  }
  return shown[0] ?? null;
}

/** What a run contributes to its series: its headline figures and its points, keyed by load level. */
export interface SeriesRunFigures {
  single_stream_tok_s: number | null;
  peak_tok_s: number | null;
  /** Result points by load level key (only the levels the series needs have to be present). */
  points: ReadonlyMap<string, Partial<ResultPoint>>;
  /** Accuracy scores by metric key, as the series shows them (scaled), each with its standard error. */
  accuracy?: ReadonlyMap<string, { value: number; stderr: number | null }>;
}

export function metricValue(run: SeriesRunFigures, metric: SeriesMetric): number | null {
  if (metric.figure === "accuracy") return run.accuracy?.get(metric.key)?.value ?? null;
  if (metric.figure === "single_stream_tok_s") return run.single_stream_tok_s;
  if (metric.figure === "peak_tok_s") return run.peak_tok_s;
  if (metric.level === null) return null;
  const value = run.points.get(metric.level)?.[metric.figure];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function pointsByLevel(points: readonly ResultPoint[]): Map<string, ResultPoint> {
  return new Map(points.map((point) => [levelOf(point).key, point]));
}
