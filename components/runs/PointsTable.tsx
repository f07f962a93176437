/** Every figure of every load level of one run; columns appear only when some point has them. */

import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { metricInfo } from "@/lib/analysis/metrics";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import { LATENCY_METRICS, LATENCY_STATS, type LatencyKey, type ResultPoint } from "@/lib/runs/schema";

type PointKey = Exclude<keyof ResultPoint, "sources">;

const COUNT_COLUMNS: { key: PointKey; label: string }[] = [
  { key: "completed", label: "Completed" },
  { key: "failed", label: "Failed" },
  { key: "duration_s", label: "Duration s" },
  { key: "output_throughput", label: "Output tok/s" },
  { key: "total_token_throughput", label: "Total tok/s" },
  { key: "decode_throughput", label: "Decode-only tok/s" },
  { key: "request_throughput", label: "Req/s" },
  { key: "request_goodput", label: "Goodput req/s" },
];

// Latency columns grouped by metric (TTFT, TPOT, ITL, E2E, E2E per token), each in the order mean … p99.
const LATENCY_COLUMNS: { key: PointKey; label: string }[] = LATENCY_METRICS.flatMap((metric) =>
  LATENCY_STATS.map((stat) => {
    const key = `${stat}_${metric}_ms` as LatencyKey;
    return { key, label: `${metricInfo(key).label} ms` };
  }),
);

const COLUMNS: { key: PointKey; label: string }[] = [
  ...COUNT_COLUMNS,
  ...LATENCY_COLUMNS,
  { key: "total_input_tokens", label: "Input tokens" },
  { key: "total_output_tokens", label: "Output tokens" },
];

export function PointsTable({ points }: { points: ResultPoint[] }) {
  const columns = COLUMNS.filter((column) => points.some((point) => point[column.key] !== undefined));
  return (
    <div className="overflow-x-auto">
      <table className={tableClass} data-testid="points-table">
        <thead>
          <tr>
            <th className={thClass}>Load</th>
            {columns.map((column) => (
              <th key={column.key} className={`${thClass} text-right`}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point, index) => (
            <tr key={index}>
              <td className={`${tdClass} whitespace-nowrap font-medium`}>
                {formatLoadLevel(point)}
                {point.repeat !== undefined ? (
                  <span className="ml-1 text-xs font-normal text-zinc-500 dark:text-zinc-400">
                    repeat {point.repeat}
                  </span>
                ) : null}
              </td>
              {columns.map((column) => {
                const value = point[column.key];
                const source = point.sources?.[column.key];
                return (
                  <td key={column.key} className={`${tdClass} num`} title={source ? `from ${source}` : undefined}>
                    {typeof value === "number" ? formatNumber(value) : "—"}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
