/** On a run's page: its series and the changes it is part of, as the page read them (changesOfRun). */
import Link from "next/link";
import { formatNumber, formatPercentChange } from "@/lib/format";
import type { RunChanges } from "@/lib/series/change-summary";
import { StatusBadge } from "./StatusBadge";

export function RunSeriesPanel({ series, changes }: RunChanges) {
  if (!series) return null;
  return (
    <div className="mb-6 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800" data-testid="run-series">
      <span className="text-zinc-600 dark:text-zinc-400">Series: </span>
      <Link href={series.url} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
        {series.name}
      </Link>
      {changes.length > 0 ? (
        <ul className="mt-2 space-y-1" data-testid="run-changes">
          {changes.map((change) => (
            <li key={change.id} className="flex flex-wrap items-center gap-2">
              <StatusBadge status={change.kind} />
              {change.kind === "regression" ? <StatusBadge status={change.status} /> : null}
              <Link href={change.url} className="underline underline-offset-2">
                {change.label}: {formatNumber(change.before)} → {formatNumber(change.after)} {change.unit} (
                {formatPercentChange(change.change_pct / 100)}) over {change.violations} point
                {change.violations === 1 ? "" : "s"}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
