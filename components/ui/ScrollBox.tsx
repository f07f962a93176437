"use client";

/**
 * A wide table's box: it scrolls sideways inside itself (never the page), its first column stays in place
 * (globals.css .table-scroll), and it is a focusable region so a keyboard can scroll it too. Whenever the table
 * is wider than the box, at any screen width, a line above it says so; it is measured, not guessed, so a table
 * that fits says nothing.
 */
import { type ReactNode, useEffect, useRef, useState } from "react";

export function ScrollBox({
  children,
  label,
  testId,
  className = "",
}: {
  children: ReactNode;
  label: string;
  testId?: string;
  className?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setOverflows(box.scrollWidth > box.clientWidth + 1);
    // No measuring here: the observer reports every box once it is laid out, all boxes of the page in one pass after
    // the layout. Measuring each box as its effect ran forced a layout per box, each made stale by the hint the
    // one before added: a page of twenty tables laid itself out twenty times while it hydrated.
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      {overflows ? <ScrollHint /> : null}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must take focus to be scrolled by keyboard */}
      <section ref={ref} className={`table-scroll ${className}`} aria-label={label} tabIndex={0} data-testid={testId}>
        {children}
      </section>
    </>
  );
}

/** Said above a table wider than its box. */
export function ScrollHint() {
  return (
    <p className="mb-1 text-xs text-zinc-600 dark:text-zinc-400" aria-hidden data-testid="scroll-hint">
      <span className="sm:hidden">Swipe</span>
      <span className="max-sm:hidden">Scroll</span> the table sideways for more →
    </p>
  );
}
