"use client";

/**
 * Draws its children only once they come near the viewport, and keeps them drawn after. Charts are the heaviest
 * thing a page hydrates (Recharts lays out every axis, line and dot on the main thread), and most of them sit
 * below the first screen: deferring each to the moment it is scrolled to keeps the page answering while it
 * loads. Until then a box of the chart's height stands in, so nothing moves when the chart appears.
 *
 * Any chart can use it: wrap the Recharts part, loaded with next/dynamic, in <InView height={…}>.
 */
import { type ReactNode, startTransition, useEffect, useRef, useState } from "react";

/**
 * A chart starts drawing when any of it enters the viewport, not before: one just below the first screen would
 * otherwise draw while the page is still loading, on the same main thread the reader is waiting on.
 */
const AHEAD = "0px";

export function InView({ height, children, label }: { height: number; children: ReactNode; label?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);

  useEffect(() => {
    const element = box.current;
    if (!element || near) return;
    if (typeof IntersectionObserver === "undefined") {
      setNear(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          // A transition: React may draw the chart in slices, so a scroll or a click is never kept waiting.
          startTransition(() => setNear(true));
          observer.disconnect();
        }
      },
      { rootMargin: AHEAD },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [near]);

  return (
    <div ref={box} className="flex flex-col" style={{ minHeight: height }} data-in-view={near ? "true" : "false"}>
      {near ? children : <ChartPlaceholder label={label} />}
    </div>
  );
}

/** The stand-in of a chart not drawn yet, or whose code is still loading: it fills the box InView holds. */
export function ChartPlaceholder({ label }: { label?: string }) {
  return (
    <div
      className="flex flex-1 items-center justify-center rounded-md bg-zinc-50 text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400"
      aria-hidden
    >
      {label ?? "Drawing the chart…"}
    </div>
  );
}
