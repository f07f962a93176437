/**
 * Saved comparisons without a database: the request schema, the saved view and its URL overrides, the
 * preview image's address and chart layout, and the link-preview metadata.
 */
import { describe, expect, it } from "vitest";
import { loadDomain } from "@/lib/analysis/axis";
import { type LineChartData, lineChart } from "@/lib/analysis/lines";
import { DEFAULT_CAPACITY_VIEW } from "@/lib/comparisons/capacity-view";
import { comparisonMetadata } from "@/lib/comparisons/metadata";
import { layoutOgChart, niceStep, segmentHitsRect } from "@/lib/comparisons/og-chart";
import { measureText } from "@/lib/comparisons/og-fonts";
import { comparisonUrl, newSlug } from "@/lib/comparisons/queries";
import {
  parseComparisonListQuery,
  parseComparisonListQueryLenient,
  SaveComparisonSchema,
  SLUG_PATTERN,
} from "@/lib/comparisons/schema";
import {
  type CompareView,
  defaultComparisonTitle,
  graphemeLength,
  notesExcerpt,
  ogImagePath,
  overrideQuery,
  parseCompareView,
  savedCompareView,
  savedOgImagePath,
  truncateText,
  withViewOverrides,
} from "@/lib/comparisons/view";
import type { ResultPoint } from "@/lib/document/schema";
import { resolveBaseUrl } from "@/lib/http/base-url";
import { zodIssues } from "@/lib/zod-issues";

function issuesOf(value: unknown) {
  const parsed = SaveComparisonSchema.safeParse(value);
  expect(parsed.success).toBe(false);
  return parsed.success ? [] : zodIssues(parsed.error);
}

const A = "AAAAAAAAAAAA";
const B = "BBBBBBBBBBBB";
const C = "CCCCCCCCCCCC";

describe("SaveComparisonSchema", () => {
  it("accepts the runs alone, and every field at once", () => {
    expect(SaveComparisonSchema.parse({ runs: [A, B] })).toEqual({ runs: [A, B] });
    expect(
      SaveComparisonSchema.parse({
        runs: [A, B, C],
        baseline: B,
        title: "  CUDA graphs  ",
        notes: "n",
        noise: 5,
        hide: [C],
        stat: "p99",
      }),
    ).toEqual({ runs: [A, B, C], baseline: B, title: "CUDA graphs", notes: "n", noise: 5, hide: [C], stat: "p99" });
  });

  it("names each broken field by its path", () => {
    expect(issuesOf({})).toEqual([{ path: "runs", message: "is required" }]);
    expect(issuesOf({ runs: [] })).toEqual([{ path: "runs", message: "must name at least one run" }]);
    expect(issuesOf({ runs: Array.from({ length: 13 }, (_, index) => `run${index}`) })).toEqual([
      { path: "runs", message: "a comparison holds at most 12 runs" },
    ]);
    expect(issuesOf({ runs: [A, B, A] })).toEqual([{ path: "runs.2", message: `"${A}" is listed twice` }]);
    expect(issuesOf({ runs: [A, B], baseline: C })).toEqual([
      { path: "baseline", message: "must be one of the compared runs" },
    ]);
    expect(issuesOf({ runs: [A, B], hide: [B, C] })).toEqual([
      { path: "hide.1", message: "must be one of the compared runs" },
    ]);
    expect(issuesOf({ runs: [A], title: "x".repeat(201) })).toEqual([
      { path: "title", message: "must be at most 200 characters" },
    ]);
    expect(issuesOf({ runs: [A], title: "   " })).toEqual([
      { path: "title", message: "must not be empty (leave it out to use the comparison's own title)" },
    ]);
    expect(issuesOf({ runs: [A], notes: "x".repeat(20_001) })).toEqual([
      { path: "notes", message: "must be at most 20,000 characters" },
    ]);
    expect(issuesOf({ runs: [A], noise: 101, stat: "p50", colour: "red" })).toEqual([
      { path: "noise", message: "must be between 0 and 100" },
      { path: "stat", message: "must be one of mean, median, p90, p95, p99" },
      { path: "colour", message: 'unknown field "colour"' },
    ]);
  });

  it("takes a title of exactly 200 characters and notes of exactly 20,000", () => {
    expect(
      SaveComparisonSchema.safeParse({ runs: [A], title: "x".repeat(200), notes: "y".repeat(20_000) }).success,
    ).toBe(true);
  });
});

describe("list query", () => {
  it("is strict for the API and lenient for the page", () => {
    expect(parseComparisonListQuery({ page: "2", per_page: "10", other: "x" }).data).toEqual({ page: 2, per_page: 10 });
    expect(parseComparisonListQuery({ per_page: "101" }).success).toBe(false);
    expect(parseComparisonListQueryLenient({ page: "zero", per_page: "500" })).toEqual({ page: 1, per_page: 25 });
  });
});

