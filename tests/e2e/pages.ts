/**
 * The pages every layout, contrast and keyboard test visits, on the real data of scripts/lighthouse/real-data.ts
 * (the same the Lighthouse table is measured on), and the helpers those tests share.
 */
import type { Page } from "playwright-core";
import type { RealData } from "../../scripts/lighthouse/real-data";

export interface PageUnderTest {
  name: string;
  /** The page's address on the seeded data; null when the data has no such page. */
  path: (data: RealData) => string | null;
  status?: number;
  /** What the page must show for the visit to count (its content, not an empty state). */
  shows?: { testId: string; atLeast: number };
}

/** The compare page of five runs, the campaign's no-graphs run the baseline. */
export const comparedPath = (data: RealData) => {
  const { vllm, noGraphs, graphs } = data.campaign;
  return `/compare?runs=${[vllm, noGraphs, graphs, ...data.runIds.slice(3, 5)].join(",")}&baseline=${noGraphs}`;
};

/** Every page of the app: the history, a run, the comparisons, upload, series, alerts and the 404 page. */
export const PAGES: PageUnderTest[] = [
  { name: "history", path: () => "/" },
  { name: "history, page past the end", path: () => "/?page=999" },
  { name: "run with five request rates", path: (data) => `/runs/${data.runIds[5]}` },
  { name: "run of the campaign", path: (data) => `/runs/${data.campaign.graphs}` },
  { name: "compare", path: comparedPath },
  { name: "compare, nothing chosen", path: () => "/compare" },
  { name: "saved comparison", path: (data) => `/c/${data.slug}` },
  { name: "saved comparisons", path: () => "/comparisons" },
  { name: "upload", path: () => "/upload" },
  { name: "series list", path: () => "/series" },
  { name: "series", path: (data) => (data.seriesId ? `/series/${data.seriesId}` : null) },
  {
    name: "series with detected changes",
    path: (data) => `/series/${data.regressionSeriesId}`,
    shows: { testId: "series-changes", atLeast: 1 },
  },
  { name: "alerts", path: () => "/alerts", shows: { testId: "alerts", atLeast: 1 } },
  { name: "not found: a deleted run", path: () => "/runs/no-such-run", status: 404 },
  { name: "not found: an unknown address", path: () => "/no/such/page", status: 404 },
];

/** Scroll to the bottom and back, so every chart that draws when scrolled to has drawn. */
export async function drawEverything(page: Page): Promise<void> {
  await page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += 400) {
      window.scrollTo(0, y);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  // A chart still waiting is brought into view on each poll: when the page hydrated after the scroll above
  // (a loaded machine), its charts began to watch for the viewport only once the scroll had passed them.
  await page.waitForFunction(() => {
    const waiting = document.querySelector('[data-in-view="false"]');
    waiting?.scrollIntoView({ block: "center" });
    return waiting === null;
  });
  // The charts' code arrives after they are asked for: wait until no placeholder is left.
  await page.waitForFunction(() =>
    [...document.querySelectorAll("[data-in-view=true]")].every((box) => box.querySelector("svg") !== null),
  );
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * Every visible element that sticks out of the viewport sideways (a piece of the page a phone would have to
 * scroll to), outside the boxes that scroll sideways on purpose (.table-scroll, which say so above them) and
 * outside what is clipped away for screen readers.
 */
export async function elementsOutsideViewport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // Content clipped to nothing (Tailwind's sr-only, also as max-sm:sr-only) is for screen readers only.
    const clippedAway = new Map<Element, boolean>();
    const isClippedAway = (element: Element | null): boolean => {
      if (!element) return false;
      const known = clippedAway.get(element);
      if (known !== undefined) return known;
      const style = getComputedStyle(element);
      const clipped =
        style.clip === "rect(0px, 0px, 0px, 0px)" ||
        style.clipPath === "inset(50%)" ||
        isClippedAway(element.parentElement);
      clippedAway.set(element, clipped);
      return clipped;
    };
    const found: string[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      if (element.parentElement?.closest(".table-scroll")) continue;
      if (!element.checkVisibility({ visibilityProperty: true })) continue;
      if (isClippedAway(element)) continue;
      const box = element.getBoundingClientRect();
      if (box.width < 1 || box.height < 1) continue;
      if (box.right <= width + 0.5 && box.left >= -0.5) continue;
      const id = element.getAttribute("data-testid");
      const text = (element.textContent ?? "").trim().slice(0, 40);
      found.push(
        `${element.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ""} ${Math.round(box.left)}–${Math.round(box.right)} px: ${text}`,
      );
    }
    return found;
  });
}

