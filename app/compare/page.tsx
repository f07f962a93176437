import type { Metadata } from "next";
import Link from "next/link";
import { ConcurrencyChart } from "@/components/charts/ConcurrencyChart";
import { SingleStreamChart } from "@/components/charts/SingleStreamChart";
import { AddRunPicker, BaselinePicker, CopyLinkButton, RemoveRunButton } from "@/components/compare/CompareControls";
import { DeltaTableView, VERDICT_CLASS } from "@/components/compare/DeltaTables";
import { Card, DemoBadge, PageHeader, Section } from "@/components/ui/primitives";
import { diffConfigs } from "@/lib/analysis/config-diff";
import { anyRunHas, buildDeltaTable, compareHeadlines, type HeadlineDelta } from "@/lib/analysis/deltas";
import { DELTA_TABLE_METRICS } from "@/lib/analysis/metrics";
import { concurrencySeries, seriesOf, singleStreamBars } from "@/lib/analysis/series";
import { formatChangeLine, formatHardware, formatLoadLevel, formatNumber } from "@/lib/format";
import { getRunsByIds, listRuns } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

// Beyond a dozen lines a chart stops being readable.
const MAX_COMPARED_RUNS = 12;

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `runs=a,b&runs=c` and `runs=a,b,c` both work; duplicates are dropped, order is kept. */
function parseRunIds(value: string | string[] | undefined): string[] {
  const parts = (Array.isArray(value) ? value : value ? [value] : []).flatMap((item) => item.split(","));
  return [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
}

export async function generateMetadata({ searchParams }: { searchParams: SearchParams }): Promise<Metadata> {
  const ids = parseRunIds((await searchParams).runs).slice(0, MAX_COMPARED_RUNS);
  if (ids.length === 0) return { title: "Compare" };
  const { runs } = await getRunsByIds(ids);
  return { title: `Compare: ${runs.map((run) => run.name).join(" vs ")}` };
}

function ChangeLine({ delta, unit, testId }: { delta: HeadlineDelta; unit: string; testId: string }) {
  if (delta.value === null) return <span className="text-zinc-500 dark:text-zinc-400">not measured</span>;
  if (delta.base === null || delta.change === null) {
    return <span data-testid={testId}>{`${formatNumber(delta.value)} ${unit}`}</span>;
  }
  return (
    <span className={VERDICT_CLASS[delta.verdict]} data-testid={testId}>
      {formatChangeLine(delta.base, delta.value, unit)}
    </span>
  );
}

function NothingToCompare({ recent }: { recent: { id: string; name: string }[] }) {
  return (
    <>
      <PageHeader title="Compare" subtitle="Set runs side by side: deltas, charts and what changed in their configuration." />
      <Card>
        <p className="text-sm">
          Pick two or more runs in the{" "}
          <Link href="/" className="text-blue-700 hover:underline dark:text-blue-400">
            history
          </Link>{" "}
          and press <strong>Compare selected</strong>, or choose a run to start with:
        </p>
        <div className="mt-4 max-w-md">
          <AddRunPicker candidates={recent} runIds={[]} baselineId={null} />
        </div>
      </Card>
    </>
  );
}

export default async function ComparePage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const requested = parseRunIds(params.runs);
  const recent = (await listRuns({ page: 1, per_page: 50, sort: "date", dir: "desc" })).runs.map((run) => ({
    id: run.id,
    name: run.name,
  }));
  if (requested.length === 0) return <NothingToCompare recent={recent} />;

  const capped = requested.slice(0, MAX_COMPARED_RUNS);
  const { runs, missing } = await getRunsByIds(capped);
  if (runs.length === 0) {
    return (
      <>
        <PageHeader title="Compare" />
        <Card>
          <p className="text-sm" data-testid="compare-missing">
            None of the runs in this link exist any more ({missing.join(", ")}). They may have been deleted.{" "}
            <Link href="/" className="text-blue-700 hover:underline dark:text-blue-400">
              Back to the history
            </Link>
          </p>
        </Card>
      </>
    );
  }

  const runIds = runs.map((run) => run.id);
  const baselineParam = typeof params.baseline === "string" ? params.baseline : undefined;
  const baselineIndex = Math.max(0, baselineParam ? runIds.indexOf(baselineParam) : 0);
  const baseline = runs[baselineIndex] ?? runs[0]!;
  const series = seriesOf(runs);
  const headlines = compareHeadlines(runs, baselineIndex);
  const deltaTables = DELTA_TABLE_METRICS.filter((metric) => anyRunHas(runs, metric)).map((metric) =>
    buildDeltaTable(runs, baselineIndex, metric),
  );

  return (
    <>
      <PageHeader
        title={`Comparing ${runs.length} run${runs.length === 1 ? "" : "s"}`}
        subtitle={`Against the baseline “${baseline.name}”. Changes are green when better, red when worse.`}
        actions={<CopyLinkButton />}
      />

      <div className="mb-6 flex flex-wrap items-end gap-4">
        <BaselinePicker runs={runs.map((run) => ({ id: run.id, name: run.name }))} runIds={runIds} baselineId={baseline.id} />
        {runs.length < MAX_COMPARED_RUNS ? <AddRunPicker candidates={recent} runIds={runIds} baselineId={baseline.id} /> : null}
      </div>

      {missing.length > 0 || requested.length > capped.length ? (
        <div className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200" role="status">
          {missing.length > 0 ? <p>Not found (deleted?): {missing.join(", ")}.</p> : null}
          {requested.length > capped.length ? <p>Only the first {MAX_COMPARED_RUNS} runs of this link are compared.</p> : null}
        </div>
      ) : null}

      {runs.length === 1 ? (
        <p className="mb-6 text-sm text-zinc-600 dark:text-zinc-400">Add another run above to see deltas.</p>
      ) : null}

      <div className="mb-8 grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3" data-testid="headline-cards">
        {runs.map((run, index) => {
          const figures = headlines[index]!;
          const changes = index === baselineIndex ? [] : diffConfigs(baseline, run);
          return (
            <Card key={run.id}>
              <div className="flex items-start justify-between gap-2">
                <div className="min-w-0">
                  <div className="flex items-center gap-2">
                    <span className="inline-block h-3 w-3 shrink-0 rounded-full" style={{ background: series[index]?.color }} aria-hidden />
                    <Link href={`/runs/${run.id}`} className="font-semibold hover:underline" data-testid="card-run-name">
                      {run.name}
                    </Link>
                  </div>
                  <div className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">
                    {run.engine}
                    {run.engine_version ? ` ${run.engine_version}` : ""} · {run.model} · {formatHardware(run.hardware)}
                  </div>
                </div>
                <div className="flex shrink-0 flex-col items-end gap-1">
                  {index === baselineIndex ? (
                    <span className="rounded-full bg-zinc-900 px-2 py-0.5 text-xs font-medium text-white dark:bg-zinc-100 dark:text-zinc-900">
                      baseline
                    </span>
                  ) : null}
                  {run.tags.includes("demo") ? <DemoBadge /> : null}
                  <RemoveRunButton runIds={runIds} runId={run.id} baselineId={baseline.id} />
                </div>
              </div>
              <dl className="mt-3 space-y-1.5 text-sm" data-testid="headline-card" data-run-id={run.id}>
                <div>
                  <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
                    Single stream{figures.singleStream.derived ? " (derived from TPOT)" : ""}
                  </dt>
                  <dd className="font-medium tabular-nums">
                    <ChangeLine delta={figures.singleStream} unit="tok/s" testId="single-stream-delta" />
                  </dd>
                </div>
                <div>
                  <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
                    Peak throughput{figures.peak.value !== null ? ` @ ${formatLoadLevel(figures.peak)}` : ""}
                  </dt>
                  <dd className="font-medium tabular-nums">
                    <ChangeLine delta={figures.peak} unit="tok/s" testId="peak-delta" />
                  </dd>
                </div>
              </dl>
              {index !== baselineIndex ? (
                <div className="mt-3 border-t border-zinc-100 pt-2 dark:border-zinc-800" data-testid="what-changed">
                  <div className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">What changed</div>
                  {changes.length === 0 ? (
                    <p className="text-sm text-zinc-500 dark:text-zinc-400">Same configuration as the baseline.</p>
                  ) : (
                    <ul className="mt-1 space-y-0.5 font-mono text-xs">
                      {changes.map((change) => (
                        <li key={`${change.section}:${change.key}`} data-kind={change.kind} className="break-all">
                          {change.text}
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
              ) : null}
            </Card>
          );
        })}
      </div>

      <Section title="Single stream (concurrency 1)">
        <SingleStreamChart bars={singleStreamBars(runs)} />
      </Section>
      <div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
        <Section title="Output throughput (tok/s) vs concurrency">
          <ConcurrencyChart data={concurrencySeries(runs, "output_throughput")} unit="tok/s" testId="chart-throughput" />
        </Section>
        <Section title="Mean TPOT (ms) vs concurrency">
          <ConcurrencyChart data={concurrencySeries(runs, "mean_tpot_ms")} unit="ms" testId="chart-tpot" />
        </Section>
      </div>

      <Section title="Deltas by load level" id="deltas">
        <div className="space-y-8">
          {deltaTables.map((table) => (
            <DeltaTableView key={table.metric} table={table} series={series} baselineIndex={baselineIndex} />
          ))}
        </div>
      </Section>
    </>
  );
}
