/** The restore's answer lists at most MAX_REPORTED_LINES entries, the ones that say something first. */
import { describe, expect, it } from "vitest";
import { buildRestoreReport, entryOfLine, MAX_REPORTED_LINES, RestoreReportBuilder } from "@/lib/backup/restore-report";
import { type RestoreLine, readRestoreLines, withRefusalsBounded } from "@/lib/ingest/restore-lines";

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

describe("a part's refusals bounded in the worker", () => {
  it("give the report the whole part would, from the first MAX_REPORTED_LINES refusals and counts of the rest", () => {
    // 2,500 unreadable lines, a refused run (bad document), a refused comparison and a stored-to-be run among them.
    const run = JSON.stringify({
      format: "servebench/v1",
      name: "kept",
      engine: "vllm",
      model: "m",
      results: [{ concurrency: 1, output_throughput: 1 }],
    });
    const text = [
      ...Array.from({ length: 1_200 }, () => "1"),
      JSON.stringify({ format: "servebench/v1", name: "no results" }),
      run,
      JSON.stringify({ format: "servebench/comparison-v1", slug: "bad slug!" }),
      ...Array.from({ length: 1_300 }, () => "[]"),
    ].join("\n");
    const all = readRestoreLines(new TextEncoder().encode(text), { firstLine: 1 });
    expect(all).toHaveLength(2_503);
    const bounded = withRefusalsBounded(all);
    expect(bounded.lines).toHaveLength(MAX_REPORTED_LINES + 1);
    expect(bounded.lines.filter((line) => !("error" in line)).map((line) => line.line)).toEqual([1_202]);
    expect(bounded.counted).toEqual({ run: 1, comparison: 1, series: 0, unknown: 1_500 });

    // What storing made of the one good run.
    const outcome = (line: RestoreLine) =>
      line.line === 1_202 ? { line: 1_202, kind: "run" as const, id: "kept", status: "stored" as const } : undefined;
    const whole = new RestoreReportBuilder();
    for (const line of all) whole.add(entryOfLine(line, outcome(line)));
    const fromBounded = new RestoreReportBuilder();
    for (const line of bounded.lines) fromBounded.add(entryOfLine(line, outcome(line)));
    fromBounded.addCounted(bounded.counted);
    expect(fromBounded.report()).toEqual(whole.report());
    expect(fromBounded.report()).toMatchObject({
      unreadable: 2_500,
      runs: { stored: 1, refused: 1 },
      comparisons: { refused: 1 },
      lines_omitted: 2_503 - MAX_REPORTED_LINES,
    });
  });
});
