/**
 * The markdown summary `servebench upload` prints for CI (stdout, --summary FILE, $GITHUB_STEP_SUMMARY): the
 * verdict, each judged figure against its baseline, what changed since the run before, and the links. Ready to
 * paste into a pull-request comment.
 */
import { formatNumber, formatPercentChange } from "../../lib/format";
import type { RunVerdict } from "../../lib/series/judging";
import { mdEscape, mdLinkTarget, mdTable } from "./markdown";

export interface UploadedRun {
  id: string;
  url: string;
  name: string;
  series?: RunVerdict;
}

const VERDICT_TITLE: Record<string, string> = {
  regression: "regression",
  suspicious: "suspicious change (not yet a regression)",
  improvement: "improvement",
  ok: "no change beyond the noise",
  insufficient: "too few earlier runs to judge (judging starts at the third run)",
};

const STATUS_CELL: Record<string, string> = {
  worse: "**worse**",
  better: "better",
  ok: "ok",
  insufficient: "not judged (too few runs)",
  missing: "not measured",
};

/**
 * How sure the verdict is when the baseline is short: the noise model for short baselines (docs/series.md) judges
 * it, so a move must be large to count and a quiet verdict says less than it would after a month of nights.
 */
function confidenceLine(verdict: RunVerdict): string | null {
  const short = verdict.metrics.filter((metric) => metric.short_baseline && metric.baseline_points !== null);
  if (short.length === 0) return null;
  const points = Math.min(...short.map((metric) => metric.baseline_points!));
  return `Confidence: low. The baseline is short (${points} earlier run${points === 1 ? "" : "s"}), so it is judged by the noise model for short baselines: its noise is taken as at least the series' prior, and a move must be large to count.`;
}

function runSummary(base: string, run: UploadedRun): string {
  const verdict = run.series;
  const lines: string[] = [];
  if (!verdict) {
    lines.push(`### ${mdEscape(run.name || run.id)}`, "", `Stored: ${mdLinkTarget(`${base}${run.url}`)} (not judged).`);
    return lines.join("\n");
  }
  lines.push(
    `### ${verdict.verdict === "regression" ? "Regression" : "Result"} in ${mdEscape(verdict.series.name)}: ${VERDICT_TITLE[verdict.verdict] ?? mdEscape(verdict.verdict)}`,
    "",
  );
  const rows = verdict.metrics.map((metric) => {
    const change = verdict.changes.find(
      (candidate) => candidate.metric === metric.key && candidate.status !== "expected",
    );
    const status =
      change && change.kind !== "suspicious"
        ? `**${mdEscape(change.kind)}** (${change.violations} run${change.violations === 1 ? "" : "s"}, ${mdEscape(change.status)})`
        : (STATUS_CELL[metric.status] ?? mdEscape(metric.status));
    const unit = mdEscape(metric.unit);
    return [
      mdEscape(metric.label),
      metric.value === null ? "—" : `${formatNumber(metric.value)} ${unit}`,
      metric.baseline_mean === null ? "—" : `${formatNumber(metric.baseline_mean)} ${unit}`,
      metric.change_pct === null ? "—" : formatPercentChange(metric.change_pct / 100),
      status,
    ];
  });
  if (rows.length > 0) {
    lines.push(mdTable(["Figure", "This run", "Baseline", "Change", "Verdict"], ["l", "r", "r", "r", "l"], rows), "");
  }
  const confidence = confidenceLine(verdict);
  if (confidence) lines.push(confidence, "");
  if (verdict.previous_run) {
    lines.push(
      verdict.what_changed.length > 0
        ? `What changed since [the run before](${mdLinkTarget(`${base}${verdict.previous_run.url}`)}):`
        : `Nothing in the configuration changed since [the run before](${mdLinkTarget(`${base}${verdict.previous_run.url}`)}).`,
    );
    for (const line of verdict.what_changed) lines.push(`- ${mdEscape(line)}`);
    lines.push("");
  }
  const links = [
    `[run](${mdLinkTarget(`${base}${run.url}`)})`,
    `[series](${mdLinkTarget(`${base}${verdict.series.url}`)})`,
  ];
  for (const change of verdict.changes.filter((c) => c.kind === "regression"))
    links.push(`[alert](${mdLinkTarget(`${base}${change.url}`)})`);
  lines.push(links.join(" · "));
  return lines.join("\n");
}

export function uploadSummary(base: string, runs: readonly UploadedRun[]): string {
  const regressions = runs.filter((run) => run.series?.verdict === "regression").length;
  const head =
    regressions > 0
      ? `## servebench: ${regressions} regression${regressions === 1 ? "" : "s"}`
      : "## servebench: no regression";
  return `${[head, ...runs.map((run) => runSummary(base, run))].join("\n\n")}\n`;
}
