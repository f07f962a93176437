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
  parsePrices,
  pricesQuery,
} from "@/lib/analysis/comparison";
import { DEFAULT_SLO_STAT } from "@/lib/analysis/slo";
import { MAX_TITLE_LENGTH } from "./schema";

type Params = Record<string, string | string[] | undefined>;

/** The query parameters a saved comparison's page accepts on top of its saved view. */
export const VIEW_OVERRIDE_KEYS = [
  "baseline",
  "noise",
  "hide",
  "stat",
  "logy",
  "slo_ttft",
  "slo_tpot",
  "slo_stat",
  "price",
  "at_user",
] as const;

export interface SavedViewFields {
  runs: string[];
  baseline: string | null;
  noise: number | null;
  hide: string[];
  stat: CompareStat;
  log_y?: boolean;
  slo?: { ttft_ms: number | null; tpot_ms: number | null; stat: CompareStat };
  price?: string;
  at_user?: number | null;
}

export function savedCompareView(saved: SavedViewFields): CompareView {
  return {
    runIds: [...saved.runs],
    baselineId: saved.baseline,
    noisePct: saved.noise,
    hidden: [...saved.hide],
    stat: saved.stat,
    logY: saved.log_y ?? false,
    slo: saved.slo ? { ...saved.slo } : { ttft_ms: null, tpot_ms: null, stat: DEFAULT_SLO_STAT },
    prices: parsePrices(saved.price),
    atUser: saved.at_user ?? null,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The saved view, then each of baseline, noise, hide, stat, logy, slo_ttft, slo_tpot, slo_stat, price and
 * at_user the URL holds. The runs always stay the saved
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
  // The rest: present means override (an empty value clears a target, a price or the chosen interactivity).
  if (params.logy !== undefined) view.logY = parsed.logY;
  if (params.slo_ttft !== undefined) view.slo = { ...view.slo, ttft_ms: parsed.slo.ttft_ms };
  if (params.slo_tpot !== undefined) view.slo = { ...view.slo, tpot_ms: parsed.slo.tpot_ms };
  if (params.slo_stat !== undefined) view.slo = { ...view.slo, stat: parsed.slo.stat };
  if (params.price !== undefined) view.prices = parsed.prices;
  if (params.at_user !== undefined) view.atUser = parsed.atUser;
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

/** What POST /api/comparisons takes to save a view as it is shown (defaults left out). */
export interface SaveFields {
  runs: string[];
  baseline?: string;
  noise?: number;
  hide: string[];
  stat: CompareStat;
  log_y?: boolean;
  slo?: { ttft_ms: number | null; tpot_ms: number | null; stat: CompareStat };
  price?: string;
  at_user?: number;
}

export function saveFieldsOf(view: CompareView): SaveFields {
  const fields: SaveFields = {
    runs: [...view.runIds],
    hide: view.hidden.filter((id) => view.runIds.includes(id)),
    stat: view.stat,
  };
  if (view.baselineId && view.runIds.includes(view.baselineId)) fields.baseline = view.baselineId;
  if (view.noisePct !== null) fields.noise = view.noisePct;
  if (view.logY) fields.log_y = true;
  if (view.slo.ttft_ms !== null || view.slo.tpot_ms !== null) fields.slo = { ...view.slo };
  const price = pricesQuery(view.prices);
  if (price) fields.price = price;
  if (view.atUser !== null) fields.at_user = view.atUser;
  return fields;
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
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/** What a reader counts as characters: an emoji with its modifiers, or a letter with its marks, is one. */
export function graphemeLength(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}

/**
 * `text` on one line, cut to at most `max` characters as a reader counts them (never inside an emoji or a letter
 * with its marks), at a word break when one is near, with "…".
 */
export function truncateText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const parts = [...graphemes.segment(flat)].map((part) => part.segment);
  if (parts.length <= max) return flat;
  const cut = parts.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).join("").trimEnd()}…`;
}

/** The title a comparison is saved under when none is given: its own summary title, cut to fit. */
export function defaultComparisonTitle(summaryTitle: string): string {
  // The stored title is limited in UTF-16 units (as every text field is): cut further where emoji count double.
  let limit = MAX_TITLE_LENGTH;
  let title = truncateText(summaryTitle, limit);
  while (title.length > MAX_TITLE_LENGTH && limit > 1) {
    limit -= title.length - MAX_TITLE_LENGTH;
    title = truncateText(summaryTitle, Math.max(1, limit));
  }
  return title || "Comparison";
}

/** The first lines of a saved comparison's notes for lists. */
export function notesExcerpt(notes: string | null, max = 240): string | null {
  if (notes === null) return null;
  const text = truncateText(notes, max);
  return text === "" ? null : text;
}
