/**
 * "What the server saw": the server's own figures against load beside the client's TTFT, for one run (the
 * run page) or the runs of a comparison, one series per configuration. Prepares the data on the server and
 * hands the chart only that: per-request rows never reach the browser from here. Renders nothing when no
 * run has a server figure.
 */
import { ServerMetricsChart } from "@/components/charts/ServerMetricsChart";
import { Section } from "@/components/ui/primitives";
import type { Comparison } from "@/lib/analysis/comparison";
import { axisName } from "@/lib/analysis/series";
import {
  hasServerMetrics,
  type ServerMetricsOptions,
  type ServerMetricsRun,
  type ServerMetricsSeriesInput,
  serverMetricsChart,
} from "@/lib/analysis/server-metrics";

export function ServerMetricsPanel({
  runs,
  series = null,
  axis,
  xDomain = null,
  ttftField = "mean_ttft_ms",
  testId = "server-metrics",
}: {
  runs: readonly ServerMetricsRun[];
  /** How the runs group into series (a comparison's repeats); default: one series per run. */
  series?: readonly ServerMetricsSeriesInput[] | null;
  /** The client charts' axis and x domain, so the panels line up with them. */
  axis?: ServerMetricsOptions["axis"];
  xDomain?: [number, number] | null;
  ttftField?: ServerMetricsOptions["ttftField"];
  testId?: string;
}) {
  if (!hasServerMetrics(runs)) return null;
  const options: ServerMetricsOptions = { xDomain, ttftField };
  if (axis) options.axis = axis;
  const data = serverMetricsChart(runs, series, options);
  if (data.panels.length === 0) return null;
  const stat = ttftField === "mean_ttft_ms" ? "mean" : ttftField === "median_ttft_ms" ? "median" : "p99";
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
  xDomain,
}: {
  comparison: Comparison;
  runs: readonly ServerMetricsRun[];
  /** A shared x domain across the comparison's charts, when it has one; default: the TTFT chart's ticks. */
  xDomain?: [number, number] | null;
}) {
  const { ttft } = comparison.charts;
  const ticks = ttft.ticks;
  const domain = xDomain ?? (ticks.length > 0 ? ([ticks[0]!, ticks[ticks.length - 1]!] as [number, number]) : null);
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
      axis={ttft.axis}
      xDomain={domain}
      ttftField={`${comparison.view.stat}_ttft_ms`}
      testId="compare-server-metrics"
    />
  );
}
