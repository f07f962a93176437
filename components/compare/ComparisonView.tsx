/**
 * The live comparison: what changed and what it did, whether the runs are like for like, the charts and
 * the delta tables. Used by /compare and by saved comparisons (/c/<slug>).
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { ConcurrencyChart } from "@/components/charts/ConcurrencyChart";
import { ParetoChart } from "@/components/charts/ParetoChart";
import { SingleStreamChart } from "@/components/charts/SingleStreamChart";
import { ComparisonServerMetrics } from "@/components/runs/ServerMetricsPanel";
import { Card, DemoBadge, Section } from "@/components/ui/primitives";
import type { Comparison, ComparisonSeries } from "@/lib/analysis/comparison";
import type { HeadlineDelta } from "@/lib/analysis/deltas";
import { axisName } from "@/lib/analysis/series";
import { formatChangeLine, formatHardware, formatLoadLevel, formatNumber } from "@/lib/format";
import type { StoredRun } from "@/lib/runs/queries";
import {
  AddRunPicker,
  BaselinePicker,
  NoiseControl,
  RemoveRunButton,
  type RunOption,
  StatPicker,
} from "./CompareControls";
import { DeltaTableView, VERDICT_CLASS } from "./DeltaTables";
import { ChartExportButtons, ComparisonExportLinks } from "./ExportButtons";

function ChangeLine({ delta, unit, testId }: { delta: HeadlineDelta; unit: string; testId: string }) {
  if (delta.value === null) return <span className="text-zinc-500 dark:text-zinc-400">not measured</span>;
  if (delta.base === null || delta.change === null) {
    return <span data-testid={testId}>{`${formatNumber(delta.value)} ${unit}`}</span>;
  }
  return (
    <span className={VERDICT_CLASS[delta.verdict]} data-testid={testId} data-verdict={delta.verdict}>
      {formatChangeLine(delta.base, delta.value, unit)}
      {delta.verdict === "noise" ? <span className="ml-1 text-xs">within noise</span> : null}
    </span>
  );
}

function SeriesCard({
  item,
  runIds,
  baselineId,
  editable,
}: {
  item: ComparisonSeries;
  runIds: string[];
  baselineId: string;
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
            />
            <Link href={`/runs/${run.id}`} className="font-semibold hover:underline" data-testid="card-run-name">
              {run.name}
            </Link>
          </div>
          <div className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">
            {run.engine}
            {run.engine_version ? ` ${run.engine_version}` : ""} · {run.model} · {formatHardware(run.hardware)}
          </div>
          {item.runs.length > 1 ? (
            <div className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400" data-testid="repeats">
              Mean of {item.runs.length} repeats:{" "}
              {item.runs.map((member, index) => (
                <span key={member.id}>
                  {index > 0 ? ", " : ""}
                  <Link href={`/runs/${member.id}`} className="hover:underline">
                    {member.name}
                  </Link>
                </span>
              ))}
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
          {editable
            ? item.runs.map((member) => (
                <RemoveRunButton key={member.id} runIds={runIds} runId={member.id} baselineId={baselineId} />
              ))
            : null}
        </div>
      </div>
      <dl className="mt-3 space-y-1.5 text-sm" data-testid="headline-card" data-run-id={run.id}>
        <div>
          <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
            Single stream{headline.singleStream.derived ? " (derived from TPOT)" : ""}
          </dt>
          <dd className="font-medium tabular-nums">
            <ChangeLine delta={headline.singleStream} unit="tok/s" testId="single-stream-delta" />
          </dd>
        </div>
        <div>
          <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
            Peak throughput{headline.peak.value !== null ? ` @ ${formatLoadLevel(headline.peak)}` : ""}
          </dt>
          <dd className="font-medium tabular-nums">
            <ChangeLine delta={headline.peak} unit="tok/s" testId="peak-delta" />
          </dd>
        </div>
        {run.server_startup_s !== undefined ? (
          <div>
            <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">Server start-up</dt>
            <dd className="tabular-nums">{formatNumber(run.server_startup_s)} s</dd>
          </div>
        ) : null}
        {run.speculative ? (
          <div>
            <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">Speculative decoding</dt>
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
          <div className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">What changed</div>
          {item.changes.length === 0 ? (
            <p className="text-sm text-zinc-500 dark:text-zinc-400">Same configuration as the baseline.</p>
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

function ChartSection({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <Section title={title} id={`chart-${id}`} aside={<ChartExportButtons chartId={id} fileName={`servebench-${id}`} />}>
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
}) {
  const { series, view, baselineIndex } = comparison;
  const runIds = series.flatMap((item) => item.runs.map((run) => run.id));
  const baseline = series[baselineIndex]!;
  const allRuns = series.flatMap((item) => item.runs);
  const statLabel = view.stat === "mean" ? "Mean" : view.stat === "median" ? "Median" : "P99";
  return (
    <>
      <div className="mb-6 flex flex-wrap items-end gap-4">
        <BaselinePicker runs={allRuns} baselineId={baseline.id} />
        {editable && runIds.length < 12 ? <AddRunPicker candidates={candidates} runIds={runIds} /> : null}
        <NoiseControl noisePct={view.noisePct} />
        <StatPicker stat={view.stat} />
        <ComparisonExportLinks query={`runs=${runIds.join(",")}&baseline=${baseline.id}&noise=${view.noisePct}`} />
      </div>

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

      <FairnessPanel comparison={comparison} />

      <Section title="What changed, and what it did" id="what-changed">
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3" data-testid="headline-cards">
          {series.map((item) => (
            <SeriesCard key={item.key} item={item} runIds={runIds} baselineId={baseline.id} editable={editable} />
          ))}
        </div>
        {view.noisePct > 0 ? (
          <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
            Changes smaller than ±{formatNumber(view.noisePct)}% are shown as within noise.
          </p>
        ) : null}
      </Section>

      <ChartSection title="Single stream (concurrency 1)" id="single-stream">
        <SingleStreamChart bars={comparison.charts.singleStream} />
      </ChartSection>
      <div className="grid grid-cols-1 gap-x-6 xl:grid-cols-2">
        <ChartSection
          title={`Output throughput (tok/s) vs ${axisName(comparison.charts.throughput.axis)}`}
          id="throughput"
        >
          <ConcurrencyChart data={comparison.charts.throughput} unit="tok/s" testId="chart-throughput" toggleable />
        </ChartSection>
        <ChartSection title="Latency vs throughput" id="pareto">
          <ParetoChart series={comparison.charts.pareto.series} curves={comparison.charts.pareto.curves} />
        </ChartSection>
        <ChartSection title={`${statLabel} TPOT (ms) vs ${axisName(comparison.charts.tpot.axis)}`} id="tpot">
          <ConcurrencyChart data={comparison.charts.tpot} unit="ms" testId="chart-tpot" toggleable />
        </ChartSection>
        <ChartSection title={`${statLabel} TTFT (ms) vs ${axisName(comparison.charts.ttft.axis)}`} id="ttft">
          <ConcurrencyChart data={comparison.charts.ttft} unit="ms" testId="chart-ttft" toggleable />
        </ChartSection>
      </div>

      {runs ? <ComparisonServerMetrics comparison={comparison} runs={runs} /> : null}

      <Section title="Deltas by load level" id="deltas">
        <div className="space-y-8">
          {comparison.deltaTables.map((table) => (
            <DeltaTableView key={table.metric} table={table} series={series} baselineIndex={baselineIndex} />
          ))}
        </div>
      </Section>
    </>
  );
}
