import { describe, expect, it } from "vitest";
import { runsAfterOptions } from "../../scripts/cli/compare";

describe("servebench compare's words", () => {
  it("reads a run id that begins with a dash as a run, not an option", () => {
    expect(runsAfterOptions(["-Xq3_a9Lk2Pz", "--format", "json", "--b7uQx0vYt1m", "--url", "http://h:3000"])).toEqual([
      "--format",
      "json",
      "--url",
      "http://h:3000",
      "--",
      "-Xq3_a9Lk2Pz",
      "--b7uQx0vYt1m",
    ]);
  });

  it("keeps the options in both spellings, the help flag and every word after --", () => {
    expect(runsAfterOptions(["--format=md", "-h", "a", "--", "--url", "b"])).toEqual([
      "--format=md",
      "-h",
      "--",
      "a",
      "--url",
      "b",
    ]);
  });

  it("leaves a word that is neither an option nor a run id to the option parser, which refuses it", () => {
    expect(runsAfterOptions(["--frmat=json", "a", "b"])).toEqual(["--frmat=json", "--", "a", "b"]);
  });

  it("takes the word after --url as its value even when it looks like a run id", () => {
    expect(runsAfterOptions(["--url", "-abc", "a", "b"])).toEqual(["--url", "-abc", "--", "a", "b"]);
  });
});
