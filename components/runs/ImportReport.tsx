/** The run's import report: the numbers its files state that the run does not keep, grouped by reason. */
import type { NotImportedEntry } from "@/lib/document/schema";

function formatValue(value: number | string): string {
  return typeof value === "number" ? String(value) : value;
}

export function ImportReport({ entries }: { entries: readonly NotImportedEntry[] }) {
  if (entries.length === 0) return null;
  const byReason = new Map<string, NotImportedEntry[]>();
  for (const entry of entries) byReason.set(entry.reason, [...(byReason.get(entry.reason) ?? []), entry]);
  return (
    <section className="mb-8" data-testid="import-report">
      <h2 className="mb-1 text-base font-semibold">Not imported ({entries.length})</h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        Figures the imported files state that this run does not keep, and why. Every other stated figure is in the
        results, the context or the metadata.
      </p>
      <div className="space-y-2">
        {[...byReason.entries()].map(([reason, group]) => (
          <details key={reason} className="rounded-md border border-zinc-200 p-2 text-sm dark:border-zinc-800">
            <summary className="cursor-pointer">
              <span className="font-medium">{group.length}</span> {group.length === 1 ? "figure" : "figures"}: {reason}
            </summary>
            <table className="mt-2 w-full text-left text-xs">
              <thead>
                <tr className="text-zinc-600 dark:text-zinc-400">
                  <th className="py-1 pr-3 font-medium">File</th>
                  <th className="py-1 pr-3 font-medium">Field</th>
                  <th className="py-1 font-medium">Value</th>
                </tr>
              </thead>
              <tbody>
                {group.map((entry, index) => (
                  <tr
                    key={`${entry.file}-${entry.field}-${index}`}
                    className="border-t border-zinc-100 dark:border-zinc-900"
                  >
                    <td className="py-1 pr-3 break-all">{entry.file}</td>
                    <td className="py-1 pr-3 font-mono break-all">{entry.field}</td>
                    <td className="py-1 tabular-nums">{formatValue(entry.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        ))}
      </div>
    </section>
  );
}
