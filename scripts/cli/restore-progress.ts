/**
 * What `servebench restore` shows while it works: the progress line (sending the file, then the server storing it,
 * with its rate and the time left) and the summary at the end. Pure formatting and arithmetic, apart from the
 * printer, which writes the line to stderr: redrawn in place on a terminal, a plain line every few seconds
 * elsewhere (a CI log, a file), where `\r` and escape sequences would be litter.
 */
import { terminalSafe } from "./server-text";

/** A count as a person reads it: 12,000. */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000_000) return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(0)} kB`;
  return `${bytes} bytes`;
}

/** 0.4 s, 12 s, 3 min 05 s, 2 h 07 min. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  const minutes = Math.round(whole / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** A rate per second as a person reads it: 2,778 under a thousand has a decimal when it is small. */
export function formatRate(perSecond: number): string {
  return perSecond >= 100 ? formatCount(perSecond) : perSecond.toFixed(1);
}

export function percent(done: number, total: number): string {
  if (total <= 0) return "";
  return ` (${Math.min(100, Math.floor((done / total) * 100))}%)`;
}

/**
 * How fast a count grows, over the last `windowMs` of its readings: a job stores a part (about 1 MB of lines) at
 * a time, so its count moves in steps, and a window of several steps gives a steady rate and time left.
 */
export class RateWindow {
  private readonly samples: { at: number; value: number }[] = [];

  constructor(private readonly windowMs = 20_000) {}

  add(at: number, value: number): void {
    const last = this.samples.at(-1);
    // A count that went down (a job taken over and resumed re-counts nothing, but be safe) starts afresh.
    if (last && value < last.value) this.samples.length = 0;
    this.samples.push({ at, value });
    while (this.samples.length > 2 && at - this.samples[1]!.at >= this.windowMs) this.samples.shift();
  }

  /** Per second, or null before two readings a moment apart. */
  perSecond(): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at - first.at < 500) return null;
    return ((last.value - first.value) * 1000) / (last.at - first.at);
  }

  /** The time until the count reaches `target` at the current rate, or null when that cannot be told. */
  msUntil(target: number): number | null {
    const rate = this.perSecond();
    const last = this.samples.at(-1);
    if (rate === null || rate <= 0 || !last) return null;
    return (Math.max(0, target - last.value) / rate) * 1000;
  }
}

/** A number the server sent, or 0 when it sent anything else (it chooses every byte of its answers). */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

export interface Counts {
  stored: number;
  already_present: number;
  refused: number;
}

export function countsOf(value: unknown): Counts {
  const given = (value ?? {}) as Partial<Record<keyof Counts, unknown>>;
  return {
    stored: count(given.stored),
    already_present: count(given.already_present),
    refused: count(given.refused),
  };
}

/** What a job says of itself (GET /api/restore/jobs/<id>), every field as the server may or may not have sent it. */
export interface JobView {
  id?: unknown;
  status?: unknown;
  phase?: unknown;
  created_at?: unknown;
  finished_at?: unknown;
  received?: { bytes?: unknown; lines?: unknown; parts?: unknown };
  progress?: { parts_done?: unknown; parts_total?: unknown; lines_done?: unknown };
  counts?: { runs?: unknown; comparisons?: unknown; series?: unknown; unreadable?: unknown };
  report?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** The runs a job has handled so far: stored, already present or refused. */
export function runsHandled(job: JobView): number {
  const runs = countsOf(job.counts?.runs);
  return runs.stored + runs.already_present + runs.refused;
}

/** The progress line while the file is sent. */
export function sendingLine(name: string, sent: number, size: number | null, bytesPerSecond: number | null): string {
  const of = size === null ? "" : ` of ${formatBytes(size)}${percent(sent, size)}`;
  const rate = bytesPerSecond !== null && bytesPerSecond > 0 ? ` · ${formatBytes(bytesPerSecond)}/s` : "";
  const left =
    size !== null && bytesPerSecond !== null && bytesPerSecond > 0 && sent < size
      ? ` · about ${formatDuration(((size - sent) / bytesPerSecond) * 1000)} left`
      : "";
  return `sending ${name}: ${formatBytes(sent)}${of}${rate}${left}`;
}

/** The progress line while the server works on the job; `lines` and `runs` are the windows of its counts. */
export function jobLine(job: JobView, lines: RateWindow, runs: RateWindow): string {
  const received = count(job.received?.lines);
  const done = count(job.progress?.lines_done);
  switch (job.status) {
    case "receiving":
      return `the server is receiving the file: ${formatBytes(count(job.received?.bytes))}, ${formatCount(received)} lines so far`;
    case "queued":
      return `queued: ${formatCount(received)} lines received; waiting for the restores ahead of it`;
    case "running":
      break;
    default:
      return String(job.status);
  }
  if (job.phase === "series") return `reading the file's series lines: ${formatCount(received)} lines received`;
  if (job.phase === "finish") return `finishing: the series get their alerts and notes back and are judged`;
  const runsRate = runs.perSecond();
  const left = lines.msUntil(received);
  return (
    `storing: ${formatCount(done)} of ${formatCount(received)} lines${percent(done, received)}` +
    (runsRate !== null && runsRate > 0 ? ` · ${formatRate(runsRate)} runs/s` : "") +
    (left !== null && done < received ? ` · about ${formatDuration(left)} left` : "")
  );
}

