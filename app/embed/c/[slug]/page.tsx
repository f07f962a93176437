import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparisonEmbed } from "@/components/embed/ComparisonEmbed";
import { embedCharts, embedHeight } from "@/lib/comparisons/embed";
import { loadComparison } from "@/lib/comparisons/loader";
import { getComparisonOrThrow } from "@/lib/comparisons/queries";
import { savedCompareView, withViewOverrides } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { pageSearchParams } from "@/lib/http/query";

export const dynamic = "force-dynamic";

type Params = Promise<{ slug: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export const metadata: Metadata = { title: "Saved comparison" };

/** A saved comparison (/c/<slug>) to frame in another document, with the same overrides its page takes. */
export default async function EmbedSavedComparisonPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: SearchParams;
}) {
  const { slug } = await params;
  const query = pageSearchParams(await searchParams);
  let saved: Awaited<ReturnType<typeof getComparisonOrThrow>>;
  try {
    saved = await getComparisonOrThrow(slug);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
  const loaded = await loadComparison(withViewOverrides(savedCompareView(saved), query));
  if (!loaded.comparison)
    return (
      <p className="text-sm" data-testid="embed-missing">
        None of the runs of this saved comparison exist any more.
      </p>
    );
  return (
    <ComparisonEmbed
      comparison={loaded.comparison}
      title={saved.title}
      charts={embedCharts(query)}
      height={embedHeight(query)}
      fullHref={`/c/${encodeURIComponent(saved.slug)}`}
    />
  );
}
