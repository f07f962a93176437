/**
 * A comparison's view, in one place: what its URL holds (`CompareView`: runs, baseline, noise, hidden series,
 * statistic, SLO targets, prices), read from and written to query strings, and the converters between a saved
 * comparison and the view it opens with (the URL parameters that override it on /c/<slug>, the link-preview
 * image's address, short texts for lists). Pure.
 */
import { DEFAULT_NOISE } from "@/lib/analysis/deltas";
import { COMPARE_STATS, type CompareStat } from "@/lib/analysis/lines";
import { CDF_METRICS, type CdfMetric, DEFAULT_CDF_METRIC, isLevelKey } from "@/lib/analysis/request-cdf";
import { DEFAULT_SLO_STAT, type GpuPrices, hasPrices, hasTargets, type SloTargets } from "@/lib/analysis/slo";
import {
  CAPACITY_KEYS,
  type CapacityParams,
  type CapacityView,
  capacityParams,
  parseCapacityView,
  storedCapacityParams,
} from "./capacity-view";
import { MAX_TITLE_LENGTH } from "./limits";

type Params = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Everything the URL of a comparison holds. */
export interface CompareView {
  runIds: string[];
  /** A run id; its configuration's series is the baseline. Null means the first run. */
  baselineId: string | null;
  /** Noise threshold in percent: changes smaller than this are "within noise". Null: the default (see noiseOf). */
  noisePct: number | null;
  /** Series hidden from the charts, by the id of their first run. */
  hidden: string[];
  /** The latency statistic the TTFT and TPOT charts, tooltips and interactivity use. */
  stat: CompareStat;
  /** Line charts on a log y axis. */
  logY: boolean;
  /** Latency targets for the SLO view. */
  slo: SloTargets;
  /** $/GPU-hour, one price or one per GPU model. */
  prices: GpuPrices;
  /** The interactivity (tok/s/user) to compare throughput per GPU at; null picks one per pair. */
  atUser: number | null;
  /** The load level (a level key: `c:8`) the latency distributions are drawn at; null picks one. */
  cdfLevel: string | null;
  /** The latency the distributions are of. */
  cdfMetric: CdfMetric;
  /** SLO tiers, the capacity planner's demand, the inverse questions' ceiling and budgets, the bucket step. */
  capacity: CapacityView;
}

export const DEFAULT_NOISE_PCT = DEFAULT_NOISE * 100;

