/**
 * The markdown summary `servebench upload` prints for CI (stdout, --summary FILE, $GITHUB_STEP_SUMMARY), written for
 * a pull-request comment: one headline, the culprit range (last good → first bad run, with commits), each judged
 * figure against its baseline with the noise band, what changed between the last good and the first bad run, the
 * links.
 */
import { formatNumber, formatPercentChange } from "../../lib/format";
import type { MetricVerdict, RunCulprit, RunVerdict } from "../../lib/series/judging";
import { mdEscape, mdLinkTarget, mdTable } from "./markdown";

export interface UploadedRun {
  id: string;
  url: string;
  name: string;
  /** "unknown" when nothing said which engine served the run (servebench answers it since it stores that). */
  engine?: string;
  series?: RunVerdict;
}

/**
 * A verdict as the server answered it, with the lists a servebench older than this CLI does not send (culprits and
 * change points came later) read as empty: the summary then says what that server said, and no more.
 */
export function verdictFromServer(verdict: RunVerdict): RunVerdict {
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  return {
    ...verdict,
    metrics: list(verdict.metrics),
    changes: list(verdict.changes),
    what_changed: list(verdict.what_changed),
    culprits: list(verdict.culprits),
    change_points: list(verdict.change_points),
  };
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

function runText(run: { name: string; git_commit: string | null }): string {
  return `**${mdEscape(run.name)}**${run.git_commit ? ` (commit \`${mdEscape(run.git_commit.slice(0, 12))}\`)` : ""}`;
}

/** "nightly 19 → nightly 20", plain, for the headline. */
function rangeWords(culprit: RunCulprit): string {
  const { last_good, first_bad } = culprit.culprit;
  return last_good ? `${mdEscape(last_good.name)} → ${mdEscape(first_bad.name)}` : `from ${mdEscape(first_bad.name)}`;
}

/** The change that explains the verdict: a regression first, then a suspicious change. */
function mainCulprit(verdict: RunVerdict): RunCulprit | null {
  const order = ["regression", "suspicious", "improvement"];
  return [...verdict.culprits].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind))[0] ?? null;
}

/**
 * The change points over the whole series that moved a figure the worse way, beside the window rule's verdict: where
 * the level moved, by E-divisive means with Benjamini–Hochberg across the figures (docs/series.md).
 */
function changePointsLine(verdict: RunVerdict): string | null {
  const labels = new Map(verdict.metrics.map((metric) => [metric.key, metric.label]));
  const worse = verdict.change_points.filter((point) => point.direction === "worse" && labels.has(point.metric));
  if (worse.length === 0) return null;
  const at = (runId: string) => verdict.culprits.find((c) => c.culprit.first_bad.id === runId)?.culprit.first_bad.name;
  const items = worse.map((point) => {
    const night = at(point.first_bad_run_id);
    return `${mdEscape(labels.get(point.metric)!)} ${formatPercentChange(point.change_pct / 100)}${night ? ` from ${mdEscape(night)}` : ""} (p ${point.p.toPrecision(2)})`;
  });
  return `Change points over the series (E-divisive, 5% false discovery rate): ${items.join("; ")}.`;
}

function verdictCell(metric: MetricVerdict, culprits: readonly RunCulprit[]): string {
  const culprit = culprits.find((candidate) => candidate.figures.some((figure) => figure.key === metric.key));
  const status = STATUS_CELL[metric.status] ?? mdEscape(metric.status);
  if (!culprit) return status;
  return `${status}, ${mdEscape(culprit.kind)}${culprit.kind === "suspicious" ? "" : ` (${mdEscape(culprit.status)})`}`;
}

function baselineCell(metric: MetricVerdict): string {
  if (metric.baseline_mean == null) return "—";
  const band = metric.baseline_sigma != null ? ` ± ${formatNumber(metric.baseline_sigma)}` : "";
  return `${formatNumber(metric.baseline_mean)}${band} ${mdEscape(metric.unit)}`;
}

/** The body of one run's summary: culprit, figures, confidence, what changed, links. No heading of its own. */
function runBody(base: string, run: UploadedRun, verdict: RunVerdict): string[] {
  const lines: string[] = [];
  const culprit = mainCulprit(verdict);
  if (culprit) {
    const { last_good, first_bad, compare_url, bisect } = culprit.culprit;
    const compare = compare_url ? ` · [compare the two](${mdLinkTarget(`${base}${compare_url}`)})` : "";
    lines.push(
      last_good
        ? `Culprit range: last good ${runText(last_good)} → first bad ${runText(first_bad)}${compare}`
        : `Culprit range: from ${runText(first_bad)}, the first run judged`,
    );
    if (bisect) lines.push("", `${mdEscape(bisect.charAt(0).toUpperCase())}${mdEscape(bisect.slice(1))}.`);
    lines.push("");
  }
  const changePoints = changePointsLine(verdict);
  if (changePoints) lines.push(changePoints, "");
  const rows = verdict.metrics.map((metric) => [
    mdEscape(metric.label),
    metric.value === null ? "—" : `${formatNumber(metric.value)} ${mdEscape(metric.unit)}`,
    baselineCell(metric),
    metric.change_pct === null ? "—" : formatPercentChange(metric.change_pct / 100),
    verdictCell(metric, verdict.culprits),
  ]);
  if (rows.length > 0)
    lines.push(
      mdTable(["Figure", "This run", "Baseline ± σ", "Change", "Verdict"], ["l", "r", "r", "r", "l"], rows),
      "",
    );
  const confidence = confidenceLine(verdict);
  if (confidence) lines.push(confidence, "");
  if (culprit?.culprit.last_good) {
    const changed = culprit.culprit.what_changed;
    lines.push(
      changed.length > 0
        ? `What changed from the last good run to the first bad one:`
        : "Nothing changed between the last good run and the first bad one (configuration and commit alike).",
    );
    for (const line of changed) lines.push(`- ${mdEscape(line)}`);
    lines.push("");
  } else if (verdict.previous_run) {
    const previous = `[the run before](${mdLinkTarget(`${base}${verdict.previous_run.url}`)})`;
    lines.push(
      verdict.what_changed.length > 0
        ? `What changed since ${previous}:`
        : `Nothing changed since ${previous} (configuration and commit alike).`,
    );
    for (const line of verdict.what_changed) lines.push(`- ${mdEscape(line)}`);
    lines.push("");
  }
  const links = [
    `[run](${mdLinkTarget(`${base}${run.url}`)})`,
    `[series](${mdLinkTarget(`${base}${verdict.series.url}`)})`,
  ];
  for (const regression of verdict.culprits.filter((c) => c.kind === "regression"))
    links.push(
      `[alert: ${regression.figures.map((figure) => mdEscape(figure.label)).join(", ")}](${mdLinkTarget(`${base}${regression.url}`)})`,
    );
  lines.push(links.join(" · "));
  return lines;
}

/** The headline of one judged run: the series, the verdict, and for a change its range. */
function headline(verdict: RunVerdict): string {
  const culprit = mainCulprit(verdict);
  const title = VERDICT_TITLE[verdict.verdict] ?? mdEscape(verdict.verdict);
  const range =
    culprit && (verdict.verdict === "regression" || verdict.verdict === "suspicious") ? `, ${rangeWords(culprit)}` : "";
  return `${mdEscape(verdict.series.name)}: ${title}${range}`;
}

export function uploadSummary(base: string, runs: readonly UploadedRun[]): string {
  if (runs.length === 1) {
    const run = runs[0]!;
    if (!run.series)
      return `## servebench: ${mdEscape(run.name || run.id)} stored, not judged\n\n${mdLinkTarget(`${base}${run.url}`)}\n`;
    return `${[`## servebench · ${headline(run.series)}`, "", ...runBody(base, run, run.series)].join("\n")}\n`;
  }
  const regressions = runs.filter((run) => run.series?.verdict === "regression").length;
  const head = `## servebench: ${regressions === 0 ? "no regression" : `${regressions} regression${regressions === 1 ? "" : "s"}`} in ${runs.length} runs`;
  const sections = runs.map((run) =>
    run.series
      ? [`### ${mdEscape(run.name || run.id)} · ${headline(run.series)}`, "", ...runBody(base, run, run.series)].join(
          "\n",
        )
      : `### ${mdEscape(run.name || run.id)}\n\nStored: ${mdLinkTarget(`${base}${run.url}`)} (not judged).`,
  );
  return `${[head, ...sections].join("\n\n")}\n`;
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
