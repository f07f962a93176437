/**
 * What the MCP tools answer: the same queries the pages and the JSON API use, shaped for an agent that must cite
 * what it says. Every answer names the ids it read and links to the page that shows the same figures.
 */
import type { DeltaCell, DeltaTable } from "@/lib/analysis/deltas";
import { capacityJson } from "@/lib/comparisons/capacity-export";
import { loadComparison } from "@/lib/comparisons/loader";
import type { Comparison, ComparisonSeries } from "@/lib/comparisons/model";
import { getComparisonOrThrow, listComparisons } from "@/lib/comparisons/queries";
import { compareHref, type parseCompareView, savedCompareView } from "@/lib/comparisons/view";
import type { StoredRun } from "@/lib/document/stored-run";
import { AppError, notFoundError } from "@/lib/errors";
import { listRuns, type RunListQuery } from "@/lib/runs/history";
import { getRunsByIds } from "@/lib/runs/read";
import { type AlertListQuery, listAlerts } from "@/lib/series/alerts";
import { getSeriesViewOrThrow, listSeries } from "@/lib/series/queries";
import { checkRun } from "@/lib/validity/checks";

type CompareView = ReturnType<typeof parseCompareView>;

/** Links in answers are absolute: an agent quotes them outside the instance. */
export function linkTo(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/(?<!\/)\/+$/, "")}${path}`;
}

export async function searchRunsAnswer(query: RunListQuery, baseUrl: string) {
  const list = await listRuns(query);
  return {
    runs: list.runs.map((run) => ({ ...run, url: linkTo(baseUrl, `/runs/${encodeURIComponent(run.id)}`) })),
    total: list.total,
    total_exact: list.total_exact,
    page: query.page,
    per_page: query.per_page,
    ...(list.search_complete === false ? { search_complete: false, runs_searched: list.runs_searched } : {}),
    history_url: linkTo(baseUrl, "/"),
  };
}

/** A run as stored, its points without per-request rows (an agent asks for figures, not 10,000 latencies). */
export async function runAnswer(id: string, baseUrl: string) {
  const { runs } = await getRunsByIds([id], { withoutRequestDetail: true });
  const run: StoredRun | undefined = runs[0];
  if (!run) throw notFoundError(`Run "${id}"`);
  const validity = checkRun(run);
  return {
    run,
    validity: { marked: validity.marked, summary: validity.summary, checks: validity.checks },
    url: linkTo(baseUrl, `/runs/${encodeURIComponent(run.id)}`),
    json_url: linkTo(baseUrl, `/api/runs/${encodeURIComponent(run.id)}`),
  };
}

function cellAnswer(cell: DeltaCell, series: ComparisonSeries) {
  return {
    run: series.id,
    value: cell.value,
    // Rounded as the CSV export rounds it: the same figure wherever it is read.
    change_pct: cell.change === null ? null : Math.round(cell.change * 10_000) / 100,
    verdict: cell.verdict,
    ...(cell.spread ? { repeats: cell.spread } : {}),
    ...(cell.uncertainty ? { interval_95: cell.uncertainty } : {}),
    ...(cell.overSlo ? { over_slo: true } : {}),
  };
}

function tableAnswer(table: DeltaTable, series: readonly ComparisonSeries[]) {
  return {
    metric: table.metric,
    label: table.label,
    unit: table.unit,
    better: table.better,
    rows: table.rows.map((row) => ({
      level: row.level.key,
      cells: row.cells.map((cell, index) => cellAnswer(cell, series[index]!)),
    })),
  };
}

function comparedSeriesAnswer(series: ComparisonSeries, baseUrl: string) {
  const run = series.run;
  return {
    id: series.id,
    name: series.label,
    is_baseline: series.isBaseline,
    runs: series.runs.map((member) => ({ ...member, url: linkTo(baseUrl, `/runs/${encodeURIComponent(member.id)}`) })),
    engine: run.engine,
    engine_version: run.engine_version ?? null,
    model: run.model,
    hardware: run.hardware ?? null,
    repeats: series.repeats,
    statistics: series.stats,
    validity: { marked: series.validity.marked, summary: series.validity.summary },
    verdict: series.verdict?.text ?? null,
    trade_off: series.verdict?.tradeOff ?? false,
    what_changed: series.changes.map((change) => change.text),
    // Each accuracy score against the baseline's, with the noise band 2·√(se₁² + se₂²) that judged it.
    accuracy: series.accuracy
      ? {
          scores: series.accuracy.rows.map((row) => ({
            evaluator: row.evaluator,
            task: row.task,
            metric: row.metric,
            filter: row.filter,
            baseline: row.base.value,
            baseline_stderr: row.base.stderr ?? null,
            value: row.value.value,
            stderr: row.value.stderr ?? null,
            delta: row.delta,
            noise_band: row.noiseBand,
            verdict: row.verdict,
            not_like_for_like: row.unlike,
          })),
          only_baseline: series.accuracy.onlyBase,
          only_this_run: series.accuracy.onlyValue,
        }
      : null,
  };
}

/** The comparison as the compare page builds it: the verdicts, what changed, and every delta with its verdict. */
export function comparisonAnswer(comparison: Comparison, baseUrl: string) {
  const series = comparison.series;
  return {
    title: comparison.summary.title,
    summary: comparison.summary.description,
    url: linkTo(baseUrl, compareHref(comparison.view)),
    statistic: comparison.view.stat,
    noise_pct: comparison.noise.pct,
    like_for_like: comparison.fairness.differences.length === 0,
    differences: comparison.fairness.differences,
    baseline: series[comparison.baselineIndex]?.id ?? null,
    verdicts: comparison.verdicts.map((verdict) => verdict.text),
    series: series.map((one) => comparedSeriesAnswer(one, baseUrl)),
    deltas: comparison.deltaTables.map((table) => tableAnswer(table, series)),
    // Capacity at SLO tiers, the planner's ranking for a demand and the inverse answers (docs/comparing.md#capacity).
    capacity: capacityJson(comparison),
  };
}

export async function compareAnswer(view: CompareView, baseUrl: string) {
  if (view.runIds.length < 2)
    throw new AppError("bad_request", "Name at least two runs to compare.", [
      { path: "runs", message: "needs at least two run ids" },
    ]);
  const { comparison, notFound, truncated } = await loadComparison(view);
  if (!comparison) throw notFoundError(`Runs ${view.runIds.join(", ")}`);
  return {
    ...comparisonAnswer(comparison, baseUrl),
    ...(notFound.length > 0 ? { not_found: notFound } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}

export async function savedComparisonAnswer(slug: string, baseUrl: string) {
  const saved = await getComparisonOrThrow(slug);
  const { comparison, notFound } = await loadComparison(savedCompareView(saved));
  return {
    slug: saved.slug,
    title: saved.title,
    notes: saved.notes,
    created_at: saved.created_at,
    url: linkTo(baseUrl, `/c/${encodeURIComponent(saved.slug)}`),
    comparison: comparison ? comparisonAnswer(comparison, baseUrl) : null,
    ...(notFound.length > 0 ? { not_found: notFound } : {}),
  };
}

export async function comparisonsAnswer(query: { page: number; per_page: number }, baseUrl: string) {
  const { comparisons, total } = await listComparisons(query);
  return {
    comparisons: comparisons.map((saved) => ({
      ...saved,
      url: linkTo(baseUrl, `/c/${encodeURIComponent(saved.slug)}`),
    })),
    total,
  };
}

export async function seriesListAnswer(query: { all: boolean; page: number; per_page: number }, baseUrl: string) {
  const { series, total, hidden } = await listSeries(query);
  return {
    series: series.map((one) => ({ ...one, url: linkTo(baseUrl, one.url) })),
    total,
    hidden_single_run_series: hidden,
  };
}

/** A series with its detected changes (each naming its last good and first bad run) and its open alerts. */
export async function seriesAnswer(id: string, level: string | undefined, baseUrl: string) {
  const view = await getSeriesViewOrThrow(id, { level });
  // Open alerts are few (acknowledging or resolving closes them): the newest 100 of every series hold this one's.
  const open = await listAlerts({ status: "open", page: 1, per_page: 100 });
  return {
    id: view.id,
    name: view.name,
    url: linkTo(baseUrl, view.url),
    run_count: view.run_count,
    level: view.level,
    settings: view.settings,
    metrics: view.metrics,
    points: view.points,
    changes: view.changes,
    annotations: view.annotations,
    open_alerts: open.alerts.filter((alert) => alert.series.id === view.id),
  };
}

export async function alertsAnswer(query: AlertListQuery, baseUrl: string) {
  const { alerts, total, counts } = await listAlerts(query);
  return { alerts, total, counts, url: linkTo(baseUrl, "/alerts") };
}
