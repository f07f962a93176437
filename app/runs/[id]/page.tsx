import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { LineChartTable } from "@/components/charts/ChartData";
import { LatencyDistributionChart } from "@/components/charts/LatencyDistributionChart";
import { LoadChart } from "@/components/charts/LoadChart";
import { LoadTooltipProvider } from "@/components/charts/LoadTooltip";
import { AccuracyPanel } from "@/components/runs/AccuracyPanel";
import { FlagsTable, KeyValueTable } from "@/components/runs/ConfigTables";
import { DeleteRunButton } from "@/components/runs/DeleteRunButton";
import { ImportReport } from "@/components/runs/ImportReport";
import { PointsTable, SourcesTable } from "@/components/runs/PointsTable";
import { ReproducePanel } from "@/components/runs/ReproducePanel";
import { RunEditor } from "@/components/runs/RunEditor";
import { ServerMetricsPanel } from "@/components/runs/ServerMetricsPanel";
import { ValidityPanel, ValidityWarning } from "@/components/runs/ValidityPanel";
import { RunSeriesPanel } from "@/components/series/RunSeriesPanel";
import { buttonClass, Card, DefinitionList, DemoBadge, PageHeader, Section, Tag } from "@/components/ui/primitives";
import { runColor } from "@/lib/analysis/colors";
import { hasRequestDetail, latencyDistributions } from "@/lib/analysis/server-metrics";
import { buildComparison } from "@/lib/comparisons/build";
import { parseCompareView } from "@/lib/comparisons/view";
import { headline } from "@/lib/document/derived";
import { isUnknownEngine } from "@/lib/document/names";
import type { StoredRun } from "@/lib/document/stored-run";
import { AppError } from "@/lib/errors";
import {
  formatDateTime,
  formatDuration,
  formatHardware,
  formatLoadLevel,
  formatNumber,
  groupedWarnings,
} from "@/lib/format";
import { formatName } from "@/lib/formats/names";
import { getRunOrThrow } from "@/lib/runs/read";
import { reproductionOf } from "@/lib/runs/reproduce";
import { changesOfRun } from "@/lib/series/alerts";
import { checkRun } from "@/lib/validity/checks";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;

