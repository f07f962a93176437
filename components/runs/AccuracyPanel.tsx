/**
 * A run's accuracy scores, as the evaluator reported them: task, metric, filter, score ± standard error, and how
 * it was measured (few-shot count, samples, limit). Fractions read as percentages, as on the compare page.
 */
import { Section } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { accuracyLabel, formatScore } from "@/lib/analysis/accuracy";
import type { AccuracyScore } from "@/lib/document/schema";
import { formatNumber } from "@/lib/format";
import { AttachAccuracyForm } from "./AttachAccuracyForm";

function scaleOf(score: AccuracyScore): number {
  return score.higher_is_better !== false && score.value >= 0 && score.value <= 1 ? 100 : 1;
}

export function AccuracyPanel({ runId, scores }: { runId: string; scores: readonly AccuracyScore[] | undefined }) {
  const count = scores?.length ?? 0;
  // The form keeps its place whether or not the run has scores: attaching the first ones refreshes the page into
  // the table, and the form (with its confirmation) must stay where it was, not start again collapsed.
  return (
    <Section title={count === 0 ? "Accuracy" : `Accuracy (${count} score${count === 1 ? "" : "s"})`} id="accuracy">
      {!scores || count === 0 ? (
        <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400">
          No accuracy scores: a faster configuration can also answer worse. Attach the evaluation of this server and the
          compare page judges each score beside the speed.
        </p>
      ) : (
        <AccuracyTable scores={scores} />
      )}
      <AttachAccuracyForm runId={runId} collapsed={count > 0} />
    </Section>
  );
}

function AccuracyTable({ scores }: { scores: readonly AccuracyScore[] }) {
  return (
    <ScrollBox label="Accuracy scores">
      <table className="w-full min-w-[36rem] text-sm" data-testid="run-accuracy">
        <thead>
          <tr className="text-left text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
            <th className="py-1 pr-3 font-medium">Task · metric (filter)</th>
            <th className="py-1 pr-3 text-right font-medium">Score</th>
            <th className="py-1 pr-3 text-right font-medium">± stderr</th>
            <th className="py-1 pr-3 text-right font-medium">Few-shot</th>
            <th className="py-1 pr-3 text-right font-medium">Samples</th>
            <th className="py-1 font-medium">Evaluator</th>
          </tr>
        </thead>
        <tbody>
          {scores.map((score) => {
            const scale = scaleOf(score);
            return (
              <tr
                key={`${score.evaluator}\n${score.task}\n${score.metric}\n${score.filter ?? ""}`}
                className="border-t border-zinc-200 dark:border-zinc-800"
                data-testid="run-accuracy-row"
              >
                <td className="py-1 pr-3 break-words">{accuracyLabel(score)}</td>
                <td className="py-1 pr-3 text-right tabular-nums">
                  {formatScore(score.value, scale)}
                  {scale === 100 ? "%" : ""}
                </td>
                <td className="py-1 pr-3 text-right tabular-nums">
                  {score.stderr === undefined ? "—" : formatScore(score.stderr, scale)}
                </td>
                <td className="py-1 pr-3 text-right tabular-nums">{formatNumber(score.num_fewshot)}</td>
                <td className="py-1 pr-3 text-right tabular-nums">
                  {formatNumber(score.samples)}
                  {score.limit !== undefined ? ` (limit ${formatNumber(score.limit)})` : ""}
                </td>
                <td className="py-1 break-words">
                  {score.evaluator}
                  {score.evaluator_version ? ` ${score.evaluator_version}` : ""}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollBox>
  );
}
