/**
 * Accuracy beside speed: each accuracy score of a run against the baseline's, judged with the rule evaluation
 * dashboards use (vllm-dashboard, lm-eval's own comparisons): a difference inside 2·√(se₁² + se₂²), twice the
 * standard error of the difference, is within noise. docs/metrics.md#accuracy.
 */

import type { VerdictClause } from "@/lib/analysis/verdict";
import type { AccuracyScore } from "@/lib/document/schema";
import { formatNumber } from "@/lib/format";

// Scores as percentages read to a tenth of a point (lm-eval's stderr of ~1 point needs no finer); other scores
// (perplexity, bits per byte) to four significant digits.
const POINTS = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const RAW = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 });

/** A score (or a difference of scores) as shown: `scale` 100 for percentages, 1 as stated. */
export function formatScore(value: number, scale: number): string {
  return (scale === 100 ? POINTS : RAW).format(value * scale);
}

export type AccuracyVerdict = "better" | "worse" | "noise" | "unknown";

export interface AccuracyRow {
  /** "gsm8k · exact_match (strict-match)": the task, metric and filter as the evaluator names them. */
  label: string;
  evaluator: string;
  task: string;
  metric: string;
  filter: string | null;
  base: AccuracyScore;
  value: AccuracyScore;
  /** value − base, in the score's own units. */
  delta: number;
  /** 2·√(se₁² + se₂²); null when either side states no standard error. */
  noiseBand: number | null;
  /** better/worse beyond the noise band, noise inside it, unknown without standard errors (and a difference). */
  verdict: AccuracyVerdict;
  /** 100 when the scores are fractions shown as percentages (a difference then reads in points), else 1. */
  scale: number;
  /** What differs in how the two were measured (few-shot count, samples, limit, generation settings). */
  unlike: string[];
}

export interface AccuracyComparison {
  rows: AccuracyRow[];
  /** Scores only one side has: "gsm8k · exact_match (strict-match)". */
  onlyBase: string[];
  onlyValue: string[];
}

function keyOf(score: AccuracyScore): string {
  return JSON.stringify([score.evaluator, score.task, score.metric, score.filter ?? null]);
}

export function accuracyLabel(score: Pick<AccuracyScore, "task" | "metric" | "filter">): string {
  return `${score.task} · ${score.metric}${score.filter && score.filter !== "none" ? ` (${score.filter})` : ""}`;
}

/** Fractions in 0–1 of a score where higher is better read as percentages; anything else (perplexity, bits per byte) as stated. */
function scaleOf(base: AccuracyScore, value: AccuracyScore): number {
  const fraction = (score: AccuracyScore) => score.value >= 0 && score.value <= 1;
  const higherBetter = base.higher_is_better !== false && value.higher_is_better !== false;
  return higherBetter && fraction(base) && fraction(value) ? 100 : 1;
}

