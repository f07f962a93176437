/**
 * The preview image never leaves the machine: titles and run names in every script, and emoji, render from the
 * bundled fonts with `fetch` trapped (any call fails the test), and a character no bundled font has is drawn as
 * the placeholder □ instead of being looked up on the Internet. Rendering is deterministic, so comparing the
 * bytes of two images tells whether a text was drawn with its own glyphs or as placeholders.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { GET as getOg } from "@/app/api/og/route";
import { PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { fontCatalog, GlyphCover, PLACEHOLDER } from "@/lib/comparisons/og-fonts";
import { BASE, clearDatabase, fixtureJson, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const fetched: string[] = [];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  // No network: the renderer would call fetch for a font or an emoji image it lacks.
  // (The renderer loads its own WebAssembly from a data: URL, which is no network.)
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith("data:")) return realFetch(input, init);
    fetched.push(url);
    throw new Error("no network in this test");
  }) as typeof fetch;
  await clearDatabase();
});

afterAll(() => {
  globalThis.fetch = realFetch;
});

/**
 * The same two runs for every image, renamed each time: a run's colour comes from its id, so new runs would
 * differ in more than their text.
 */
const runIds: string[] = [];

async function runNamed(index: number, name: string): Promise<string> {
  const existing = runIds[index];
  if (existing !== undefined) {
    const renamed = await patchRun(jsonRequest(`/api/runs/${existing}`, "PATCH", { name }), idContext(existing));
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    return existing;
  }
  const response = await postRun(
    jsonRequest("/api/runs", "POST", { ...fixtureJson(SEED_FILES.vllm), name, notes: `run ${index}` }),
    noContext,
  );
  expect(response.status, await response.clone().text()).toBe(201);
  const { id } = (await response.json()) as { id: string };
  runIds[index] = id;
  return id;
}

/** The preview of a saved comparison of two runs, titled and named with `text`. */
async function preview(text: string): Promise<Uint8Array> {
  const a = await runNamed(0, `${text} A`);
  const b = await runNamed(1, `${text} B`);
  const saved = await postComparison(jsonRequest("/api/comparisons", "POST", { runs: [a, b], title: text }), noContext);
  expect(saved.status).toBe(201);
  const { slug } = (await saved.json()) as { slug: string };
  const response = await getOg(new Request(`${BASE}/api/og?slug=${slug}`), noContext);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("image/png");
  const bytes = new Uint8Array(await response.arrayBuffer());
  const view = new DataView(bytes.buffer);
  expect([view.getUint32(16), view.getUint32(20)]).toEqual([1200, 630]);
  if (process.env.OG_DUMP) fs.writeFileSync(`${process.env.OG_DUMP}/og-${[...text].slice(0, 12).join("")}.png`, bytes);
  return bytes;
}

const placeholders = (text: string) =>
  [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)]
    .map(({ segment }) => (segment === " " ? " " : PLACEHOLDER))
    .join("");

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

const DRAWN: [string, string][] = [
  ["Latin with accents", "Réglage ñandú Øresund"],
  ["Cyrillic", "Базовый прогон"],
  ["Greek", "Βασική εκτέλεση"],
  ["Vietnamese", "Chạy cơ sở"],
  ["Arabic", "تشغيل أساسي"],
  ["Hebrew", "הרצה בסיסית"],
  ["Devanagari", "आधार रन"],
  ["Thai", "การทดสอบพื้นฐาน"],
  ["Chinese", "基线运行 吞吐量"],
  ["Japanese kana", "ベースライン ひらがな"],
  ["Korean", "기준 실행"],
  ["emoji", "🚀 🔥 ❤️ 👍🏽 👨‍👩‍👧 🇫🇷 #️⃣"],
];

describe("the preview image with no network", () => {
  test.each(DRAWN)("draws %s with its own glyphs, fetching nothing", async (_script, text) => {
    const drawn = await preview(text);
    const boxes = await preview(placeholders(text));
    expect(same(drawn, boxes)).toBe(false);
    expect(fetched).toEqual([]);
  });

  it("draws what no bundled font has as □, fetching nothing", async () => {
    // Tamil, Georgian, Ethiopic, Cherokee, an Old Italic letter (outside the BMP), a private-use character.
    const text = "தமிழ் ქართ ሰላም ᏣᎳᎩ 𐌀 \ue000";
    const drawn = await preview(text);
    const boxes = await preview(placeholders(text));
    expect(same(drawn, boxes)).toBe(true);
    expect(fetched).toEqual([]);
  });
});

describe("GlyphCover", () => {
  it("keeps what the bundled fonts have and puts □ for the rest, grapheme by grapheme", () => {
    const cover = new GlyphCover();
    expect(cover.text("vLLM 基线 → 27 tok/s 🚀 தமிழ்")).toBe(`vLLM 基线 → 27 tok/s 🚀 ${PLACEHOLDER.repeat(3)}`);
    expect(cover.text("a\ud800b")).toBe(`a${PLACEHOLDER}b`);
    const names = cover.fonts().map((font) => font.name);
    expect(names[0]).toBe("noto-sans-latin");
    expect(names.some((name) => name.startsWith("noto-sans-sc-"))).toBe(true);
    expect(names).toContain("noto-emoji");
  });

  it("covers every character the image's own texts use", () => {
    const cover = new GlyphCover();
    const own = "servebench Comparison not found BASELINE 27 → 63.6 tok/s (+135.6%) −4.2% ±0.1 × · … – — C=128 ∞";
    expect(cover.text(own)).toBe(own);
  });

  it("bundles a few megabytes of fonts, sliced so that a text loads only what it uses", () => {
    const bytes = fontCatalog().reduce((sum, slice) => sum + fs.statSync(slice.file).size, 0);
    expect(bytes).toBeLessThan(15_000_000);
    expect(fontCatalog().length).toBeGreaterThan(200);
  });
});
