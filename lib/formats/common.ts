/**
 * Helpers every format parser shares: reading numbers the way tools write them (strings, "1,234.56", NaN,
 * Infinity), unit conversion to ms, and building a result point that remembers each figure's source field.
 */
import { LATENCY_KEYS, type LatencyKey, type RequestRate, type ResultPoint } from "@/lib/runs/schema";

export type PointField = Exclude<
  keyof ResultPoint,
  "sources" | "concurrency" | "request_rate" | "requests" | "percentiles"
>;

/** Multiply a value in these units by the factor to get ms. */
export const TO_MS = { ms: 1, s: 1000, us: 0.001, ns: 0.000_001 } as const;
export type TimeUnit = keyof typeof TO_MS;

/** How a value that should have been a number reads in an error message: null, an array, an object, "text". */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : JSON.stringify(value);
}

/** A plain object (not an array, not null), or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `get(obj, "metrics.ttft.mean")`: a nested value, or undefined when any step is missing. */
export function get(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split(".")) {
    const record = asRecord(current);
    if (!record) return undefined;
    current = record[key];
  }
  return current;
}

export function hasKeys(value: unknown, keys: readonly string[]): boolean {
  const record = asRecord(value);
  return record !== undefined && keys.every((key) => key in record);
}

/** True for the values tools write for "not a number": NaN, "NaN", "nan". */
export function isNaNValue(value: unknown): boolean {
  return (
    (typeof value === "number" && Number.isNaN(value)) ||
    (typeof value === "string" && value.trim().toLowerCase() === "nan")
  );
}

/**
 * A finite number from a number or a numeric string ("550", " 1,234.56 ", "1e3"); null for anything else,
 * including NaN and infinities (check those with isNaNValue / requestRate first when they mean something).
 */
export function toNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const text = value.trim().replace(/,(?=\d{3}(\D|$))/g, "");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  const number = Number(text);
  return Number.isFinite(number) ? number : null;
}

/** An integer ≥ 0 from a number or numeric string, else null. */
export function toCount(value: unknown): number | null {
  const number = toNumber(value);
  return number !== null && Number.isInteger(number) && number >= 0 ? number : null;
}

/**
 * A request rate: "inf" for the ways tools write "all at once" ("inf", Infinity, "Infinity", -1), a positive
 * number otherwise, null when absent or zero.
 */
export function requestRate(value: unknown): RequestRate | null {
  if (value === Infinity) return "inf";
  if (typeof value === "string" && ["inf", "infinity", "+inf", "+infinity"].includes(value.trim().toLowerCase()))
    return "inf";
  const number = toNumber(value);
  if (number === -1) return "inf";
  return number !== null && number > 0 ? number : null;
}

/** A concurrency level: a positive integer, else null (tools write null or 0 for "unlimited"). */
export function toConcurrency(value: unknown): number | null {
  const number = toNumber(value);
  return number !== null && Number.isInteger(number) && number >= 1 ? number : null;
}

/**
 * Builds one result point. Every figure is set with the name of the field it came from, so the point
 * carries its provenance in `sources`. NaN values become "no data" with a warning instead of a number.
 */
export class PointBuilder {
  private readonly point: ResultPoint = {};
  private readonly sources: Record<string, string> = {};
  readonly warnings: string[] = [];

  constructor(private readonly where: string) {}

  concurrency(value: unknown, source: string): this {
    const concurrency = toConcurrency(value);
    if (concurrency !== null) {
      this.point.concurrency = concurrency;
      this.sources.concurrency = source;
    }
    return this;
  }

  requestRate(value: unknown, source: string): this {
    const rate = requestRate(value);
    if (rate !== null) {
      this.point.request_rate = rate;
      this.sources.request_rate = source;
    }
    return this;
  }

  /** Set a figure from a source value, converting time units to ms (`unit` is the source's unit). */
  set(field: PointField, value: unknown, source: string, unit: TimeUnit = "ms"): this {
    if (value === undefined || value === null) return this;
    if (isNaNValue(value)) {
      this.warnings.push(`${this.where}: ${source} is NaN; stored as no data.`);
      return this;
    }
    const number = toNumber(value);
    if (number === null || number < 0) return this;
    const isTime = field.endsWith("_ms") || field === "duration_s";
    let converted = number;
    if (field.endsWith("_ms")) converted = number * TO_MS[unit];
    // Seconds stay as written (81.0586 × 1000 / 1000 would be 81.05859999999998).
    else if (field === "duration_s") converted = unit === "s" ? number : (number * TO_MS[unit]) / 1000;
    if (!isTime && unit !== "ms") throw new Error(`unit ${unit} given for ${field}, which is not a time`);
    if (isCountField(field)) {
      if (!Number.isInteger(converted)) converted = Math.round(converted);
    }
    this.point[field] = converted;
    this.sources[field] = source;
    return this;
  }

  /** Set the latency statistics of one metric from a record of statistics (e.g. `{ mean, p50, p99 }`). */
  setStats(
    metric: "ttft" | "tpot" | "itl" | "e2el" | "e2el_per_token",
    stats: Partial<Record<"mean" | "median" | "std" | "p90" | "p95" | "p99", { value: unknown; source: string }>>,
    unit: TimeUnit = "ms",
  ): this {
    for (const [stat, entry] of Object.entries(stats)) {
      if (!entry) continue;
      const key = `${stat}_${metric}_ms` as LatencyKey;
      if (LATENCY_KEYS.includes(key)) this.set(key, entry.value, entry.source, unit);
    }
    return this;
  }

  has(field: keyof ResultPoint): boolean {
    return this.point[field] !== undefined;
  }

  /**
   * The finished point. A load level whose requests all failed (completed 0, or every figure 0) keeps only
   * its level and request counts, with a warning: it is "no data", never a 0 tok/s point.
   */
  build(): ResultPoint {
    const point: ResultPoint = { ...this.point };
    const figures = Object.keys(point).filter((key) => !LEVEL_AND_COUNT_FIELDS.has(key)) as PointField[];
    const allZero = figures.length > 0 && figures.every((key) => point[key] === 0);
    if (point.completed === 0 || allZero) {
      for (const key of figures) {
        delete point[key];
        delete this.sources[key];
      }
      const failed = point.failed !== undefined ? ` (${point.failed} failed)` : "";
      this.warnings.push(`${this.where}: no request completed${failed}; its figures are stored as no data.`);
    }
    if (Object.keys(this.sources).length > 0) point.sources = { ...this.sources };
    return point;
  }
}

const LEVEL_AND_COUNT_FIELDS = new Set(["concurrency", "request_rate", "completed", "failed", "duration_s", "sources"]);

function isCountField(field: PointField): boolean {
  return (
    field === "completed" || field === "failed" || field === "total_input_tokens" || field === "total_output_tokens"
  );
}

/** "20250513-045648" (vLLM's `date`) → ISO 8601 UTC, or undefined when it does not look like that. */
export function compactDateToIso(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
}

/** An ISO 8601 timestamp from a date string or a Unix time in seconds, or undefined. */
export function isoTimestamp(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value > 1e9) {
    const ms = value > 1e12 ? value : value * 1000;
    return new Date(ms).toISOString();
  }
  if (typeof value !== "string") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
