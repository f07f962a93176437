"use client";

/**
 * A panel that a phone shows folded behind a button (so filters and view options do not fill the first screen)
 * and a laptop always shows open. Folded or not is a class, so the server's HTML is already right on both.
 */
import { type ReactNode, useId, useState } from "react";

export function Collapsible({
  label,
  summary,
  defaultOpen = false,
  children,
  testId,
}: {
  /** The button's words: "Filters", "View options". */
  label: string;
  /** What is set now, shown beside the button while folded: "engine vllm · tag fp8". */
  summary?: string;
  defaultOpen?: boolean;
  children: ReactNode;
  testId?: string;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const panel = useId();
  return (
    <div data-testid={testId}>
      <div className="mb-3 flex items-center gap-2 sm:hidden">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panel}
          onClick={() => setOpen(!open)}
          className="inline-flex shrink-0 items-center gap-1.5 rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium whitespace-nowrap text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
        >
          <span aria-hidden>{open ? "▾" : "▸"}</span>
          {label}
        </button>
        {!open && summary ? (
          <span className="min-w-0 truncate text-sm text-zinc-600 dark:text-zinc-400">{summary}</span>
        ) : null}
      </div>
      <div id={panel} className={open ? "block" : "hidden sm:block"}>
        {children}
      </div>
    </div>
  );
}
