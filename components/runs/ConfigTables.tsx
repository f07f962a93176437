/** A run's launch flags, environment and free-form metadata as key/value tables. */

import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { formatFlagValue } from "@/lib/document/flag-format";
import type { Flags } from "@/lib/document/schema";

export function KeyValueTable({
  rows,
  keyLabel,
  valueLabel,
  empty,
  testId,
}: {
  rows: [string, string][];
  keyLabel: string;
  valueLabel: string;
  empty: string;
  testId: string;
}) {
  if (rows.length === 0)
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid={testId}>
        {empty}
      </p>
    );
  return (
    <table className={tableClass} data-testid={testId}>
      <thead>
        <tr>
          <th className={thClass}>{keyLabel}</th>
          <th className={thClass}>{valueLabel}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([key, value]) => (
          <tr key={key}>
            <td className={`${tdClass} whitespace-nowrap font-mono text-xs`}>{key}</td>
            <td className={`${tdClass} break-all font-mono text-xs`}>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FlagsTable({ flags }: { flags: Flags }) {
  const rows = Object.entries(flags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]): [string, string] => [name, formatFlagValue(value)]);
  return (
    <KeyValueTable
      rows={rows}
      keyLabel="Flag"
      valueLabel="Value"
      empty="No launch flags recorded."
      testId="flags-table"
    />
  );
}
