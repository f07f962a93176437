import { describe, expect, it, test } from "vitest";
import { assignRunColors, RUN_COLORS, runColor, runColorIndex } from "@/lib/analysis/colors";

/** WCAG 2 relative luminance and contrast ratio, written out here so the test does not trust the code it checks. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

describe("run colours", () => {
  it("are seven distinct colours", () => {
    expect(new Set(RUN_COLORS).size).toBe(7);
  });

  // White and zinc-50 (light pages), zinc-950 and zinc-900 (dark pages and cards).
  test.each(["#ffffff", "#fafafa", "#09090b", "#18181b"])("each has at least 3:1 against %s", (background) => {
    for (const color of RUN_COLORS) expect(contrast(color, background)).toBeGreaterThanOrEqual(3);
  });

  it("keep clear of the better and worse colours (no green or red hue)", () => {
    for (const color of RUN_COLORS) {
      const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(color.slice(at, at + 2), 16) / 255) as [
        number,
        number,
        number,
      ];
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      if (max - min < 0.15) continue; // a grey has no hue to confuse
      let hue =
        max === r ? ((g - b) / (max - min)) % 6 : max === g ? (b - r) / (max - min) + 2 : (r - g) / (max - min) + 4;
      hue = (hue * 60 + 360) % 360;
      expect(hue > 15 && (hue < 75 || hue > 165)).toBe(true);
      expect(hue < 345).toBe(true);
    }
  });

  test.each([
    // FNV-1a 32-bit: "a" is 0xe40c292c (3826002220), and 3826002220 = 7 × 546571745 + 5.
    ["a", 5],
    ["b", 6],
    ["IMHjvd1CahGN", 5],
  ])("run %s takes colour %d", (id, index) => {
    expect(runColorIndex(id)).toBe(index);
    expect(runColor(id)).toBe(RUN_COLORS[index]);
  });

  it("gives a run its own colour in any view where it is not taken", () => {
    expect(assignRunColors(["a", "b"])).toEqual([RUN_COLORS[5], RUN_COLORS[6]]);
    expect(assignRunColors(["b", "a"])).toEqual([RUN_COLORS[6], RUN_COLORS[5]]);
  });

  it("moves a second run of the same colour to the next free one, never the first", () => {
    // "a" and "IMHjvd1CahGN" both take 5; 6 is taken by "b", so the second wraps round to 0.
    expect(assignRunColors(["a", "b", "IMHjvd1CahGN"])).toEqual([RUN_COLORS[5], RUN_COLORS[6], RUN_COLORS[0]]);
    // A later run keeps its own colour: "b" still has 6 when the moved run comes before it.
    expect(assignRunColors(["a", "IMHjvd1CahGN", "b"])).toEqual([RUN_COLORS[5], RUN_COLORS[0], RUN_COLORS[6]]);
  });

  it("uses all seven colours before repeating one", () => {
    const ids = Array.from({ length: 12 }, (_, index) => `run-${index}`);
    const colors = assignRunColors(ids);
    expect(new Set(colors.slice(0, 7)).size).toBe(7);
    expect(colors).toHaveLength(12);
  });
});
