/** Every figure of every load level of one run; columns appear only when some point has them. */

import { ScrollBox, ScrollHint, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { metricInfo } from "@/lib/analysis/metrics";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import { LATENCY_METRICS, LATENCY_STATS, type LatencyKey, type ResultPoint } from "@/lib/runs/schema";

type PointKey = Exclude<keyof ResultPoint, "sources">;

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

// The figures people open a run for come first (throughput, then the mean and p99 of TTFT and TPOT), so a
// phone shows them without scrolling; every other latency statistic follows, then the counts.
const HEADLINE_LATENCY: PointKey[] = ["mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "p99_tpot_ms"];
const COLUMNS: { key: PointKey; label: string }[] = [
  ...THROUGHPUT_COLUMNS.slice(0, 1),
  ...HEADLINE_LATENCY.map((key) => LATENCY_COLUMNS.find((column) => column.key === key)!),
  ...THROUGHPUT_COLUMNS.slice(1),
  ...LATENCY_COLUMNS.filter((column) => !HEADLINE_LATENCY.includes(column.key)),
  ...COUNT_COLUMNS,
  { key: "total_input_tokens", label: "Input tokens" },
  { key: "total_output_tokens", label: "Output tokens" },
];

export function PointsTable({ points }: { points: ResultPoint[] }) {
  const columns = COLUMNS.filter((column) => points.some((point) => point[column.key] !== undefined));
  return (
    <>
      {columns.length > 3 ? <ScrollHint /> : null}
      <ScrollBox label="Results by load level">
        <table className={tableClass} data-testid="points-table">
          <thead>
            <tr>
              <th scope="col" className={thClass}>
                Load
              </th>
              {columns.map((column) => (
                <th key={column.key} scope="col" className={`${thClass} text-right`}>
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
      </ScrollBox>
    </>
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