describe("slugs", () => {
  it("are 8 URL-safe characters, different each time", () => {
    const slugs = Array.from({ length: 200 }, newSlug);
    for (const slug of slugs) expect(slug).toMatch(SLUG_PATTERN);
    expect(new Set(slugs).size).toBe(200);
    expect(comparisonUrl("abcd_-12")).toBe("/c/abcd_-12");
  });
});

describe("the saved view and its overrides", () => {
  const saved: CompareView = savedCompareView({ runs: [A, B, C], baseline: B, noise: 5, hide: [C], stat: "median" });

  it("opens with the saved view", () => {
    expect(saved).toEqual({
      runIds: [A, B, C],
      baselineId: B,
      noisePct: 5,
      hidden: [C],
      stat: "median",
      logY: false,
      slo: { ttft_ms: null, tpot_ms: null, stat: "p99" },
      prices: { all: null, byGpu: {} },
      atUser: null,
      cdfLevel: null,
      cdfMetric: "ttft",
      capacity: DEFAULT_CAPACITY_VIEW,
    });
    expect(withViewOverrides(saved, {})).toEqual(saved);
  });

  it("lets baseline, noise, hide and stat in the URL override it, never the runs", () => {
    expect(withViewOverrides(saved, { baseline: C, noise: "1.5", hide: `${A},${B}`, stat: "p99", runs: A })).toEqual({
      ...saved,
      baselineId: C,
      noisePct: 1.5,
      hidden: [A, B],
      stat: "p99",
    });
  });

  it("lets the SLO, the price, log y and the interactivity in the URL override it; empty clears them", () => {
    const withSlo = withViewOverrides(saved, {
      slo_tpot: "20",
      slo_stat: "mean",
      price: "2.5",
      logy: "1",
      at_user: "40",
    });
    expect(withSlo).toMatchObject({
      slo: { ttft_ms: null, tpot_ms: 20, stat: "mean" },
      prices: { all: 2.5, byGpu: {} },
      logY: true,
      atUser: 40,
    });
    expect(withViewOverrides(withSlo, { slo_tpot: "", price: "", at_user: "" })).toMatchObject({
      slo: { ttft_ms: null, tpot_ms: null, stat: "mean" },
      prices: { all: null, byGpu: {} },
      atUser: null,
    });
  });

  it("reads empty values as the plain defaults and ignores invalid ones", () => {
    expect(withViewOverrides(saved, { hide: "", baseline: "" })).toMatchObject({ hidden: [], baselineId: null });
    expect(withViewOverrides(saved, { noise: "lots", stat: "p50" })).toMatchObject({ noisePct: 5, stat: "median" });
    expect(withViewOverrides(saved, { noise: "0" })).toMatchObject({ noisePct: 0 });
  });

  it("builds the preview image's address from the view or the slug", () => {
    expect(ogImagePath(saved)).toBe(`/api/og?runs=${A},${B},${C}&baseline=${B}&noise=5&hide=${C}&stat=median`);
    expect(ogImagePath(parseCompareView({ runs: `${A},${B}` }))).toBe(`/api/og?runs=${A},${B}`);
    expect(savedOgImagePath("abcd1234")).toBe("/api/og?slug=abcd1234");
    expect(savedOgImagePath("abcd1234", { stat: "p99", hide: [A, B], runs: C, other: "x" })).toBe(
      `/api/og?slug=abcd1234&hide=${A},${B}&stat=p99`,
    );
    expect(overrideQuery({ baseline: [B, C], noise: "2" })).toBe(`baseline=${B}&noise=2`);
  });
});

