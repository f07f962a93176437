import { terminalSafe } from "./server-text";

/**
 * Markdown that names what users typed: escaped so a run called `a|b` or `[x](y)` cannot break a table or a link,
 * on one line, without terminal controls.
 */
export function mdEscape(text: string): string {
  return terminalSafe(text)
    .replace(/[\\`*_{}[\]()<>#+!|~]/g, (char) => `\\${char}`)
    .replace(/\r?\n/g, " ");
}

/**
 * A link's address from a server, as the target of `[text](…)`: characters that would end the link early, break
 * its table row or start a title are percent-encoded.
 */
export function mdLinkTarget(url: string): string {
  return terminalSafe(url).replace(/[\s()<>[\]\\`|"]/g, (char) =>
    char.charCodeAt(0) < 0x80
      ? `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`
      : encodeURIComponent(char),
  );
}

export function mdTable(header: readonly string[], align: readonly ("l" | "r")[], rows: readonly string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(align.map((a) => (a === "r" ? "---:" : "---"))), ...rows.map(line)].join("\n");
}
