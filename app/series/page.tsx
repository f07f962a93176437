import type { Metadata } from "next";
import Link from "next/link";
import { Sparkline } from "@/components/series/Sparkline";
import { StatusBadge } from "@/components/series/StatusBadge";
import { buttonClass, PageHeader, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { formatDate, formatNumber } from "@/lib/format";
import { pageSearchParams } from "@/lib/http/query";
import { listSeries } from "@/lib/series/queries";
import { SeriesListQuerySchema } from "@/lib/series/schema";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Series" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SeriesListPage({ searchParams }: { searchParams: SearchParams }) {
  const raw = pageSearchParams(await searchParams);
  const parsed = SeriesListQuerySchema.safeParse({
    all: typeof raw.all === "string" ? raw.all : undefined,
    page: typeof raw.page === "string" ? raw.page : undefined,
  });
  const query = parsed.success ? parsed.data : { all: false, page: 1, per_page: 50 };
  const all = query.all ?? false;
  const { series, total, hidden } = await listSeries({ all, page: query.page, per_page: query.per_page });
  const pages = Math.max(1, Math.ceil(total / query.per_page));
  const href = (page: number) => `/series?${all ? "all=1&" : ""}page=${page}`;

  return (
    <>
      <PageHeader
        title="Series"
        subtitle="Runs of one configuration, or of one named series, over time: each judged against its own history."
      />
      {series.length === 0 ? (
        <div
          className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700"
          data-testid="no-series"
        >
          No series has two runs yet. Upload the same benchmark again (a nightly job with{" "}
          <code>servebench upload … --series NAME</code>) and its runs become a trend line here.
        </div>
      ) : (
        <ScrollBox label="Series">
          <table className={tableClass} data-testid="series-table">
            <thead>
              <tr>
                <th className={thClass}>Series</th>
                <th className={thClass}>Status</th>
                <th className={`${thClass} text-right`}>Runs</th>
                <th className={`${thClass} text-right`}>Last value</th>
                <th className={thClass}>Trend</th>
                <th className={thClass}>Last run</th>
                <th className={`${thClass} text-right`}>Open alerts</th>
              </tr>
            </thead>
            <tbody>
              {series.map((entry) => (
                <tr key={entry.id} data-series-id={entry.id}>
                  <td className={`${tdClass} max-w-md`}>
                    <Link href={entry.url} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
                      {entry.name}
                    </Link>
                    {entry.explicit ? null : (
                      <span
                        className="ml-2 text-xs text-zinc-600 dark:text-zinc-400"
                        title="Runs of the same configuration"
                      >
                        by configuration
                      </span>
                    )}
                  </td>
                  <td className={tdClass}>
                    <StatusBadge status={entry.status} testId="series-status" />
                  </td>
                  <td className={`${tdClass} text-right tabular-nums`}>{entry.run_count}</td>
                  <td className={`${tdClass} whitespace-nowrap text-right tabular-nums`}>
                    {entry.last_value !== null && entry.last_metric
                      ? `${formatNumber(entry.last_value)} ${entry.last_metric.unit}`
                      : "—"}
                    {entry.last_metric ? (
                      <div className="text-xs text-zinc-600 dark:text-zinc-400">{entry.last_metric.label}</div>
                    ) : null}
                  </td>
                  <td className={tdClass}>
                    <Sparkline values={entry.trend} label={`${entry.last_metric?.label ?? "trend"} of the last runs`} />
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>{formatDate(entry.last_run_at)}</td>
                  <td className={`${tdClass} text-right tabular-nums`}>
                    {entry.open_alerts > 0 ? (
                      <Link
                        href="/alerts"
                        className="font-medium text-red-700 underline underline-offset-2 dark:text-red-400"
                      >
                        {entry.open_alerts}
                      </Link>
                    ) : (
                      "0"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      <nav className="mt-4 flex flex-wrap items-center justify-between gap-3 text-sm" aria-label="Pagination">
        <span className="text-zinc-600 dark:text-zinc-400">
          {total} series
          {hidden > 0 && !all ? (
            <>
              {" "}
              · {hidden} with a single run hidden ·{" "}
              <Link href="/series?all=1" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
                show them
              </Link>
            </>
          ) : null}
        </span>
        <span className="flex items-center gap-2">
          {query.page > 1 ? (
            <Link className={buttonClass} href={href(query.page - 1)} rel="prev">
              ← Previous
            </Link>
          ) : null}
          {pages > 1 ? (
            <span className="text-zinc-600 dark:text-zinc-400">
              Page {Math.min(query.page, pages)} of {pages}
            </span>
          ) : null}
          {query.page < pages ? (
            <Link className={buttonClass} href={href(query.page + 1)} rel="next">
              Next →
            </Link>
          ) : null}
        </span>
      </nav>
    </>
  );
}
