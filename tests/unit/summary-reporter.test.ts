import { describe, expect, it } from "vitest";
import { slowestFilesText } from "../support/summary-reporter";

describe("the test summary's slowest files", () => {
  it("lists the slowest files longest first, with their project and the total", () => {
    const text = slowestFilesText(
      [
        { project: "unit", file: "tests/unit/a.test.ts", seconds: 1.24 },
        { project: "e2e", file: "tests/e2e/b.test.ts", seconds: 93.06 },
        { project: "integration", file: "tests/integration/c.test.ts", seconds: 12.5 },
      ],
      2,
    );
    expect(text.split("\n")).toEqual([
      "",
      "slowest test files (of 3, 107 s in all, summed across workers):",
      "   93.1 s  e2e          tests/e2e/b.test.ts",
      "   12.5 s  integration  tests/integration/c.test.ts",
      "",
    ]);
  });

  it("prints nothing when no file ran", () => {
    expect(slowestFilesText([])).toBe("");
  });
});
