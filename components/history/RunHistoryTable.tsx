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
import { buttonClass, DemoBadge, primaryButtonClass, Tag, tableClass, thClass } from "@/components/ui/primitives";
import { isUnknownEngine } from "@/lib/document/names";
import type { HistoryRow } from "@/lib/runs/history-rows";

const STORAGE_KEY = "servebench:selected-runs";
const MAX_COMPARED = 12;

// On a phone each run is a small card: the tick on the left, then name; engine and model; single stream and
// peak; hardware; date and tags. From `sm` up it is the table row it always was. A row's look is named once in
// app/globals.css (.history-row, one class per column, the ticked row's background by :has(:checked)): a page
// renders and sends every element and class of every row, and at 25 rows they were most of its cost.
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
  changeBadges,
}: {
  /** The page's runs as they read (lib/runs/history-rows.ts): formatted on the server, so little is sent. */
  runs: HistoryRow[];
  columns: Record<string, SortableColumn>;
  /** Per run, the series changes it is part of (lib/series/alerts.ts changeBadgesOfRuns). */
  changeBadges?: ReadonlyMap<string, ChangeBadge[]>;
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
                <tr key={run.id} className="history-row" data-run-id={run.id}>
                  <td className="hc-tick">
                    <input
                      type="checkbox"
                      checked={checked}
                      onChange={() => toggle(run.id)}
                      aria-label={`Select ${run.name}`}
                    />
                  </td>
                  <td className="hc-name">
                    <span className="swatch" style={{ background: run.color }} aria-hidden />
                    <Link href={`/runs/${run.id}`} className="run-link">
                      {run.name}
                    </Link>
                    <RunChangeBadges badges={changeBadges?.get(run.id)} seriesId={run.series_id} />
                    {run.demo ? (
                      <span className="ml-2">
                        <DemoBadge />
                      </span>
                    ) : null}
                  </td>
                  <td className="hc-engine">
                    {isUnknownEngine(run.engine) ? <span className="muted">not stated</span> : run.engine}
                    {run.engine_version ? <span className="muted">{` ${run.engine_version}`}</span> : null}
                  </td>
                  <td className="hc-model">{run.model}</td>
                  <td className="hc-hardware">{run.hardware}</td>
                  <td className="hc-num">
                    <span className="history-label">single stream </span>
                    {run.single_stream === null ? (
                      "—"
                    ) : run.single_stream_derived ? (
                      <span title="Derived: 1000 / mean TPOT at concurrency 1">{`${run.single_stream}*`}</span>
                    ) : (
                      run.single_stream
                    )}
                  </td>
                  <td className="hc-num">
                    <span className="history-label">peak </span>
                    {run.peak === null ? (
                      "—"
                    ) : (
                      <>
                        {`${run.peak} `}
                        <span className="hc-level">{`@ ${run.peak_level}`}</span>
                      </>
                    )}
                  </td>
                  <td className="hc-date" title={run.measured ? "Measured" : "Uploaded"}>
                    {run.date}
                  </td>
                  <td>
                    <div className="hc-tags">
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
      {/* On a phone the bar is one row (the hint in small type beside the buttons), so it keeps a tenth of the
          screen at most instead of a fifth. */}
      <section
        className="sticky bottom-0 z-20 -mx-4 mt-2 flex items-center gap-x-3 gap-y-1 border-t border-zinc-200 bg-white px-4 py-2 sm:flex-wrap dark:border-zinc-800 dark:bg-zinc-950"
        data-testid="selection-bar"
        aria-label="Selection"
      >
        <button
          type="button"
          className={`${primaryButtonClass} shrink-0`}
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
          <button type="button" className={`${buttonClass} shrink-0`} onClick={() => update([])}>
            Clear<span className="max-sm:sr-only"> selection</span>
          </button>
        ) : null}
        <span
          className="min-w-0 text-xs leading-snug text-zinc-600 sm:text-sm dark:text-zinc-400"
          aria-live="polite"
          data-testid="selection-hint"
        >
          {tooMany ? (
            `At most ${MAX_COMPARED} runs can be compared at once.`
          ) : selected.length < 2 ? (
            <>
              <span className="sm:hidden">Tick two or more runs; the first is the baseline.</span>
              <span className="max-sm:hidden">
                Tick two or more runs to compare them; the first ticked is the baseline.
              </span>
            </>
          ) : (
            "The first ticked run is the baseline."
          )}
        </span>
      </section>
    </div>
  );
}
