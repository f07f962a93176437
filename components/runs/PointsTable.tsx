/** Every figure of every load level of one run; columns appear only when some point has them. */

import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { joulesPerOutputToken, tokSPerKw, wattsPerGpu } from "@/lib/analysis/energy";
import { metricInfo } from "@/lib/analysis/metrics";
import { SERVER_FIGURES } from "@/lib/analysis/server-metrics";
import {
  LATENCY_METRICS,
  LATENCY_STATS,
  type LatencyKey,
  PERCENTILE_METRICS,
  type PercentileMetric,
  type ResultPoint,
} from "@/lib/document/schema";
import { formatLoadLevel, formatNumber } from "@/lib/format";

type PointKey = Exclude<keyof ResultPoint, "sources" | "requests" | "percentiles">;

interface Column {
  id: string;
  label: string;
  value: (point: ResultPoint) => number | undefined;
  /** The field whose `sources` entry the cell's title shows. */
  source?: string;
}

const fieldColumn = ({ key, label }: { key: PointKey; label: string }): Column => ({
  id: key,
  label,
  value: (point) => point[key] as number | undefined,
  source: key,
});

const PERCENTILE_NAMES: Record<PercentileMetric, string> = {
  ttft: "TTFT",
  tpot: "TPOT",
  itl: "ITL",
  e2el: "E2E latency",
  e2el_per_token: "E2E latency per token",
};

/** The extra percentiles some point has (`percentiles`), as columns: "P75 TTFT ms". */
function percentileColumns(points: readonly ResultPoint[]): Column[] {
  const columns: Column[] = [];
  for (const metric of PERCENTILE_METRICS) {
    const keys = new Set<string>();
    for (const point of points) for (const key of Object.keys(point.percentiles?.[metric] ?? {})) keys.add(key);
    const sorted = [...keys].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    for (const key of sorted) {
      columns.push({
        id: `percentiles.${metric}.${key}`,
        label: `${key.toUpperCase()} ${PERCENTILE_NAMES[metric]} ms`,
        value: (point) => point.percentiles?.[metric]?.[key],
        source: `percentiles.${metric}.${key}`,
      });
    }
  }
  return columns;
}

/** "Running requests (mean)" → "Server running requests (mean)"; "KV-cache…" keeps its capitals. */
function serverLabel(label: string): string {
  if (label.startsWith("Server ")) return label;
  const second = label.charAt(1);
  const head = second === second.toLowerCase() ? label.charAt(0).toLowerCase() : label.charAt(0);
  return `Server ${head}${label.slice(1)}`;
}

/** The server's figures, shares shown as percentages. */
const SERVER_COLUMNS: Column[] = SERVER_FIGURES.filter((figure) => figure.field !== "server_metrics_samples").map(
  (figure) => ({
    id: figure.field,
    label: `${serverLabel(figure.label)}${figure.unit && figure.unit !== "requests" ? ` ${figure.unit}` : ""}`,
    value: (point: ResultPoint) => {
      const value = point[figure.field];
      return value === undefined ? undefined : figure.percent ? value * 100 : value;
    },
    source: figure.field,
  }),
);

const THROUGHPUT_COLUMNS: { key: PointKey; label: string }[] = [
  { key: "output_throughput", label: "Output tok/s" },
  { key: "total_token_throughput", label: "Total tok/s" },
  { key: "decode_throughput", label: "Decode-only tok/s" },
  { key: "request_throughput", label: "Req/s" },
  { key: "request_goodput", label: "Goodput req/s" },
];

// What was run rather than what it gave: read after the figures, so they come last.
const COUNT_COLUMNS: { key: PointKey; label: string }[] = [
  { key: "completed", label: "Completed" },
  { key: "failed", label: "Failed" },
  { key: "duration_s", label: "Duration s" },
];

// Latency columns grouped by metric (TTFT, TPOT, ITL, E2E, E2E per token), each in the order mean … p99.
const LATENCY_COLUMNS: { key: PointKey; label: string }[] = LATENCY_METRICS.flatMap((metric) =>
  LATENCY_STATS.map((stat) => {
    const key = `${stat}_${metric}_ms` as LatencyKey;
    return { key, label: `${metricInfo(key).label} ms` };
  }),
);

