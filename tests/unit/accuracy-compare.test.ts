import { describe, expect, it } from "vitest";
import { accuracyChangeText, accuracyClause, compareAccuracy, judgeAccuracy } from "@/lib/analysis/accuracy";
import { verdictSentence } from "@/lib/analysis/verdict";
import type { AccuracyScore } from "@/lib/document/schema";

const gsm8k = (value: number, stderr?: number, extra: Partial<AccuracyScore> = {}): AccuracyScore => ({
  evaluator: "lm-eval",
  task: "gsm8k",
  metric: "exact_match",
  filter: "strict-match",
  value,
  ...(stderr === undefined ? {} : { stderr }),
  num_fewshot: 5,
  samples: 1319,
  ...extra,
});

describe("the accuracy noise rule: |Δ| inside 2·√(se₁² + se₂²) is within noise", () => {
  it("judges a 6-point drop with stderr 1.3 on both sides worse (band ±3.68)", () => {
    const judged = judgeAccuracy(gsm8k(0.78, 0.013), gsm8k(0.72, 0.013));
    expect(judged.noiseBand).toBeCloseTo(2 * Math.sqrt(2 * 0.013 ** 2), 12);
    expect(judged.noiseBand).toBeCloseTo(0.03677, 5);
    expect(judged.delta).toBeCloseTo(-0.06, 12);
    expect(judged.verdict).toBe("worse");
  });

  it("keeps a 3-point move within noise at the same stderr, and a rise beyond it better", () => {
    expect(judgeAccuracy(gsm8k(0.78, 0.013), gsm8k(0.75, 0.013)).verdict).toBe("noise");
    expect(judgeAccuracy(gsm8k(0.72, 0.013), gsm8k(0.78, 0.013)).verdict).toBe("better");
  });

  it("turns the direction for a score where lower is better (perplexity)", () => {
    const perplexity = (value: number) =>
      gsm8k(value, 0.1, { task: "wikitext", metric: "word_perplexity", filter: "none", higher_is_better: false });
    expect(judgeAccuracy(perplexity(10), perplexity(11)).verdict).toBe("worse");
    expect(judgeAccuracy(perplexity(11), perplexity(10)).verdict).toBe("better");
  });

  it("cannot judge a difference without a standard error on both sides", () => {
    const judged = judgeAccuracy(gsm8k(0.78, 0.013), gsm8k(0.72));
    expect(judged.noiseBand).toBeNull();
    expect(judged.verdict).toBe("unknown");
    expect(judgeAccuracy(gsm8k(0.78), gsm8k(0.78)).verdict).toBe("noise");
  });
});

describe("comparing two runs' scores", () => {
  it("pairs scores by evaluator, task, metric and filter; lists the ones only one side has", () => {
    const flexible = gsm8k(0.8, 0.011, { filter: "flexible-extract" });
    const comparison = compareAccuracy(
      [gsm8k(0.78, 0.013), flexible],
      [gsm8k(0.72, 0.013), gsm8k(0.5, 0.01, { task: "mmlu", metric: "acc", filter: "none" })],
    );
    expect(comparison.rows.map((row) => [row.label, row.verdict])).toEqual([
      ["gsm8k · exact_match (strict-match)", "worse"],
    ]);
    expect(comparison.onlyBase).toEqual(["gsm8k · exact_match (flexible-extract)"]);
    expect(comparison.onlyValue).toEqual(["mmlu · acc"]);
  });

  it("says how two scores were measured differently", () => {
    const comparison = compareAccuracy(
      [gsm8k(0.78, 0.013)],
      [gsm8k(0.72, 0.013, { num_fewshot: 8, samples: 200, limit: 200, generation: { temperature: 0.6 } })],
    );
    expect(comparison.rows[0]!.unlike).toEqual([
      "few-shot 5 → 8",
      "samples 1,319 → 200",
      "limit not stated → 200",
      "generation settings differ",
    ]);
  });

  it("reads fractions as points and states the band", () => {
    const row = compareAccuracy([gsm8k(0.7821, 0.0114)], [gsm8k(0.7221, 0.0123)]).rows[0]!;
    expect(row.scale).toBe(100);
    expect(accuracyChangeText(row)).toBe("78.2 → 72.2 (−6.0 points, beyond ±3.4)");
  });

  it("names the largest drop first, then how many more fell", () => {
    const base = [gsm8k(0.78, 0.013), gsm8k(0.6, 0.01, { task: "arc_challenge", metric: "acc_norm", filter: "none" })];
    const value = [
      gsm8k(0.72, 0.013),
      gsm8k(0.54, 0.01, { task: "arc_challenge", metric: "acc_norm", filter: "none" }),
    ];
    const clause = accuracyClause(compareAccuracy(base, value))!;
    expect(clause.verdict).toBe("worse");
    expect(clause.text).toBe(
      "accuracy: arc_challenge · acc_norm 60.0 → 54.0 (−6.0 points, beyond ±2.8) (and 1 more fell)",
    );
    expect(accuracyClause(compareAccuracy([gsm8k(0.78, 0.013)], [gsm8k(0.77, 0.013)]))).toEqual({
      text: "accuracy within noise on gsm8k · exact_match (strict-match)",
      verdict: "noise",
    });
    expect(accuracyClause(compareAccuracy([gsm8k(0.78, 0.013)], []))).toBeNull();
    expect(accuracyClause(compareAccuracy([gsm8k(0.78, 0.013)], [gsm8k(0.7, 0.013, { num_fewshot: 0 })]))!.text).toBe(
      "accuracy: gsm8k · exact_match (strict-match) 78.0 → 70.0 (−8.0 points, beyond ±3.7), not like for like: few-shot 5 → 0",
    );
  });
});

describe("the verdict: a faster run whose accuracy fell is never simply better", () => {
  const sides = { sides: ["FP8", "BF16"] as [string, string], unnamed: 0 };
  const base = {
    sides,
    notLikeForLike: [],
    singleStream: { base: 50, value: 70, verdict: "better" as const },
    peak: { text: "peak at C=64: 1,000 → 1,400 tok/s (+40.0%)", verdict: "better" as const },
    slo: null,
    interactivity: null,
    noise: 0.02,
  };

  it("leads with the drop and says trade-off", () => {
    const accuracy = accuracyClause(compareAccuracy([gsm8k(0.78, 0.013)], [gsm8k(0.72, 0.013)]));
    const sentence = verdictSentence({ ...base, accuracy });
    expect(sentence.tradeOff).toBe(true);
    expect(sentence.clauses[0]!.verdict).toBe("worse");
    expect(sentence.text).toBe(
      "FP8 vs BF16: trade-off, accuracy: gsm8k · exact_match (strict-match) 78.0 → 72.0 (−6.0 points, beyond ±3.7); single stream 50 → 70 tok/s (+40.0%); peak at C=64: 1,000 → 1,400 tok/s (+40.0%)",
    );
  });

  it("keeps accuracy within noise last, and no trade-off", () => {
    const accuracy = accuracyClause(compareAccuracy([gsm8k(0.78, 0.013)], [gsm8k(0.77, 0.013)]));
    const sentence = verdictSentence({ ...base, accuracy });
    expect(sentence.tradeOff).toBe(false);
    expect(sentence.clauses[0]!.text).toMatch(/^single stream/);
    expect(sentence.clauses.at(-1)!.text).toBe("accuracy within noise on gsm8k · exact_match (strict-match)");
  });
});
