/**
 * Pure helpers between a saved comparison and the view it opens with: the saved view, the URL parameters
 * that override it on /c/<slug>, the link-preview image's address, and short texts for lists.
 */
import {
  COMPARE_STATS,
  type CompareStat,
  type CompareView,
  compareQuery,
  parseCompareView,
} from "@/lib/analysis/comparison";
import { MAX_TITLE_LENGTH } from "./schema";

type Params = Record<string, string | string[] | undefined>;

/** The query parameters a saved comparison's page accepts on top of its saved view. */
export const VIEW_OVERRIDE_KEYS = ["baseline", "noise", "hide", "stat"] as const;

export interface SavedViewFields {
  runs: string[];
  baseline: string | null;
  noise: number;
  hide: string[];
  stat: CompareStat;
}

export function savedCompareView(saved: SavedViewFields): CompareView {
  return {
    runIds: [...saved.runs],
    baselineId: saved.baseline,
    noisePct: saved.noise,
    hidden: [...saved.hide],
    stat: saved.stat,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The saved view, then each of baseline, noise, hide and stat the URL holds. The runs always stay the saved
 * ones. An empty `hide=` shows every series; an empty `baseline=` makes the first run the baseline; an
 * invalid noise or stat keeps the saved value.
 */
export function withViewOverrides(saved: CompareView, params: Params): CompareView {
  const view: CompareView = { ...saved, runIds: [...saved.runIds], hidden: [...saved.hidden] };
  const parsed = parseCompareView(params);
  if (params.baseline !== undefined) view.baselineId = parsed.baselineId;
  if (params.hide !== undefined) view.hidden = parsed.hidden;
  const noise = first(params.noise);
  if (noise !== undefined && noise.trim() !== "") {
    const number = Number(noise);
    if (Number.isFinite(number) && number >= 0 && number <= 100) view.noisePct = number;
  }
  const stat = first(params.stat);
  if (stat !== undefined && COMPARE_STATS.includes(stat as CompareStat)) view.stat = stat as CompareStat;
  return view;
}

/** Only the override parameters, as a query string (`baseline=x&stat=p99`), in a fixed order. */
export function overrideQuery(params: Params): string {
  const out = new URLSearchParams();
  for (const key of VIEW_OVERRIDE_KEYS) {
    const value = params[key];
    if (value === undefined) continue;
    out.set(key, Array.isArray(value) ? (key === "hide" ? value.join(",") : (value[0] ?? "")) : value);
  }
  return out.toString().replace(/%2C/g, ",");
}

/** The link-preview image of a comparison view: /api/og takes the same parameters as /compare. */
export function ogImagePath(view: CompareView): string {
  return `/api/og?${compareQuery(view)}`;
}

/** The link-preview image of a saved comparison, with the overrides its page URL carries. */
export function savedOgImagePath(slug: string, params: Params = {}): string {
  const overrides = overrideQuery(params);
  return `/api/og?slug=${encodeURIComponent(slug)}${overrides ? `&${overrides}` : ""}`;
}

/** A text cut to `max` characters at a word boundary where one is near, with an ellipsis. */
export function truncateText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The title a comparison is saved under when none is given: its own summary title, cut to fit. */
export function defaultComparisonTitle(summaryTitle: string): string {
  return truncateText(summaryTitle, MAX_TITLE_LENGTH) || "Comparison";
}

/** The first lines of a saved comparison's notes for lists. */
export function notesExcerpt(notes: string | null, max = 240): string | null {
  if (notes === null) return null;
  const text = truncateText(notes, max);
  return text === "" ? null : text;
}
