/**
 * Fonts for the link-preview image, all read from the @fontsource packages on this machine, so drawing it never
 * fetches anything. The image renderer (next/og, Satori) asks a public CDN for fonts or emoji images whenever a
 * character is in none of the fonts it was given: user text (a run name in Chinese, an emoji in a title) would
 * make the server reach out to the Internet, and offline an emoji dropped the connection.
 *
 * Bundled (weight 400): Noto Sans (Latin, Latin Extended, Cyrillic, Greek, Vietnamese, Devanagari), Vazirmatn
 * for Arabic script (the renderer's font parser cannot read Noto Sans Arabic's contextual substitutions), Noto
 * Sans Hebrew and Thai, Noto Sans SC (the common Han characters, with Japanese kana), Noto Sans KR (Hangul),
 * Noto Emoji (monochrome outlines: the renderer draws glyphs, not colour bitmaps) and Noto Sans Symbols 2. Each
 * package is sliced by Unicode range; only the slices a text needs are read and handed to the renderer. Any
 * character none of them has (another script, a rare Han character, an emoji newer than the font) is drawn as
 * the placeholder □, so the renderer never has anything left to fetch. See docs/comparing.md.
 */
import fs from "node:fs";
import path from "node:path";
import { ImageResponse } from "next/og";
import { type Font, parse as parseFont } from "opentype.js";
import { Children, cloneElement, isValidElement, type ReactElement, type ReactNode } from "react";

/** What stands for a character no bundled font has: a white square, the usual "missing glyph". */
export const PLACEHOLDER = "\u25a1";

/**
 * The packages, in the order the renderer tries them for a character: Latin first, emoji before symbols. Noto
 * Emoji is taken whole (its `emoji` file, 0.6 MB, holds every slice): the renderer picks one font for all the
 * characters that share a UTF-16 high surrogate, and emoji from two slices would miss each other.
 */
const PACKAGES: readonly { name: string; whole?: string }[] = [
  { name: "noto-sans" },
  { name: "vazirmatn" },
  { name: "noto-sans-hebrew" },
  { name: "noto-sans-thai" },
  { name: "noto-sans-sc" },
  { name: "noto-sans-kr" },
  { name: "noto-emoji", whole: "emoji" },
  { name: "noto-sans-symbols-2" },
];

interface FontSlice {
  /** A name of its own for the renderer, which keeps one font per name and weight. */
  name: string;
  file: string;
  /** Code point ranges the package says the slice covers, sorted: [first, last] pairs. */
  ranges: [number, number][];
}

interface LoadedSlice extends FontSlice {
  data: Buffer;
  /** The parsed font, for advance widths; null when the parser cannot read it. */
  font: Font | null;
  /** The code points the font really maps to a glyph (the ranges are what a browser is told to expect). */
  codePoints: Set<number>;
}

function packageDir(name: string): string {
  // Read at run time from the installed package, not traced into the build.
  return path.join(/*turbopackIgnore: true*/ process.cwd(), "node_modules", "@fontsource", name);
}

function parseRanges(text: string): [number, number][] {
  return text
    .split(",")
    .map((part) => part.trim().replace(/^U\+/i, ""))
    .filter(Boolean)
    .map((part) => {
      const [first, last] = part.split("-");
      const low = Number.parseInt(first ?? "", 16);
      return [low, last === undefined ? low : Number.parseInt(last, 16)] as [number, number];
    })
    .filter(([low, high]) => Number.isFinite(low) && Number.isFinite(high))
    .sort((a, b) => a[0] - b[0]);
}

let catalog: FontSlice[] | null = null;