describe("texts", () => {
  it("cuts long texts at a word with an ellipsis", () => {
    expect(truncateText("short", 10)).toBe("short");
    expect(truncateText("SGLang TP8, CUDA graphs on vs SGLang TP8", 20)).toBe("SGLang TP8, CUDA…");
    expect(truncateText("a\n\n  b", 10)).toBe("a b");
  });

  it("counts characters as a reader does, and never cuts an emoji or a letter from its marks", () => {
    // 👨‍👩‍👧 is five code points and one character; தமிழ் is five code points and three characters.
    expect(truncateText("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 3)).toBe("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧");
    expect(truncateText("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 3)).toBe("👨‍👩‍👧👨‍👩‍👧…");
    expect(truncateText("தமிழ்தமிழ்", 4)).toBe("தமிழ்…");
    expect(graphemeLength("தமிழ் 🇫🇷")).toBe(5);
  });

  it("keeps a default title within the stored limit when emoji count double", () => {
    const title = defaultComparisonTitle("🚀".repeat(300));
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title.endsWith("…")).toBe(true);
  });

  it("defaults the title to the summary title, within 200 characters", () => {
    expect(defaultComparisonTitle("SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph")).toBe(
      "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
    );
    const long = defaultComparisonTitle(`${"word ".repeat(60)}end`);
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith("…")).toBe(true);
    expect(defaultComparisonTitle("")).toBe("Comparison");
  });

  it("excerpts notes for the list", () => {
    expect(notesExcerpt(null)).toBeNull();
    expect(notesExcerpt("   ")).toBeNull();
    expect(notesExcerpt("Line one.\nLine two.")).toBe("Line one. Line two.");
    expect(notesExcerpt("x ".repeat(300))!.length).toBeLessThanOrEqual(240);
  });
});

describe("comparisonMetadata", () => {
  const metadata = comparisonMetadata({
    title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
    description:
      "single stream 27 → 63.6 tok/s (+135.6%), peak 2,216 → 2,370 tok/s (+6.9%); --disable-cuda-graph removed",
    imagePath: "/api/og?runs=AAAAAAAAAAAA,BBBBBBBBBBBB",
    baseUrl: "https://bench.example.com",
    pagePath: "/compare?runs=AAAAAAAAAAAA,BBBBBBBBBBBB",
  });

  it("sets the Open Graph tags, with an absolute 1200×630 image", () => {
    expect(metadata.metadataBase?.toString()).toBe("https://bench.example.com/");
    expect(metadata.openGraph).toMatchObject({
      type: "website",
      title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      description:
        "single stream 27 → 63.6 tok/s (+135.6%), peak 2,216 → 2,370 tok/s (+6.9%); --disable-cuda-graph removed",
      url: "https://bench.example.com/compare?runs=AAAAAAAAAAAA,BBBBBBBBBBBB",
      images: [{ url: "https://bench.example.com/api/og?runs=AAAAAAAAAAAA,BBBBBBBBBBBB", width: 1200, height: 630 }],
    });
  });

  it("sets a large Twitter card with the same title, description and image", () => {
    expect(metadata.twitter).toMatchObject({
      card: "summary_large_image",
      title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      description:
        "single stream 27 → 63.6 tok/s (+135.6%), peak 2,216 → 2,370 tok/s (+6.9%); --disable-cuda-graph removed",
      images: ["https://bench.example.com/api/og?runs=AAAAAAAAAAAA,BBBBBBBBBBBB"],
    });
    expect(metadata.title).toBe("SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph");
  });

  it("leaves out an empty description", () => {
    const under = comparisonMetadata({
      title: "t",
      description: "",
      imagePath: "/api/og?slug=abcd1234",
      baseUrl: "https://example.com",
    });
    expect(under.openGraph?.images).toEqual([
      expect.objectContaining({ url: "https://example.com/api/og?slug=abcd1234" }),
    ]);
    expect(under.description).toBeUndefined();
  });
});

describe("resolveBaseUrl", () => {
  const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });

  it("prefers the configured public URL", () => {
    expect(resolveBaseUrl("https://bench.example.com/", headers({ host: "internal:3000" }))).toBe(
      "https://bench.example.com",
    );
  });

  it("reads a reverse proxy's forwarded headers, else Host", () => {
    expect(
      resolveBaseUrl(
        undefined,
        headers({ "x-forwarded-proto": "https, http", "x-forwarded-host": "bench.example.com", host: "10.0.0.5:3000" }),
      ),
    ).toBe("https://bench.example.com");
    expect(resolveBaseUrl(undefined, headers({ host: "localhost:3300" }))).toBe("http://localhost:3300");
    expect(resolveBaseUrl(undefined, headers({ host: "[::1]:3000", "x-forwarded-proto": "gopher" }))).toBe(
      "http://[::1]:3000",
    );
  });

  it("falls back when the host header is missing or not a host", () => {
    expect(resolveBaseUrl(undefined, headers({}), "http://localhost:3000")).toBe("http://localhost:3000");
    expect(resolveBaseUrl(undefined, headers({ host: "evil.com/path?x" }), "http://localhost:3000")).toBe(
      "http://localhost:3000",
    );
  });
});

