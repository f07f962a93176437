/** Markdown that names what users typed: escaped so a run called `a|b` or `[x](y)` cannot break a table or a link. */
export function mdEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~]/g, (char) => `\\${char}`).replace(/\r?\n/g, " ");
}

export function mdTable(header: readonly string[], align: readonly ("l" | "r")[], rows: readonly string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(align.map((a) => (a === "r" ? "---:" : "---"))), ...rows.map(line)].join("\n");
}
