/** What the upload page's progress bar says at each stage of a preview and a save. */
import { describe, expect, it, test } from "vitest";
import {
  describeFiles,
  formatBytes,
  formatBytesOf,
  percentSent,
  progressAnnouncement,
  progressLabel,
  type UploadProgress,
} from "@/components/upload/progress";

const base: UploadProgress = {
  request: 1,
  mode: "preview",
  place: "chosen",
  files: 100,
  bytes: 45_600_000,
  runs: 1,
  stage: { phase: "sending", fraction: 0.27 },
};

describe("sizes", () => {
  test.each<[number, string]>([
    [0, "0 bytes"],
    [812, "812 bytes"],
    [1_000, "1.0 kB"],
    [104_512, "104.5 kB"],
    [45_600_000, "45.6 MB"],
    [1_234_000_000, "1.2 GB"],
  ])("%d bytes read %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it("gives the part in the whole's unit", () => {
    expect(formatBytesOf(12_300_000, 45_600_000)).toBe("12.3 of 45.6 MB");
    expect(formatBytesOf(800, 104_512)).toBe("0.8 of 104.5 kB");
    expect(formatBytesOf(300, 812)).toBe("300 of 812 bytes");
    expect(formatBytesOf(2_000, 812)).toBe("812 of 812 bytes");
  });

  it("counts the files", () => {
    expect(describeFiles(100, 45_600_000)).toBe("100 files, 45.6 MB");
    expect(describeFiles(1, 1_077)).toBe("1 file, 1.1 kB");
    expect(describeFiles(1_200, 1_000)).toBe("1,200 files, 1.0 kB");
  });

  it("says 100% only when all is sent", () => {
    expect(percentSent(0.999)).toBe(99);
    expect(percentSent(1)).toBe(100);
    expect(percentSent(-1)).toBe(0);
  });
});

describe("the label", () => {
  it("counts the bytes while sending", () => {
    expect(progressLabel(base)).toBe("Sending 12.3 of 45.6 MB (27%)");
    expect(progressLabel({ ...base, stage: { phase: "sending", fraction: null } })).toBe("Sending 0.0 of 45.6 MB (0%)");
  });

  it("says what the server does once all is sent", () => {
    expect(progressLabel({ ...base, stage: { phase: "server" } })).toBe("Reading 100 files…");
    expect(progressLabel({ ...base, files: 1, stage: { phase: "server" } })).toBe("Reading 1 file…");
    expect(progressLabel({ ...base, mode: "save", stage: { phase: "server" } })).toBe("Storing the run…");
    expect(progressLabel({ ...base, mode: "save", runs: 3, stage: { phase: "server" } })).toBe("Storing 3 runs…");
  });

  it("says where a save goes", () => {
    expect(progressLabel({ ...base, mode: "save", stage: { phase: "opening", runs: 1 } })).toBe(
      "Saved. Opening the run…",
    );
    expect(progressLabel({ ...base, mode: "save", stage: { phase: "opening", runs: 2 } })).toBe(
      "Saved. Opening the comparison…",
    );
  });

  it("announces a stage, not every step of the bytes", () => {
    expect(progressAnnouncement(base)).toBe("Sending 100 files, 45.6 MB.");
    expect(progressAnnouncement({ ...base, stage: { phase: "sending", fraction: 0.9 } })).toBe(
      "Sending 100 files, 45.6 MB.",
    );
    expect(progressAnnouncement({ ...base, mode: "save" })).toBe("Sending 100 files, 45.6 MB to save.");
    expect(progressAnnouncement({ ...base, stage: { phase: "server" } })).toBe("Reading 100 files…");
  });
});
