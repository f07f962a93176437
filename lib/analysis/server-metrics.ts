/**
 * The server's own figures against load, prepared for the charts beside the client's curves, and the
 * per-request distributions of a run: pure functions, so the chart components only draw what they return.
 * Rows are aligned by load level on the same axis the client charts use (log2 concurrency, or request
 * rate); a level a run has no figure at is null, a gap, never zero.
 */

import type { LatencyKey, RequestDetail, ResultPoint, ServerMetricField } from "@/lib/document/schema";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import { percentileOfSorted } from "@/lib/stats";
import { type LoadAxis, type LoadDomain, loadDomain } from "./axis";
import { assignRunColors, RUN_COLORS } from "./colors";
import { levelOf } from "./levels";
import { type CompareStat, roundYScale } from "./lines";

/** A run as the panel needs it. */
export interface ServerMetricsRun {
  id: string;
  name: string;
  results: readonly ResultPoint[];
}

/** A series: one run, or the repeats of one configuration (their figures averaged level by level). */
export interface ServerMetricsSeriesInput {
  key: string;
  label: string;
  color: string;
  hidden?: boolean;
  runIds: readonly string[];
}

export type ServerPanelId = "ttft" | "kv" | "waiting" | "running" | "preemptions" | "prefix" | "spec";

export interface ServerPanelLine {
  /** The row field of the line for a series: `${seriesKey}__${field}` (no dot: chart libraries read a dot as a path). */
  field: string;
  /** The legend's name: the series (a comparison) or what the line is (one run). */
  label: string;
  /** What the line is: "mean", "max", "client", "server"… */
  kind: string;
  dashed: boolean;
}

export interface ServerPanel {
  id: ServerPanelId;
  title: string;
  unit: string;
  lines: ServerPanelLine[];
}

export interface ServerMetricsRow {
  x: number;
  /** The level as it reads: "C=8", "4 req/s". */
  level: string;
  [field: string]: number | string | null;
}

export interface ServerMetricsChartData {
  axis: LoadAxis;
  /** The ticks of the shared load domain: x positions and how they read ("8", "∞"). */
  ticks: number[];
  tickLabels: string[];
  /** The x domain every panel shares with the client curves. */
  domain: [number, number];
  series: { key: string; label: string; color: string }[];
  panels: ServerPanel[];
  rows: ServerMetricsRow[];
}

/** What a panel draws: the point fields, how they read, and how they scale (shares become %). */
interface FieldSpec {
  field: ServerMetricField | LatencyKey;
  label: string;
  percent?: boolean;
  /** A secondary line: drawn dashed, and only when the chart shows detail (one run). */
  secondary?: boolean;
}

const PANELS: { id: ServerPanelId; title: string; unit: string; fields: FieldSpec[]; core: boolean }[] = [
  {
    id: "ttft",
    title: "TTFT",
    unit: "ms",
    core: true,
    // The client's TTFT field is chosen per chart (mean, median, p99); the server's is its histogram mean.
    fields: [
      { field: "mean_ttft_ms", label: "client" },
      { field: "server_mean_ttft_ms", label: "server", secondary: true },
    ],
  },
  {
    id: "kv",
    title: "KV-cache usage",
    unit: "%",
    core: true,
    fields: [
      { field: "server_kv_cache_usage_mean", label: "mean", percent: true },
      { field: "server_kv_cache_usage_max", label: "max", percent: true, secondary: true },
    ],
  },
  {
    id: "waiting",
    title: "Waiting requests",
    unit: "requests",
    core: true,
    fields: [
      { field: "server_waiting_requests_mean", label: "mean" },
      { field: "server_waiting_requests_max", label: "max", secondary: true },
    ],
  },
  {
    id: "running",
    title: "Running requests",
    unit: "requests",
    core: false,
    fields: [
      { field: "server_running_requests_mean", label: "mean" },
      { field: "server_running_requests_max", label: "max", secondary: true },
    ],
  },
  {
    id: "preemptions",
    title: "Preemptions",
    unit: "requests",
    core: false,
    fields: [{ field: "server_preemptions", label: "during the level" }],
  },
  {
    id: "prefix",
    title: "Prefix-cache hit rate",
    unit: "%",
    core: false,
    fields: [{ field: "server_prefix_cache_hit_rate", label: "hit rate", percent: true }],
  },
  {
    id: "spec",
    title: "Speculative acceptance",
    unit: "%",
    core: false,
    fields: [{ field: "server_spec_acceptance_rate", label: "accepted", percent: true }],
  },
];

