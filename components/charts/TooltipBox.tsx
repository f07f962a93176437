"use client";

/**
 * The box every chart tooltip is drawn in: the page's own text and surface colours, in both themes, and never
 * past the screen's edges. Recharts keeps a tooltip inside the plot's left edge but lets one wider than the room
 * to its right run off the screen (a phone's chart is narrower than a tooltip of several runs): the box is
 * no wider than the screen, and moves itself back inside it each time Recharts moves the tooltip.
 */
import { type ReactNode, useLayoutEffect, useRef } from "react";

/** The room kept between a tooltip and the screen's edge, in pixels. */
const EDGE_PX = 8;

function keepInsideScreen(box: HTMLElement): void {
  box.style.translate = "";
  const rect = box.getBoundingClientRect();
  const right = document.documentElement.clientWidth - EDGE_PX;
  let shift = rect.right > right ? right - rect.right : 0;
  if (rect.left + shift < EDGE_PX) shift = EDGE_PX - rect.left;
  if (shift !== 0) box.style.translate = `${Math.round(shift)}px 0`;
}

export function TooltipBox({ children, testId }: { children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    keepInsideScreen(box);
    // Recharts places the tooltip by its wrapper's transform, set after it has measured this box.
    const wrapper = box.parentElement;
    if (!wrapper) return;
    const observer = new MutationObserver(() => keepInsideScreen(box));
    observer.observe(wrapper, { attributes: true, attributeFilter: ["style"] });
    return () => observer.disconnect();
  });
  return (
    <div
      ref={ref}
      className="max-w-[min(22rem,calc(100vw-1rem))] rounded-md border border-zinc-200 bg-white p-2 text-xs text-zinc-900 shadow-md dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      data-testid={testId}
    >
      {children}
    </div>
  );
}
