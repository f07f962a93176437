"use client";

/**
 * The history table with a checkbox per row. The selection survives paging and filtering (kept in session
 * storage) so runs from different pages can be compared together.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { type ChangeBadge, RunChangeBadges } from "@/components/series/RunChangeBadges";
import { startNavigationProgress } from "@/components/ui/NavigationProgress";
import {
  buttonClass,
  DemoBadge,
  primaryButtonClass,
  Tag,
  tableClass,
  tdClass,
  thClass,
} from "@/components/ui/primitives";
import type { HistoryRow } from "@/lib/runs/history-rows";

const STORAGE_KEY = "servebench:selected-runs";
const MAX_COMPARED = 12;

// On a phone each run is a small card: the tick on the left, then name; engine and model; single stream and
// peak; hardware; date and tags. From `sm` up it is the table row it always was. The classes are named once in
// app/globals.css (.history-row, .history-cell, …): a row's utilities spelled out were 1.3 kB of every row.
const ROW = "history-row";
const CELL = "history-cell";

/** The run's own colour (lib/analysis/colors.ts), the one its lines have in every chart. */
function RunSwatch({ color }: { color: string }) {
  return (
    <span
      className="mr-1.5 inline-block h-2.5 w-2.5 rounded-full align-baseline"
      style={{ background: color }}
      aria-hidden
    />
  );
}

export interface SortableColumn {
  label: string;
  href: string | null;
  active: "asc" | "desc" | null;
  numeric?: boolean;
}

function readStoredSelection(): string[] {
  try {
    const raw = window.sessionStorage.getItem(STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

export function RunHistoryTable({
  runs,
  columns,
  changeBadges = {},
}: {
  /** The page's runs as they read (lib/runs/history-rows.ts): formatted on the server, so little is sent. */
  runs: HistoryRow[];
  columns: Record<string, SortableColumn>;
  /** Per run, the series changes it is part of (lib/series/queries.ts changeBadgesOfRuns). */
  changeBadges?: Record<string, ChangeBadge[]>;
}) {
  const router = useRouter();
  const [selected, setSelected] = useState<string[]>([]);

  useEffect(() => setSelected(readStoredSelection()), []);
  const update = (next: string[]) => {
    setSelected(next);
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  };
  const toggle = (id: string) =>
    update(selected.includes(id) ? selected.filter((other) => other !== id) : [...selected, id]);

  const header = (key: string) => {
    const column = columns[key];
    if (!column) return null;
    // Every sortable header says so: an arrow for the sorted column, a double arrow for the others.
    const arrow = column.active === "asc" ? "↑" : column.active === "desc" ? "↓" : "↕";
    return (
      <th
        scope="col"
        className={`${thClass} ${column.numeric ? "text-right" : ""}`}
        aria-sort={column.active === "asc" ? "ascending" : column.active === "desc" ? "descending" : undefined}
      >
        {column.href ? (
          <Link
            href={column.href}
            className="inline-flex items-center gap-1 whitespace-nowrap hover:text-zinc-900 dark:hover:text-white"
            title={`Sort by ${column.label.toLowerCase()}`}
          >
            {column.label}
            <span aria-hidden>{arrow}</span>
          </Link>
        ) : (
          column.label
        )}
      </th>
    );
  };

  const tooMany = selected.length > MAX_COMPARED;
  return (
    <div>
      <div className="sm:overflow-x-auto">
        <table className={`${tableClass} max-sm:block`} data-testid="runs-table">
          <thead className="max-sm:sr-only">
            <tr>
              <th scope="col" className={`${thClass} w-8`}>
                <span className="sr-only">Select</span>
              </th>
              {header("name")}
              {header("engine")}
              {header("model")}
              {header("hardware")}
              {header("single_stream")}
              {header("peak")}
              {header("date")}
              {header("tags")}
            </tr>
          </thead>
          <tbody className="max-sm:block">
            {runs.map((run) => {
              const checked = selected.includes(run.id);
              return (
                <tr
                  key={run.id}
                  className={`${ROW} ${checked ? "bg-blue-50 dark:bg-blue-950" : "hover:bg-zinc-50 dark:hover:bg-zinc-900"}`}
                  data-run-id={run.id}
                >
                  <td className={`${tdClass} ${CELL} max-sm:row-span-5 max-sm:pt-0.5`}>
                    <input
                      type="checkbox"
                      className="h-4 w-4 accent-blue-600"
                      checked={checked}
                      onChange={() => toggle(run.id)}
                      aria-label={`Select ${run.name}`}
                    />
                  </td>
                  <td className={`${tdClass} ${CELL} max-w-xs max-sm:col-span-2 max-sm:max-w-none`}>
                    <RunSwatch color={run.color} />
                    <Link href={`/runs/${run.id}`} className="run-link">
                      {run.name}
                    </Link>
                    <RunChangeBadges badges={changeBadges[run.id]} seriesId={run.series_id} />
                    {run.demo ? (
                      <span className="ml-2">
                        <DemoBadge />
                      </span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} ${CELL} whitespace-nowrap max-sm:text-sm`}>
                    {run.engine}
                    {run.engine_version ? (
                      <span className="text-zinc-600 dark:text-zinc-400"> {run.engine_version}</span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} ${CELL} max-w-[14rem] break-words max-sm:text-sm`}>{run.model}</td>
                  <td className={`${tdClass} ${CELL} max-sm:col-span-2 history-minor`}>{run.hardware}</td>
                  <td className={`${tdClass} ${CELL} num max-sm:text-left`}>
                    <span className="history-label">single stream </span>
                    {run.single_stream ? (
                      <span
                        title={run.single_stream_derived ? "Derived: 1000 / mean TPOT at concurrency 1" : undefined}
                      >
                        {run.single_stream}
                        {run.single_stream_derived ? "*" : ""}
                      </span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className={`${tdClass} ${CELL} num max-sm:text-left`}>
                    <span className="history-label">peak </span>
                    {run.peak ? (
                      <>
                        {run.peak} <span className="text-xs text-zinc-600 dark:text-zinc-400">@ {run.peak_level}</span>
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td
                    className={`${tdClass} ${CELL} whitespace-nowrap history-minor`}
                    title={run.measured ? "Measured" : "Uploaded"}
                  >
                    {run.date}
                  </td>
                  <td className={`${tdClass} ${CELL}`}>
                    <div className="flex flex-wrap gap-1">
                      {run.tags.map((tag) => (
                        <Tag key={tag}>{tag}</Tag>
                      ))}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <section
        className="sticky bottom-0 z-20 -mx-4 mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-zinc-200 bg-white px-4 py-2 dark:border-zinc-800 dark:bg-zinc-950"
        data-testid="selection-bar"
        aria-label="Selection"
      >
        <button
          type="button"
          className={primaryButtonClass}
          disabled={selected.length < 2 || tooMany}
          onClick={() => {
            startNavigationProgress();
            router.push(`/compare?runs=${selected.map(encodeURIComponent).join(",")}`);
          }}
          data-testid="compare-selected"
        >
          Compare selected ({selected.length})
        </button>
        {selected.length > 0 ? (
          <button type="button" className={buttonClass} onClick={() => update([])}>
            Clear selection
          </button>
        ) : null}
        <span className="text-sm text-zinc-600 dark:text-zinc-400" aria-live="polite">
          {tooMany
            ? `At most ${MAX_COMPARED} runs can be compared at once.`
            : selected.length < 2
              ? "Tick two or more runs to compare them; the first ticked is the baseline."
              : "The first ticked run is the baseline."}
        </span>
      </section>
    </div>
  );
}