/** Every server figure, for tooltips and exports: field, how it reads, its unit, and whether it is a share. */
export const SERVER_FIGURES: readonly { field: ServerMetricField; label: string; unit: string; percent: boolean }[] = [
  { field: "server_running_requests_mean", label: "Running requests (mean)", unit: "requests", percent: false },
  { field: "server_running_requests_max", label: "Running requests (max)", unit: "requests", percent: false },
  { field: "server_waiting_requests_mean", label: "Waiting requests (mean)", unit: "requests", percent: false },
  { field: "server_waiting_requests_max", label: "Waiting requests (max)", unit: "requests", percent: false },
  { field: "server_kv_cache_usage_mean", label: "KV-cache usage (mean)", unit: "%", percent: true },
  { field: "server_kv_cache_usage_max", label: "KV-cache usage (max)", unit: "%", percent: true },
  { field: "server_preemptions", label: "Preemptions", unit: "requests", percent: false },
  { field: "server_prefix_cache_hit_rate", label: "Prefix-cache hit rate", unit: "%", percent: true },
  { field: "server_spec_acceptance_rate", label: "Speculative acceptance rate", unit: "%", percent: true },
  { field: "server_spec_acceptance_length", label: "Speculative acceptance length", unit: "tokens", percent: false },
  { field: "server_mean_ttft_ms", label: "Server TTFT (mean)", unit: "ms", percent: false },
  { field: "server_mean_tpot_ms", label: "Server TPOT (mean)", unit: "ms", percent: false },
  { field: "server_mean_itl_ms", label: "Server ITL (mean)", unit: "ms", percent: false },
  { field: "server_metrics_samples", label: "Scrapes", unit: "", percent: false },
];

const SERVER_FIELDS = SERVER_FIGURES.map((figure) => figure.field);

/** True when any point of any run has a server figure: the panel is worth showing. */
export function hasServerMetrics(runs: readonly { results: readonly ResultPoint[] }[]): boolean {
  return runs.some((run) => run.results.some((point) => SERVER_FIELDS.some((field) => point[field] !== undefined)));
}

/**
 * One series' point at a level: the run's own, or for repeats each figure's mean over the runs that have it
 * (the largest of the maxima: a max stays a max).
 */
function seriesPoints(runs: readonly ServerMetricsRun[]): ResultPoint[] {
  if (runs.length === 1) return [...runs[0]!.results];
  const byLevel = new Map<string, ResultPoint[]>();
  for (const run of runs) {
    for (const point of run.results) {
      const key = levelOf(point).key;
      byLevel.set(key, [...(byLevel.get(key) ?? []), point]);
    }
  }
  return [...byLevel.values()].map((points) => {
    const first = points[0]!;
    const merged: ResultPoint = {};
    if (first.concurrency !== undefined) merged.concurrency = first.concurrency;
    if (first.request_rate !== undefined) merged.request_rate = first.request_rate;
    const fields: (ServerMetricField | LatencyKey)[] = [
      ...SERVER_FIELDS,
      "mean_ttft_ms",
      "median_ttft_ms",
      "p99_ttft_ms",
    ];
    for (const field of fields) {
      const values = points.map((point) => point[field]).filter((value): value is number => typeof value === "number");
      if (values.length === 0) continue;
      // Six decimals: a mean of stored figures, without the float noise of the division.
      merged[field] = field.endsWith("_max")
        ? Math.max(...values)
        : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 1e6) / 1e6;
    }
    return merged;
  });
}

const levelText = (point: ResultPoint): string => formatLoadLevel(point);

