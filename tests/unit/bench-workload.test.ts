/**
 * What `servebench bench` sends: open-loop arrival times (vLLM's gamma draws), random prompts with a range
 * and a prefix, ShareGPT sampling, and the options that ask for them, goodput and percentiles.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { aggregateLevel, meetsTargets, type RequestRecord, requestMetrics } from "@/lib/bench/metrics";
import {
  BenchUsageError,
  expandArgv,
  parseBenchArgs,
  parseGoodput,
  parsePercentiles,
  parseRequestRates,
} from "@/lib/bench/options";
import { lengthRange, PromptFileError, randomPrompts, syntheticPrompt } from "@/lib/bench/prompts";
import { arrivalTimesMs, gamma } from "@/lib/bench/random";
import { loadLevels, requestsFor } from "@/lib/bench/runner";
import { estimateTokens, readShareGpt, ShareGptSampler } from "@/lib/bench/sharegpt";
import { seededUniform } from "@/lib/seeded-random";
import { mean, std } from "@/lib/stats";

const BASE = ["--base-url", "http://h:8000/v1"];

describe("arrival times", () => {
  const gapsOf = (times: number[]) => times.slice(1).map((time, index) => time - times[index]!);

  it.each([
    [1, 1],
    [0.25, 2],
    [0.5, Math.SQRT2],
    [4, 0.5],
    [16, 0.25],
  ])("burstiness %s: gaps with mean 1 / rate and coefficient of variation 1/√k (%s)", (burstiness, expectedCv) => {
    const times = arrivalTimesMs(20_000, 8, burstiness, 11);
    const gaps = gapsOf(times);
    expect(mean(gaps)).toBeCloseTo(125, 0);
    expect(Math.abs(std(gaps) / mean(gaps) - expectedCv) / expectedCv).toBeLessThan(0.03);
  });

  it("puts the last of N arrivals at exactly N / rate, in order, and all at 0 for rate inf", () => {
    const times = arrivalTimesMs(50, 4, 1, 0);
    expect(times[49]).toBeCloseTo(12_500, 9);
    expect(times.every((time, index) => index === 0 || time >= times[index - 1]!)).toBe(true);
    expect(arrivalTimesMs(5, Number.POSITIVE_INFINITY, 1, 0)).toEqual([0, 0, 0, 0, 0]);
    // Burstiness inf: evenly spaced.
    expect(arrivalTimesMs(4, 2, Number.POSITIVE_INFINITY, 0)).toEqual([500, 1000, 1500, 2000]);
  });

  it("is the same for the same seed and differs for another", () => {
    expect(arrivalTimesMs(20, 5, 0.5, 42)).toEqual(arrivalTimesMs(20, 5, 0.5, 42));
    expect(arrivalTimesMs(20, 5, 0.5, 43)).not.toEqual(arrivalTimesMs(20, 5, 0.5, 42));
  });

  it("draws gamma variates with mean k·θ and variance k·θ² (shapes below and above 1)", () => {
    for (const [shape, scale] of [
      [0.3, 2],
      [3, 0.5],
    ] as const) {
      const uniform = seededUniform(5);
      const draws = Array.from({ length: 50_000 }, () => gamma(uniform, shape, scale));
      expect(Math.abs(mean(draws) - shape * scale) / (shape * scale)).toBeLessThan(0.02);
      expect(Math.abs(std(draws) ** 2 - shape * scale * scale) / (shape * scale * scale)).toBeLessThan(0.05);
    }
  });
});

describe("load levels and requests per level", () => {
  it("open loop: 30 s of arrivals, at least ten; at rate inf three waves of the cap, or 100", () => {
    expect(requestsFor({ request_rate: 1 }, null)).toBe(30);
    expect(requestsFor({ request_rate: 0.1 }, null)).toBe(10);
    expect(requestsFor({ request_rate: 8 }, null)).toBe(240);
    expect(requestsFor({ request_rate: "inf" }, null)).toBe(100);
    expect(requestsFor({ request_rate: "inf" }, null, 16)).toBe(48);
    expect(requestsFor({ request_rate: 8 }, 50)).toBe(50);
    expect(requestsFor(4, null)).toBe(12);
    expect(loadLevels({ concurrency: [1, 2], requestRates: [1, "inf"] })).toEqual([
      { request_rate: 1 },
      { request_rate: "inf" },
    ]);
  });
});

describe("options", () => {
  it("reads request rates, sorted, inf last, fractions allowed", () => {
    expect(parseRequestRates("8, 1,inf,0.5,1")).toEqual([0.5, 1, 8, "inf"]);
    expect(() => parseRequestRates("0")).toThrow('--request-rate: "0" is not a rate above 0');
    expect(() => parseRequestRates("fast")).toThrow(BenchUsageError);
  });

  it("reads vLLM's goodput spelling: several pairs after one option, or commas, in ms", () => {
    expect(expandArgv(["--goodput", "ttft:500", "tpot:50", "--seed", "3"])).toEqual([
      "--goodput",
      "ttft:500",
      "--goodput",
      "tpot:50",
      "--seed",
      "3",
    ]);
    expect(parseGoodput(["ttft:500", "tpot:50,e2el:4000"])).toEqual({ ttft: 500, tpot: 50, e2el: 4000 });
    expect(() => parseGoodput(["itl:10"])).toThrow(
      '--goodput takes METRIC:MS pairs with METRIC one of ttft, tpot, e2el (e.g. ttft:500), not "itl:10"',
    );
    expect(() => parseGoodput(["ttft:-1"])).toThrow('--goodput ttft: the target is a number of ms ≥ 0, not "-1"');
    const options = parseBenchArgs([...BASE, "--goodput", "ttft:500", "tpot:50", "--request-rate", "2"]);
    expect(options.goodput).toEqual({ ttft: 500, tpot: 50 });
  });

  it("reads percentiles from 0 to 100", () => {
    expect(parsePercentiles("99,50,99.9,50")).toEqual([50, 99, 99.9]);
    expect(() => parsePercentiles("101")).toThrow('--percentiles: "101" is not a percentile from 0 to 100');
  });

  it("an open loop with its shape, cap and seed; those options without --request-rate are mistakes", () => {
    const options = parseBenchArgs([
      ...BASE,
      "--request-rate",
      "1,4,inf",
      "--burstiness",
      "0.5",
      "--max-concurrency",
      "16",
      "--seed",
      "9",
    ]);
    expect(options).toMatchObject({
      requestRates: [1, 4, "inf"],
      burstiness: 0.5,
      maxConcurrency: 16,
      seed: 9,
    });
    expect(parseBenchArgs([...BASE, "--request-rate", "1", "--burstiness", "inf"]).burstiness).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(() => parseBenchArgs([...BASE, "--burstiness", "2"])).toThrow(
      "--burstiness shapes an open loop: give --request-rate too (e.g. --request-rate 1,2,4)",
    );
    expect(() => parseBenchArgs([...BASE, "--concurrency", "4", "--request-rate", "2"])).toThrow(
      /^--concurrency and --request-rate exclude each other/,
    );
    expect(() => parseBenchArgs([...BASE, "--request-rate", "1", "--burstiness", "0"])).toThrow(
      '--burstiness must be a number > 0 or inf, not "0"',
    );
  });

  it("datasets: sharegpt takes its file after its name; random needs a length; their options do not mix", () => {
    const sharegpt = parseBenchArgs([...BASE, "--dataset", "sharegpt", "/data/sg.json", "--seed", "1"]);
    expect(sharegpt).toMatchObject({ dataset: "sharegpt", datasetPath: "/data/sg.json", seed: 1 });
    expect(() => parseBenchArgs([...BASE, "--dataset", "sharegpt"])).toThrow(/^--dataset sharegpt needs the file/);
    const random = parseBenchArgs([...BASE, "--dataset", "random", "--input-len", "512", "--prefix-len", "64"]);
    expect(random).toMatchObject({ dataset: "random", inputLen: 512, prefixLen: 64 });
    expect(parseBenchArgs([...BASE, "--input-len", "8"]).dataset).toBe("random");
    expect(() => parseBenchArgs([...BASE, "--dataset", "random"])).toThrow(
      "--dataset random needs --input-len N (the prompt length in tokens)",
    );
    expect(() => parseBenchArgs([...BASE, "--dataset", "sharegpt", "x.json", "--prefix-len", "4"])).toThrow(
      "--prefix-len shapes random prompts and excludes --dataset sharegpt: the prompts come from one source",
    );
    expect(() => parseBenchArgs([...BASE, "--input-len", "8", "--range-ratio", "1"])).toThrow(
      '--range-ratio must be below 1 (lengths stay above 0), not "1"',
    );
    expect(() => parseBenchArgs([...BASE, "--dataset", "wiki"])).toThrow(
      '--dataset is builtin, random or sharegpt FILE, not "wiki"',
    );
  });

  it("metrics: on by default every 250 ms; a URL; off", () => {
    expect(parseBenchArgs(BASE).metrics).toEqual({ intervalMs: 250 });
    expect(
      parseBenchArgs([...BASE, "--metrics-url", "http://h:9090/metrics", "--metrics-interval", "500"]).metrics,
    ).toEqual({ url: new URL("http://h:9090/metrics"), intervalMs: 500 });
    expect(parseBenchArgs([...BASE, "--no-metrics"]).metrics).toBeNull();
    expect(() => parseBenchArgs([...BASE, "--metrics-interval", "10"])).toThrow(
      '--metrics-interval must be a whole number ≥ 50, not "10"',
    );
    expect(() => parseBenchArgs([...BASE, "--no-metrics", "--metrics-url", "http://h/metrics"])).toThrow(
      "--no-metrics excludes --metrics-url and --metrics-interval",
    );
  });
});

describe("random prompts", () => {
  it("seed 0 and a fixed length send the prompts servebench always sent", () => {
    const source = randomPrompts({ inputLen: 16 });
    expect(source.at(3)).toEqual({ kind: "text", text: syntheticPrompt(16, 3) });
  });

  it("draw each length from len × (1 ± r) and share the prefix, the same for the same seed", () => {
    expect(lengthRange(100, 0.25)).toEqual([75, 125]);
    expect(lengthRange(3, 0.9, 1)).toEqual([1, 6]);
    const source = randomPrompts({ inputLen: 40, prefixLen: 10, rangeRatio: 0.5, outputLen: 100, seed: 3 });
    expect(source.workload).toEqual({ input_len: 40, prefix_len: 10, range_ratio: 0.5 });
    const prompts = Array.from({ length: 200 }, (_, index) => source.at(index));
    const lengths = prompts.map((prompt) => (prompt.kind === "text" ? prompt.text.split(" ").length - 10 : 0));
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(60);
    expect(new Set(lengths).size).toBeGreaterThan(20);
    const outputs = prompts.map((prompt) => prompt.maxTokens!);
    expect(Math.min(...outputs)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...outputs)).toBeLessThanOrEqual(150);
    const prefixes = new Set(
      prompts.map((prompt) => (prompt.kind === "text" ? prompt.text.split(" ").slice(0, 10).join(" ") : "")),
    );
    expect(prefixes.size).toBe(1);
    expect(randomPrompts({ inputLen: 40, prefixLen: 10, rangeRatio: 0.5, outputLen: 100, seed: 3 }).at(7)).toEqual(
      prompts[7],
    );
    expect(randomPrompts({ inputLen: 40, prefixLen: 10, rangeRatio: 0.5, outputLen: 100, seed: 4 }).at(7)).not.toEqual(
      prompts[7],
    );
  });
});

describe("ShareGPT", () => {
  const turn = (value: string, from = "human") => ({ from, value });
  const conversation = (prompt: string, reply: string) => ({ conversations: [turn(prompt), turn(reply, "gpt")] });

  it("keeps pairs by vLLM's length rules (estimated at 4 characters a token) and samples them uniformly", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    const sampler = new ShareGptSampler({ count: 1000, seed: 1 });
    sampler.add(conversation("x".repeat(40), "y".repeat(40)));
    sampler.add(conversation("x".repeat(12), "y".repeat(40))); // prompt of 3 tokens
    sampler.add(conversation("x".repeat(40), "y".repeat(12))); // reply of 3 tokens
    sampler.add(conversation("x".repeat(4100), "y".repeat(40))); // prompt over 1,024
    sampler.add(conversation("x".repeat(4000), "y".repeat(4400))); // together over 2,048
    sampler.add({ conversations: [turn("only one turn here")] });
    sampler.add("not an object");
    expect(sampler.summary).toEqual({ entries: 7, valid: 1 });
    // A fixed output length lifts the reply-length rule.
    const fixed = new ShareGptSampler({ count: 10, seed: 1, outputLen: 64 });
    fixed.add(conversation("x".repeat(40), "y"));
    expect(fixed.summary.valid).toBe(1);
    expect(fixed.source("f.json", "0".repeat(64)).at(0)).toMatchObject({ kind: "text", maxTokens: 64 });

    // Reservoir sampling: each of 100 valid pairs is kept with probability 10/100.
    const kept = new Map<string, number>();
    for (let seed = 0; seed < 400; seed += 1) {
      const reservoir = new ShareGptSampler({ count: 10, seed });
      for (let index = 0; index < 100; index += 1)
        reservoir.add(conversation(`prompt number ${index} `.repeat(2), "a reply long enough"));
      const source = reservoir.source("f.json", "h");
      for (let index = 0; index < 10; index += 1) {
        const prompt = source.at(index);
        if (prompt.kind === "text") kept.set(prompt.text, (kept.get(prompt.text) ?? 0) + 1);
      }
    }
    const counts = [...kept.values()];
    expect(kept.size).toBe(100);
    // 400 draws × 10 % = 40 each on average; every pair lands within a generous band of it.
    expect(Math.min(...counts)).toBeGreaterThan(15);
    expect(Math.max(...counts)).toBeLessThan(70);
  });

  it("says what is wrong with a file that is not a ShareGPT array", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sharegpt-"));
    try {
      const object = path.join(dir, "object.json");
      fs.writeFileSync(object, '{"conversations": []}');
      await expect(readShareGpt(object, { count: 5, seed: 0 })).rejects.toThrow(
        new PromptFileError(
          'object.json: a ShareGPT file is a JSON array of conversations; this one does not start with "["',
        ),
      );
      const broken = path.join(dir, "broken.json");
      fs.writeFileSync(broken, '[{"conversations": [}]');
      await expect(readShareGpt(broken, { count: 5, seed: 0 })).rejects.toThrow(/^broken\.json is not valid JSON: /);
      const empty = path.join(dir, "empty.json");
      fs.writeFileSync(empty, "[]");
      await expect(readShareGpt(empty, { count: 5, seed: 0 })).rejects.toThrow(
        /^empty\.json: no usable conversation among 0 entries/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("goodput and extra percentiles", () => {
  const request = (start: number, ttft: number, tokens: number, tpot: number): RequestRecord => {
    const chunks = Array.from({ length: tokens }, (_, index) => ttft + index * tpot);
    return {
      status: "ok",
      start_ms: start,
      end_ms: start + chunks[chunks.length - 1]!,
      text_chunk_ms: chunks,
      usage_output_tokens: tokens,
      usage_input_tokens: 5,
    };
  };

  it("a request is good when it meets every target; one output token counts as TPOT 0", () => {
    const one = requestMetrics(request(0, 300, 1, 0));
    expect(meetsTargets(one, { tpot: 1 })).toBe(true);
    const slow = requestMetrics(request(0, 100, 11, 30));
    expect(meetsTargets(slow, { ttft: 100, tpot: 30 })).toBe(true);
    expect(meetsTargets(slow, { ttft: 100, tpot: 29.9 })).toBe(false);
    expect(meetsTargets(slow, { e2el: 399 })).toBe(false);
  });

  it("request_goodput is good requests over the level's duration; percentiles without a field go to `percentiles`", () => {
    // Four requests over 0 … 1,000 ms: TTFTs 100, 200, 300 and 400 ms.
    const records = [0, 1, 2, 3].map((index) => request(index * 100, 100 * (index + 1), 3, 50));
    records[3]!.end_ms = 1000;
    const level = aggregateLevel({ request_rate: 4 }, records, {
      goodput: { ttft: 250 },
      percentiles: [25, 50, 99.9],
    });
    expect(level.good_requests).toBe(2);
    expect(level.point.duration_s).toBe(1);
    expect(level.point.request_goodput).toBe(2);
    expect(level.point.percentiles?.ttft).toEqual({ p25: 175, "p99.9": 399.7 });
    expect(level.point.median_ttft_ms).toBe(250);
    expect(level.point).toMatchObject({ request_rate: 4, completed: 4 });
    expect(level.point.concurrency).toBeUndefined();
  });
});
