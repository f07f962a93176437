/**
 * JSON numbers beyond ±2^53: JSON.parse rounds them (9007199254740993 reads as …992), so the text is read for them.
 * A run document keeps their digits as text where it keeps any value (metadata, flags, env); any other field
 * refuses them, naming itself.
 */
import { describe, expect, it, test } from "vitest";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { keepsExactDigits } from "@/lib/document/schema";
import { findLargeNumbers, MAX_EXACT_JSON_INTEGER } from "@/lib/formats/decode";
import { parseWriteJson } from "@/lib/http/body";
import { refusal } from "@/tests/support/refusal";

describe("findLargeNumbers", () => {
  it("finds nothing in a text without 16 digits in a row or an exponent", () => {
    expect(findLargeNumbers('{"a": 123456789012345, "b": [1.5, -2], "c": "9007199254740993"}')).toEqual([]);
  });

  test.each([
    ["9007199254740992", false],
    ["-9007199254740992", false],
    ["9007199254740993", true],
    ["-9007199254740993", true],
    ["0009007199254740991", false],
    ["12345678901234567890", true],
    ["9007199254740993.5", true],
    ["1e16", true],
    ["-1E+300", true],
    ["1e400", true],
    ["1e15", false],
    ["1234567890123456.5", false],
  ])("%s beyond ±2^53: %s", (literal, beyond) => {
    expect(findLargeNumbers(`{"x": ${literal}}`)).toEqual(beyond ? [{ path: [0, "x"], literal }] : []);
  });

  it("gives each number's path: keys (escaped ones read), array indexes, the top-level value's place", () => {
    const text =
      '{"metadata": {"build": 9007199254740993, "ok": 1}, "results": [{"concurrency": 1}, {"completed": 18014398509481985}],' +
      ' "flags": ["--seed", 12345678901234567890], "b\\u0075ild": -9007199254740995, "s": "not 9007199254740993"}';
    expect(findLargeNumbers(text)).toEqual([
      { path: [0, "metadata", "build"], literal: "9007199254740993" },
      { path: [0, "results", 1, "completed"], literal: "18014398509481985" },
      { path: [0, "flags", 1], literal: "12345678901234567890" },
      { path: [0, "build"], literal: "-9007199254740995" },
    ]);
  });

  it("numbers the values of a JSON-lines text by line", () => {
    const text = '{"a": 1}\n{"a": 9007199254740993}\n\n{"b": {"c": [0, 0, 1e20]}}\n';
    expect(findLargeNumbers(text)).toEqual([
      { path: [1, "a"], literal: "9007199254740993" },
      { path: [2, "b", "c", 2], literal: "1e20" },
    ]);
  });

  it("is what JSON.parse loses", () => {
    expect(JSON.parse("9007199254740993")).toBe(MAX_EXACT_JSON_INTEGER);
    expect(MAX_EXACT_JSON_INTEGER).toBe(9_007_199_254_740_992);
  });
});

describe("keepsExactDigits: where a run document keeps the digits", () => {
  test.each<[(string | number)[], boolean]>([
    [["metadata", "build"], true],
    [["flags", "--seed"], true],
    [["flags", 3], true],
    [["flags", "--cuda-graph-bs", 2], true],
    [["env", "SEED"], true],
    [["not_imported", 4, "value"], true],
    [["build_number"], true],
    [["toString"], true],
    [["metadata"], false],
    [["results", 0, "completed"], false],
    [["workload", "seed"], false],
    [["hardware", "gpu_memory_mib"], false],
    [["server_startup_s"], false],
    [["not_imported", 4, "field"], false],
    [["name"], false],
  ])("%j → %s", (path, keeps) => {
    expect(keepsExactDigits(path)).toBe(keeps);
  });
});

describe("parseWriteJson", () => {
  it("keeps the digits as text where the caller says so", () => {
    const value = parseWriteJson(
      '{"format": "servebench/v1", "metadata": {"build": 9007199254740993}, "job": 18446744073709551615}',
      "Line 1",
      keepsExactDigits,
    );
    expect(value).toEqual({
      format: "servebench/v1",
      metadata: { build: "9007199254740993" },
      job: "18446744073709551615",
    });
  });

  it("refuses one anywhere else, naming its field, with a 422", () => {
    const error = refusal(() =>
      parseWriteJson('{"results": [{"concurrency": 1, "completed": 9007199254740993}]}', "Line 2", keepsExactDigits),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.issues).toEqual([
      {
        path: "results.0.completed",
        message:
          "is 9007199254740993, beyond ±2^53 (9,007,199,254,740,992): a JSON number that large loses digits as it is read, and no value here can be that large",
      },
    ]);
    expect(error.message).toMatch(/^Line 2: results\.0\.completed: is 9007199254740993, beyond ±2\^53/);
  });

  it("refuses every one in a body that keeps none (a saved comparison, a series' settings)", () => {
    const error = refusal(() => parseWriteJson('{"runs": ["a"], "noise": 1e300}', "The request body"));
    expect(error.issues?.[0]?.path).toBe("noise");
    expect(parseWriteJson('{"runs": ["a"], "noise": 3}', "The request body")).toEqual({ runs: ["a"], noise: 3 });
  });

  it("never writes through a key named __proto__: such a key is refused first", () => {
    const error = refusal(() =>
      parseWriteJson('{"metadata": {"__proto__": 9007199254740993}}', "The request body", keepsExactDigits),
    );
    expect(error.issues?.[0]?.path).toBe("metadata.__proto__");
  });
});

describe("a run document keeps the digits through normalization", () => {
  it("stores the metadata value as the string of its digits, and normalizing again changes nothing", () => {
    const raw = parseWriteJson(
      '{"format": "servebench/v1", "engine": "vllm", "model": "m", "metadata": {"build": 9007199254740993},' +
        ' "env": {"SEED": 12345678901234567891}, "results": [{"concurrency": 1}]}',
      "Line 1",
      keepsExactDigits,
    );
    const doc = normalizeRunDocument(raw);
    expect(doc.metadata).toEqual({ build: "9007199254740993" });
    expect(doc.env).toEqual({ SEED: "12345678901234567891" });
    expect(normalizeRunDocument(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
  });
});
