/**
 * What an embed's URL may say beyond the view it shows: which charts, how tall, which theme. Anything else falls
 * back to the default, as the pages' own lenient parameters do (a mistyped embed still shows a chart).
 */
export const EMBED_CHARTS = ["throughput", "efficiency", "tpot", "ttft"] as const;
export type EmbedChart = (typeof EMBED_CHARTS)[number];

export const EMBED_HEIGHT = { min: 160, max: 1_200, default: 320 } as const;
/** The frame the snippet asks for: one chart of the default height, with the title and a verdict above it. */
export const EMBED_FRAME_HEIGHT = 480;

type Params = Record<string, string | string[] | undefined>;

// Its own copy, not view.ts's: the Embed button (a client component) imports this module, and view.ts would bring
// zod into the browser bundle, whose eval probe the pages' CSP reports as a violation.
function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `chart=throughput,tpot`: the charts in the order asked, each once; throughput when none is valid. */
export function embedCharts(params: Params): EmbedChart[] {
  const asked = (first(params.chart) ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name): name is EmbedChart => (EMBED_CHARTS as readonly string[]).includes(name));
  return asked.length > 0 ? [...new Set(asked)] : ["throughput"];
}

/** `height=240`: each chart's height in px, within 160–1,200. */
export function embedHeight(params: Params): number {
  const text = first(params.height);
  const value = text !== undefined && /^\d{1,5}$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) return EMBED_HEIGHT.default;
  return Math.min(EMBED_HEIGHT.max, Math.max(EMBED_HEIGHT.min, value));
}

/** The iframe snippet the "Embed" buttons copy: absolute, lazy, borderless, titled for screen readers. */
export function iframeSnippet(src: string, title: string, height: number): string {
  const attribute = (text: string) =>
    text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<iframe src="${attribute(src)}" title="${attribute(title)}" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
}