export interface ServerMetricsOptions {
  /**
   * The load domain of the client curves it sits beside (a comparison's shared domain), so a level sits at the
   * same x on every chart of the page; default: the domain of these runs' own levels.
   */
  domain?: LoadDomain;
  /** Which client TTFT the TTFT panel draws (the comparison's statistic). */
  ttftField?: `${CompareStat}_ttft_ms`;
  /** Draw the secondary lines (max, the server's TTFT): for one run; a comparison keeps them to the tooltip. */
  detail?: boolean;
}

/**
 * The panels (TTFT, KV-cache usage and waiting requests first; running requests, preemptions, prefix cache and
 * speculative acceptance when some run has them) and one row per load level any series has a figure at.
 */
export function serverMetricsChart(
  runs: readonly ServerMetricsRun[],
  seriesInput: readonly ServerMetricsSeriesInput[] | null = null,
  options: ServerMetricsOptions = {},
): ServerMetricsChartData {
  const inputs: ServerMetricsSeriesInput[] =
    seriesInput?.map((item) => ({ ...item })) ??
    (() => {
      const colors = assignRunColors(runs.map((run) => run.id));
      return runs.map((run, index) => ({ key: `s${index}`, label: run.name, color: colors[index]!, runIds: [run.id] }));
    })();
  const byId = new Map(runs.map((run) => [run.id, run]));
  const visible = inputs
    .filter((item) => !item.hidden)
    .map((item) => ({
      ...item,
      points: seriesPoints(item.runIds.map((id) => byId.get(id)).filter((run): run is ServerMetricsRun => !!run)),
    }))
    .filter((item) => item.points.length > 0);
  const ttftField = options.ttftField ?? "mean_ttft_ms";
  const domain = options.domain ?? loadDomain(visible.map((item) => ({ label: item.label, results: item.points })));
  const axis = domain.axis;
  const positionOf = new Map(domain.levels.map((level) => [level.key, level.x]));
  const axisPosition = (point: ResultPoint): number | null => positionOf.get(levelOf(point).key) ?? null;
  const detail = options.detail ?? visible.length === 1;

  const specs = PANELS.map((panel) => ({
    ...panel,
    fields: panel.fields.map((spec) => (spec.field === "mean_ttft_ms" ? { ...spec, field: ttftField } : spec)),
  }));
  const seriesHas = (item: (typeof visible)[number], field: string) =>
    item.points.some((point) => axisPosition(point) !== null && point[field as keyof ResultPoint] !== undefined);
  const present = (field: string) => visible.some((item) => seriesHas(item, field));
  const panels: ServerPanel[] = [];
  for (const panel of specs) {
    // A panel needs a server figure: the TTFT panel is drawn for the server figures beside it.
    const serverFields = panel.fields.filter((spec) => spec.field.startsWith("server_"));
    const shown = panel.core
      ? SERVER_FIELDS.some((field) => present(field))
      : serverFields.some((spec) => present(spec.field));
    if (!shown) continue;
    const lines: ServerPanelLine[] = [];
    for (const item of visible) {
      for (const spec of panel.fields) {
        if (spec.secondary && !detail) continue;
        if (!seriesHas(item, spec.field)) continue;
        lines.push({
          field: rowField(item.key, spec.field),
          label: visible.length === 1 ? spec.label : `${item.label}${spec.secondary ? ` (${spec.label})` : ""}`,
          kind: spec.label,
          dashed: spec.secondary === true,
        });
      }
    }
    panels.push({ id: panel.id, title: panel.title, unit: panel.unit, lines });
  }

  const positions = new Map<number, ResultPoint>();
  for (const item of visible) {
    for (const point of item.points) {
      const x = axisPosition(point);
      const has = point[ttftField] !== undefined || SERVER_FIELDS.some((field) => point[field] !== undefined);
      if (x !== null && has && !positions.has(x)) positions.set(x, point);
    }
  }
  const xs = [...positions.keys()].sort((a, b) => a - b);
  const rows: ServerMetricsRow[] = xs.map((x) => {
    const row: ServerMetricsRow = { x, level: levelText(positions.get(x)!) };
    for (const item of visible) {
      const point = item.points.find((candidate) => axisPosition(candidate) === x);
      for (const field of [ttftField, "server_mean_ttft_ms", ...SERVER_FIELDS] as const) {
        const value = point?.[field];
        row[rowField(item.key, field)] = typeof value === "number" ? (isShare(field) ? value * 100 : value) : null;
      }
    }
    return row;
  });
  return {
    axis,
    ticks: domain.ticks.map((tick) => tick.x),
    tickLabels: domain.ticks.map((tick) => tick.label),
    domain: domain.domain,
    series: visible.map(({ key, label, color }) => ({ key, label, color })),
    panels,
    rows,
  };
}