/** Every slice of every package, in the renderer's order (slices of one package by their number or name). */
export function fontCatalog(): FontSlice[] {
  if (catalog) return catalog;
  const slices: FontSlice[] = [];
  for (const { name, whole } of PACKAGES) {
    const dir = packageDir(name);
    const unicode = JSON.parse(fs.readFileSync(path.join(dir, "unicode.json"), "utf8")) as Record<string, string>;
    if (whole) {
      const file = path.join(dir, "files", `${name}-${whole}-400-normal.woff`);
      slices.push({ name, file, ranges: parseRanges(Object.values(unicode).join(",")) });
      continue;
    }
    const keys = Object.keys(unicode).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    for (const key of keys) {
      const subset = key.replace(/^\[(\d+)\]$/, "$1");
      const file = path.join(dir, "files", `${name}-${subset}-400-normal.woff`);
      if (!fs.existsSync(file)) continue;
      slices.push({ name: `${name}-${subset}`, file, ranges: parseRanges(unicode[key] ?? "") });
    }
  }
  catalog = slices;
  return slices;
}

const loaded = new Map<string, LoadedSlice>();

function load(slice: FontSlice): LoadedSlice {
  const cached = loaded.get(slice.name);
  if (cached) return cached;
  const data = fs.readFileSync(slice.file);
  let map: Record<string, number> = {};
  let font: Font | null = null;
  try {
    font = parseFont(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    map = (font.tables.cmap as { glyphIndexMap?: Record<string, number> } | undefined)?.glyphIndexMap ?? {};
  } catch {
    // A slice the font parser cannot read (one of Noto Sans SC's) is left out: its characters become □.
  }
  const codePoints = new Set(
    Object.entries(map)
      .filter(([, glyph]) => glyph > 0)
      .map(([codePoint]) => Number(codePoint)),
  );
  const result = { ...slice, data, font, codePoints };
  loaded.set(slice.name, result);
  return result;
}

function inRanges(ranges: readonly [number, number][], codePoint: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = ranges[middle]!;
    if (codePoint < first) high = middle - 1;
    else if (codePoint > last) low = middle + 1;
    else return true;
  }
  return false;
}

/** The slices whose ranges hold this code point, in the renderer's order, loaded. */
function slicesFor(codePoint: number): LoadedSlice[] {
  return fontCatalog()
    .filter((slice) => inRanges(slice.ranges, codePoint))
    .map(load)
    .filter((slice) => slice.codePoints.has(codePoint));
}

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * Text made drawable with the bundled fonts, and the fonts it needs. The renderer draws a grapheme with the
 * first font (in the order given) that has its first character, and needs every character of it there; for
 * characters outside the Basic Multilingual Plane it remembers the font per UTF-16 high surrogate. A grapheme
 * that would miss under those rules becomes the placeholder, so the renderer never looks elsewhere.
 */
export class GlyphCover {
  private readonly used = new Map<string, LoadedSlice>();
  /** The font chosen for each high surrogate, as the renderer caches it. */
  private readonly astral = new Map<number, LoadedSlice>();

  private fontFor(codePoint: number): LoadedSlice | undefined {
    if (codePoint > 0xffff) {
      const high = 0xd800 + ((codePoint - 0x10000) >> 10);
      const chosen = this.astral.get(high);
      if (chosen) return chosen.codePoints.has(codePoint) ? chosen : undefined;
      const found = slicesFor(codePoint)[0];
      if (found) this.astral.set(high, found);
      return found;
    }
    // The first slice of the catalog that has it; the renderer will try the used slices in catalog order.
    return slicesFor(codePoint)[0];
  }

  text(value: string): string {
    let out = "";
    for (const { segment } of segmenter.segment(value)) {
      if (segment === "\n" || segment === "\t") {
        out += segment;
        continue;
      }
      const codePoints = [...segment].map((char) => char.codePointAt(0)!);
      const font = this.fontFor(codePoints[0]!);
      if (font && codePoints.every((codePoint) => font.codePoints.has(codePoint))) {
        this.used.set(font.name, font);
        out += segment;
      } else {
        out += PLACEHOLDER;
      }
    }
    return out;
  }

