import path from "node:path";
import { describe, expect, it } from "vitest";
import { levelField } from "../../scripts/cli/upload";

const files = [
  {
    path: "results/sweep/qwen-openai-chat-concurrency8/profile_export_aiperf.csv",
    name: "sweep/qwen-openai-chat-concurrency8/profile_export_aiperf.csv",
  },
  { path: "loose/run.csv", name: "run.csv" },
];

describe("servebench upload --level", () => {
  it("sends the level under the name the upload gives the file, whether typed as a path or as that name", () => {
    expect(levelField("loose/run.csv=concurrency:8", files)).toBe("run.csv=concurrency:8");
    expect(levelField(`${path.resolve("loose/run.csv")}=rate:2.5`, files)).toBe("run.csv=rate:2.5");
    expect(levelField("run.csv=rate:2.5", files)).toBe("run.csv=rate:2.5");
  });

  it("passes a name it does not know, or a bare level of several files, for the server to refuse naming it", () => {
    expect(levelField("other.csv=concurrency:8", files)).toBe("other.csv=concurrency:8");
    expect(levelField("concurrency:8", files)).toBe("concurrency:8");
  });

  it("gives a bare level to the one file uploaded", () => {
    expect(levelField("concurrency:8", [files[1]!])).toBe("run.csv=concurrency:8");
  });
});
