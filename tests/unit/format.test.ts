import { describe, expect, it, test } from "vitest";
import {
  formatChangeLine,
  formatDate,
  formatDateTime,
  formatDuration,
  formatHardware,
  formatLoadLevel,
  formatMs,
  formatNumber,
  formatPercentChange,
  formatTokS,
  formatUsd,
  groupedWarnings,
  relativeChange,
} from "@/lib/format";

describe("formatNumber", () => {
  test.each<[number | null | undefined, string]>([
    [2370, "2,370"],
    [1536, "1,536"],
    [2216, "2,216"],
    [63.6, "63.6"],
    [82.5, "82.5"],
    [27, "27"],
    [15.66, "15.7"],
    [0.42, "0.42"],
    [0.005, "0.005"],
    [0.001234, "0.001"],
    [100, "100"],
    [99.96, "100"],
    [1234567.8, "1,234,568"],
    [-23.45, "-23.5"],
    [1000 / 37, "27"],
    [0, "0"],
    [null, "—"],
    [undefined, "—"],
    [Number.NaN, "—"],
    [Number.POSITIVE_INFINITY, "—"],
  ])("%s → %j", (value, expected) => {
    expect(formatNumber(value)).toBe(expected);
  });
});

describe("formatTokS and formatMs", () => {
  test.each([
    [formatTokS(63.6), "63.6 tok/s"],
    [formatTokS(2370), "2,370 tok/s"],
    [formatTokS(null), "—"],
    [formatMs(12.1), "12.1 ms"],
    [formatMs(undefined), "—"],
  ])("%j", (actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe("relativeChange", () => {
  test.each<[number | null | undefined, number | null | undefined, number | null]>([
    [100, 150, 0.5],
    [100, 50, -0.5],
    [10, 10, 0],
    [-10, -5, 0.5],
    [0, 5, null],
    [null, 5, null],
    [5, undefined, null],
    [5, Number.NaN, null],
    [Number.POSITIVE_INFINITY, 5, null],
  ])("%s → %s is %s", (base, value, expected) => {
    expect(relativeChange(base, value)).toBe(expected);
  });

  it("computes the seed single-stream gain", () => {
    expect(relativeChange(27, 63.6)).toBeCloseTo(1.355556, 6);
  });
});

describe("formatPercentChange", () => {
  test.each<[number | null, string]>([
    [(63.6 - 27) / 27, "+135.6%"],
    [-0.23, "-23.0%"],
    [0, "0.0%"],
    [0.0004, "0.0%"],
    [-0.0004, "0.0%"],
    [0.5, "+50.0%"],
    [-1, "-100.0%"],
    [(2370 - 2216) / 2216, "+6.9%"],
    [(1536 - 2216) / 2216, "-30.7%"],
    [null, "—"],
  ])("%s → %j", (change, expected) => {
    expect(formatPercentChange(change)).toBe(expected);
  });

  test.each([0.0005, 0.1235])("rounds %s the same way whatever its sign", (change) => {
    const up = formatPercentChange(change);
    const down = formatPercentChange(-change);
    expect(down).toBe(up.replace("+", "-"));
  });
});

describe("formatChangeLine", () => {
  test.each<[number | null | undefined, number | null | undefined, string, string]>([
    [27, 63.6, "tok/s", "27 → 63.6 tok/s (+135.6%)"],
    [2216, 2370, "tok/s", "2,216 → 2,370 tok/s (+6.9%)"],
    [82.5, 27, "tok/s", "82.5 → 27 tok/s (-67.3%)"],
    [37, 15.7, "ms", "37 → 15.7 ms (-57.6%)"],
    [50, 50, "ms", "50 → 50 ms (0.0%)"],
    [null, 63.6, "tok/s", "— → 63.6 tok/s"],
    [27, undefined, "tok/s", "27 → — tok/s"],
    [0, 5, "ms", "0 → 5 ms (—)"],
  ])("%s → %s %s", (base, value, unit, expected) => {
    expect(formatChangeLine(base, value, unit)).toBe(expected);
  });
});

describe("formatLoadLevel", () => {
  test.each<[{ concurrency?: number | null; request_rate?: number | "inf" | null }, string]>([
    [{ concurrency: 1 }, "C=1"],
    [{ concurrency: 128 }, "C=128"],
    [{ concurrency: 8, request_rate: 4 }, "C=8"],
    [{ concurrency: null, request_rate: 2.5 }, "2.5 req/s"],
    [{ request_rate: 1500 }, "1,500 req/s"],
    [{ request_rate: "inf" }, "rate ∞"],
    [{}, "—"],
    [{ concurrency: null, request_rate: null }, "—"],
  ])("%j → %j", (point, expected) => {
    expect(formatLoadLevel(point)).toBe(expected);
  });
});

describe("formatHardware", () => {
  test.each<[{ gpu?: string | null; gpu_count?: number | null } | undefined, string]>([
    [{ gpu: "RTX PRO 6000 Blackwell", gpu_count: 8 }, "8× RTX PRO 6000 Blackwell"],
    [{ gpu: "H100" }, "H100"],
    [{ gpu_count: 4 }, "4 GPUs"],
    [{ gpu_count: 1 }, "1 GPU"],
    [{ gpu: "H100", gpu_count: 1 }, "1× H100"],
    [{}, "—"],
    [{ gpu: null, gpu_count: null }, "—"],
    [undefined, "—"],
  ])("%j → %j", (hardware, expected) => {
    expect(formatHardware(hardware)).toBe(expected);
  });
});

describe("formatDate and formatDateTime", () => {
  test.each<[string | null | undefined, string]>([
    ["2026-02-14T09:30:00.000Z", "2026-02-14"],
    ["2026-02-14T10:30:00+01:00", "2026-02-14"],
    ["2026-02-14T23:30:00-05:00", "2026-02-15"],
    ["not a date", "—"],
    ["", "—"],
    [null, "—"],
    [undefined, "—"],
  ])("formatDate(%j) → %j", (iso, expected) => {
    expect(formatDate(iso)).toBe(expected);
  });

  test.each<[string | null | undefined, string]>([
    ["2026-02-14T10:30:00+01:00", "2026-02-14 09:30 UTC"],
    ["2026-02-14T09:30:59.999Z", "2026-02-14 09:30 UTC"],
    ["garbage", "—"],
    [null, "—"],
  ])("formatDateTime(%j) → %j", (iso, expected) => {
    expect(formatDateTime(iso)).toBe(expected);
  });
});

describe("formatDuration", () => {
  test.each<[number | null | undefined, string]>([
    [45.2, "45.2 s"],
    [0, "0 s"],
    [313, "313 s (5 min 13 s)"],
    [120, "120 s (2 min 0 s)"],
    [3600, "3,600 s (60 min 0 s)"],
    [179.6, "180 s (3 min 0 s)"],
    [239.7, "240 s (4 min 0 s)"],
    [null, "—"],
    [undefined, "—"],
  ])("%s → %j", (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
});

describe("groupedWarnings", () => {
  it("lists a message shared by several files once, naming them, and keeps other warnings as they are", () => {
    const seconds =
      "median_ttft, p99_ttft have no _ms in the name: read as seconds (the modified benchmark_serving.py that writes such keys states them in s) and stored in ms.";
    expect(
      groupedWarnings([
        `a_conc4.json: ${seconds}`,
        "a_conc4.json: 10 of 40 requests failed.",
        `a_conc8.json: ${seconds}`,
        "Concurrency 32 was measured twice: the later file is kept.",
        `a_conc16.json: ${seconds}`,
      ]),
    ).toEqual([
      `3 files (a_conc4.json, a_conc8.json, a_conc16.json): ${seconds}`,
      "a_conc4.json: 10 of 40 requests failed.",
      "Concurrency 32 was measured twice: the later file is kept.",
    ]);
    expect(groupedWarnings([])).toEqual([]);
  });
});

describe("formatUsd", () => {
  test.each<[number | null | undefined, string]>([
    [0.2, "$0.20"],
    [1234.5, "$1,234.50"],
    [4.7434, "$4.74"],
    [0.005, "$0.01"],
    [0.0049, "< $0.01"],
    [0.00001, "< $0.01"],
    [0, "$0.00"],
    [-0.0001, "> -$0.01"],
    [-12.345, "-$12.35"],
    [1_000_000, "$1,000,000.00"],
    [null, "—"],
    [Number.NaN, "—"],
  ])("%s reads %s", (value, expected) => {
    expect(formatUsd(value)).toBe(expected);
  });
});