const SHARES = new Set<string>(SERVER_FIGURES.filter((figure) => figure.percent).map((figure) => figure.field));

/** Shares (0–1) are charted as percentages. */
function isShare(field: string): boolean {
  return SHARES.has(field);
}

/** The row key of one series' figure. */
export function rowField(seriesKey: string, field: string): string {
  return `${seriesKey}__${field}`;
}

/**
 * A series' server figures at one level in a few short lines, for the tooltip:
 * "running 12.8 (max 16)", "KV cache 41% (max 55%)", "server TTFT 193 ms · TPOT 8.7 ms".
 */
export function serverSummaryLines(row: ServerMetricsRow, seriesKey: string): string[] {
  const value = (field: ServerMetricField) => {
    const found = row[rowField(seriesKey, field)];
    return typeof found === "number" ? found : null;
  };
  const number = (x: number) => formatNumber(x);
  const pair = (label: string, mean: ServerMetricField, max: ServerMetricField, unit = "") => {
    const a = value(mean);
    const b = value(max);
    if (a === null && b === null) return null;
    const main = a === null ? "—" : `${number(a)}${unit}`;
    return b === null ? `${label} ${main}` : `${label} ${main} (max ${number(b)}${unit})`;
  };
  const lines = [
    pair("running", "server_running_requests_mean", "server_running_requests_max"),
    pair("waiting", "server_waiting_requests_mean", "server_waiting_requests_max"),
    pair("KV cache", "server_kv_cache_usage_mean", "server_kv_cache_usage_max", "%"),
  ];
  const preemptions = value("server_preemptions");
  if (preemptions !== null) lines.push(`preemptions ${number(preemptions)}`);
  const prefix = value("server_prefix_cache_hit_rate");
  if (prefix !== null) lines.push(`prefix-cache hits ${number(prefix)}%`);
  const accepted = value("server_spec_acceptance_rate");
  const length = value("server_spec_acceptance_length");
  if (accepted !== null || length !== null) {
    const parts = [
      accepted === null ? null : `${number(accepted)}% accepted`,
      length === null ? null : `${number(length)} tokens a step`,
    ];
    lines.push(`speculative ${parts.filter(Boolean).join(", ")}`);
  }
  const engine = (
    [
      ["TTFT", "server_mean_ttft_ms"],
      ["TPOT", "server_mean_tpot_ms"],
      ["ITL", "server_mean_itl_ms"],
    ] as const
  )
    .map(([label, field]) => {
      const found = value(field);
      return found === null ? null : `${label} ${number(found)} ms`;
    })
    .filter(Boolean);
  if (engine.length > 0) lines.push(`server ${engine.join(" · ")}`);
  return lines.filter((line): line is string => line !== null);
}

/* ------------------------------------------------------------------------------------------------------ */
/* Per-request distributions                                                                               */

export type DistributionMetric = "ttft" | "tpot" | "e2el";

export interface DistributionLevel {
  key: string;
  label: string;
  color: string;
  /** Requests the curve is drawn from (a sample when the run kept one), and the level's total. */
  requests: number;
  total: number;
  /** The curve: the value at each whole percentile, p0 … p100. */
  quantiles: { p: number; value: number }[];
}

