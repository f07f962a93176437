import type { Metadata } from "next";
import { ComparisonEmbed } from "@/components/embed/ComparisonEmbed";
import { embedCharts, embedHeight } from "@/lib/comparisons/embed";
import { loadComparison } from "@/lib/comparisons/loader";
import { compareHref, parseCompareView } from "@/lib/comparisons/view";
import { pageSearchParams } from "@/lib/http/query";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export const metadata: Metadata = { title: "Comparison" };

/** A comparison's verdict and charts, to frame in another document: `/embed/compare?runs=a,b&chart=throughput,tpot`. */
export default async function EmbedComparePage({ searchParams }: { searchParams: SearchParams }) {
  const params = pageSearchParams(await searchParams);
  const view = parseCompareView(params);
  const loaded = view.runIds.length > 0 ? await loadComparison(view) : null;
  if (!loaded?.comparison)
    return (
      <p className="text-sm" data-testid="embed-missing">
        {view.runIds.length === 0
          ? "This embed names no runs: its address needs ?runs=<id>,<id>."
          : "None of the runs this embed names exist any more."}
      </p>
    );
  return (
    <ComparisonEmbed
      comparison={loaded.comparison}
      title={loaded.comparison.summary.title}
      charts={embedCharts(params)}
      height={embedHeight(params)}
      fullHref={compareHref(loaded.comparison.view)}
    />
  );
}