function list(value: string | string[] | undefined): string[] {
  const parts = (Array.isArray(value) ? value : value ? [value] : []).flatMap((item) => item.split(","));
  return [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
}

/** A positive number of at most `max`, else null. */
function positive(value: string | undefined, max: number): number | null {
  if (value === undefined || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 && number <= max ? number : null;
}

const MAX_PRICE = 10_000;
const MAX_LATENCY_MS = 3_600_000;

/** `cdf_level`: a load level key (`c:8`, `r:2.5`, `r:inf`); anything else is null (the default level). */
function cdfLevelOf(value: string | undefined): string | null {
  const key = value?.trim();
  return key && isLevelKey(key) ? key : null;
}

/** `cdf_metric`: `ttft`, `tpot` or `e2e`; null when it is none of them. */
function cdfMetricOf(value: string | undefined): CdfMetric | null {
  return CDF_METRICS.includes(value as CdfMetric) ? (value as CdfMetric) : null;
}

/**
 * `price=2.5` (every GPU) or `price=H100:3.1,RTX PRO 6000 Blackwell:2.5` (per GPU model, matched
 * case-insensitively; a bare number among them prices the rest). Invalid entries are ignored.
 */
export function parsePrices(value: string | undefined): GpuPrices {
  const prices: GpuPrices = { all: null, byGpu: {} };
  if (!value) return prices;
  for (const entry of value.split(",")) {
    const colon = entry.lastIndexOf(":");
    if (colon === -1) {
      const price = positive(entry, MAX_PRICE);
      if (price !== null) prices.all = price;
      continue;
    }
    const gpu = entry.slice(0, colon).trim().toLowerCase();
    const price = positive(entry.slice(colon + 1), MAX_PRICE);
    if (gpu && gpu.length <= 200 && price !== null) prices.byGpu[gpu] = price;
  }
  return prices;
}

/**
 * Why a `price` value the API was sent is not one (the page's URL ignores a bad entry; a saved comparison
 * refuses it, naming the entry): null when every entry is a price or a `GPU:price` pair.
 */
export function priceProblem(value: string): string | null {
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const colon = entry.lastIndexOf(":");
    const gpu = colon === -1 ? null : entry.slice(0, colon).trim();
    const price = positive(colon === -1 ? entry : entry.slice(colon + 1), MAX_PRICE);
    if (price === null)
      return `"${entry.slice(0, 60)}" is not a price: a $/GPU-hour above 0 and at most ${MAX_PRICE}, alone or as GPU:price`;
    if (gpu !== null && (gpu === "" || gpu.length > 200))
      return `"${entry.slice(0, 60)}" needs a GPU name before its price`;
  }
  return null;
}

export function pricesQuery(prices: GpuPrices): string {
  const parts = Object.entries(prices.byGpu).map(([gpu, price]) => `${gpu}:${price}`);
  if (prices.all !== null) parts.unshift(String(prices.all));
  return parts.join(",");
}

/** Read a comparison's view from query parameters; anything invalid falls back to its default. */
export function parseCompareView(params: Params): CompareView {
  const noiseText = first(params.noise);
  const noise = noiseText === undefined || noiseText.trim() === "" ? Number.NaN : Number(noiseText);
  const stat = first(params.stat);
  const sloStat = first(params.slo_stat);
  return {
    runIds: list(params.runs),
    baselineId: first(params.baseline)?.trim() || null,
    noisePct: Number.isFinite(noise) && noise >= 0 && noise <= 100 ? noise : null,
    hidden: list(params.hide),
    stat: COMPARE_STATS.includes(stat as CompareStat) ? (stat as CompareStat) : "mean",
    logY: first(params.logy) === "1",
    slo: {
      ttft_ms: positive(first(params.slo_ttft), MAX_LATENCY_MS),
      tpot_ms: positive(first(params.slo_tpot), MAX_LATENCY_MS),
      stat: COMPARE_STATS.includes(sloStat as CompareStat) ? (sloStat as CompareStat) : DEFAULT_SLO_STAT,
    },
    prices: parsePrices(first(params.price)),
    atUser: positive(first(params.at_user), 1_000_000),
    cdfLevel: cdfLevelOf(first(params.cdf_level)),
    cdfMetric: cdfMetricOf(first(params.cdf_metric)) ?? DEFAULT_CDF_METRIC,
    capacity: parseCapacityView(capacityParamsOf(params)),
  };
}

/** The capacity parameters among a URL's. */
function capacityParamsOf(params: Params): CapacityParams {
  const out: CapacityParams = {};
  for (const key of CAPACITY_KEYS) {
    const value = first(params[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The query string of a view, defaults left out and commas kept readable: `runs=a,b&baseline=b`. */
export function compareQuery(view: CompareView): string {
  const params = new URLSearchParams();
  params.set("runs", view.runIds.join(","));
  if (view.baselineId && view.runIds.includes(view.baselineId) && view.runIds[0] !== view.baselineId)
    params.set("baseline", view.baselineId);
  if (view.noisePct !== null) params.set("noise", String(view.noisePct));
  const hidden = view.hidden.filter((id) => view.runIds.includes(id));
  if (hidden.length > 0) params.set("hide", hidden.join(","));
  if (view.stat !== "mean") params.set("stat", view.stat);
  if (view.logY) params.set("logy", "1");
  if (view.slo.ttft_ms !== null) params.set("slo_ttft", String(view.slo.ttft_ms));
  if (view.slo.tpot_ms !== null) params.set("slo_tpot", String(view.slo.tpot_ms));
  if (hasTargets(view.slo) && view.slo.stat !== DEFAULT_SLO_STAT) params.set("slo_stat", view.slo.stat);
  if (hasPrices(view.prices)) params.set("price", pricesQuery(view.prices));
  if (view.atUser !== null) params.set("at_user", String(view.atUser));
  if (view.cdfLevel !== null) params.set("cdf_level", view.cdfLevel);
  if (view.cdfMetric !== DEFAULT_CDF_METRIC) params.set("cdf_metric", view.cdfMetric);
  for (const [key, value] of Object.entries(capacityParams(view.capacity))) params.set(key, value);
  // A value may hold "=" (a typed tier's ttft=300): only the first "=" of a pair separates, so it reads back.
  return params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":").replace(/%3D/g, "=");
}

export function compareHref(view: CompareView): string {
  return `/compare?${compareQuery(view)}`;
}

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
  "cdf_level",
  "cdf_metric",
  ...CAPACITY_KEYS,
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
  cdf_level?: string | null;
  cdf_metric?: CdfMetric;
  /** The capacity parameters as the URL writes them. */
  capacity?: CapacityParams;
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
    cdfLevel: saved.cdf_level ?? null,
    cdfMetric: saved.cdf_metric ?? DEFAULT_CDF_METRIC,
    capacity: parseCapacityView(storedCapacityParams(saved.capacity)),
  };
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
  // An empty `cdf_level=` goes back to the default level; a metric that is none keeps the saved one.
  if (params.cdf_level !== undefined) view.cdfLevel = parsed.cdfLevel;
  const cdfMetric = cdfMetricOf(first(params.cdf_metric));
  if (cdfMetric !== null) view.cdfMetric = cdfMetric;
  // Capacity parameters the URL holds replace the saved ones, one by one (an empty value restores a default).
  const capacity = capacityParamsOf(params);
  if (Object.keys(capacity).length > 0)
    view.capacity = parseCapacityView({ ...capacityParams(saved.capacity), ...capacity });
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
  cdf_level?: string;
  cdf_metric?: CdfMetric;
  capacity?: CapacityParams;
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
  if (view.cdfLevel !== null) fields.cdf_level = view.cdfLevel;
  if (view.cdfMetric !== DEFAULT_CDF_METRIC) fields.cdf_metric = view.cdfMetric;
  const capacity = capacityParams(view.capacity);
  if (Object.keys(capacity).length > 0) fields.capacity = capacity;
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
