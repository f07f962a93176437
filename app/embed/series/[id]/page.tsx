import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmbedLink } from "@/components/embed/ComparisonEmbed";
import { SeriesChart } from "@/components/series/SeriesChart";
import { StatusBadge } from "@/components/series/StatusBadge";
import { embedHeight } from "@/lib/comparisons/embed";
import { AppError } from "@/lib/errors";
import { pageSearchParams } from "@/lib/http/query";
import { type SeriesAxis, seriesChart } from "@/lib/series/chart";
import { leadingMetric, levelLabel } from "@/lib/series/metrics";
import { getSeriesViewOrThrow, type SeriesView } from "@/lib/series/queries";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export const metadata: Metadata = { title: "Series" };

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A series' trend of one figure, to frame in another document: `/embed/series/<id>?metric=…&level=c:64`. */
export default async function EmbedSeriesPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: SearchParams;
}) {
  const { id } = await params;
  const query = pageSearchParams(await searchParams);
  const level = one(query.level);
  const requested = one(query.metric);
  let view: SeriesView;
  try {
    view = await getSeriesViewOrThrow(id, {
      level: level && /^(c:\d+|r:(inf|[\d.]+))$/.test(level) ? level : undefined,
      onlyMetric: requested ?? "",
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
  const axis: SeriesAxis = one(query.x) === "version" ? "version" : "date";
  const metric =
    view.metrics.find((candidate) => candidate.key === requested) ?? leadingMetric(view.metrics, view.settings.figures);
  const chart = metric ? seriesChart(view, metric.key, axis) : null;
  const fullHref = `/series/${encodeURIComponent(view.id)}${metric ? `?metric=${encodeURIComponent(metric.key)}` : ""}`;
  return (
    <div data-testid="embed-series">
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="flex flex-wrap items-center gap-2 text-base font-semibold tracking-tight">
          <span data-testid="embed-title">{view.name}</span>
          <StatusBadge status={view.status} testId="embed-series-status" />
        </h1>
        <EmbedLink href={fullHref} label="Open in servebench" />
      </div>
      {metric && chart ? (
        <section aria-label={`${metric.label} (${metric.unit})`}>
          <h2 className="mb-1 text-sm font-semibold">
            {metric.label} ({metric.unit}), {metric.better} is better
            {view.level ? ` · at ${levelLabel(view.level)}` : ""}
          </h2>
          <SeriesChart chart={chart} unit={metric.unit} testId="series-chart" height={embedHeight(query)} />
        </section>
      ) : (
        <p className="text-sm">No run of this series states a figure servebench follows.</p>
      )}
    </div>
  );
}
