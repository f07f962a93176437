/** Every figure of every load level of one run; columns appear only when some point has them. */
import { formatLoadLevel, formatNumber } from "@/lib/format";
import type { ResultPoint } from "@/lib/runs/schema";
import { tableClass, tdClass, thClass } from "@/components/ui/primitives";

type PointKey = keyof ResultPoint;

const COLUMNS: { key: PointKey; label: string }[] = [
  { key: "completed", label: "Completed" },
  { key: "failed", label: "Failed" },
  { key: "duration_s", label: "Duration s" },
  { key: "output_throughput", label: "Output tok/s" },
  { key: "total_token_throughput", label: "Total tok/s" },
  { key: "request_throughput", label: "Req/s" },
  { key: "mean_ttft_ms", label: "Mean TTFT ms" },
  { key: "median_ttft_ms", label: "Median TTFT ms" },
  { key: "p90_ttft_ms", label: "P90 TTFT ms" },
  { key: "p99_ttft_ms", label: "P99 TTFT ms" },
  { key: "mean_tpot_ms", label: "Mean TPOT ms" },
  { key: "median_tpot_ms", label: "Median TPOT ms" },
  { key: "p90_tpot_ms", label: "P90 TPOT ms" },
  { key: "p99_tpot_ms", label: "P99 TPOT ms" },
  { key: "mean_itl_ms", label: "Mean ITL ms" },
  { key: "median_itl_ms", label: "Median ITL ms" },
  { key: "p90_itl_ms", label: "P90 ITL ms" },
  { key: "p99_itl_ms", label: "P99 ITL ms" },
  { key: "mean_e2el_ms", label: "Mean E2E ms" },
  { key: "median_e2el_ms", label: "Median E2E ms" },
  { key: "p90_e2el_ms", label: "P90 E2E ms" },
  { key: "p99_e2el_ms", label: "P99 E2E ms" },
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
              <td className={`${tdClass} whitespace-nowrap font-medium`}>{formatLoadLevel(point)}</td>
              {columns.map((column) => {
                const value = point[column.key];
                return (
                  <td key={column.key} className={`${tdClass} num`}>
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