export interface LatencyDistributions {
  metric: DistributionMetric;
  levels: DistributionLevel[];
}

const COLUMN: Record<DistributionMetric, keyof Pick<RequestDetail, "ttft_ms" | "tpot_ms" | "e2el_ms">> = {
  ttft: "ttft_ms",
  tpot: "tpot_ms",
  e2el: "e2el_ms",
};

/**
 * Each level's distribution of one latency, as its 101 whole percentiles (numpy's linear method, as the
 * stored percentiles): a cumulative curve the browser draws from a hundred numbers however many requests
 * the level kept.
 */
export function latencyDistributions(
  results: readonly ResultPoint[],
  metric: DistributionMetric,
): LatencyDistributions {
  const levels: DistributionLevel[] = [];
  results.forEach((point, index) => {
    const detail = point.requests;
    if (!detail) return;
    const values = detail[COLUMN[metric]].filter((value): value is number => value !== null).sort((a, b) => a - b);
    if (values.length === 0) return;
    levels.push({
      key: levelOf(point).key,
      label: levelText(point),
      // The levels of one run: told apart by the palette's order (they are not runs, so no run colour applies).
      color: RUN_COLORS[index % RUN_COLORS.length]!,
      requests: detail.ttft_ms.length,
      total: detail.total,
      quantiles: Array.from({ length: 101 }, (_, p) => ({ p, value: percentileOfSorted(values, p) })),
    });
  });
  return { metric, levels };
}

export function hasRequestDetail(results: readonly ResultPoint[]): boolean {
  return results.some((point) => point.requests !== undefined && point.requests.ttft_ms.length > 0);
}

/* ------------------------------------------------------------------------------------------------------ */
/* Export rows                                                                                              */

export interface ServerMetricExportRow {
  metric: ServerMetricField;
  unit: string;
  concurrency: number | null;
  request_rate: number | "inf" | null;
  /** The series' key and label. */
  seriesKey: string;
  series: string;
  runs: string;
  value: number;
}

/** Each series' server figures, level by level, in the stored units (shares 0–1), for the CSV export. */
export function serverMetricRows(
  runs: readonly ServerMetricsRun[],
  seriesInput: readonly ServerMetricsSeriesInput[],
): ServerMetricExportRow[] {
  const byId = new Map(runs.map((run) => [run.id, run]));
  const rows: ServerMetricExportRow[] = [];
  for (const item of seriesInput) {
    const members = item.runIds.map((id) => byId.get(id)).filter((run): run is ServerMetricsRun => !!run);
    if (members.length === 0) continue;
    for (const point of seriesPoints(members)) {
      const level = levelOf(point);
      for (const figure of SERVER_FIGURES) {
        const value = point[figure.field];
        if (typeof value !== "number") continue;
        rows.push({
          metric: figure.field,
          unit: figure.percent ? "0-1" : figure.unit,
          concurrency: level.concurrency,
          request_rate: level.request_rate,
          seriesKey: item.key,
          series: item.label,
          runs: item.runIds.join(" "),
          value,
        });
      }
    }
  }
  return rows;
}

/**
 * A panel's y axis: from 0 to a round top with round steps (1, 2, 2.5 or 5 times a power of ten), as the client
 * charts have. Shares always run 0–100%; counts of requests step by whole requests (a mean of 3.2 waiting
 * still reads against 0, 1, 2, 3, 4).
 */
export function panelYTicks(
  panel: ServerPanel,
  rows: readonly ServerMetricsRow[],
): { domain: [number, number]; ticks: number[] } {
  if (panel.unit === "%") return { domain: [0, 100], ticks: [0, 25, 50, 75, 100] };
  let max = 0;
  for (const row of rows) {
    for (const line of panel.lines) {
      const value = row[line.field];
      if (typeof value === "number" && Number.isFinite(value) && value > max) max = value;
    }
  }
  // A little room above the highest point; a panel with nothing above 0 reads against 0–1.
  return roundYScale(max > 0 ? max * 1.05 : 1, { wholeSteps: panel.unit === "requests" });
}
