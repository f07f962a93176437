import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass, PageHeader } from "@/components/ui/primitives";
import { listComparisons } from "@/lib/comparisons/queries";
import { DEFAULT_PER_PAGE, parseComparisonListQueryLenient } from "@/lib/comparisons/schema";
import { notesExcerpt } from "@/lib/comparisons/view";
import { formatDate } from "@/lib/format";
import { pageSearchParams } from "@/lib/http/query";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Saved comparisons" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function pageHref(page: number, perPage: number): string {
  const params = new URLSearchParams();
  if (page > 1) params.set("page", String(page));
  if (perPage !== DEFAULT_PER_PAGE) params.set("per_page", String(perPage));
  const query = params.toString();
  return query ? `/comparisons?${query}` : "/comparisons";
}

function EmptyState() {
  return (
    <div
      className="rounded-lg border border-dashed border-zinc-300 p-8 dark:border-zinc-700"
      data-testid="empty-comparisons"
    >
      <h2 className="text-lg font-semibold">No saved comparisons yet</h2>
      <p className="mt-2 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
        A saved comparison keeps a set of runs, their baseline and the view under a short link, with a title and notes
        that say what it shows. To save one:
      </p>
      <ol className="mt-4 list-decimal space-y-2 pl-5 text-sm">
        <li>
          Tick two or more runs in the{" "}
          <Link href="/" className="font-medium text-blue-700 hover:underline dark:text-blue-400">
            history
          </Link>{" "}
          and press <strong>Compare selected</strong> (or start from{" "}
          <Link href="/compare" className="font-medium text-blue-700 hover:underline dark:text-blue-400">
            Compare
          </Link>
          ).
        </li>
        <li>Pick the baseline and the view you want people to see.</li>
        <li>
          Press <strong>Save comparison</strong>, give it a title and notes, and share the link it opens.
        </li>
      </ol>
    </div>
  );
}

export default async function SavedComparisonsPage({ searchParams }: { searchParams: SearchParams }) {
  const query = parseComparisonListQueryLenient(pageSearchParams(await searchParams));
  const { comparisons, total } = await listComparisons(query);
  const pages = Math.max(1, Math.ceil(total / query.per_page));
  return (
    <>
      <PageHeader
        title="Saved comparisons"
        subtitle={total === 0 ? "Comparisons your team saved to share, newest first." : `${total} saved, newest first.`}
      />
      {total === 0 ? (
        <EmptyState />
      ) : (
        <>
          <ul
            className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900"
            data-testid="comparison-list"
          >
            {comparisons.map((item) => {
              const excerpt = notesExcerpt(item.notes);
              return (
                <li key={item.slug} className="p-4" data-testid="comparison-item" data-slug={item.slug}>
                  <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
                    <Link
                      href={item.url}
                      className="min-w-0 font-semibold break-words text-blue-700 hover:underline dark:text-blue-400"
                    >
                      {item.title}
                    </Link>
                    <span className="shrink-0 text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
                      {item.runs.length} run{item.runs.length === 1 ? "" : "s"} · {formatDate(item.created_at)}
                    </span>
                  </div>
                  {excerpt ? (
                    <p className="mt-1 text-sm break-words text-zinc-600 dark:text-zinc-400">{excerpt}</p>
                  ) : null}
                </li>
              );
            })}
          </ul>
          {pages > 1 ? (
            <nav className="mt-4 flex items-center justify-between text-sm" aria-label="Pages">
              <span className="text-zinc-600 dark:text-zinc-400">
                Page {query.page} of {pages}
              </span>
              <span className="flex gap-2">
                {query.page > 1 ? (
                  <Link href={pageHref(query.page - 1, query.per_page)} className={buttonClass}>
                    Newer
                  </Link>
                ) : null}
                {query.page < pages ? (
                  <Link href={pageHref(query.page + 1, query.per_page)} className={buttonClass}>
                    Older
                  </Link>
                ) : null}
              </span>
            </nav>
          ) : null}
        </>
      )}
    </>
  );
}