function generationText(score: AccuracyScore): string {
  return JSON.stringify(Object.entries(score.generation ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** How the two scores were measured differently: the like-for-like check of one row. */
function unlikeOf(base: AccuracyScore, value: AccuracyScore): string[] {
  const out: string[] = [];
  const side = (figure: number | undefined) => (figure === undefined ? "not stated" : formatNumber(figure));
  if (base.num_fewshot !== value.num_fewshot)
    out.push(`few-shot ${side(base.num_fewshot)} → ${side(value.num_fewshot)}`);
  if (base.samples !== value.samples) out.push(`samples ${side(base.samples)} → ${side(value.samples)}`);
  if (base.limit !== value.limit) out.push(`limit ${side(base.limit)} → ${side(value.limit)}`);
  if (generationText(base) !== generationText(value)) out.push("generation settings differ");
  if ((base.evaluator_version ?? null) !== (value.evaluator_version ?? null))
    out.push(
      `${base.evaluator} ${base.evaluator_version ?? "version not stated"} → ${value.evaluator_version ?? "version not stated"}`,
    );
  return out;
}

/** The noise rule for one pair of scores. */
export function judgeAccuracy(
  base: AccuracyScore,
  value: AccuracyScore,
): Pick<AccuracyRow, "delta" | "noiseBand" | "verdict"> {
  const delta = value.value - base.value;
  const noiseBand =
    base.stderr === undefined || value.stderr === undefined
      ? null
      : 2 * Math.sqrt(base.stderr ** 2 + value.stderr ** 2);
  let verdict: AccuracyVerdict;
  if (delta === 0) verdict = "noise";
  else if (noiseBand === null) verdict = "unknown";
  else if (Math.abs(delta) <= noiseBand) verdict = "noise";
  else verdict = delta > 0 === (base.higher_is_better !== false) ? "better" : "worse";
  return { delta, noiseBand, verdict };
}

/** Every score both runs state, the baseline's against this run's, in the baseline's order. */
export function compareAccuracy(
  base: readonly AccuracyScore[] | undefined,
  value: readonly AccuracyScore[] | undefined,
): AccuracyComparison {
  const theirs = new Map((value ?? []).map((score) => [keyOf(score), score]));
  const mine = new Set((base ?? []).map(keyOf));
  const rows: AccuracyRow[] = [];
  const onlyBase: string[] = [];
  for (const score of base ?? []) {
    const other = theirs.get(keyOf(score));
    if (!other) {
      onlyBase.push(accuracyLabel(score));
      continue;
    }
    rows.push({
      label: accuracyLabel(score),
      evaluator: score.evaluator,
      task: score.task,
      metric: score.metric,
      filter: score.filter ?? null,
      base: score,
      value: other,
      ...judgeAccuracy(score, other),
      scale: scaleOf(score, other),
      unlike: unlikeOf(score, other),
    });
  }
  const onlyValue = (value ?? []).filter((score) => !mine.has(keyOf(score))).map(accuracyLabel);
  return { rows, onlyBase, onlyValue };
}

/** "78.2 → 72.2 (−6.0 points, beyond ±3.7)": a row as the verdict and the cards say it. */
export function accuracyChangeText(row: AccuracyRow): string {
  const points = row.scale === 100;
  const show = (figure: number) => formatScore(figure, row.scale);
  const unit = points ? " points" : "";
  const sign = row.delta > 0 ? "+" : row.delta < 0 ? "−" : "±";
  const change = `${sign}${show(Math.abs(row.delta))}${unit}`;
  const band = row.noiseBand === null ? null : `±${show(row.noiseBand)}`;
  const judged =
    row.verdict === "unknown"
      ? ", no standard error to judge it by"
      : row.verdict === "noise"
        ? band
          ? `, within ${band}`
          : ""
        : `, beyond ${band}`;
  return `${show(row.base.value)} → ${show(row.value.value)} (${change}${judged})`;
}

/**
 * The verdict's accuracy clause: the scores that fell beyond noise (the largest drop named), else those that rose,
 * else those that cannot be judged, else "within noise". Null when the runs share no score.
 */
export function accuracyClause(comparison: AccuracyComparison): VerdictClause | null {
  const { rows } = comparison;
  if (rows.length === 0) return null;
  const named = (picked: AccuracyRow[], verb: string, verdict: VerdictClause["verdict"]): VerdictClause => {
    const first = picked[0]!;
    const more = picked.length > 1 ? ` (and ${picked.length - 1} more ${verb})` : "";
    // A score measured differently on the two sides (few-shot count, samples, generation settings) says so.
    const unlike = first.unlike.length > 0 ? `, not like for like: ${first.unlike.join("; ")}` : "";
    return { text: `accuracy: ${first.label} ${accuracyChangeText(first)}${unlike}${more}`, verdict };
  };
  // The largest move first, measured in noise bands so that scores of different scales compare.
  const bySize = (picked: AccuracyRow[]) =>
    [...picked].sort((a, b) => Math.abs(b.delta) / (b.noiseBand || 1) - Math.abs(a.delta) / (a.noiseBand || 1));
  const worse = rows.filter((row) => row.verdict === "worse");
  if (worse.length > 0) return named(bySize(worse), "fell", "worse");
  const better = rows.filter((row) => row.verdict === "better");
  if (better.length > 0) return named(bySize(better), "rose", "better");
  const unknown = rows.filter((row) => row.verdict === "unknown");
  if (unknown.length > 0) return named(unknown, "without a standard error", "inconclusive");
  return {
    text: `accuracy within noise on ${rows.length === 1 ? `${rows[0]!.label}` : `${rows.length} scores`}`,
    verdict: "noise",
  };
}