const TOKEN_COLUMNS: { key: PointKey; label: string }[] = [
  { key: "total_input_tokens", label: "Input tokens" },
  { key: "total_output_tokens", label: "Output tokens" },
];

/**
 * Energy beside speed (docs/metrics.md#energy), for the levels whose GPU power is known: J per output token, W per
 * GPU (over the GPUs measured, else the run's stated GPU count, never a guess) and output tok/s per kW, then the
 * power they rest on (every measured GPU together).
 */
function energyColumns(gpuCount: number | null): Column[] {
  const known = (value: number | null) => value ?? undefined;
  return [
    { id: "energy.j_per_token", label: "J / output token", value: (point) => known(joulesPerOutputToken(point)) },
    { id: "energy.w_per_gpu", label: "W per GPU", value: (point) => known(wattsPerGpu(point, gpuCount)) },
    { id: "energy.tok_s_per_kw", label: "Output tok/s per kW", value: (point) => known(tokSPerKw(point)) },
    {
      id: "power_w_mean",
      label: "GPU power W (all GPUs)",
      value: (point) => point.power_w_mean,
      source: "power_w_mean",
    },
  ];
}

// The figures people open a run for come first (throughput, then the mean and p99 of TTFT and TPOT), so a
// phone shows them without scrolling; every other latency statistic follows, the extra percentiles, the
// counts, and the server's own figures last.
const HEADLINE_LATENCY: PointKey[] = ["mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "p99_tpot_ms"];

export function PointsTable({ points, gpuCount = null }: { points: ResultPoint[]; gpuCount?: number | null }) {
  const all: Column[] = [
    ...THROUGHPUT_COLUMNS.slice(0, 1).map(fieldColumn),
    ...HEADLINE_LATENCY.map((key) => fieldColumn(LATENCY_COLUMNS.find((column) => column.key === key)!)),
    ...THROUGHPUT_COLUMNS.slice(1).map(fieldColumn),
    ...energyColumns(gpuCount),
    ...LATENCY_COLUMNS.filter((column) => !HEADLINE_LATENCY.includes(column.key)).map(fieldColumn),
    ...percentileColumns(points),
    ...COUNT_COLUMNS.map(fieldColumn),
    ...TOKEN_COLUMNS.map(fieldColumn),
    ...SERVER_COLUMNS,
  ];
  const columns = all.filter((column) => points.some((point) => column.value(point) !== undefined));
  return (
    <ScrollBox label="Results by load level">
      <table className={tableClass} data-testid="points-table">
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Load
            </th>
            {columns.map((column) => (
              <th key={column.id} scope="col" className={`${thClass} text-right`}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point, index) => (
            <tr key={index}>
              <th scope="row" className={`${tdClass} whitespace-nowrap text-left font-medium`}>
                {formatLoadLevel(point)}
                {point.repeat !== undefined ? (
                  <span className="ml-1 text-xs font-normal text-zinc-600 dark:text-zinc-400">
                    repeat {point.repeat}
                  </span>
                ) : null}
              </th>
              {columns.map((column) => {
                const value = column.value(point);
                const source = column.source ? point.sources?.[column.source] : undefined;
                return (
                  <td key={column.id} className={`${tdClass} num`} title={source ? `from ${source}` : undefined}>
                    {typeof value === "number" ? formatNumber(value) : "—"}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** Where each figure came from, for runs imported from a tool's file: field → the file's field names. */
export function SourcesTable({ points }: { points: ResultPoint[] }) {
  const byField = new Map<string, Set<string>>();
  for (const point of points) {
    for (const [field, source] of Object.entries(point.sources ?? {})) {
      const set = byField.get(field) ?? new Set<string>();
      set.add(source);
      byField.set(field, set);
    }
  }
  if (byField.size === 0) return null;
  return (
    <details className="mt-3 text-sm" data-testid="sources">
      <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
        Where these figures came from in the imported file
      </summary>
      <table className={`${tableClass} mt-2`}>
        <thead>
          <tr>
            <th className={thClass}>Field</th>
            <th className={thClass}>Source field</th>
          </tr>
        </thead>
        <tbody>
          {[...byField.entries()].map(([field, sources]) => (
            <tr key={field}>
              <td className={`${tdClass} font-mono text-xs`}>{field}</td>
              <td className={`${tdClass} break-all font-mono text-xs`}>{[...sources].join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
