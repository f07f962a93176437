/**
 * Names of exported files: the comparison's title and the day, so a folder of downloads says what each file
 * is ("cuda-graphs-on-vs-disable-cuda-graph-2026-12-01-throughput.png", not the tenth
 * "servebench-single-stream.png"). ASCII only, safe in a Content-Disposition header and on every file system.
 */

/** The words of a title as a file-name slug: lower case, ASCII letters and digits joined by dashes, ≤ 60 chars. */
export function fileSlug(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  // Cut at a word boundary where one is near, so a long title does not end mid-word.
  if (slug.length <= 60) return slug || "comparison";
  const cut = slug.slice(0, 60);
  if (slug[60] === "-") return cut;
  const lastDash = cut.lastIndexOf("-");
  return (lastDash >= 40 ? cut.slice(0, lastDash) : cut).replace(/(?<!-)-+$/, "");
}

/** The day as YYYY-MM-DD in the given time zone (the server's by default, the reader's in the browser). */
export function fileDate(date: Date, timeZone?: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

/** "servebench-<title>-<date>[-<part>].<extension>" */
export function exportFileName(title: string, date: Date, extension: string, part?: string): string {
  return `servebench-${fileSlug(title)}-${fileDate(date)}${part ? `-${part}` : ""}.${extension}`;
}
