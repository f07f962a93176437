import type { Metadata } from "next";
import Link from "next/link";
import { AddRunPicker, CopyLinkButton } from "@/components/compare/CompareControls";
import { ComparisonView } from "@/components/compare/ComparisonView";
import { SaveComparisonForm } from "@/components/compare/SaveComparisonForm";
import { EmbedButton } from "@/components/ui/EmbedButton";
import { Card, PageHeader } from "@/components/ui/primitives";
import { EMBED_FRAME_HEIGHT } from "@/lib/comparisons/embed";
import { loadComparison } from "@/lib/comparisons/loader";
import { comparisonMetadata } from "@/lib/comparisons/metadata";
import { latencyCdfsOf } from "@/lib/comparisons/request-distributions";
import {
  compareHref,
  defaultComparisonTitle,
  ogImagePath,
  parseCompareView,
  saveFieldsOf,
} from "@/lib/comparisons/view";
import { requestBaseUrl } from "@/lib/http/base-url";
import { pageSearchParams } from "@/lib/http/query";
import { listRuns } from "@/lib/runs/history";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ searchParams }: { searchParams: SearchParams }): Promise<Metadata> {
  const view = parseCompareView(pageSearchParams(await searchParams));
  if (view.runIds.length === 0) return { title: "Compare" };
  const { comparison } = await loadComparison(view);
  if (!comparison) return { title: "Compare" };
  // Link previews (Open Graph, Twitter card): the headline deltas and an image of them, at absolute URLs.
  return comparisonMetadata({
    title: comparison.summary.title,
    description: comparison.summary.description,
    imagePath: ogImagePath(comparison.view),
    baseUrl: await requestBaseUrl(),
    pagePath: compareHref(comparison.view),
  });
}

async function recentRuns(): Promise<{ id: string; name: string }[]> {
  const { runs } = await listRuns({ page: 1, per_page: 50, sort: "date", dir: "desc" });
  return runs.map((run) => ({ id: run.id, name: run.name }));
}

export default async function ComparePage({ searchParams }: { searchParams: SearchParams }) {
  const view = parseCompareView(pageSearchParams(await searchParams));
  const recent = await recentRuns();
  if (view.runIds.length === 0) {
    return (
      <>
        <PageHeader
          title="Compare"
          subtitle="Set runs side by side: deltas, charts and what changed in their configuration."
        />
        <Card>
          <p className="text-sm">
            Pick two or more runs in the{" "}
            <Link href="/" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
              history
            </Link>{" "}
            and press <strong>Compare selected</strong>, or choose a run to start with:
          </p>
          <div className="mt-4 max-w-md">
            <AddRunPicker candidates={recent} runIds={[]} />
          </div>
        </Card>
      </>
    );
  }

  const loaded = await loadComparison(view);
  if (!loaded.comparison) {
    return (
      <>
        <PageHeader title="Compare" />
        <Card>
          <p className="text-sm" data-testid="compare-missing">
            None of the runs in this link exist any more ({loaded.notFound.join(", ")}). They may have been deleted.{" "}
            <Link href="/" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
              Back to the history
            </Link>
          </p>
        </Card>
      </>
    );
  }
  const { comparison } = loaded;
  // Per-request rows are read for the distributions' one level only, apart from the comparison.
  const latencyCdf = await latencyCdfsOf(comparison);
  const baseline = comparison.series[comparison.baselineIndex]!;
  return (
    <>
      <PageHeader
        title={`Comparing ${loaded.runs.length} run${loaded.runs.length === 1 ? "" : "s"}`}
        subtitle={`Against the baseline “${baseline.label}”. Changes are green when better, red when worse.`}
        actions={
          <>
            <SaveComparisonForm
              fields={saveFieldsOf(comparison.view)}
              defaultTitle={defaultComparisonTitle(comparison.summary.title)}
            />
            <CopyLinkButton />
            <EmbedButton
              path={`/embed${compareHref(comparison.view)}`}
              title={comparison.summary.title}
              height={EMBED_FRAME_HEIGHT}
            />
          </>
        }
      />
      <ComparisonView
        comparison={comparison}
        candidates={recent}
        editable
        notFound={loaded.notFound}
        truncated={loaded.truncated}
        runs={loaded.runs}
        latencyCdf={latencyCdf}
      />
    </>
  );
}
