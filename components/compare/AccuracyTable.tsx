/**
 * Accuracy beside speed on the compare page: each accuracy score both runs state, the baseline's against each
 * run's, with the noise band 2·√(se₁² + se₂²) that decides whether a difference counts (docs/metrics.md#accuracy).
 */
import { Section } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { type AccuracyRow, type AccuracyVerdict, accuracyClause, formatScore } from "@/lib/analysis/accuracy";
import type { Comparison, ComparisonSeries } from "@/lib/comparisons/model";
import { VERDICT_CLASS } from "./verdicts";

const VERDICT_TEXT: Record<AccuracyVerdict, string> = {
  better: "better",
  worse: "worse",
  noise: "within noise",
  unknown: "no standard error",
};

const VERDICT_COLOUR: Record<AccuracyVerdict, string> = {
  better: VERDICT_CLASS.better,
  worse: VERDICT_CLASS.worse,
  noise: VERDICT_CLASS.noise,
  unknown: VERDICT_CLASS.inconclusive,
};

function stderrText(value: number | undefined, scale: number): string {
  return value === undefined ? "" : ` ± ${formatScore(value, scale)}`;
}

function Row({ row }: { row: AccuracyRow }) {
  const unit = row.scale === 100 ? " pts" : "";
  const sign = row.delta > 0 ? "+" : row.delta < 0 ? "−" : "";
  return (
    <tr className="border-t border-zinc-200 dark:border-zinc-800" data-testid="accuracy-row" data-verdict={row.verdict}>
      <td className="py-1 pr-3 break-words">
        {row.label}
        <span className="block text-xs text-zinc-600 dark:text-zinc-400">{row.evaluator}</span>
      </td>
      <td className="whitespace-nowrap py-1 pr-3 text-right tabular-nums">
        {formatScore(row.base.value, row.scale)}
        {stderrText(row.base.stderr, row.scale)}
      </td>
      <td className="whitespace-nowrap py-1 pr-3 text-right tabular-nums">
        {formatScore(row.value.value, row.scale)}
        {stderrText(row.value.stderr, row.scale)}
      </td>
      <td className={`whitespace-nowrap py-1 pr-3 text-right tabular-nums ${VERDICT_COLOUR[row.verdict]}`}>
        {sign}
        {formatScore(Math.abs(row.delta), row.scale)}
        {unit}
      </td>
      <td className="whitespace-nowrap py-1 pr-3 text-right tabular-nums">
        {row.noiseBand === null ? "—" : `±${formatScore(row.noiseBand, row.scale)}${unit}`}
      </td>
      <td className={`py-1 ${VERDICT_COLOUR[row.verdict]}`} data-testid="accuracy-verdict">
        {VERDICT_TEXT[row.verdict]}
        {row.unlike.length > 0 ? (
          <span className="block text-xs text-amber-800 dark:text-amber-300" data-testid="accuracy-unlike">
            not like for like: {row.unlike.join("; ")}
          </span>
        ) : null}
      </td>
    </tr>
  );
}

function SeriesAccuracy({ item, baseline }: { item: ComparisonSeries; baseline: ComparisonSeries }) {
  const accuracy = item.accuracy!;
  return (
    <div className="mb-4" data-testid="accuracy-table" data-run-id={item.id}>
      <h3 className="mb-1 text-sm font-semibold break-words">
        {item.label} <span className="font-normal text-zinc-600 dark:text-zinc-400">vs {baseline.label}</span>
      </h3>
      {accuracy.rows.length > 0 ? (
        <ScrollBox label={`Accuracy of ${item.label}`}>
          <table className="w-full min-w-[36rem] text-sm">
            <thead>
              <tr className="text-left text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
                <th className="py-1 pr-3 font-medium">Task · metric (filter)</th>
                <th className="py-1 pr-3 text-right font-medium">Baseline</th>
                <th className="py-1 pr-3 text-right font-medium">This run</th>
                <th className="py-1 pr-3 text-right font-medium">Δ</th>
                <th className="py-1 pr-3 text-right font-medium">Noise 2·√(se₁²+se₂²)</th>
                <th className="py-1 font-medium">Verdict</th>
              </tr>
            </thead>
            <tbody>
              {accuracy.rows.map((row) => (
                <Row key={`${row.evaluator}\n${row.label}`} row={row} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">The two runs state no accuracy score in common.</p>
      )}
      {accuracy.onlyBase.length > 0 || accuracy.onlyValue.length > 0 ? (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="accuracy-only-one-side">
          {accuracy.onlyBase.length > 0 ? `Only the baseline states ${accuracy.onlyBase.join(", ")}. ` : ""}
          {accuracy.onlyValue.length > 0 ? `Only this run states ${accuracy.onlyValue.join(", ")}.` : ""}
        </p>
      ) : null}
    </div>
  );
}

/** The section; nothing when no run of the comparison states an accuracy score. */
export function AccuracySection({ comparison }: { comparison: Comparison }) {
  const baseline = comparison.series[comparison.baselineIndex];
  const compared = comparison.series.filter((item) => item.accuracy !== null);
  if (!baseline || compared.length === 0) return null;
  return (
    <Section title="Accuracy beside speed" id="accuracy">
      {compared.map((item) => (
        <SeriesAccuracy key={item.key} item={item} baseline={baseline} />
      ))}
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        A difference inside 2·√(se₁² + se₂²) (twice the standard error of the difference) is within noise. Fractions are
        shown as percentages, so a difference reads in points.
      </p>
    </Section>
  );
}

/** The card's accuracy line: the clause the verdict says, coloured by it. */
export function AccuracyCardLine({ item }: { item: ComparisonSeries }) {
  if (!item.accuracy) return null;
  const clause = accuracyClause(item.accuracy);
  const tradeOff = item.verdict?.tradeOff ?? false;
  return (
    <div data-testid="accuracy-card-line">
      <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
        Accuracy
        {tradeOff ? (
          <span className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 font-semibold normal-case text-amber-900 dark:bg-amber-900/50 dark:text-amber-100">
            trade-off: faster, less accurate
          </span>
        ) : null}
      </dt>
      <dd className={`font-medium ${clause ? VERDICT_CLASS[clause.verdict] : ""}`}>
        {clause ? clause.text.replace(/^accuracy: /, "").replace(/^accuracy /, "") : "no score in common"}
      </dd>
    </div>
  );
}
