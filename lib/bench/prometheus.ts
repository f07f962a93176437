/**
 * The Prometheus text exposition format (what `/metrics` answers), read for a few metric names only: each
 * line `name{label="value",…} value [timestamp]`; `#` lines are comments or type hints. Series of one name
 * (an engine or data-parallel rank per label set) are folded into their sum, count and largest value as
 * they are read, so a reading holds a handful of numbers however large the exposition.
 */

export interface SeriesFold {
  /** Sum of the values of every series of the name. */
  sum: number;
  /** Number of series (label sets). */
  series: number;
  max: number;
}

export type MetricsReading = Map<string, SeriesFold>;

/** The value of a sample: a float, or Prometheus's NaN / +Inf / -Inf spellings. */
function sampleValue(text: string): number {
  switch (text) {
    case "NaN":
      return Number.NaN;
    case "+Inf":
    case "Inf":
      return Number.POSITIVE_INFINITY;
    case "-Inf":
      return Number.NEGATIVE_INFINITY;
    default:
      return text === "" ? Number.NaN : Number(text);
  }
}

/** Where a sample line's value starts: after the name and its label set (label values may hold spaces and braces). */
function valueStart(line: string, nameEnd: number): number {
  let index = nameEnd;
  if (line[index] === "{") {
    let quoted = false;
    for (index += 1; index < line.length; index += 1) {
      const char = line[index];
      if (quoted) {
        if (char === "\\") index += 1;
        else if (char === '"') quoted = false;
      } else if (char === '"') {
        quoted = true;
      } else if (char === "}") {
        index += 1;
        break;
      }
    }
  }
  return index;
}

/**
 * Fold the samples of the `wanted` names out of an exposition. Unparseable lines and values are skipped:
 * a scrape is best-effort, and one odd line must not lose the rest.
 */
export function readExposition(text: string, wanted: ReadonlySet<string>): MetricsReading {
  const reading: MetricsReading = new Map();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === "" || line.startsWith("#")) continue;
    let nameEnd = 0;
    while (nameEnd < line.length && line[nameEnd] !== "{" && line[nameEnd] !== " " && line[nameEnd] !== "\t")
      nameEnd += 1;
    const name = line.slice(0, nameEnd);
    if (!wanted.has(name)) continue;
    const rest = line.slice(valueStart(line, nameEnd)).trim();
    const value = sampleValue(rest.split(/\s+/)[0] ?? "");
    if (!Number.isFinite(value)) continue;
    const fold = reading.get(name);
    if (fold) {
      fold.sum += value;
      fold.series += 1;
      fold.max = Math.max(fold.max, value);
    } else {
      reading.set(name, { sum: value, series: 1, max: value });
    }
  }
  return reading;
}

/** True when the exposition has any vLLM or SGLang metric: the names servebench knows how to read. */
export function hasEngineMetrics(text: string): boolean {
  return /^(vllm|sglang):/m.test(text);
}
