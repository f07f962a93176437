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
  /** "unknown" when nothing said which engine served the run (servebench answers it since it stores that). */
  engine?: string;
  series?: RunVerdict;
}

const VERDICT_TITLE: Record<string, string> = {
  regression: "regression",
  suspicious: "suspicious change (not yet a regression)",
  improvement: "improvement",
  ok: "no change beyond the noise",
  insufficient: "too few earlier runs to judge",
};

const STATUS_CELL: Record<string, string> = {
  worse: "**worse**",
  better: "better",
  ok: "ok",
  insufficient: "not judged (too few runs)",
  missing: "not measured",
};

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

/**
 * The summary of an upload that stored nothing: why, in the server's words (each issue with the field it names), so
 * a CI job's step summary says what to fix rather than staying empty.
 */
export function refusedSummary(reason: string, issues: readonly { path: string; message: string }[]): string {
  const lines = ["## servebench: upload rejected", "", mdEscape(reason)];
  if (issues.length > 0) {
    lines.push("");
    for (const issue of issues) lines.push(`- ${mdEscape(issue.path || "(document)")}: ${mdEscape(issue.message)}`);
  }
  return `${lines.join("\n")}\n`;
}
