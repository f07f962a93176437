import { describe, expect, it, test } from "vitest";
import { assignRunColors, RUN_COLORS, runColor, runColorIndex } from "@/lib/analysis/colors";
import { DEMO_RUNS } from "@/lib/demo/runs";
import { seededUniform } from "@/lib/seeded-random";

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

/** sRGB → OKLab (Björn Ottosson's matrices): distances there follow how different two colours look. */
function oklab(hex: string): [number, number, number] {
  const [r, g, b] = [1, 3, 5]
    .map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}
function oklabDistance(a: string, b: string): number {
  const [x, y] = [oklab(a), oklab(b)];
  return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
}
/** About ten times a just-noticeable difference (~0.01 in OKLab): two lines of these colours never read alike. */
const MIN_OKLAB_DISTANCE = 0.09;

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** A 12-character id like the ones servebench makes (lib/random-id.ts), from a seeded generator. */
function randomRunId(random: () => number): string {
  return Array.from({ length: 12 }, () => ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length)]!).join("");
}

describe("run colours", () => {
  it("are eight distinct colours, every two at least a clear step apart in OKLab", () => {
    expect(new Set(RUN_COLORS).size).toBe(8);
    for (let i = 0; i < RUN_COLORS.length; i++)
      for (let j = i + 1; j < RUN_COLORS.length; j++)
        expect(oklabDistance(RUN_COLORS[i]!, RUN_COLORS[j]!)).toBeGreaterThanOrEqual(MIN_OKLAB_DISTANCE);
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
    // FNV-1a 32-bit: "a" is 0xe40c292c (3826002220), and 3826002220 = 8 × 478250277 + 4.
    ["a", 4],
    ["b", 5],
    ["h", 7],
    ["IMHjvd1CahGN", 7],
    ["run-1", 4],
  ])("run %s takes colour %d", (id, index) => {
    expect(runColorIndex(id)).toBe(index);
    expect(runColor(id)).toBe(RUN_COLORS[index]);
  });

  it("gives a run its own colour in any view where no other run has it", () => {
    expect(assignRunColors(["a", "b"])).toEqual([RUN_COLORS[4], RUN_COLORS[5]]);
    expect(assignRunColors(["b", "a"])).toEqual([RUN_COLORS[5], RUN_COLORS[4]]);
  });

  it("moves the later id of two that share a colour, whatever their order in the view", () => {
    // "IMHjvd1CahGN" and "h" both take 7; "IMHjvd1CahGN" sorts first (code units: "I" < "h") and keeps it, "h"
    // wraps round to 0, which no run of the view holds.
    expect(assignRunColors(["h", "IMHjvd1CahGN"])).toEqual([RUN_COLORS[0], RUN_COLORS[7]]);
    expect(assignRunColors(["IMHjvd1CahGN", "h"])).toEqual([RUN_COLORS[7], RUN_COLORS[0]]);
    // "a" and "run-1" both take 4; "a" keeps it, "run-1" takes 5 unless "b" holds it, then 6.
    expect(assignRunColors(["run-1", "a"])).toEqual([RUN_COLORS[5], RUN_COLORS[4]]);
    expect(assignRunColors(["run-1", "b", "a"])).toEqual([RUN_COLORS[6], RUN_COLORS[5], RUN_COLORS[4]]);
  });

  it("gives a run given twice (repeats of one id) one colour", () => {
    const colors = assignRunColors(["a", "a", "run-1"]);
    expect(colors[0]).toBe(colors[1]);
    expect(colors[2]).not.toBe(colors[0]);
  });

  it("gives the same set the same colours in every order (random sets, every rotation and the reverse)", () => {
    const random = seededUniform(7);
    for (let trial = 0; trial < 300; trial++) {
      const size = 1 + Math.floor(random() * 14);
      const ids = Array.from({ length: size }, () => randomRunId(random));
      const colorOf = new Map(ids.map((id, index) => [id, assignRunColors(ids)[index]!]));
      const orders = [[...ids].reverse(), ...ids.map((_, shift) => [...ids.slice(shift), ...ids.slice(0, shift)])];
      for (const order of orders) {
        const colors = assignRunColors(order);
        order.forEach((id, index) => {
          expect(colors[index]).toBe(colorOf.get(id));
        });
      }
    }
  });

  it("tells up to eight runs apart, and past that shares each colour among as few runs as it can", () => {
    const random = seededUniform(11);
    for (let trial = 0; trial < 300; trial++) {
      const size = 1 + Math.floor(random() * 20);
      const ids = [...new Set(Array.from({ length: size }, () => randomRunId(random)))];
      const counts = new Map<string, number>();
      for (const color of assignRunColors(ids)) counts.set(color, (counts.get(color) ?? 0) + 1);
      expect(Math.max(...counts.values())).toBe(Math.ceil(ids.length / RUN_COLORS.length));
      if (ids.length <= RUN_COLORS.length) expect(counts.size).toBe(ids.length);
    }
  });

  it("keeps a run's own colour wherever it does not clash", () => {
    const random = seededUniform(13);
    for (let trial = 0; trial < 300; trial++) {
      const ids = Array.from({ length: 2 + Math.floor(random() * 5) }, () => randomRunId(random));
      const colors = assignRunColors(ids);
      ids.forEach((id, index) => {
        const clashes = ids.some((other) => other !== id && runColorIndex(other) === runColorIndex(id));
        if (!clashes) expect(colors[index]).toBe(runColor(id));
      });
    }
  });

  it("tells the demo's three runs apart, whatever ids they were stored under", () => {
    const random = seededUniform(17);
    for (let trial = 0; trial < 500; trial++) {
      const ids = DEMO_RUNS.map(() => randomRunId(random));
      const colors = assignRunColors(ids);
      expect(new Set(colors).size).toBe(DEMO_RUNS.length);
      for (let i = 0; i < colors.length; i++)
        for (let j = i + 1; j < colors.length; j++)
          expect(oklabDistance(colors[i]!, colors[j]!)).toBeGreaterThanOrEqual(MIN_OKLAB_DISTANCE);
    }
  });
});
