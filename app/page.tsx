import Link from "next/link";
import { RunHistoryTable, type SortableColumn } from "@/components/history/RunHistoryTable";
import { Collapsible } from "@/components/ui/Collapsible";
import { buttonClass, inputClass, labelClass, PageHeader, primaryButtonClass } from "@/components/ui/primitives";
import { isUnknownEngine } from "@/lib/document/names";
import { pageSearchParams } from "@/lib/http/query";
import { listRuns, type RunListQuery, type SortKey } from "@/lib/runs/history";
import { historyRowsOf } from "@/lib/runs/history-rows";
import { historyHref, parseListQueryLenient } from "@/lib/runs/list-query";
import { countRuns, listFilterOptions } from "@/lib/runs/summaries";
import { changeBadgesOfRuns } from "@/lib/series/alerts";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function sortColumn(query: RunListQuery, key: SortKey, label: string, numeric = false): SortableColumn {
  const active = query.sort === key ? query.dir : null;
  // Numbers and dates read best biggest/newest first; names A→Z.
  const firstDir = key === "date" || key === "single_stream" || key === "peak" ? "desc" : "asc";
  const dir = active === null ? firstDir : active === "asc" ? "desc" : "asc";
  return { label, href: historyHref({ ...query, sort: key, dir, page: 1 }), active, numeric };
}

const SORT_CHOICES: [SortKey, string][] = [
  ["date", "Date"],
  ["single_stream", "Single stream tok/s"],
  ["peak", "Peak tok/s"],
  ["name", "Name"],
  ["engine", "Engine"],
  ["model", "Model"],
];