async function loadRun(id: string): Promise<StoredRun> {
  try {
    return await getRunOrThrow(id);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  try {
    const run = await getRunOrThrow(id);
    return { title: run.name };
  } catch {
    return { title: "Run not found" };
  }
}

function Figure({ label, value, detail, testId }: { label: string; value: string; detail?: string; testId?: string }) {
  return (
    <Card>
      <div className="text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">{label}</div>
      <div className="mt-1 text-xl font-semibold break-words tabular-nums sm:text-2xl" data-testid={testId}>
        {value}
      </div>
      {detail ? <div className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{detail}</div> : null}
    </Card>
  );
}

export default async function RunPage({ params }: { params: Params }) {
  const { id } = await params;
  const run = await loadRun(id);
  const runChanges = await changesOfRun(run.id);
  const figures = headline(run.results);
  // The run's charts are those of a comparison of this run alone: the same axis, repeats' bands and tooltip.
  const alone = buildComparison([run], parseCompareView({ runs: run.id }));
  const workload = run.workload ?? {};
  const speculative = run.speculative;
  // From the stored document on every read: a fix to the GPU catalogue or a threshold applies to old runs too.
  const validity = checkRun(run);
  const engineUnknown = isUnknownEngine(run.engine);

  return (
    <>
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-3">
            <span className="inline-flex items-baseline gap-2">
              <span
                className="inline-block h-3 w-3 shrink-0 rounded-full"
                style={{ background: runColor(run.id) }}
                title="This run's colour in every chart"
                aria-hidden
                data-testid="run-swatch"
              />
              <span data-testid="run-name">{run.name}</span>
            </span>
            {run.tags.includes("demo") ? <DemoBadge /> : null}
          </span>
        }
        subtitle={
          <span>
            {engineUnknown ? "engine not stated" : run.engine}
            {run.engine_version ? ` ${run.engine_version}` : ""} · {run.model} · {formatHardware(run.hardware)} ·{" "}
            {run.measured_at
              ? `measured ${formatDateTime(run.measured_at)}`
              : `uploaded ${formatDateTime(run.created_at)}`}
            {run.source_format !== "servebench/v1" ? ` · imported from ${formatName(run.source_format)}` : ""}
          </span>
        }
        actions={
          <>
            <Link className={buttonClass} href={`/compare?runs=${encodeURIComponent(run.id)}`}>
              Compare…
            </Link>
            <a
              className={buttonClass}
              href={`/api/runs/${encodeURIComponent(run.id)}?download=1`}
              download
              data-testid="download-json"
            >
              Download JSON
            </a>
            <DeleteRunButton id={run.id} name={run.name} />
          </>
        }
      />

      <RunSeriesPanel series={runChanges.series} changes={runChanges.changes} />

      {engineUnknown ? (
        <p
          className="mb-6 rounded-md border border-zinc-300 bg-zinc-50 p-3 text-sm text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
          data-testid="engine-not-stated"
        >
          <span className="font-medium">Engine not stated.</span> Neither the files, their launch command nor the upload
          said which engine served this run, so it compares and joins series as “engine not stated”. To name it, upload
          the files again with the engine (the upload page's Engine field, or <code>--engine NAME</code> for{" "}
          <code>servebench upload</code>) and delete this run.
        </p>
      ) : null}

      <ValidityWarning report={validity} />

      {run.warnings.length > 0 ? (
        <div
          className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          role="status"
          data-testid="run-warnings"
        >
          <p className="font-medium">Imported with warnings</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5 [overflow-wrap:anywhere]">
            {groupedWarnings(run.warnings).map((warning, index) => (
              <li key={index}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}

      <div className="mb-8 grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure
          label="Single stream"
          value={figures.single_stream ? `${formatNumber(figures.single_stream.output_tok_s)} tok/s` : "—"}
          detail={
            figures.single_stream
              ? figures.single_stream.derived
                ? "derived: 1000 / mean TPOT at C=1"
                : "output throughput at C=1"
              : "no concurrency-1 point"
          }
          testId="single-stream"
        />
        <Figure
          label="Peak throughput"
          value={figures.peak ? `${formatNumber(figures.peak.output_tok_s)} tok/s` : "—"}
          detail={figures.peak ? `at ${formatLoadLevel(figures.peak)}` : "no output throughput"}
          testId="peak"
        />
        <Figure
          label="Server start-up"
          value={run.server_startup_s !== undefined ? formatDuration(run.server_startup_s) : "—"}
          detail="weight loading plus graph capture"
        />
        <Figure
          label="Speculative decoding"
          value={speculative?.method ?? "off"}
          detail={
            speculative
              ? [
                  speculative.acceptance_rate !== undefined
                    ? `${formatNumber(speculative.acceptance_rate * 100)}% accepted`
                    : null,
                  speculative.num_speculative_tokens !== undefined
                    ? `${speculative.num_speculative_tokens} tokens/step`
                    : null,
                ]
                  .filter(Boolean)
                  .join(" · ") || undefined
              : "not recorded"
          }
        />
      </div>

      {/* The figures first: the table people open a run for, then its charts. */}
      <Section title={`Results (${run.results.length} load level${run.results.length === 1 ? "" : "s"})`}>
        <PointsTable points={run.results} gpuCount={run.hardware?.gpu_count ?? null} />
        <SourcesTable points={run.results} />
      </Section>

      {alone.drawnDomain.levels.length < alone.domain.levels.length ? (
        <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" data-testid="drawn-levels-note">
          The charts draw {alone.drawnDomain.levels.length} of the {alone.domain.levels.length} load levels, spread
          evenly along the axis with the lowest, the highest and the peak; the table above lists every one.
        </p>
      ) : null}
      <LoadTooltipProvider
        rows={alone.tooltip}
        levels={alone.drawnDomain.levels.map((level) => level.label)}
        xs={alone.drawnDomain.levels.map((level) => level.x)}
      >
        <div className="mb-8 grid grid-cols-1 gap-6 xl:grid-cols-2">
          <Section title={alone.charts.throughput.title}>
            <LoadChart data={alone.charts.throughput} testId="chart-throughput" logY={false} toggleable={false} />
            <LineChartTable data={alone.charts.throughput} />
          </Section>
          <Section title={alone.charts.tpot.title}>
            <LoadChart data={alone.charts.tpot} testId="chart-tpot" logY={false} toggleable={false} />
            <LineChartTable data={alone.charts.tpot} />
          </Section>
        </div>
      </LoadTooltipProvider>

      <AccuracyPanel runId={run.id} scores={run.accuracy} />
      <ServerMetricsPanel runs={[run]} domain={alone.drawnDomain} />

      {hasRequestDetail(run.results) ? (
        <Section title="Distribution of each level's requests" id="distribution">
          <p className="mb-3 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
            From the run&apos;s per-request results: at each latency, the share of a level&apos;s requests that took no
            longer. The median is where a curve crosses 50%; the tail is where it flattens towards 100%.
          </p>
          <LatencyDistributionChart
            distributions={(["ttft", "tpot", "e2el"] as const).map((metric) =>
              latencyDistributions(run.results, metric),
            )}
          />
        </Section>
      ) : null}

      <ImportReport entries={run.not_imported} />

      <ValidityPanel report={validity} />

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Section title="Launch">
          {run.command ? (
            <pre
              className="mb-4 overflow-x-auto whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-900"
              data-testid="run-command"
            >
              {run.command}
            </pre>
          ) : (
            <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">No launch command recorded.</p>
          )}
          <FlagsTable flags={run.flags} />
          <h3 className="mb-2 mt-6 text-sm font-semibold">Environment</h3>
          <KeyValueTable
            rows={Object.entries(run.env).sort(([a], [b]) => a.localeCompare(b))}
            keyLabel="Variable"
            valueLabel="Value"
            empty="No environment variables recorded."
            testId="env-table"
          />
        </Section>
        <Section title="Context">
          <DefinitionList
            items={[
              {
                label: "Engine",
                value: `${engineUnknown ? "not stated" : run.engine}${run.engine_version ? ` ${run.engine_version}` : ""}`,
              },
              { label: "Model", value: run.model },
              { label: "GPU", value: run.hardware?.gpu ?? "—" },
              { label: "GPU count", value: run.hardware?.gpu_count ?? "—" },
              {
                label: "GPU memory",
                value: run.hardware?.gpu_memory_mib ? `${formatNumber(run.hardware.gpu_memory_mib)} MiB` : "—",
              },
              { label: "Dataset", value: workload.dataset ?? "—" },
              { label: "Input length", value: workload.input_len ?? "—" },
              { label: "Output length", value: workload.output_len ?? "—" },
              { label: "Prompts", value: workload.num_prompts ?? "—" },
              { label: "Temperature", value: workload.temperature ?? "—" },
              ...(workload.prefix_len !== undefined
                ? [{ label: "Shared prefix", value: `${workload.prefix_len} tokens` }]
                : []),
              ...(workload.range_ratio !== undefined
                ? [{ label: "Length range ratio", value: workload.range_ratio }]
                : []),
              ...(workload.burstiness !== undefined
                ? [
                    {
                      label: "Arrivals",
                      value:
                        workload.burstiness === 1
                          ? "Poisson (burstiness 1)"
                          : workload.burstiness === "inf"
                            ? "evenly spaced (burstiness ∞)"
                            : `gamma, burstiness ${workload.burstiness}`,
                    },
                  ]
                : []),
              ...(workload.max_concurrency !== undefined
                ? [{ label: "Max concurrency", value: workload.max_concurrency }]
                : []),
              ...(workload.seed !== undefined ? [{ label: "Seed", value: workload.seed }] : []),
              ...(speculative
                ? [
                    { label: "Speculative method", value: speculative.method ?? "—" },
                    { label: "Draft model", value: speculative.draft_model ?? "—" },
                  ]
                : []),
              { label: "Source format", value: formatName(run.source_format) },
              {
                label: "Tags",
                value:
                  run.tags.length > 0 ? (
                    <span className="flex flex-wrap gap-1">
                      {run.tags.map((tag) => (
                        <Link key={tag} href={`/?tag=${encodeURIComponent(tag)}`}>
                          <Tag>{tag}</Tag>
                        </Link>
                      ))}
                    </span>
                  ) : (
                    "—"
                  ),
              },
            ]}
          />
          {Object.keys(run.metadata).length > 0 ? (
            <>
              <h3 className="mb-2 mt-6 text-sm font-semibold">Metadata</h3>
              <KeyValueTable
                rows={Object.entries(run.metadata).map(([key, value]): [string, string] => [key, String(value)])}
                keyLabel="Key"
                valueLabel="Value"
                empty=""
                testId="metadata-table"
              />
            </>
          ) : null}
        </Section>
      </div>

      <ReproducePanel reproduction={reproductionOf(run)} />

      <Section title="Notes">
        {run.notes ? (
          <p className="max-w-3xl whitespace-pre-wrap text-sm" data-testid="run-notes">
            {run.notes}
          </p>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No notes.</p>
        )}
        <div className="mt-4">
          <RunEditor id={run.id} name={run.name} tags={run.tags} notes={run.notes ?? ""} />
        </div>
      </Section>
    </>
  );
}
