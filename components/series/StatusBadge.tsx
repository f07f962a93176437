/** A series', a change's or an alert's state as a coloured label. */
import { ownValue } from "@/lib/own-value";

const STYLES: Record<string, string> = {
  regression: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-300",
  suspicious: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300",
  improvement: "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-300",
  ok: "bg-green-50 text-green-700 dark:bg-green-900/30 dark:text-green-300",
  insufficient: "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
  open: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-300",
  acknowledged: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300",
  expected: "bg-violet-100 text-violet-800 dark:bg-violet-900/40 dark:text-violet-300",
};

const LABELS: Record<string, string> = { insufficient: "too few runs" };

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${ownValue(STYLES, status) ?? STYLES.insufficient}`}
      data-testid={testId}
      data-status={status}
    >
      {ownValue(LABELS, status) ?? status}
    </span>
  );
}
