/**
 * An export, as its bytes arrive, cut into parts of whole lines: each part is stored as it completes
 * (RestoreJobPart), so a restore of any size holds about one part in memory, never the whole file, and the job
 * that stores the runs can stop and resume at any part. A line longer than any run document is never
 * buffered: its bytes are counted and dropped, and the line is reported refused.
 */
import { MAX_LINE_BYTES } from "@/lib/ingest/restore-lines";

/** About how many bytes of whole lines make a part (a part holds at least one line, so it may be longer). */
export const PART_BYTES = 1_000_000;

const NEWLINE = 0x0a;

export interface ExportPart {
  /** The line number (from 1) of the part's first line in the export. */
  firstLine: number;
  lineCount: number;
  bytes: Uint8Array<ArrayBuffer>;
}

/** A line too long to be read: its number and length, for the report. */
export interface OversizeLine {
  line: number;
  bytes: number;
}

function isBlankByte(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === NEWLINE;
}

export class ExportPartSplitter {
  readonly oversizeLines: OversizeLine[] = [];
  /** Whether any byte other than blanks and line ends arrived: an export of blank lines holds nothing. */
  sawContent = false;
  private buffer: Uint8Array<ArrayBuffer>;
  private length = 0;
  /** Index of the last newline in the buffer, or -1. The buffer holds whole lines and then at most one partial one. */
  private lastNewline = -1;
  /** The number of the buffer's first line. */
  private nextLine = 1;
  /** The over-long line being counted and dropped, when one is. */
  private skipping: OversizeLine | null = null;

  constructor(
    private readonly partBytes = PART_BYTES,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.buffer = new Uint8Array(Math.max(1024, Math.min(partBytes, 1 << 20)));
  }

  /** How many lines have been cut into parts or dropped as too long so far (all of them, after `end`). */
  get linesSeen(): number {
    return this.nextLine - 1;
  }

  /** Take the next bytes of the export; answers the parts they completed. */
  push(chunk: Uint8Array): ExportPart[] {
    const parts: ExportPart[] = [];
    if (!this.sawContent && chunk.some((byte) => !isBlankByte(byte))) this.sawContent = true;
    let start = 0;
    while (start < chunk.byteLength) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.byteLength : newline;
      if (this.skipping) {
        this.skipping.bytes += end - start;
        if (newline < 0) break;
        this.dropped(this.skipping);
        this.skipping = null;
        start = newline + 1;
        continue;
      }
      const lineBytes = this.length - (this.lastNewline + 1) + (end - start);
      if (lineBytes > this.maxLineBytes) {
        // Longer than any run document: the lines before it become a part, it is counted and dropped.
        if (this.lastNewline >= 0) parts.push(this.cut(this.lastNewline + 1));
        this.length = 0;
        const long = { line: this.nextLine, bytes: lineBytes };
        if (newline < 0) {
          this.skipping = long;
          break;
        }
        this.dropped(long);
        start = newline + 1;
        continue;
      }
      this.append(chunk.subarray(start, newline < 0 ? end : newline + 1), newline >= 0);
      if (newline < 0) break;
      start = newline + 1;
      if (this.length >= this.partBytes) parts.push(this.cut(this.lastNewline + 1));
    }
    return parts;
  }

  private dropped(line: OversizeLine): void {
    this.oversizeLines.push(line);
    this.nextLine = line.line + 1;
  }

  /** The export ended: the last part (its last line may have no newline). */
  end(): ExportPart[] {
    if (this.skipping) {
      this.dropped(this.skipping);
      this.skipping = null;
      return [];
    }
    if (this.length === 0) return [];
    const part = this.cut(this.length);
    // A last line without a newline is a line too.
    if (part.bytes[part.bytes.byteLength - 1] !== NEWLINE) {
      part.lineCount += 1;
      this.nextLine += 1;
    }
    return [part];
  }

  /** Add bytes to the buffer; `endsLine` when they end with a newline. */
  private append(bytes: Uint8Array, endsLine: boolean): void {
    if (bytes.byteLength === 0) return;
    if (this.length + bytes.byteLength > this.buffer.byteLength) {
      const grown = new Uint8Array(Math.max(this.buffer.byteLength * 2, this.length + bytes.byteLength));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.byteLength;
    if (endsLine) this.lastNewline = this.length - 1;
  }

  /** The first `byteCount` bytes as a part (a copy, so the buffer can be reused), the rest kept. */
  private cut(byteCount: number): ExportPart {
    const bytes = this.buffer.slice(0, byteCount);
    let lineCount = 0;
    for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) lineCount += 1;
    const part: ExportPart = { firstLine: this.nextLine, lineCount, bytes };
    this.nextLine += lineCount;
    this.buffer.copyWithin(0, byteCount, this.length);
    this.length -= byteCount;
    // Parts are cut after the last newline (or at the end): what stays holds none.
    this.lastNewline = -1;
    // A buffer grown for one long line goes back to its usual size once that line has left it.
    if (this.buffer.byteLength > 4 * this.partBytes && this.length < this.partBytes) {
      this.buffer = this.buffer.slice(0, Math.max(this.partBytes, this.length));
    }
    return part;
  }
}