  /** The fonts to give the renderer: the ones used, the Latin ones and the placeholder's, in catalog order. */
  fonts(): { name: string; data: Buffer; weight: 400; style: "normal" }[] {
    for (const codePoint of [0x20, 0x30, 0x61, 0x2026, PLACEHOLDER.codePointAt(0)!]) {
      const font = slicesFor(codePoint)[0];
      if (font) this.used.set(font.name, font);
    }
    const order = new Map(fontCatalog().map((slice, index) => [slice.name, index]));
    return [...this.used.values()]
      .sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0))
      .map((font) => ({ name: font.name, data: font.data, weight: 400 as const, style: "normal" as const }));
  }
}

type Component = (props: Record<string, unknown>) => ReactNode;

/** The element tree with function components rendered (as the image renderer does) and every text covered. */
function coverTree(node: ReactNode, cover: GlyphCover): ReactNode {
  if (typeof node === "string") return cover.text(node);
  if (typeof node === "number") return cover.text(String(node));
  if (Array.isArray(node)) return node.map((child) => coverTree(child as ReactNode, cover));
  if (!isValidElement(node)) return node;
  const element = node as ReactElement<Record<string, unknown>>;
  if (typeof element.type === "function") return coverTree((element.type as Component)(element.props), cover);
  const { children } = element.props as { children?: ReactNode };
  if (children === undefined) return element;
  if (Children.toArray(children).length === 0) return element;
  const covered = coverTree(children, cover);
  return cloneElement(element, undefined, ...(Array.isArray(covered) ? covered : [covered]));
}

/**
 * `new ImageResponse(element, options)` with the bundled fonts: every text of the element drawn with them, and
 * what none has drawn as □. Nothing is fetched, whatever the text.
 */
export function offlineImageResponse(
  element: ReactElement,
  options: ConstructorParameters<typeof ImageResponse>[1] = {},
): ImageResponse {
  const cover = new GlyphCover();
  const covered = coverTree(element, cover) as ReactElement;
  return new ImageResponse(covered, { ...options, fonts: cover.fonts() });
}

/**
 * How much wider than the sum of its glyphs' advances a text is taken to be: the renderer's shaping (Arabic
 * joining forms, kerning) can make a line a little wider than its characters' own advances.
 */
const WIDTH_MARGIN = 1.04;

/** A glyph's advance in pixels at `fontSize`, from the first bundled font that has the code point. */
function advance(codePoint: number, fontSize: number): number | null {
  const slice = slicesFor(codePoint)[0];
  if (!slice?.font) return null;
  const glyph = slice.font.charToGlyph(String.fromCodePoint(codePoint));
  return ((glyph.advanceWidth ?? slice.font.unitsPerEm) * fontSize) / slice.font.unitsPerEm;
}

const advances = new Map<string, number>();

/** One grapheme's width: its characters' advances, or the placeholder's when no bundled font draws it. */
function graphemeWidth(grapheme: string, fontSize: number): number {
  const key = `${fontSize}:${grapheme}`;
  const cached = advances.get(key);
  if (cached !== undefined) return cached;
  const placeholder = advance(PLACEHOLDER.codePointAt(0)!, fontSize) ?? fontSize;
  const codePoints = [...grapheme].map((char) => char.codePointAt(0)!);
  const own = codePoints.map((codePoint) => advance(codePoint, fontSize));
  let width: number;
  if (own[0] === null || own[0] === undefined) width = placeholder;
  else {
    width = own.reduce<number>((sum, value) => sum + (value ?? 0), 0);
    // Outside the Basic Multilingual Plane the renderer may pick another font for a grapheme, or draw □ (see
    // GlyphCover): the wider of the two is taken.
    if (codePoints[0]! > 0xffff) width = Math.max(width, placeholder);
  }
  advances.set(key, width);
  return width;
}

/**
 * The width in pixels a text takes in the preview image at `fontSize`, measured with the bundled fonts the
 * renderer draws it with (the same files, the same first-font-that-has-it choice), rounded up a little so a
 * line measured to fit does fit. Letter spacing is left out: the image only ever tightens it.
 */
export function measureText(text: string, fontSize: number): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment, fontSize);
  return width * WIDTH_MARGIN;
}
