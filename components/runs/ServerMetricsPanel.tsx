/**
 * "What the server saw": the server's own figures against load beside the client's TTFT, for one run (the
 * run page) or the runs of a comparison, one series per configuration. Prepares the data on the server and
 * hands the chart only that: per-request rows never reach the browser from here. Renders nothing when no
 * run has a server figure.
 */
import { ServerMetricsChart } from "@/components/charts/ServerMetricsChart";
import { Section } from "@/components/ui/primitives";
import { axisName, type LoadDomain } from "@/lib/analysis/axis";
import {
  hasServerMetrics,
  type ServerMetricsOptions,
  type ServerMetricsRun,
  type ServerMetricsSeriesInput,
  serverMetricsChart,
} from "@/lib/analysis/server-metrics";
import type { Comparison } from "@/lib/comparisons/model";

export function ServerMetricsPanel({
  runs,
  series = null,
  domain,
  ttftField = "mean_ttft_ms",
  testId = "server-metrics",
}: {
  runs: readonly ServerMetricsRun[];
  /** How the runs group into series (a comparison's repeats); default: one series per run. */
  series?: readonly ServerMetricsSeriesInput[] | null;
  /** The client charts' load domain, so the panels line up with them. */
  domain?: LoadDomain;
  ttftField?: ServerMetricsOptions["ttftField"];
  testId?: string;
}) {
  if (!hasServerMetrics(runs)) return null;
  const options: ServerMetricsOptions = { ttftField };
  if (domain) options.domain = domain;
  const data = serverMetricsChart(runs, series, options);
  if (data.panels.length === 0) return null;
  const stat = ttftField.slice(0, -"_ttft_ms".length);
  return (
    <Section title={`What the server saw, vs ${axisName(data.axis)}`} id="server-metrics">
      <p className="mb-3 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        The server&apos;s own Prometheus metrics during each load level, beside the client&apos;s {stat} TTFT
        {data.series.length === 1 ? " (dashed: the server's own mean TTFT, and the largest value of each gauge)" : ""}.
        When TTFT bends upward, a full KV cache and a growing queue say why. Levels a run has no figure at are gaps.
      </p>
      <ServerMetricsChart data={data} testId={testId} />
    </Section>
  );
}

/**
 * The panel for a comparison: its series (repeats grouped as the comparison groups them, its colours, the
 * series it hides) on the TTFT chart's axis and x domain, with the TTFT statistic the comparison shows.
 */
export function ComparisonServerMetrics({
  comparison,
  runs,
}: {
  comparison: Comparison;
  runs: readonly ServerMetricsRun[];
}) {
  return (
    <ServerMetricsPanel
      runs={runs}
      series={comparison.series.map((item) => ({
        key: item.key,
        label: item.label,
        color: item.color,
        hidden: item.hidden,
        runIds: item.runs.map((run) => run.id),
      }))}
      domain={comparison.drawnDomain}
      ttftField={`${comparison.view.stat}_ttft_ms`}
      testId="compare-server-metrics"
    />
  );
}
