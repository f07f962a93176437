import { describe, expect, it } from "vitest";
import { buildSearchSample, planSearch, SEARCH_SAMPLE_ROWS, trigramsOf } from "@/lib/runs/search-plan";

describe("trigramsOf", () => {
  it("counts characters, not UTF-16 units, and lists each trigram once", () => {
    expect(trigramsOf("abcab")).toEqual(["abc", "bca", "cab"]);
    expect(trigramsOf("🚀🚀 x")).toEqual(["🚀🚀 ", "🚀 x"]);
    expect(trigramsOf("ab")).toEqual([]);
  });
});

/** A full sample: runs named from a few parts each, so every part is common and only combinations are rare. */
function gridSample(without = "\u0000"): string[] {
  const texts: string[] = [];
  const engines = ["vllm", "sglang", "tensorrt-llm", "tgi"];
  const models = ["qwen3-32b", "llama-3.1-8b", "gpt-oss-120b", "kimi-k2.5", "mistral-small"];
  const gpus = ["h100", "a100-sxm4", "mi300x", "l40s"];
  for (let index = 0; texts.length < SEARCH_SAMPLE_ROWS; index += 1) {
    const engine = engines[index % engines.length];
    const model = models[Math.floor(index / 4) % models.length];
    const gpu = gpus[Math.floor(index / 20) % gpus.length];
    const text = `${engine} · ${model} · ${gpu} ×${1 + (index % 3)}\n${engine}\n${model}\n\n`;
    if (!text.includes(without)) texts.push(text);
  }
  return texts;
}

const RARE = "sglang · kimi-k2.5 · mi300x ×2";

describe("planSearch", () => {
  // The rare text's combination of parts is left out of the sample: each of its parts is in many runs.
  const sample = buildSearchSample(gridSample(RARE), false);
  const options = { total: 1_000_000, take: 51 };

  it("walks the order for a text in a large share of the runs", () => {
    expect(planSearch(sample, "vllm", options)).toEqual({ kind: "walk" });
    expect(planSearch(sample, " · ", options)).toEqual({ kind: "walk" });
  });

  it("asks the index for a few trigrams of a rare text, from different parts of it", () => {
    const plan = planSearch(sample, RARE, options);
    expect(plan.kind).toBe("index");
    if (plan.kind !== "index") return;
    expect(plan.trigrams.length).toBeGreaterThan(1);
    expect(plan.trigrams.length).toBeLessThanOrEqual(6);
    // Trigrams of the engine, the model and the GPU: each alone is in a quarter or a fifth of the runs.
    expect(plan.trigrams.some((trigram) => "sglang ·".includes(trigram))).toBe(true);
    expect(plan.trigrams.some((trigram) => "· kimi-k2.5 ·".includes(trigram))).toBe(true);
    expect(plan.trigrams.some((trigram) => "· mi300x".includes(trigram))).toBe(true);
    expect(plan.trigrams).not.toContain(" · ");
  });

  it("asks for one trigram the sample never saw, and stops there", () => {
    const plan = planSearch(sample, "vllm · qwen3-32b zzq", options);
    expect(
      plan.kind === "index" && plan.trigrams.length === 1 && ["b z", " zz", "zzq"].includes(plan.trigrams[0] ?? ""),
    ).toBe(true);
  });

  it("keeps to the trigrams the database can ask for alone", () => {
    const plan = planSearch(sample, RARE, {
      ...options,
      usable: (trigram) => /^[a-z0-9]{3}$/.test(trigram),
    });
    expect(plan.kind).toBe("index");
    if (plan.kind !== "index") return;
    for (const trigram of plan.trigrams) expect(trigram).toMatch(/^[a-z0-9]{3}$/);
    expect(planSearch(sample, "· ×", { ...options, usable: () => false })).toEqual({ kind: "walk" });
  });

  it("asks for a pair of whole words when it narrows more than trigrams do, and only when pairs are complete", () => {
    const plan = planSearch(sample, RARE, { ...options, pairs: true });
    expect(plan).toEqual({ kind: "index", trigrams: expect.any(Array), pairs: ["kimi-k2.5 mi300x"], triples: [] });
    // Without the pair index (older runs without pairs), the same text is asked of the trigram index alone.
    const without = planSearch(sample, RARE, { ...options, pairs: false });
    expect(without.kind === "index" && without.pairs.length === 0 && without.trigrams.length > 1).toBe(true);
    // A text of one word holds no whole pair.
    const word = planSearch(sample, "kimi-k2.5", { ...options, pairs: true });
    expect(word.kind === "walk" || word.pairs.length === 0).toBe(true);
  });

  it("asks for a triple of whole words whose pairs are each common, and only when triples are complete", () => {
    // Both pairs of the three words are in many runs of the sample (every trigram too); the three together in none.
    const triple = "kimi-k2.5 mi300x ×2";
    const withoutTriple = buildSearchSample(gridSample("kimi-k2.5 · mi300x ×2"), false);
    const text = `${RARE}\nsglang`;
    const plan = planSearch(withoutTriple, text, { ...options, pairs: true, triples: true });
    expect(plan).toEqual({ kind: "index", trigrams: [], pairs: [], triples: [triple] });
    const pairsOnly = planSearch(withoutTriple, text, { ...options, pairs: true, triples: false });
    expect(pairsOnly.kind === "index" && pairsOnly.triples.length === 0 && pairsOnly.pairs.length > 0).toBe(true);
  });

  it("always uses the index when the sample is the whole history", () => {
    const small = buildSearchSample(gridSample().slice(0, 100), true);
    expect(planSearch(small, "vllm", { total: 100, take: 51 }).kind).toBe("index");
  });

  it("keeps a bounded share of long texts, and still judges from fewer runs", () => {
    const long = Array.from({ length: SEARCH_SAMPLE_ROWS }, (_, index) => `run ${index} common ${"x".repeat(5_000)}`);
    const bounded = buildSearchSample(long, false);
    expect(bounded.rows).toBe(1_000);
    expect(bounded.whole).toBe(false);
    expect(bounded.texts.every((text) => [...text].length === 1_000)).toBe(true);
    expect(planSearch(bounded, "common", options)).toEqual({ kind: "walk" });
    // The history had only these runs, but not all were kept: the shares are estimates.
    expect(buildSearchSample(long.slice(0, 1_500), true).whole).toBe(false);
  });
});
