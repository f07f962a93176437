import { describe, expect, it } from "vitest";
import { type ExportPart, ExportPartSplitter } from "@/lib/backup/export-parts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Feed `text` in pieces of the given sizes (cycled); every part and the splitter at the end. */
function split(text: string, pieceSizes: number[], partBytes = 64, maxLineBytes = 40) {
  const splitter = new ExportPartSplitter(partBytes, maxLineBytes);
  const bytes = encoder.encode(text);
  const parts: ExportPart[] = [];
  for (let offset = 0, turn = 0; offset < bytes.length; turn += 1) {
    const size = pieceSizes[turn % pieceSizes.length]!;
    parts.push(...splitter.push(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  parts.push(...splitter.end());
  return { parts, splitter };
}

/** Each line of the parts with the number the part gives it. */
function numberedLines(parts: ExportPart[]): [number, string][] {
  return parts.flatMap((part) => {
    const lines = decoder.decode(part.bytes).split("\n");
    if (lines.at(-1) === "") lines.pop();
    expect(lines).toHaveLength(part.lineCount);
    return lines.map((line, index): [number, string] => [part.firstLine + index, line]);
  });
}

describe("an export cut into parts as it arrives", () => {
  const lines = Array.from({ length: 57 }, (_, index) => `{"line":${index + 1},"pad":"${"x".repeat(index % 23)}"}`);
  const text = `${lines.join("\n")}\n`;

  it("holds every line once, numbered as in the file, whatever pieces the body arrives in", () => {
    const expected = lines.map((line, index): [number, string] => [index + 1, line]);
    for (const pieces of [[1], [3, 7], [64], [1000], [17, 1, 250]]) {
      const { parts, splitter } = split(text, pieces, 64, 100);
      expect(numberedLines(parts)).toEqual(expected);
      expect(splitter.linesSeen).toBe(57);
      expect(splitter.oversizeLines).toEqual([]);
      // Every part but the last ends at a line end, and parts are about their size (one line over at most).
      for (const part of parts.slice(0, -1)) {
        expect(part.bytes.at(-1)).toBe(0x0a);
        expect(part.bytes.byteLength).toBeLessThanOrEqual(64 + 100);
      }
    }
  });

  it("counts a last line without a newline", () => {
    const { parts, splitter } = split('{"a":1}\n{"b":2}', [5]);
    expect(numberedLines(parts)).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
    ]);
    expect(splitter.linesSeen).toBe(2);
  });

  it("drops a line longer than any document without holding it, and numbers the lines after it right", () => {
    const long = "y".repeat(500);
    const body = `{"first":1}\n${long}\n{"third":3}\n${"z".repeat(41)}`;
    for (const pieces of [[1], [7], [100], [10_000]]) {
      const { parts, splitter } = split(body, pieces);
      expect(numberedLines(parts)).toEqual([
        [1, '{"first":1}'],
        [3, '{"third":3}'],
      ]);
      expect(splitter.oversizeLines).toEqual([
        { line: 2, bytes: 500 },
        { line: 4, bytes: 41 },
      ]);
      expect(splitter.linesSeen).toBe(4);
    }
  });

  it("tells a body of blank lines from one with content", () => {
    expect(split(" \n\t\r\n\n", [2]).splitter.sawContent).toBe(false);
    expect(split(" \n1\n", [2]).splitter.sawContent).toBe(true);
    expect(split("", [1]).parts).toEqual([]);
  });
});
