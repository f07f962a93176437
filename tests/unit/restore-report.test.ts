/** The restore's answer lists at most MAX_REPORTED_LINES entries, the ones that say something first. */
import { describe, expect, it } from "vitest";
import { buildRestoreReport, MAX_REPORTED_LINES } from "@/lib/backup/restore-report";
import type { RestoreLine } from "@/lib/ingest/restore-lines";

const unreadable = (line: number): RestoreLine => ({
  line,
  kind: "unknown",
  error: { code: "validation_failed", message: `Line ${line} is not a JSON object.` },
});

describe("buildRestoreReport", () => {
  it("lists every line of a small export", () => {
    const report = buildRestoreReport([unreadable(1), unreadable(2)], [], []);
    expect(report.lines.map((entry) => entry.line)).toEqual([1, 2]);
    expect(report.lines_omitted).toBeUndefined();
    expect(report.unreadable).toBe(2);
  });

  it("past the cap keeps series, refused and unreadable lines first, counts everything, and says how many it left out", () => {
    // 1,400 stored runs, then 300 unreadable lines, a refused run and a series line.
    const storedRuns = Array.from({ length: 1_400 }, (_, index) => ({
      line: index + 1,
      id: `run${index + 1}`,
      status: "stored" as const,
    }));
    const refusedRun = {
      line: 1_701,
      id: "taken",
      status: "refused" as const,
      error: { code: "id_taken", message: "taken" },
    };
    const lines: RestoreLine[] = [
      ...storedRuns.map(({ line, id }) => ({
        line,
        kind: "run" as const,
        id,
        createdAt: undefined,
        documentJson: "{}",
        hash: "",
        identity: "",
      })),
      ...Array.from({ length: 300 }, (_, index) => unreadable(1_401 + index)),
      { line: 1_701, kind: "run", id: "taken", createdAt: undefined, documentJson: "{}", hash: "", identity: "" },
      { line: 1_702, kind: "series", id: "s1" } as RestoreLine,
    ];
    const report = buildRestoreReport(
      lines,
      [...storedRuns, refusedRun],
      [],
      [{ line: 1_702, id: "s1", status: "stored" }],
    );
    expect(report.lines).toHaveLength(MAX_REPORTED_LINES);
    expect(report.lines_omitted).toBe(1_702 - MAX_REPORTED_LINES);
    expect(report.runs).toEqual({ stored: 1_400, already_present: 0, refused: 1 });
    expect(report.series).toEqual({ stored: 1, already_present: 0, refused: 0 });
    expect(report.unreadable).toBe(300);
    // Every entry that says something is there; the stored runs fill the rest from the first line on.
    const listed = report.lines.map((entry) => entry.line);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    expect(report.lines.filter((entry) => entry.kind === "unknown")).toHaveLength(300);
    expect(listed).toContain(1_701);
    expect(listed).toContain(1_702);
    expect(listed.slice(0, 3)).toEqual([1, 2, 3]);
    expect(report.lines.filter((entry) => entry.status === "stored" && entry.kind === "run")).toHaveLength(
      MAX_REPORTED_LINES - 302,
    );
  });
});
