import type { Metadata } from "next";
import { loadView, one } from "@/app/series/[id]/load-view";
import { EmbedLink } from "@/components/embed/ComparisonEmbed";
import { SeriesChart } from "@/components/series/SeriesChart";
import { StatusBadge } from "@/components/series/StatusBadge";
import { embedHeight } from "@/lib/comparisons/embed";
import { pageSearchParams } from "@/lib/http/query";
import { type SeriesAxis, seriesChart } from "@/lib/series/chart";
import { leadingMetric, levelLabel } from "@/lib/series/metrics";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export const metadata: Metadata = { title: "Series" };

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
  const requested = one(query.metric);
  const view = await loadView(id, one(query.level), requested);
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
