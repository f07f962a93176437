/**
 * Text for the link-preview image, fitted to boxes by measured width: lines broken at spaces (and between CJK
 * characters, which have none), cut with "…" when they run out. Pure: the width of a text comes from the
 * `measure` given (og-fonts.ts measures with the fonts the renderer draws with), so it is tested without
 * drawing.
 */

/** The width in pixels of `text` at `fontSize`. */
export type MeasureText = (text: string, fontSize: number) => number;

export const ELLIPSIS = "…";

export interface FittedLine {
  text: string;
  /** Measured width in pixels. */
  width: number;
}

export interface FittedText {
  lines: FittedLine[];
  /** Some of the text did not fit: the last line ends with "…". */
  cut: boolean;
}

const graphemeSegmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

function graphemesOf(text: string): string[] {
  return [...graphemeSegmenter.segment(text)].map((part) => part.segment);
}

/** Scripts written without spaces between words: a line may break between any two of their characters. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/** Pieces a line may break after: a word with the spaces after it, or one character of a script without spaces. */
function breakPieces(text: string): string[] {
  const pieces: string[] = [];
  let piece = "";
  for (const grapheme of graphemesOf(text)) {
    if (NO_SPACES.test(grapheme)) {
      if (piece) pieces.push(piece);
      pieces.push(grapheme);
      piece = "";
    } else if (grapheme === " ") {
      pieces.push(`${piece} `);
      piece = "";
    } else piece += grapheme;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** `text` cut at its end, at a space when one is near, so that it and "…" fit in `maxWidth`. */
export function ellipsize(text: string, maxWidth: number, fontSize: number, measure: MeasureText): FittedLine {
  const parts = graphemesOf(text.trimEnd());
  for (let keep = parts.length; keep >= 0; keep--) {
    let head = parts.slice(0, keep).join("").trimEnd();
    // A cut within the last fifth of a word boundary reads better at the boundary.
    const space = head.lastIndexOf(" ");
    if (space > 0 && space >= head.length * 0.8) head = head.slice(0, space).trimEnd();
    const candidate = `${head}${ELLIPSIS}`;
    const width = measure(candidate, fontSize);
    if (width <= maxWidth) return { text: candidate, width };
  }
  return { text: "", width: 0 };
}

/**
 * `text` in lines no wider than `maxWidth`, at most `maxLines` of them; whitespace runs read as one space. A
 * word wider than a whole line is broken between its characters. When the text does not fit, the last line is
 * cut with "…".
 */
export function wrapText(
  text: string,
  maxWidth: number,
  maxLines: number,
  fontSize: number,
  measure: MeasureText,
): FittedText {
  const flat = text.replace(/\s+/g, " ").trim();
  const lines: string[] = [];
  let line = "";
  const fits = (candidate: string) => measure(candidate.trimEnd(), fontSize) <= maxWidth;
  for (const piece of breakPieces(flat)) {
    if (fits(line + piece)) {
      line += piece;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    if (fits(piece)) {
      line = piece;
      continue;
    }
    // A word longer than a line: as many of its characters as fit on each line.
    for (const grapheme of graphemesOf(piece)) {
      if (!line || fits(line + grapheme)) line += grapheme;
      else {
        lines.push(line);
        line = grapheme;
      }
    }
  }
  if (line) lines.push(line);
  const cut = lines.length > maxLines;
  const kept = lines.slice(0, maxLines).map((kept) => kept.trim());
  const fitted = kept.map((kept) => ({ text: kept, width: measure(kept, fontSize) }));
  if (cut && fitted.length > 0) {
    const last = fitted.length - 1;
    fitted[last] = ellipsize(`${kept[last]} ${lines[maxLines]}`, maxWidth, fontSize, measure);
  }
  return { lines: fitted, cut };
}

/** One line of `text` at the largest of `sizes` it fits at, else cut with "…" at the smallest. */
export function fitLine(
  text: string,
  maxWidth: number,
  sizes: readonly number[],
  measure: MeasureText,
): FittedText & { fontSize: number } {
  const flat = text.replace(/\s+/g, " ").trim();
  for (const fontSize of sizes) {
    const width = measure(flat, fontSize);
    if (width <= maxWidth) return { lines: [{ text: flat, width }], cut: false, fontSize };
  }
  const fontSize = sizes[sizes.length - 1]!;
  return { lines: [ellipsize(flat, maxWidth, fontSize, measure)], cut: true, fontSize };
}
