"use client";

/**
 * The compare page's latency distributions: at one load level, each series' requests as a cumulative curve (at a
 * latency, the share of its requests that took no longer), with pickers for the level and the latency that go into
 * the URL (`cdf_level`, `cdf_metric`), the legend that hides series (`hide`), and n, p50, p90 and p99 per series in
 * a table under the chart. A series without per-request results at the level is named under the chart, never
 * drawn as an empty line. The figures come from lib/comparisons/request-distributions.ts, loaded by the page.
 */
import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import { ChartPlaceholder, InView } from "@/components/charts/InView";
import { ToggleLegend } from "@/components/charts/ToggleLegend";
import { inputClass, labelClass, Section, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import {
  CDF_METRIC_NAMES,
  CDF_METRICS,
  type CdfMetric,
  type LatencyCdfData,
  type SeriesCdf,
} from "@/lib/analysis/request-cdf";
import { formatNumber } from "@/lib/format";
import { ChartExportButtons } from "./ExportButtons";
import { useQueryUpdate } from "./use-query-update";

// Recharts arrives only when the chart is scrolled to (InView), as the other charts.
const Plot = dynamic(() => import("./LatencyCdfPlot").then((module) => module.LatencyCdfPlot), {
  ssr: false,
  loading: () => <ChartPlaceholder />,
});

const count = (value: number) => value.toLocaleString("en-US");

/** What a reader should know about a series' curve: a sample, repeats without requests, the cap. */
function seriesNotes(item: SeriesCdf, data: LatencyCdfData, level: string): string[] {
  const notes: string[] = [];
  if (item.cdf === null) return notes;
  if (item.pointsWithRequests < item.points)
    notes.push(
      `${item.label}: pooled from the ${item.pointsWithRequests} of its ${item.points} repeats at ${level} that stored their requests.`,
    );
  if (item.storedRows < item.totalRequests)
    notes.push(
      `${item.label}: drawn from the ${count(item.storedRows)} of its ${count(item.totalRequests)} requests at ${level} the run stored (an evenly spaced sample).`,
    );
  if (item.capped)
    notes.push(
      `${item.label}: n is a uniform sample of ${count(data.cap)} of its ${count(item.completedRequests)} completed requests (the page draws at most ${count(data.cap)} per series).`,
    );
  return notes;
}

function useShownValue<T>(fromPage: T): [T, (value: T) => void] {
  const [shown, setShown] = useState(fromPage);
  useEffect(() => setShown(fromPage), [fromPage]);
  return [shown, setShown];
}

function Pickers({ data }: { data: LatencyCdfData }) {
  const update = useQueryUpdate();
  const [level, setLevel] = useShownValue(data.level?.key ?? "");
  const [metric, setMetric] = useShownValue<CdfMetric>(data.metric);
  const seriesWithData = data.series.length;
  return (
    <div className="mb-3 flex flex-wrap items-end gap-4">
      <div className="w-48">
        <label htmlFor="cdf-level" className={labelClass}>
          Load level
        </label>
        <select
          id="cdf-level"
          className={inputClass}
          value={level}
          onChange={(event) => {
            setLevel(event.target.value);
            update({ cdf_level: event.target.value }, "replace");
          }}
          data-testid="cdf-level-select"
        >
          {data.levels.map((option) => (
            <option key={option.key} value={option.key}>
              {option.label}
              {option.series < seriesWithData ? ` (${option.series} of ${seriesWithData})` : ""}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="flex flex-wrap gap-1 pb-1 text-xs">
        <legend className={labelClass}>Latency</legend>
        {CDF_METRICS.map((item) => (
          <button
            key={item}
            type="button"
            aria-pressed={item === metric}
            onClick={() => {
              setMetric(item);
              update({ cdf_metric: item }, "replace");
            }}
            className={`rounded border px-2 py-0.5 ${
              item === metric
                ? "border-zinc-900 bg-zinc-900 text-white dark:border-zinc-100 dark:bg-zinc-100 dark:text-zinc-900"
                : "border-zinc-300 text-zinc-700 hover:bg-zinc-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
            data-testid={`cdf-metric-${item}`}
          >
            {CDF_METRIC_NAMES[item]}
          </button>
        ))}
      </fieldset>
    </div>
  );
}

export function LatencyCdfChart({ data, height = 320 }: { data: LatencyCdfData; height?: number }) {
  const level = data.level;
  if (!level) return null;
  const metricName = CDF_METRIC_NAMES[data.metric];
  const drawn = data.series.filter((item) => item.cdf !== null);
  const missing = data.series.filter((item) => item.cdf === null);
  const notes = data.series.flatMap((item) => seriesNotes(item, data, level.label));
  return (
    <div data-testid="latency-cdf" data-level={level.key} data-metric={data.metric}>
      <Pickers data={data} />
      {data.unavailableLevel ? (
        <p className="mb-2 text-xs text-amber-800 dark:text-amber-300" data-testid="latency-cdf-unavailable">
          No compared run stored per-request results at {data.unavailableLevel.label}; {level.label} is shown.
        </p>
      ) : null}
      <div className="text-zinc-600 dark:text-zinc-400" data-chart>
        <InView height={height}>
          <Plot series={drawn.filter((item) => !item.hidden)} metricName={metricName} height={height} />
        </InView>
        <ToggleLegend
          series={drawn.map((item) => ({
            key: item.key,
            label: item.label,
            color: item.color,
            id: item.id,
            hidden: item.hidden,
          }))}
        />
      </div>
      {missing.length > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-amber-800 dark:text-amber-300" data-testid="latency-cdf-missing">
          {missing.map((item) => (
            <li key={item.key}>
              {item.label}:{" "}
              {item.pointsWithRequests > 0
                ? `no completed request with a ${metricName} at ${level.label}`
                : `no per-request data at ${level.label}`}
            </li>
          ))}
        </ul>
      ) : null}
      {notes.length > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400" data-testid="latency-cdf-notes">
          {notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      {drawn.length > 0 ? (
        <table className={`${tableClass} mt-3`} data-testid="latency-cdf-table">
          <caption className="sr-only">
            {metricName} of each series&apos; completed requests at {level.label}
          </caption>
          <thead>
            <tr>
              <th scope="col" className={thClass}>
                Run
              </th>
              <th scope="col" className={`${thClass} text-right`}>
                n
              </th>
              <th scope="col" className={`${thClass} text-right`}>
                p50 (ms)
              </th>
              <th scope="col" className={`${thClass} text-right`}>
                p90 (ms)
              </th>
              <th scope="col" className={`${thClass} text-right`}>
                p99 (ms)
              </th>
            </tr>
          </thead>
          <tbody>
            {drawn.map((item) => (
              <tr key={item.key} data-testid="latency-cdf-row" data-series-id={item.id}>
                <th scope="row" className={`${tdClass} text-left font-medium`}>
                  {item.label}
                </th>
                <td className={`${tdClass} num`} data-testid="cdf-n">
                  {count(item.cdf!.n)}
                </td>
                <td className={`${tdClass} num`} data-testid="cdf-p50">
                  {formatNumber(item.cdf!.p50_ms)}
                </td>
                <td className={`${tdClass} num`} data-testid="cdf-p90">
                  {formatNumber(item.cdf!.p90_ms)}
                </td>
                <td className={`${tdClass} num`} data-testid="cdf-p99">
                  {formatNumber(item.cdf!.p99_ms)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/**
 * The section of the compare pages, after the latency charts (`#chart-latency-cdf`). With no compared run that
 * stored per-request results it is one line saying so, so a reader learns the chart exists and what it needs.
 */
export function LatencyCdfSection({ data, exportTitle }: { data: LatencyCdfData; exportTitle: string }) {
  const title = "Latency distributions";
  if (!data.level) {
    return (
      <Section title={title} id="chart-latency-cdf">
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="latency-cdf-none">
          None of the compared runs stored per-request results (servebench bench --save-detailed does), so there is no
          distribution to draw.
        </p>
      </Section>
    );
  }
  return (
    <Section
      title={`${title} at ${data.level.label}`}
      id="chart-latency-cdf"
      aside={<ChartExportButtons chartId="latency-cdf" title={exportTitle} />}
    >
      <p className="mb-3 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Each series&apos; completed requests at one load level (repeats pooled, failed requests left out): at each
        latency, the share of requests that took no longer. The median is where a curve crosses 50%; the tail is where
        it flattens towards 100%.
      </p>
      <div data-export-chart="latency-cdf">
        <LatencyCdfChart data={data} />
      </div>
    </Section>
  );
}
