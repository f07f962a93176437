import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { CopyLinkButton } from "@/components/compare/CompareControls";
import { ComparisonView } from "@/components/compare/ComparisonView";
import { EmbedButton } from "@/components/ui/EmbedButton";
import { buttonClass, Card, PageHeader } from "@/components/ui/primitives";
import { EMBED_FRAME_HEIGHT } from "@/lib/comparisons/embed";
import { comparisonMetadata } from "@/lib/comparisons/metadata";
import { latencyCdfsOf } from "@/lib/comparisons/request-distributions";
import { type OpenedComparison, openSavedComparison } from "@/lib/comparisons/save";
import { compareHref, notesExcerpt, overrideQuery, savedOgImagePath } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { requestBaseUrl } from "@/lib/http/base-url";
import { pageSearchParams } from "@/lib/http/query";

export const dynamic = "force-dynamic";

type Params = Promise<{ slug: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

// generateMetadata and the page ask for the same comparison in one request: load it once.
const openCached = cache(async (slug: string, overrides: string): Promise<OpenedComparison | null> => {
  try {
    return await openSavedComparison(slug, Object.fromEntries(new URLSearchParams(overrides)));
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  }
});

function open(slug: string, params: Record<string, string | string[] | undefined>): Promise<OpenedComparison | null> {
  return openCached(slug, overrideQuery(params));
}

export async function generateMetadata({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: SearchParams;
}): Promise<Metadata> {
  const { slug } = await params;
  const query = pageSearchParams(await searchParams);
  const opened = await open(slug, query);
  if (!opened) return { title: "Comparison not found" };
  const description =
    opened.comparison?.summary.description || notesExcerpt(opened.saved.notes, 200) || "A saved servebench comparison.";
  return comparisonMetadata({
    title: opened.saved.title,
    description,
    imagePath: savedOgImagePath(slug, query),
    baseUrl: await requestBaseUrl(),
    pagePath: opened.saved.url,
  });
}

export default async function SavedComparisonPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: SearchParams;
}) {
  const { slug } = await params;
  const opened = await open(slug, pageSearchParams(await searchParams));
  if (!opened) notFound();
  const { saved, view, comparison } = opened;
  const latencyCdf = comparison ? await latencyCdfsOf(comparison) : undefined;
  const runCount = saved.runs.length;
  return (
    <>
      <PageHeader
        title={<span data-testid="saved-title">{saved.title}</span>}
        subtitle={`Saved comparison of ${runCount} run${runCount === 1 ? "" : "s"}, ${formatDate(saved.created_at)}. The figures are computed from the runs as they are now.`}
        actions={
          <>
            <CopyLinkButton />
            <EmbedButton
              path={`/embed/c/${encodeURIComponent(saved.slug)}`}
              title={saved.title}
              height={EMBED_FRAME_HEIGHT}
            />
            <Link href={compareHref(view)} className={buttonClass} data-testid="open-editable">
              Open as an editable comparison
            </Link>
          </>
        }
      />
      {saved.notes ? (
        <Card className="mb-6">
          {/* Plain text: notes are never read as HTML. */}
          <p className="whitespace-pre-wrap break-words text-sm" data-testid="saved-notes">
            {saved.notes}
          </p>
        </Card>
      ) : null}
      {comparison ? (
        <ComparisonView
          comparison={comparison}
          candidates={[]}
          editable={false}
          notFound={opened.notFound}
          truncated={opened.truncated}
          runs={opened.runs}
          latencyCdf={latencyCdf}
          title={saved.title}
        />
      ) : (
        <Card>
          <p className="text-sm" data-testid="compare-missing">
            None of the runs of this comparison exist any more ({opened.notFound.join(", ")}). They may have been
            deleted.{" "}
            <Link href="/comparisons" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
              Back to the saved comparisons
            </Link>
          </p>
        </Card>
      )}
    </>
  );
}
