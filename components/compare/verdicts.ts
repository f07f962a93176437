/** How a change against the baseline reads, by verdict: its colour (a class of app/globals.css) and its tooltip. */
import type { Verdict } from "@/lib/analysis/deltas";

// Named once in app/globals.css: a comparison of 8 runs has ~650 cells, and each class string is written into
// the page's HTML and again into the data React hydrates from.
export const VERDICT_CLASS: Record<Verdict, string> = {
  better: "verdict-better",
  worse: "verdict-worse",
  noise: "muted",
  inconclusive: "muted",
  same: "muted",
  none: "muted",
};

export const VERDICT_TITLE: Partial<Record<Verdict, string>> = {
  noise: "Within noise",
  inconclusive: "The repeats' intervals overlap: the change cannot be told from repeat-to-repeat variation",
};
