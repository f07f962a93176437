"use client";

/**
 * The history table with a checkbox per row. The selection survives paging and filtering (kept in session
 * storage) so runs from different pages can be compared together.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { type ChangeBadge, RunChangeBadges } from "@/components/series/RunChangeBadges";
import {
  buttonClass,
  DemoBadge,
  primaryButtonClass,
  Tag,
  tableClass,
  tdClass,
  thClass,
} from "@/components/ui/primitives";
import { formatDate, formatHardware, formatLoadLevel, formatNumber } from "@/lib/format";
import type { RunSummary } from "@/lib/runs/queries";

const STORAGE_KEY = "servebench:selected-runs";
const MAX_COMPARED = 12;

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
  runs: RunSummary[];
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
    const arrow = column.active === "asc" ? " ↑" : column.active === "desc" ? " ↓" : "";
    return (
      <th
        className={`${thClass} ${column.numeric ? "text-right" : ""}`}
        aria-sort={column.active === "asc" ? "ascending" : column.active === "desc" ? "descending" : undefined}
      >
        {column.href ? (
          <Link href={column.href} className="hover:text-zinc-900 dark:hover:text-white">
            {column.label}
            {arrow}
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
      <div className="sticky top-0 z-10 mb-2 flex flex-wrap items-center gap-3 bg-white/90 py-2 backdrop-blur dark:bg-zinc-950/90">
        <button
          type="button"
          className={primaryButtonClass}
          disabled={selected.length < 2 || tooMany}
          onClick={() => router.push(`/compare?runs=${selected.map(encodeURIComponent).join(",")}`)}
          data-testid="compare-selected"
        >
          Compare selected ({selected.length})
        </button>
        {selected.length > 0 ? (
          <button type="button" className={buttonClass} onClick={() => update([])}>
            Clear selection
          </button>
        ) : null}
        <span className="text-sm text-zinc-500 dark:text-zinc-400">
          {tooMany
            ? `At most ${MAX_COMPARED} runs can be compared at once.`
            : selected.length < 2
              ? "Tick two or more runs to compare them; the first ticked is the baseline."
              : "The first ticked run is the baseline."}
        </span>
      </div>
      <div className="overflow-x-auto">
        <table className={tableClass} data-testid="runs-table">
          <thead>
            <tr>
              <th className={`${thClass} w-8`}>
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
          <tbody>
            {runs.map((run) => {
              const checked = selected.includes(run.id);
              return (
                <tr
                  key={run.id}
                  className={checked ? "bg-blue-50 dark:bg-blue-950/40" : "hover:bg-zinc-50 dark:hover:bg-zinc-900"}
                  data-run-id={run.id}
                >
                  <td className={tdClass}>
                    <input
                      type="checkbox"
                      className="h-4 w-4 accent-blue-600"
                      checked={checked}
                      onChange={() => toggle(run.id)}
                      aria-label={`Select ${run.name}`}
                    />
                  </td>
                  <td className={`${tdClass} max-w-xs`}>
                    <Link href={run.url} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
                      {run.name}
                    </Link>
                    <RunChangeBadges badges={changeBadges[run.id]} seriesId={run.series_id} />
                    {run.tags.includes("demo") ? (
                      <span className="ml-2">
                        <DemoBadge />
                      </span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>
                    {run.engine}
                    {run.engine_version ? (
                      <span className="text-zinc-500 dark:text-zinc-400"> {run.engine_version}</span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} max-w-[14rem] break-words`}>{run.model}</td>
                  <td className={tdClass}>{formatHardware(run.hardware)}</td>
                  <td className={`${tdClass} num`}>
                    {run.single_stream ? (
                      <span
                        title={run.single_stream.derived ? "Derived: 1000 / mean TPOT at concurrency 1" : undefined}
                      >
                        {formatNumber(run.single_stream.output_tok_s)}
                        {run.single_stream.derived ? "*" : ""}
                      </span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className={`${tdClass} num`}>
                    {run.peak ? (
                      <>
                        {formatNumber(run.peak.output_tok_s)}{" "}
                        <span className="text-xs text-zinc-500 dark:text-zinc-400">@ {formatLoadLevel(run.peak)}</span>
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`} title={run.measured_at ? "Measured" : "Uploaded"}>
                    {formatDate(run.measured_at ?? run.created_at)}
                  </td>
                  <td className={tdClass}>
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
    </div>
  );
}
