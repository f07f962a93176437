/**
 * The live comparison: what changed and what it did, whether the runs are like for like, the charts and
 * the delta tables. Used by /compare and by saved comparisons (/c/<slug>).
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { EfficiencyTable, LineChartTable, SingleStreamTable } from "@/components/charts/ChartData";
import { EfficiencyChart } from "@/components/charts/EfficiencyChart";
import { LoadChart } from "@/components/charts/LoadChart";
import { LoadTooltipProvider } from "@/components/charts/LoadTooltip";
import { SingleStreamChart } from "@/components/charts/SingleStreamChart";
import { ComparisonServerMetrics } from "@/components/runs/ServerMetricsPanel";
import { AfterATurn } from "@/components/ui/AfterATurn";
import { Collapsible } from "@/components/ui/Collapsible";
import { Card, DemoBadge, Section } from "@/components/ui/primitives";
import type { HeadlineDelta } from "@/lib/analysis/deltas";
import type { Spread } from "@/lib/analysis/intervals";
import type { LatencyCdfData } from "@/lib/analysis/request-cdf";
import { sloText } from "@/lib/analysis/slo";
import type { VerdictSentence } from "@/lib/analysis/verdict";
import type { Comparison, ComparisonSeries } from "@/lib/comparisons/model";
import { engineDisplayName } from "@/lib/document/names";
import type { StoredRun } from "@/lib/document/stored-run";
import {
  formatChangeLine,
  formatHardware,
  formatLoadLevel,
  formatNumber,
  formatPercentChange,
  formatUsd,
} from "@/lib/format";
import { AccuracyCardLine, AccuracySection } from "./AccuracyTable";
import { CapacitySection } from "./CapacitySection";
import {
  AddRunPicker,
  BaselinePicker,
  LogYToggle,
  NoiseControl,
  RemoveRunButton,
  type RunOption,
  SloCostControls,
  StatPicker,
} from "./CompareControls";
import { DeltaTableView, deltaColumns, spreadTitle, VERDICT_CLASS } from "./DeltaTables";
import { ChartExportButtons, ComparisonExportLinks } from "./ExportButtons";
import { LatencyCdfSection } from "./LatencyCdfChart";

function SpreadText({ spread, testId }: { spread: Spread | undefined; testId: string }) {
  if (!spread) return null;
  return (
    <span
      className="block text-xs font-normal text-zinc-600 dark:text-zinc-400"
      data-testid={testId}
      title={spreadTitle(spread)}
    >
      range {formatNumber(spread.min)}–{formatNumber(spread.max)} over {spread.n} repeats
      {spread.ci95 ? `, 95% interval ${formatNumber(spread.ci95[0])}–${formatNumber(spread.ci95[1])}` : ""}
    </span>
  );
}

function ChangeLine({ delta, unit, testId }: { delta: HeadlineDelta; unit: string; testId: string }) {
  if (delta.value === null) return <span className="text-zinc-600 dark:text-zinc-400">not measured</span>;
  if (delta.base === null || delta.change === null) {
    return (
      <>
        <span data-testid={testId}>{`${formatNumber(delta.value)} ${unit}`}</span>
        <SpreadText spread={delta.spread} testId={`${testId}-spread`} />
      </>
    );
  }
  return (
    <>
      <span className={VERDICT_CLASS[delta.verdict]} data-testid={testId} data-verdict={delta.verdict}>
        {formatChangeLine(delta.base, delta.value, unit)}
        {delta.verdict === "noise" ? <span className="ml-1 text-xs">within noise</span> : null}
        {delta.verdict === "inconclusive" ? (
          <span className="ml-1 text-xs" title="The repeats' intervals overlap">
            inconclusive
          </span>
        ) : null}
      </span>
      <SpreadText spread={delta.spread} testId={`${testId}-spread`} />
    </>
  );
}

function sloLoadText(load: NonNullable<ComparisonSeries["slo"]>["load"], approximate: boolean): string {
  if (!load) return "";
  if (load.concurrency !== null) return `C${approximate ? "≈" : "="}${formatNumber(load.concurrency)}`;
  if (load.infinite) return "rate ∞";
  return `${approximate ? "≈" : ""}${formatNumber(load.request_rate)} req/s`;
}

function SloLine({ item, baseline }: { item: ComparisonSeries; baseline: ComparisonSeries }) {
  const slo = item.slo;
  if (!slo) return null;
  let text: string;
  if (slo.status === "unknown") text = `cannot judge: ${slo.reason ?? "no level could be judged"}`;
  else if (slo.status === "none") text = "meets at none of the measured levels";
  else {
    const figure =
      slo.compared.value === null
        ? "no throughput stated"
        : slo.compared.base !== null && !item.isBaseline
          ? formatChangeLine(slo.compared.base, slo.compared.value, slo.compared.unit)
          : `${formatNumber(slo.compared.value)} ${slo.compared.unit}`;
    text = `${slo.status === "every" ? "meets at every measured level; at the highest, " : "highest level meeting it, "}${sloLoadText(slo.load, false)}: ${figure}`;
  }
  const estimate = slo.estimate ? (
    <span className="block text-xs text-zinc-600 dark:text-zinc-400" data-testid="slo-estimate">
      Interpolated, not measured: the SLO stops holding near {sloLoadText(slo.estimate.load, true)}
      {slo.estimate.output_tok_s !== null ? `, ≈${formatNumber(slo.estimate.output_tok_s)} tok/s` : ""}
    </span>
  ) : null;
  const cost =
    slo.cost_per_m_tokens !== null ? (
      <span className="block text-xs text-zinc-600 dark:text-zinc-400" data-testid="slo-cost">
        {formatUsd(slo.cost_per_m_tokens)} per million output tokens there
        {baseline.slo?.cost_per_m_tokens != null && !item.isBaseline
          ? ` (baseline ${formatUsd(baseline.slo.cost_per_m_tokens)}, ${formatPercentChange((slo.cost_per_m_tokens - baseline.slo.cost_per_m_tokens) / baseline.slo.cost_per_m_tokens)})`
          : ""}
      </span>
    ) : null;
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Goodput at the SLO</dt>
      <dd className="font-medium tabular-nums">
        <span
          className={slo.compared.change !== null ? VERDICT_CLASS[slo.compared.verdict] : undefined}
          data-testid="slo-delta"
          data-status={slo.status}
          data-verdict={slo.compared.verdict}
        >
          {text}
        </span>
        {slo.attainment ? (
          <span className="block text-xs text-zinc-600 dark:text-zinc-400" data-testid="slo-attainment">
            {formatNumber(slo.attainment.share * 100)}% of its {formatNumber(slo.attainment.total)} requests there met
            the targets (95% CI {formatNumber(slo.attainment.interval[0] * 100)}–
            {formatNumber(slo.attainment.interval[1] * 100)}%)
          </span>
        ) : null}
        {estimate}
        {cost}
      </dd>
    </div>
  );
}

function InteractivityLine({ item }: { item: ComparisonSeries }) {
  const at = item.atInteractivity;
  if (!at) return null;
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
        At equal interactivity ({item.stats.tpot?.stat ?? "mean"} TPOT)
      </dt>
      <dd className="tabular-nums" data-testid="interactivity-delta">
        {"reason" in at ? (
          <span className="text-sm text-zinc-600 dark:text-zinc-400">{at.reason}</span>
        ) : (
          <span className={`font-medium ${VERDICT_CLASS[at.verdict]}`} data-verdict={at.verdict}>
            at {formatNumber(at.at)} tok/s/user: {formatChangeLine(at.base, at.value, "tok/s/GPU")}
          </span>
        )}
      </dd>
    </div>
  );
}

function SeriesCard({
  item,
  runIds,
  baselineId,
  baselineSeries,
  editable,
}: {
  item: ComparisonSeries;
  runIds: string[];
  baselineId: string;
  baselineSeries: ComparisonSeries;
  editable: boolean;
}) {
  const { run, headline } = item;
  return (
    <Card>
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="flex items-center gap-2">
            <span
              className="inline-block h-3 w-3 shrink-0 rounded-full"
              style={{ background: item.color }}
              aria-hidden
              data-testid="run-swatch"
            />
            <Link
              href={`/runs/${run.id}`}
              className="min-w-0 break-words font-semibold hover:underline"
              data-testid="card-run-name"
            >
              {item.name}
            </Link>
          </div>
          <div className="mt-0.5 break-words text-xs text-zinc-600 dark:text-zinc-400">
            {engineDisplayName(run.engine)}
            {run.engine_version ? ` ${run.engine_version}` : ""} · {run.model} · {formatHardware(run.hardware)}
            {item.gpuCount === null ? " · GPU count unknown" : ""}
          </div>
          {item.repeats > 1 ? (
            <div className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400" data-testid="repeats">
              Mean of {item.repeats} repeats
              {item.runs.length > 1 ? (
                <>
                  :{" "}
                  {item.runs.map((member, index) => (
                    <span key={member.id}>
                      {index > 0 ? ", " : ""}
                      <Link href={`/runs/${member.id}`} className="underline underline-offset-2">
                        {member.name}
                      </Link>
                    </span>
                  ))}
                </>
              ) : (
                " stored in this run"
              )}
            </div>
          ) : null}
        </div>
        <div className="flex shrink-0 flex-col items-end gap-1">
          {item.isBaseline ? (
            <span className="rounded-full bg-zinc-900 px-2 py-0.5 text-xs font-medium text-white dark:bg-zinc-100 dark:text-zinc-900">
              baseline
            </span>
          ) : null}
          {run.tags.includes("demo") ? <DemoBadge /> : null}
          {editable ? (
            <RemoveRunButton runIds={runIds} remove={item.runs.map((member) => member.id)} baselineId={baselineId} />
          ) : null}
        </div>
      </div>
      <dl className="mt-3 space-y-1.5 text-sm" data-testid="headline-card" data-run-id={run.id}>
        <div>
          <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
            Single stream{headline.singleStream.derived ? " (derived from TPOT)" : ""}
          </dt>
          <dd className="font-medium tabular-nums">
            <ChangeLine delta={headline.singleStream} unit="tok/s" testId="single-stream-delta" />
          </dd>
        </div>
        <div>
          <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
            Peak throughput{headline.peak.value !== null ? ` @ ${formatLoadLevel(headline.peak)}` : ""}
          </dt>
          <dd className="font-medium tabular-nums">
            <ChangeLine delta={headline.peak} unit="tok/s" testId="peak-delta" />
          </dd>
        </div>
        <SloLine item={item} baseline={baselineSeries} />
        <InteractivityLine item={item} />
        <AccuracyCardLine item={item} />
        {run.server_startup_s !== undefined ? (
          <div>
            <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Server start-up</dt>
            <dd className="tabular-nums">{formatNumber(run.server_startup_s)} s</dd>
          </div>
        ) : null}
        {run.speculative ? (
          <div>
            <dt className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Speculative decoding</dt>
            <dd>
              {run.speculative.method ?? "on"}
              {run.speculative.acceptance_rate !== undefined
                ? `, ${formatNumber(run.speculative.acceptance_rate * 100)}% accepted`
                : ""}
            </dd>
          </div>
        ) : null}
      </dl>
      {item.isBaseline ? null : (
        <div className="mt-3 border-t border-zinc-100 pt-2 dark:border-zinc-800" data-testid="what-changed">
          <div className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">What changed</div>
          {item.changes.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">Same configuration as the baseline.</p>
          ) : (
            <ul className="mt-1 space-y-0.5 font-mono text-xs">
              {item.changes.map((change) => (
                <li key={`${change.section}:${change.key}`} data-kind={change.kind} className="break-all">
                  {change.text}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Card>
  );
}

/** The runs a validity check marked: their figures are compared, never believed without a look. */
function ValidityWarnings({ series }: { series: readonly ComparisonSeries[] }) {
  const marked = series.filter((item) => item.validity.marked);
  if (marked.length === 0) return null;
  return (
    <div
      className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
      role="alert"
      data-testid="validity-warnings"
    >
      <p className="font-semibold">
        ⚠ Check before believing: a validity check marked {marked.length === 1 ? "a run" : `${marked.length} runs`}.
      </p>
      <ul className="mt-1 list-disc space-y-0.5 pl-5">
        {marked.map((item) => (
          <li key={item.key}>
            <Link href={`/runs/${item.id}`} className="underline underline-offset-2">
              {item.label}
            </Link>
            : {item.validity.summary}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One verdict: its sentence coloured by the headline's direction, the other clauses below it. */
export function VerdictBlock({ verdict }: { verdict: VerdictSentence }) {
  const [headline, ...rest] = verdict.clauses;
  return (
    <div
      className="rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="verdict-line"
      data-verdict={headline?.verdict ?? "none"}
      data-text={verdict.text}
    >
      <p className="break-words font-medium">
        {verdict.caveat ? (
          <span className="text-red-800 dark:text-red-300" data-testid="verdict-caveat">
            {verdict.caveat} —{" "}
          </span>
        ) : null}
        {verdict.versus}:{" "}
        {verdict.tradeOff ? (
          <span className="verdict-worse" data-testid="verdict-trade-off">
            trade-off,{" "}
          </span>
        ) : null}
        {headline ? (
          <span className={VERDICT_CLASS[headline.verdict]} data-testid="verdict-headline">
            {headline.text}
          </span>
        ) : (
          "no figure both runs state"
        )}
      </p>
      {rest.length > 0 ? (
        <ul className="mt-0.5 space-y-0.5 text-sm text-zinc-700 dark:text-zinc-300" data-testid="verdict-clauses">
          {rest.map((clause) => (
            <li key={clause.text}>{clause.text}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function FairnessPanel({ comparison }: { comparison: Comparison }) {
  const { differences, unstated, missing, missingCount } = comparison.fairness;
  if (comparison.series.length < 2) return null;
  if (differences.length === 0 && missingCount === 0 && unstated.length === 0) {
    return (
      <p className="mb-6 text-sm text-green-800 dark:text-green-400" data-testid="like-for-like">
        Like for like: same model, hardware and workload, measured at the same load levels.
      </p>
    );
  }
  return (
    <div className="mb-6 space-y-2" data-testid="like-for-like">
      {differences.length > 0 ? (
        <div
          className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200"
          role="alert"
          data-testid="not-like-for-like"
        >
          <p className="font-semibold">Not like for like: the deltas below mix more than the configuration.</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5">
            {differences.map((difference) => (
              <li key={difference.field}>{difference.text}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {unstated.length > 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="unstated">
          Cannot confirm like for like on{" "}
          {unstated.map((item, index) => (
            <span key={item.label}>
              {index > 0 ? "; " : ""}
              {item.label.toLowerCase()} (not stated by {item.series.join(", ")})
            </span>
          ))}
          .
        </p>
      ) : null}
      {missingCount > 0 ? (
        <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="missing-levels">
          {missingCount} point{missingCount === 1 ? "" : "s"} missing:{" "}
          {missing.map((item, index) => (
            <span key={item.series}>
              {index > 0 ? "; " : ""}
              {item.levels.join(", ")} not measured in {item.series}
            </span>
          ))}
          . They show as gaps, never as zeros.
        </p>
      ) : null}
    </div>
  );
}

function ChartSection({
  title,
  id,
  exportTitle,
  children,
}: {
  title: string;
  id: string;
  /** What exported files are named after: the comparison's title. */
  exportTitle: string;
  children: ReactNode;
}) {
  return (
    <Section title={title} id={`chart-${id}`} aside={<ChartExportButtons chartId={id} title={exportTitle} />}>
      <div data-export-chart={id}>{children}</div>
    </Section>
  );
}

export function ComparisonView({
  comparison,
  candidates,
  editable,
  notFound,
  truncated,
  runs,
  title,
  latencyCdf,
}: {
  comparison: Comparison;
  /** The compared runs, for the server's figures beside the curves (repeats averaged as the series are). */
  runs?: readonly StoredRun[];
  /** Recent runs offered in "Add a run" (editable views only). */
  candidates: RunOption[];
  /** Runs can be added and removed (the plain /compare page); saved comparisons keep their runs. */
  editable: boolean;
  /** Ids in the link that no longer exist. */
  notFound: string[];
  /** The link asked for more runs than a comparison holds. */
  truncated: boolean;
  /** A saved comparison's own title, which exported files are named after; the computed title otherwise. */
  title?: string;
  /** The per-request latency distributions at the view's level (lib/comparisons/request-distributions.ts). */
  latencyCdf?: LatencyCdfData;
}) {
  const exportTitle = title ?? comparison.summary.title;
  const { series, view, baselineIndex } = comparison;
  const runIds = series.flatMap((item) => item.runs.map((run) => run.id));
  const baseline = series[baselineIndex]!;
  const columns = deltaColumns(series, baselineIndex);
  const tableLevels = comparison.tableLevelKeys ? new Set(comparison.tableLevelKeys) : null;
  const allRuns = series.flatMap((item) => item.runs);
  const gpus = [...new Set(series.map((item) => item.run.hardware?.gpu).filter((gpu): gpu is string => Boolean(gpu)))];
  const exportQuery = `runs=${runIds.join(",")}&baseline=${baseline.id}${view.noisePct !== null ? `&noise=${view.noisePct}` : ""}`;
  return (
    <>
      {comparison.verdicts.length > 0 ? (
        <div className="mb-6 space-y-2" data-testid="verdicts">
          {comparison.verdicts.map((verdict) => (
            <VerdictBlock key={verdict.text} verdict={verdict} />
          ))}
        </div>
      ) : null}
      <Collapsible label="View options" summary={`baseline ${baseline.label}`} testId="view-options">
        <div className="mb-4 flex flex-wrap items-end gap-4">
          <BaselinePicker runs={allRuns} baselineId={baseline.id} />
          {editable && runIds.length < 12 ? <AddRunPicker candidates={candidates} runIds={runIds} /> : null}
          <NoiseControl noisePct={view.noisePct} effectivePct={comparison.noise.pct} />
          <StatPicker stat={view.stat} />
          <LogYToggle logY={view.logY} />
          <ComparisonExportLinks query={exportQuery} />
        </div>
        <div className="mb-6">
          <SloCostControls
            ttftMs={view.slo.ttft_ms}
            tpotMs={view.slo.tpot_ms}
            sloStat={view.slo.stat}
            gpus={gpus}
            prices={view.prices}
            atUser={view.atUser}
          />
        </div>
      </Collapsible>

      {notFound.length > 0 || truncated ? (
        <div
          className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          role="status"
        >
          {notFound.length > 0 ? <p>Not found (deleted?): {notFound.join(", ")}.</p> : null}
          {truncated ? <p>Only the first 12 runs of this link are compared.</p> : null}
        </div>
      ) : null}

      {series.length === 1 ? (
        <p className="mb-6 text-sm text-zinc-600 dark:text-zinc-400">Add another run to see deltas.</p>
      ) : null}

      <ValidityWarnings series={series} />
      <FairnessPanel comparison={comparison} />

      <Section title="What changed, and what it did" id="what-changed">
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3" data-testid="headline-cards">
          {series.map((item) => (
            <SeriesCard
              key={item.key}
              item={item}
              runIds={runIds}
              baselineId={baseline.id}
              baselineSeries={baseline}
              editable={editable}
            />
          ))}
        </div>
        <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid="noise-note">
          {comparison.noise.source === "repeats"
            ? `Changes smaller than ±${formatNumber(comparison.noise.pct)}% are shown as within noise: the threshold follows the repeats' spread (the widest half-range of output throughput at a level, relative to its mean). Type a threshold to set your own.`
            : comparison.noise.pct > 0
              ? `Changes smaller than ±${formatNumber(comparison.noise.pct)}% are shown as within noise.`
              : "No noise threshold: every change is called better or worse."}{" "}
          With repeats, a change whose intervals overlap (min–max with 2 repeats, the 95% interval with 3 or more) is
          inconclusive.
          {view.slo.ttft_ms !== null || view.slo.tpot_ms !== null ? ` SLO: ${sloText(view.slo)}.` : ""}
        </p>
      </Section>

      <AccuracySection comparison={comparison} />

      <ChartSection title="Single stream (concurrency 1)" id="single-stream" exportTitle={exportTitle}>
        <SingleStreamChart bars={comparison.charts.singleStream} />
        <SingleStreamTable bars={comparison.charts.singleStream} />
      </ChartSection>
      {comparison.drawnDomain.levels.length < comparison.domain.levels.length ? (
        <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400" data-testid="drawn-levels-note">
          The charts draw {comparison.drawnDomain.levels.length} of the {comparison.domain.levels.length} load levels:
          the lowest and highest, single stream, each run&apos;s peak and first level past the SLO, and the rest spread
          evenly along the axis. Every level is in the CSV export.
        </p>
      ) : null}
      <AfterATurn>
        <LoadTooltipProvider
          rows={comparison.tooltip}
          levels={comparison.drawnDomain.levels.map((level) => level.label)}
          xs={comparison.drawnDomain.levels.map((level) => level.x)}
        >
          <div className="grid grid-cols-1 gap-x-6 xl:grid-cols-2">
            <ChartSection title={comparison.charts.throughput.title} id="throughput" exportTitle={exportTitle}>
              <LoadChart data={comparison.charts.throughput} testId="chart-throughput" logY={view.logY} />
              <LineChartTable data={comparison.charts.throughput} />
            </ChartSection>
            <ChartSection
              title={`Throughput per GPU vs tok/s per user (1000 / ${comparison.charts.efficiency.tpotStat} TPOT)`}
              id="efficiency"
              exportTitle={exportTitle}
            >
              <EfficiencyChart data={comparison.charts.efficiency} />
              <EfficiencyTable data={comparison.charts.efficiency} />
            </ChartSection>
            <ChartSection title={comparison.charts.tpot.title} id="tpot" exportTitle={exportTitle}>
              <LoadChart data={comparison.charts.tpot} testId="chart-tpot" logY={view.logY} />
              <LineChartTable data={comparison.charts.tpot} />
            </ChartSection>
            <ChartSection title={comparison.charts.ttft.title} id="ttft" exportTitle={exportTitle}>
              <LoadChart data={comparison.charts.ttft} testId="chart-ttft" logY={view.logY} />
              <LineChartTable data={comparison.charts.ttft} />
            </ChartSection>
          </div>
        </LoadTooltipProvider>
      </AfterATurn>

      {latencyCdf ? <LatencyCdfSection data={latencyCdf} exportTitle={exportTitle} /> : null}

      {runs ? (
        <AfterATurn>
          <ComparisonServerMetrics comparison={comparison} runs={runs} />
        </AfterATurn>
      ) : null}

      <AfterATurn>
        <CapacitySection comparison={comparison} />
      </AfterATurn>

      <Section title="Deltas by load level" id="deltas">
        {tableLevels ? (
          <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400" data-testid="table-levels-note">
            {tableLevels.size} of the {comparison.levelCount} load levels are listed: the lowest and highest, single
            stream, each run&apos;s peak and first level past the SLO, and the rest spread evenly. The CSV export has
            every level.
          </p>
        ) : null}
        <div className="space-y-8">
          {comparison.deltaTables.map((table) => (
            <AfterATurn key={table.metric}>
              <DeltaTableView
                table={
                  tableLevels ? { ...table, rows: table.rows.filter((row) => tableLevels.has(row.level.key)) } : table
                }
                columns={columns}
                baselineIndex={baselineIndex}
              />
            </AfterATurn>
          ))}
        </div>
      </Section>
    </>
  );
}