/** The filters in force, for the folded filter panel on a phone. */
function filterSummary(query: RunListQuery): string {
  const parts = [
    query.q ? `“${query.q}”` : null,
    query.engine ? `engine ${query.engine}` : null,
    query.model ? `model ${query.model}` : null,
    query.gpu ? `GPU ${query.gpu}` : null,
    query.tag ? `tag ${query.tag}` : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(" · ") : "none set";
}

function EmptyHistory() {
  return (
    <div
      className="rounded-lg border border-dashed border-zinc-300 p-8 dark:border-zinc-700"
      data-testid="empty-history"
    >
      <h2 className="text-lg font-semibold">No runs yet</h2>
      <p className="mt-2 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
        A run is one benchmark of an inference server: an engine and its launch flags, a model, hardware, and the
        figures measured at each concurrency level. Add the first one:
      </p>
      <ol className="mt-4 list-decimal space-y-3 pl-5 text-sm">
        <li>
          <Link href="/upload" className="font-medium text-blue-700 hover:underline dark:text-blue-400">
            Upload a results file
          </Link>{" "}
          in the browser and fill in what the file does not say (engine, model, GPU, launch command).
        </li>
        <li>
          Or post a servebench/v1 document from a script:
          <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-100 p-3 text-xs dark:bg-zinc-900">
            {`curl -X POST http://localhost:3000/api/runs \\
  -H 'Content-Type: application/json' \\
  --data @run.json`}
          </pre>
          The format is described by its{" "}
          <a href="/api/schema" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
            JSON Schema
          </a>
          .
        </li>
      </ol>
    </div>
  );
}

function FilterSelect({
  name,
  label,
  value,
  options,
  labelOf = (option) => option,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: string[];
  /** How an option reads, when not as stored (the unknown engine reads "engine not stated"). */
  labelOf?: (option: string) => string;
}) {
  return (
    <div className="min-w-[9rem]">
      <label htmlFor={`filter-${name}`} className={labelClass}>
        {label}
      </label>
      <select id={`filter-${name}`} name={name} defaultValue={value ?? ""} className={inputClass}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {labelOf(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

export default async function HistoryPage({ searchParams }: { searchParams: SearchParams }) {
  const query = parseListQueryLenient(pageSearchParams(await searchParams));
  const [totalAll, list, options] = await Promise.all([countRuns(), listRuns(query), listFilterOptions()]);
  const { runs, total, total_exact: totalExact } = list;

  if (totalAll === 0) {
    return (
      <>
        <PageHeader title="Runs" subtitle="Every benchmark your team has kept." />
        <EmptyHistory />
      </>
    );
  }

  const changeBadges = await changeBadgesOfRuns(runs.map((run) => run.id));
  const filtered = Boolean(query.q || query.engine || query.model || query.gpu || query.tag);
  const pages = Math.max(1, Math.ceil(total / query.per_page));
  const first = total === 0 ? 0 : (query.page - 1) * query.per_page + 1;
  const last = Math.min(total, query.page * query.per_page);
  const columns: Record<string, SortableColumn> = {
    name: sortColumn(query, "name", "Name"),
    engine: sortColumn(query, "engine", "Engine"),
    model: sortColumn(query, "model", "Model"),
    hardware: { label: "Hardware", href: null, active: null },
    single_stream: sortColumn(query, "single_stream", "Single stream tok/s", true),
    peak: sortColumn(query, "peak", "Peak tok/s", true),
    date: sortColumn(query, "date", "Date"),
    tags: { label: "Tags", href: null, active: null },
  };

  return (
    <>
      <PageHeader
        title="Runs"
        subtitle={`${totalAll} run${totalAll === 1 ? "" : "s"} kept. Tick runs to compare them.`}
        actions={
          <Link href="/upload" className={primaryButtonClass}>
            Upload a run
          </Link>
        }
      />
      <search>
        <Collapsible label="Filters" summary={filterSummary(query)} testId="history-filters">
          <form method="get" action="/" className="mb-4 flex flex-wrap items-end gap-3">
            <div className="min-w-[14rem] flex-1">
              <label htmlFor="filter-q" className={labelClass}>
                Search name, model, command, notes
              </label>
              <input
                id="filter-q"
                name="q"
                type="search"
                defaultValue={query.q ?? ""}
                className={inputClass}
                placeholder="e.g. cuda-graph"
              />
            </div>
            <FilterSelect
              name="engine"
              label="Engine"
              value={query.engine}
              options={options.engines}
              labelOf={(engine) => (isUnknownEngine(engine) ? "engine not stated" : engine)}
            />
            <FilterSelect name="model" label="Model" value={query.model} options={options.models} />
            <FilterSelect name="gpu" label="GPU" value={query.gpu} options={options.gpus} />
            <FilterSelect name="tag" label="Tag" value={query.tag} options={options.tags} />
            {/* The table's headers sort on a laptop; a phone shows no header row, so it sorts here. */}
            <div className="flex gap-3 sm:hidden">
              <div>
                <label htmlFor="filter-sort" className={labelClass}>
                  Sort by
                </label>
                <select id="filter-sort" name="sort" defaultValue={query.sort} className={inputClass}>
                  {SORT_CHOICES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor="filter-dir" className={labelClass}>
                  Order
                </label>
                <select id="filter-dir" name="dir" defaultValue={query.dir} className={inputClass}>
                  <option value="desc">highest, newest, Z→A first</option>
                  <option value="asc">lowest, oldest, A→Z first</option>
                </select>
              </div>
            </div>
            <button type="submit" className={buttonClass}>
              Filter
            </button>
            {filtered ? (
              <Link href="/" className="py-1.5 text-sm text-blue-700 hover:underline dark:text-blue-400">
                Clear filters
              </Link>
            ) : null}
          </form>
        </Collapsible>
      </search>

      {list.search_complete === false ? (
        <p
          className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          role="status"
          data-testid="search-partial"
        >
          The search read {list.runs_searched ?? 0} of the runs,{" "}
          {query.sort === "date" && query.dir === "desc" ? "the newest" : "the first in this order"}, and stopped there:
          a text no index can narrow down (fewer than three characters, or found in too many runs) is looked for run by
          run, and one search reads only so much. Runs after them were not searched; a longer or rarer text, or a
          filter, reaches them.
        </p>
      ) : null}
      {total > 0 && query.page > pages ? (
        <div
          className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700"
          data-testid="page-past-end"
        >
          There is no page {query.page}: {total} run{total === 1 ? "" : "s"} fill{total === 1 ? "s" : ""} {pages} page
          {pages === 1 ? "" : "s"} of {query.per_page}.{" "}
          <Link
            href={historyHref({ ...query, page: pages })}
            className="font-medium text-blue-700 hover:underline dark:text-blue-400"
          >
            Go to the last page ({pages})
          </Link>
        </div>
      ) : total === 0 ? (
        <div
          className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700"
          data-testid="no-matches"
        >
          {list.search_complete === false
            ? `None of the ${list.runs_searched ?? 0} runs read match.`
            : "No runs match these filters."}{" "}
          <Link href="/" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
            Clear filters
          </Link>
        </div>
      ) : (
        <>
          <RunHistoryTable runs={historyRowsOf(runs)} columns={columns} changeBadges={changeBadges} />
          <nav className="mt-4 flex flex-wrap items-center justify-between gap-3 text-sm" aria-label="Pagination">
            <span className="text-zinc-600 dark:text-zinc-400" data-testid="pagination-summary">
              {first}–{last} of {totalExact ? total : `more than ${total}`}
            </span>
            <span className="flex items-center gap-2">
              {query.page > 1 ? (
                <Link className={buttonClass} href={historyHref({ ...query, page: query.page - 1 })} rel="prev">
                  ← Previous
                </Link>
              ) : null}
              <span className="text-zinc-600 dark:text-zinc-400">
                Page {Math.min(query.page, pages)} of {totalExact ? pages : `more than ${pages}`}
              </span>
              {query.page < pages || (!totalExact && runs.length === query.per_page) ? (
                <Link className={buttonClass} href={historyHref({ ...query, page: query.page + 1 })} rel="next">
                  Next →
                </Link>
              ) : null}
            </span>
          </nav>
        </>
      )}
    </>
  );
}
