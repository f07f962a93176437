/**
 * A run's validity checks (lib/validity/checks.ts): each check's status as a symbol and a word (never colour
 * alone), its title and the sentence that explains it; and the one-line warning a marked run shows near the top.
 * Every text is React text: a run's model or GPU name in a detail is never read as HTML.
 */
import type { CheckStatus, ValidityReport } from "@/lib/validity/checks";

const STATUS: Record<CheckStatus, { symbol: string; word: string; className: string }> = {
  ok: {
    symbol: "✓",
    word: "OK",
    className: "border-emerald-300 text-emerald-800 dark:border-emerald-800 dark:text-emerald-300",
  },
  marked: {
    symbol: "⚠",
    word: "Marked",
    className:
      "border-amber-400 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200",
  },
  unknown: {
    symbol: "?",
    word: "Unknown",
    className: "border-zinc-300 text-zinc-700 dark:border-zinc-700 dark:text-zinc-300",
  },
};

function StatusBadge({ status }: { status: CheckStatus }) {
  const look = STATUS[status];
  return (
    <span
      className={`inline-flex shrink-0 items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium ${look.className}`}
      data-testid="validity-status"
    >
      <span aria-hidden>{look.symbol}</span>
      {look.word}
    </span>
  );
}

/** The one line a marked run shows under its header, linking to the checks. */
export function ValidityWarning({ report }: { report: ValidityReport }) {
  if (!report.marked) return null;
  return (
    <p
      className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
      role="status"
      data-testid="validity-warning"
    >
      <span aria-hidden>⚠ </span>
      {report.summary}{" "}
      <a href="#validity" className="font-medium underline underline-offset-2">
        See the validity checks
      </a>
      .
    </p>
  );
}

export function ValidityPanel({ report }: { report: ValidityReport }) {
  const counts = report.checks.reduce<Record<CheckStatus, number>>(
    (tally, check) => {
      tally[check.status] += 1;
      return tally;
    },
    { ok: 0, marked: 0, unknown: 0 },
  );
  return (
    <section className="mb-8" id="validity" aria-labelledby="validity-title" data-testid="validity-panel">
      <h2 id="validity-title" className="mb-1 text-lg font-semibold tracking-tight">
        Validity checks
      </h2>
      <p className="mb-3 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Whether the figures are physically possible and measured as they claim: {counts.marked} marked, {counts.ok} OK,{" "}
        {counts.unknown} unknown (the run does not say enough to check). A marked run is kept and compared like any
        other; the mark says what to doubt.
      </p>
      <ul className="space-y-2">
        {report.checks.map((check) => (
          <li
            key={check.id}
            className={`rounded-md border p-3 text-sm ${check.status === "marked" ? "border-amber-300 dark:border-amber-800" : "border-zinc-200 dark:border-zinc-800"}`}
            data-testid={`validity-check-${check.id}`}
            data-status={check.status}
          >
            <div className="flex flex-wrap items-center gap-2">
              <StatusBadge status={check.status} />
              <span className="font-medium">{check.title}</span>
              {check.levels && check.levels.length > 0 ? (
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{check.levels.join(", ")}</span>
              ) : null}
            </div>
            <p className="mt-1 break-words text-zinc-700 dark:text-zinc-300">{check.detail}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
