/**
 * What `servebench restore` shows while it works (scripts/cli/restore-progress.ts): the rate and time left from a
 * job's steps, its lines as a person reads them, the summary, and the printer's two ways of showing progress (one
 * line redrawn on a terminal, a plain line now and then elsewhere).
 */
import { describe, expect, it } from "vitest";
import {
  formatDuration,
  jobLine,
  PLAIN_PROGRESS_EVERY_MS,
  ProgressPrinter,
  RateWindow,
  reportCounts,
  sendingLine,
  summaryLines,
} from "@/scripts/cli/restore-progress";

/** A stderr that keeps what is written to it. */
function stream(isTTY: boolean, columns?: number) {
  const written: string[] = [];
  const fake = { isTTY, columns, write: (text: string) => written.push(text) > 0 };
  return { fake: fake as unknown as NodeJS.WriteStream, written };
}

describe("restore progress", () => {
  it("tells the rate and the time left from the counts a job reports part by part", () => {
    const window = new RateWindow(20_000);
    expect(window.perSecond()).toBeNull();
    window.add(0, 0);
    window.add(2_000, 1_000);
    window.add(4_000, 2_000);
    expect(window.perSecond()).toBe(500);
    // 8,000 lines left at 500 lines/s.
    expect(window.msUntil(10_000)).toBe(16_000);
    // Past the window, only its last 20 s count: 3,000 lines in 20 s.
    window.add(24_000, 5_000);
    expect(window.perSecond()).toBe(150);
  });

  it("writes durations, the sending line and the storing line as a person reads them", () => {
    expect([400, 12_400, 185_000, 7_620_000].map(formatDuration)).toEqual([
      "0.4 s",
      "12 s",
      "3 min 05 s",
      "2 h 07 min",
    ]);
    expect(sendingLine("backup.jsonl", 512_000_000, 2_048_000_000, 32_000_000)).toBe(
      "sending backup.jsonl: 512.0 MB of 2.05 GB (25%) · 32.0 MB/s · about 48 s left",
    );
    const lines = new RateWindow();
    const runs = new RateWindow();
    lines.add(0, 0);
    runs.add(0, 0);
    lines.add(10_000, 10_240);
    runs.add(10_000, 10_203);
    const job = {
      status: "running",
      phase: "lines",
      received: { bytes: 142_606_336, lines: 23_013, parts: 137 },
      progress: { parts_done: 61, parts_total: 137, lines_done: 10_240 },
      counts: { runs: { stored: 10_201, already_present: 0, refused: 2 } },
    };
    expect(jobLine(job, lines, runs)).toBe("storing: 10,240 of 23,013 lines (44%) · 1,020 runs/s · about 12 s left");
  });

  it("sums up a report, saying the runs already present were restored before", () => {
    const counts = reportCounts({
      runs: { stored: 188_000, already_present: 12_000, refused: 0 },
      comparisons: { stored: 3, already_present: 0, refused: 0 },
      series: { stored: 2, already_present: 0, refused: 0 },
      unreadable: 0,
      lines: [],
    });
    expect(summaryLines(counts, "restored backup.jsonl", 72_000)).toEqual([
      "restored backup.jsonl",
      "  runs: 188,000 stored, 12,000 already present (restored before), 0 refused",
      "  comparisons: 3 stored, 0 already present, 0 refused",
      "  series: 2 stored, 0 already present, 0 refused",
      "  unreadable lines: 0",
      "  200,000 runs in 1 min 12 s: 2,778 runs/s",
    ]);
    // A server's answer that is not a report counts nothing, rather than printing what it sent.
    expect(reportCounts({ runs: { stored: "\u001b[2J" }, unreadable: -1 }).runs.stored).toBe(0);
  });

  it("redraws one line on a terminal, cut to its width, and writes plain lines now and then elsewhere", () => {
    const terminal = stream(true, 31);
    const live = new ProgressPrinter(terminal.fake);
    live.show("sending", "sending backup.jsonl: 12.0 MB of 48.0 MB (25%)");
    live.show("sending", "sending backup.jsonl: 13.0 MB of 48.0 MB (27%)");
    live.clear();
    expect(terminal.written).toEqual([
      "\r\u001b[Ksending backup.jsonl: 12.0 MB…",
      "\r\u001b[Ksending backup.jsonl: 13.0 MB…",
      "\r\u001b[K",
    ]);

    let now = 0;
    const log = stream(false);
    const plain = new ProgressPrinter(log.fake, false, () => now);
    plain.show("sending", "sending a: 0 bytes of 1.0 MB (0%)");
    now = PLAIN_PROGRESS_EVERY_MS - 1;
    plain.show("sending", "sending a: 0.5 MB");
    now = PLAIN_PROGRESS_EVERY_MS;
    plain.show("sending", "sending a: 0.6 MB");
    plain.show("running lines", "storing: 0 of 10 lines (0%)");
    plain.show("running lines", "storing: 5 of 10 lines (50%)\u001b]0;title\u0007");
    plain.show("running lines", "storing: 10 of 10 lines (100%)", true);
    plain.clear();
    expect(log.written).toEqual([
      "sending a: 0 bytes of 1.0 MB (0%)\n",
      "sending a: 0.6 MB\n",
      "storing: 0 of 10 lines (0%)\n",
      "storing: 10 of 10 lines (100%)\n",
    ]);
  });
});
