/** The box every chart tooltip is drawn in: the page's own text and surface colours, in both themes. */
import type { ReactNode } from "react";

export function TooltipBox({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <div
      className="max-w-[22rem] rounded-md border border-zinc-200 bg-white p-2 text-xs text-zinc-900 shadow-md dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      data-testid={testId}
    >
      {children}
    </div>
  );
}