/** The report's counts, as the summary and the exit code read them. */
export interface ReportCounts {
  runs: Counts;
  comparisons: Counts;
  series: Counts;
  unreadable: number;
}

export function reportCounts(report: unknown): ReportCounts {
  const given = (report ?? {}) as Record<string, unknown>;
  return {
    runs: countsOf(given.runs),
    comparisons: countsOf(given.comparisons),
    series: countsOf(given.series),
    unreadable: count(given.unreadable),
  };
}

function countsText(counts: Counts, restoredBefore: boolean): string {
  return `${formatCount(counts.stored)} stored, ${formatCount(counts.already_present)} already present${
    restoredBefore && counts.already_present > 0 ? " (restored before)" : ""
  }, ${formatCount(counts.refused)} refused`;
}

/** The summary printed once the job is done: what became of every line, the time it took and the rate. */
export function summaryLines(counts: ReportCounts, heading: string, elapsedMs: number): string[] {
  const runs = counts.runs.stored + counts.runs.already_present + counts.runs.refused;
  const rate = elapsedMs > 0 ? (runs * 1000) / elapsedMs : 0;
  return [
    heading,
    `  runs: ${countsText(counts.runs, true)}`,
    `  comparisons: ${countsText(counts.comparisons, false)}`,
    `  series: ${countsText(counts.series, false)}`,
    `  unreadable lines: ${formatCount(counts.unreadable)}`,
    `  ${formatCount(runs)} run${runs === 1 ? "" : "s"} in ${formatDuration(elapsedMs)}: ${formatRate(rate)} runs/s`,
  ];
}

/** Lines a plain (not a terminal) stderr gets at most this often while nothing changes stage. */
export const PLAIN_PROGRESS_EVERY_MS = 5_000;

/**
 * The progress line on stderr. On a terminal it is one line, redrawn in place (`\r`, erase to the end) and cut to
 * the terminal's width; elsewhere it is a plain line when the stage changes and every PLAIN_PROGRESS_EVERY_MS.
 */
export class ProgressPrinter {
  private shown = false;
  private lastStage = "";
  private lastPlainAt = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly live = stream.isTTY === true,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Show `text` for `stage`: a new stage is always shown, a plain line of the same stage only now and then, unless
   * `force` (the last word of a stage: the whole file sent).
   */
  show(stage: string, text: string, force = false): void {
    const line = terminalSafe(text).replace(/\n/g, " ");
    if (this.live) {
      // One character short of the width: a line that fills it wraps on some terminals, and `\r` would then
      // redraw only its second row. A terminal that does not say its width (0) is not cut.
      const width = (this.stream.columns ?? 0) > 0 ? Math.max(20, this.stream.columns - 1) : Number.POSITIVE_INFINITY;
      const cut = line.length > width ? `${line.slice(0, width - 1)}…` : line;
      this.stream.write(`\r\x1b[K${cut}`);
      this.shown = true;
      return;
    }
    const at = this.now();
    if (!force && stage === this.lastStage && at - this.lastPlainAt < PLAIN_PROGRESS_EVERY_MS) return;
    this.lastStage = stage;
    this.lastPlainAt = at;
    this.stream.write(`${line}\n`);
  }

  /** Take the live line away, so that what is printed next starts at the line's start. */
  clear(): void {
    if (this.live && this.shown) this.stream.write("\r\x1b[K");
    this.shown = false;
  }

  /** A line of its own (a note, a warning) that stays above the progress line. */
  note(text: string): void {
    this.clear();
    this.stream.write(`${terminalSafe(text)}\n`);
  }
}
