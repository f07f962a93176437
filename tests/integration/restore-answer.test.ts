/**
 * The answer to a restore is bounded whatever the file: 1,000,000 lines of `1` (2 MB) were answered with 135 MB,
 * an entry each. Now the counts cover every line and `lines` lists at most 1,000 of them.
 */
import { describe, expect, it } from "vitest";
import { POST as restore } from "@/app/api/restore/route";
import { MAX_REPORTED_LINES, type RestoreReport } from "@/lib/backup/restore-report";
import { BASE, noContext } from "./helpers";

describe("the answer to a restore of many unreadable lines", () => {
  it("counts all 100,000 and lists 1,000, in a small answer", async () => {
    const lineCount = 100_000;
    const response = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: "1\n".repeat(lineCount),
      }),
      noContext,
    );
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(200);
    const report = JSON.parse(text) as RestoreReport;
    expect(report.unreadable).toBe(lineCount);
    expect(report.runs).toEqual({ stored: 0, already_present: 0, refused: 0 });
    expect(report.lines).toHaveLength(MAX_REPORTED_LINES);
    expect(report.lines_omitted).toBe(lineCount - MAX_REPORTED_LINES);
    expect(report.lines[0]).toMatchObject({ line: 1, kind: "unknown", status: "refused" });
    // An entry is ~130 bytes: 1,000 of them and the counts, where every line listed was 13 MB.
    expect(text.length).toBeLessThan(300_000);
  });
});
