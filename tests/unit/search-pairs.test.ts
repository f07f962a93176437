import { describe, expect, it } from "vitest";
import {
  pairsOfQuery,
  pairsOfText,
  searchPairsOf,
  searchTriplesOf,
  triplesOfQuery,
  triplesOfText,
  wordsToken,
} from "@/lib/document/search-pairs";
import { seededUniform } from "@/lib/seeded-random";

describe("pairsOfText", () => {
  it("pairs each word with the next, skipping parts without a letter or digit, once each", () => {
    expect(pairsOfText("vllm 0.11.0 · qwen3-32b · h100 ×2\nvllm\tqwen/qwen3-32b")).toEqual([
      "vllm 0.11.0",
      "0.11.0 qwen3-32b",
      "qwen3-32b h100",
      "h100 ×2",
      "×2 vllm",
      "vllm qwen/qwen3-32b",
    ]);
    expect(pairsOfText("a b a b")).toEqual(["a b", "b a"]);
    expect(pairsOfText("   solo  ")).toEqual([]);
    expect(pairsOfText("日本語 モデル\u3000比較")).toEqual(["日本語 モデル", "モデル 比較"]);
  });
});

describe("triplesOfText", () => {
  it("takes each three neighbouring words, skipping the same parts as pairs do, once each", () => {
    expect(triplesOfText("vllm 0.11.0 · qwen3-32b · h100 ×2")).toEqual([
      "vllm 0.11.0 qwen3-32b",
      "0.11.0 qwen3-32b h100",
      "qwen3-32b h100 ×2",
    ]);
    expect(triplesOfText("a b a b a")).toEqual(["a b a", "b a b"]);
    expect(triplesOfText("two words")).toEqual([]);
  });
});

describe("pairsOfQuery", () => {
  it("uses only the words the query holds whole: never its first or last part", () => {
    expect(pairsOfQuery("tensorrt-llm 1.0.0 · qwen3-30b-a3b · a100-sxm4-80gb ×1 · kv-095")).toEqual([
      "1.0.0 qwen3-30b-a3b",
      "qwen3-30b-a3b a100-sxm4-80gb",
      "a100-sxm4-80gb ×1",
    ]);
    expect(pairsOfQuery("llm 1.0.0 qwen3")).toEqual([]);
    expect(pairsOfQuery("a b c d")).toEqual(["b c"]);
    expect(pairsOfQuery("cuda-graph")).toEqual([]);
    // Whitespace at an end makes the word beside it whole.
    expect(pairsOfQuery(" b c ")).toEqual(["b c"]);
  });

  it("has triples of whole words alone, never the first or the last part", () => {
    expect(triplesOfQuery("tensorrt-llm 1.0.0 · qwen3-30b-a3b · a100-sxm4-80gb ×1 · kv-095")).toEqual([
      "1.0.0 qwen3-30b-a3b a100-sxm4-80gb",
      "qwen3-30b-a3b a100-sxm4-80gb ×1",
    ]);
    expect(triplesOfQuery("a b c d")).toEqual([]);
    expect(triplesOfQuery(" b c d ")).toEqual(["b c d"]);
  });

  it("holds only pairs and triples of every text that contains the query, whatever the whitespace and punctuation", () => {
    const rand = seededUniform(20261201);
    const pieces = ["a", "ab", "b", "1.0", "·", "×1", "-", "é", "日本", "a-b", "|", "🚀"];
    const spaces = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", " · "];
    const pick = <T>(from: readonly T[]) => from[Math.floor(rand() * from.length)] as T;
    let checked = 0;
    let triplesChecked = 0;
    for (let textIndex = 0; textIndex < 300; textIndex += 1) {
      let text = "";
      const words = 2 + Math.floor(rand() * 12);
      for (let word = 0; word < words; word += 1) {
        text += pick(pieces) + (rand() < 0.3 ? pick(pieces) : "") + pick(spaces);
      }
      const held = new Set([...pairsOfText(text), ...triplesOfText(text)]);
      const chars = [...text];
      for (let draw = 0; draw < 40; draw += 1) {
        const start = Math.floor(rand() * chars.length);
        const query = chars.slice(start, start + 1 + Math.floor(rand() * 24)).join("");
        for (const sequence of [...pairsOfQuery(query), ...triplesOfQuery(query)]) {
          expect({ text, query, sequence, held: held.has(sequence) }).toEqual({ text, query, sequence, held: true });
          checked += 1;
          if (sequence.split(" ").length === 3) triplesChecked += 1;
        }
      }
    }
    // The property was put to the test, not passed by asking nothing.
    expect(checked).toBeGreaterThan(2_000);
    expect(triplesChecked).toBeGreaterThan(500);
  });
});

describe("searchPairsOf", () => {
  it("stores each distinct pair once, as a token of hex digits", () => {
    const stored = searchPairsOf("a b a b c");
    expect(stored.split(" ")).toEqual([wordsToken("a b"), wordsToken("b a"), wordsToken("b c")]);
    for (const token of stored.split(" ")) expect(token).toMatch(/^[0-9a-f]{10}$/);
    expect(wordsToken("a b")).not.toBe(wordsToken("b a"));
    expect(searchPairsOf("one")).toBe("");
    expect(searchTriplesOf("a b a b c").split(" ")).toEqual([
      wordsToken("a b a"),
      wordsToken("b a b"),
      wordsToken("a b c"),
    ]);
    expect(searchTriplesOf("a b")).toBe("");
  });
});