describe("the preview image's chart", () => {
  function chart(
    series: { key: string; label: string; color: string; id?: string; hidden: boolean; results: ResultPoint[] }[],
  ): LineChartData {
    const inputs = series.map((item) => ({ ...item, spreads: {} }));
    return lineChart(inputs, loadDomain(inputs), {
      title: "Output throughput",
      unit: "tok/s",
      valueOf: (_input, point) => ({ value: point.output_throughput ?? null, spreadKey: "output_throughput" }),
    });
  }
  const at = (concurrency: number, output_throughput: number) => ({ concurrency, output_throughput });
  const data = chart([
    {
      key: "s0",
      label: "SGLang TP8, --disable-cuda-graph",
      color: "#2563eb",
      id: A,
      hidden: false,
      results: [at(1, 27), at(128, 2216)],
    },
    {
      key: "s1",
      label: "SGLang TP8, CUDA graphs on",
      color: "#ea580c",
      id: B,
      hidden: false,
      results: [at(1, 63.6), at(128, 2370)],
    },
    {
      key: "s2",
      label: "vLLM TP8 baseline",
      color: "#16a34a",
      id: C,
      hidden: true,
      results: [at(1, 82.5), at(128, 1536)],
    },
  ]);
  const box = { width: 600, height: 430, padding: { top: 10, right: 20, bottom: 40, left: 70 } };

  it("picks round axis steps", () => {
    expect(niceStep(2370 * 1.05)).toBe(1000);
    expect(niceStep(90)).toBe(25);
    expect(niceStep(0)).toBe(1);
  });

  it("tells whether a segment passes through a rectangle", () => {
    const rect = { x: 10, y: 10, width: 20, height: 10 };
    expect(segmentHitsRect([0, 0, 40, 30], rect)).toBe(true);
    expect(segmentHitsRect([15, 12, 16, 13], rect)).toBe(true);
    expect(segmentHitsRect([0, 0, 40, 0], rect)).toBe(false);
    expect(segmentHitsRect([0, 30, 40, 21], rect)).toBe(false);
    expect(segmentHitsRect([35, 0, 35, 40], rect)).toBe(false);
  });

  it("draws visible series on a log2 axis with a labelled point per level", () => {
    const layout = layoutOgChart(data, box, measureText);
    expect(layout.plot).toEqual({ left: 70, top: 10, right: 580, bottom: 390 });
    expect(layout.xTicks.map((tick) => tick.label)).toEqual(["1", "2", "4", "8", "16", "32", "64", "128"]);
    expect(layout.xTicks[0]!.x).toBe(70);
    expect(layout.xTicks[7]!.x).toBe(580);
    // 2,370 × 1.05 rounds the axis up to 3,000 in steps of 1,000.
    expect(layout.yTicks.map((tick) => tick.label)).toEqual(["0", "1,000", "2,000", "3,000"]);
    // The hidden series (vLLM) is not drawn.
    expect(layout.lines.map((line) => line.color)).toEqual(["#2563eb", "#ea580c"]);
    expect(layout.lines[1]!.points).toBe(
      `70.0,${(390 - (63.6 / 3000) * 380).toFixed(1)} 580.0,${(390 - (2370 / 3000) * 380).toFixed(1)}`,
    );
    // Highest first at each level; each beside its point, the left level's to the right and the right's to the left.
    expect(layout.labels.map((label) => label.text)).toEqual(["63.6", "27", "2,370", "2,216"]);
    expect(layout.labels[0]!.x).toBeGreaterThan(70);
    expect(layout.labels[2]!.x + layout.labels[2]!.width).toBeLessThan(580);
    for (const label of layout.labels) {
      expect(label.x).toBeGreaterThanOrEqual(0);
      expect(label.x + label.width).toBeLessThanOrEqual(box.width);
      expect(label.y).toBeGreaterThanOrEqual(0);
      expect(label.y + label.height).toBeLessThanOrEqual(layout.plot.bottom);
      // Off the lines, off the dots and off each other.
      for (const segment of layout.segments) expect(segmentHitsRect(segment, label)).toBe(false);
      for (const dot of layout.dots) {
        const inside =
          dot.x >= label.x && dot.x <= label.x + label.width && dot.y >= label.y && dot.y <= label.y + label.height;
        expect(inside).toBe(false);
      }
      for (const other of layout.labels) {
        if (other === label) continue;
        const apart =
          label.x + label.width <= other.x ||
          other.x + other.width <= label.x ||
          label.y + label.height <= other.y ||
          other.y + other.height <= label.y;
        expect(apart).toBe(true);
      }
    }
  });

  it("bridges a level a series lacks with one line through its measured points, never a zero", () => {
    const gappy = chart([
      { key: "s0", label: "a", color: "#000", hidden: false, results: [at(1, 10), at(2, 20), at(8, 40), at(16, 50)] },
      { key: "s1", label: "b", color: "#111", hidden: false, results: [at(4, 30)] },
    ]);
    const layout = layoutOgChart(gappy, box, measureText);
    // a: one line through C=1, 2, 8, 16 (across C=4, which only b has); b: a lone dot, no line.
    expect(layout.lines.map((line) => line.points.split(" ").length)).toEqual([4]);
    expect(layout.dots).toHaveLength(5);
  });
});