/** The boxes that scroll sideways (their table is wider than they are) with no line saying so above them. */
export async function silentScrollBoxes(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll(".table-scroll")]
      .filter((box) => box.checkVisibility() && box.scrollWidth > box.clientWidth + 1)
      .filter((box) => box.previousElementSibling?.getAttribute("data-testid") !== "scroll-hint")
      .map((box) => box.getAttribute("aria-label") ?? box.outerHTML.slice(0, 80)),
  );
}

export interface ContrastFailure {
  text: string;
  ratio: number;
  color: string;
  background: string;
  where: string;
}

/**
 * Every piece of text on the page that a person can see, with the contrast ratio (WCAG 2) of its colour
 * against the background it is actually drawn on: the backgrounds of its ancestors composited from the page
 * up, the text's own alpha and its ancestors' opacity applied. Colours are resolved to sRGB by drawing them on
 * a canvas, so any CSS colour (oklch, color-mix) is measured as the screen shows it. Disabled controls are
 * left out, as WCAG leaves them out.
 */
export async function contrastFailures(page: Page, minimum = 4.5): Promise<ContrastFailure[]> {
  return page.evaluate((min) => {
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    const context = canvas.getContext("2d", { willReadFrequently: true })!;
    const rgba = (css: string): [number, number, number, number] => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = "#000";
      context.fillStyle = css;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
      return [r!, g!, b!, a! / 255];
    };
    const over = (top: [number, number, number, number], bottom: [number, number, number]) =>
      [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])) as [number, number, number];
    const luminance = ([r, g, b]: [number, number, number]) => {
      const lin = (c: number) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const ratio = (a: [number, number, number], b: [number, number, number]) => {
      const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
      return (high + 0.05) / (low + 0.05);
    };
    const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
    const canvasColor: [number, number, number] = dark ? [18, 18, 18] : [255, 255, 255];

    const failures: {
      text: string;
      ratio: number;
      color: string;
      background: string;
      where: string;
    }[] = [];
    const seen = new Set<Element>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? "";
      const element = node.parentElement;
      if (!text || !element || seen.has(element)) continue;
      seen.add(element);
      if (!element.checkVisibility({ opacityProperty: false, visibilityProperty: true })) continue;
      const box = element.getBoundingClientRect();
      if (box.width < 1 || box.height < 1) continue;
      if (element.closest("script, style, noscript, title, option, .sr-only")) continue;
      if (element.closest(":disabled, [aria-disabled=true]")) continue;
      const style = getComputedStyle(element);
      if (style.clip === "rect(0px, 0px, 0px, 0px)" || style.clipPath === "inset(50%)") continue;

      // The layers under the text, from the element up to the first opaque one (or the canvas).
      const layers: [number, number, number, number][] = [];
      let opacity = 1;
      for (let current: Element | null = element; current; current = current.parentElement) {
        const currentStyle = getComputedStyle(current);
        opacity *= Number(currentStyle.opacity);
        const background = rgba(currentStyle.backgroundColor);
        if (background[3] > 0) layers.push(background);
        if (background[3] >= 1) break;
      }
      let background = canvasColor;
      for (const layer of layers.reverse()) background = over(layer, background);
      const isSvgText = element instanceof SVGElement;
      const raw = rgba(isSvgText ? style.fill : style.color);
      const color = over([raw[0], raw[1], raw[2], raw[3] * opacity], background);
      const value = ratio(color, background);
      if (value < min) {
        const path: string[] = [];
        for (let current: Element | null = element; current && path.length < 4; current = current.parentElement) {
          const id = current.getAttribute("data-testid");
          path.push(`${current.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ""}`);
        }
        failures.push({
          text: text.slice(0, 60),
          ratio: Math.round(value * 100) / 100,
          color: `rgb(${color.map(Math.round).join(",")})`,
          background: `rgb(${background.map(Math.round).join(",")})`,
          where: path.join(" < "),
        });
      }
    }
    return failures;
  }, minimum);
}
