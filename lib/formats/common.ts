/**
 * Helpers every format parser shares: reading numbers the way tools write them (strings, "1,234.56", NaN,
 * Infinity), unit conversion to ms, and building a result point that remembers each figure's source field.
 */
import {
  LATENCY_KEYS,
  type LatencyKey,
  LIMITS,
  PERCENTILE_KEY,
  type PercentileMetric,
  type PowerSource,
  type RequestRate,
  type ResultPoint,
  splitLatencyKey,
} from "@/lib/document/schema";
import type { NotImported } from "./types";

export type PointField = Exclude<
  keyof ResultPoint,
  "sources" | "concurrency" | "request_rate" | "requests" | "percentiles" | "power_source"
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
  // `\d+(\.\d*)?` rather than `\d+\.?\d*`: the latter splits a long run of digits between its two repeats in
  // every way before it fails, quadratic in the run's length.
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
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

/** The percentiles that have a field of their own on a point: p50 is the median. */
const FIELD_PERCENTILES: ReadonlyMap<number, "median" | "p90" | "p95" | "p99"> = new Map([
  [50, "median"],
  [90, "p90"],
  [95, "p95"],
  [99, "p99"],
]);

/**
 * 99.9 → "p99.9", 5 → "p5": the key of a percentile in a point's `percentiles`; undefined for a number that is no
 * percentile (below 0, above 100) or that the keys cannot name exactly (more than three decimals).
 */
export function percentileKey(p: number): string | undefined {
  if (!Number.isFinite(p) || p < 0 || p > 100) return undefined;
  const key = `p${p}`;
  return PERCENTILE_KEY.test(key) ? key : undefined;
}

/** How a metric reads in the import report. */
const METRIC_WORDS: Record<PercentileMetric, string> = {
  ttft: "TTFT",
  tpot: "TPOT",
  itl: "ITL",
  e2el: "end-to-end latency",
  e2el_per_token: "end-to-end latency per token",
};

interface StatedPercentile {
  metric: PercentileMetric;
  p: number;
  /** In ms. */
  value: number;
  /** As the file states it. */
  stated: number;
  source: string;
}

/** A stated figure the builder read and did not keep: `source` is its path, as in `sources`. */
export interface RefusedFigure {
  source: string;
  value: number;
  reason: string;
}

/**
 * Builds one result point. Every figure is set with the name of the field it came from, so the point
 * carries its provenance in `sources`. NaN values become "no data" with a warning instead of a number.
 * Figures read and deliberately not kept (see `percentile`) are in `refused`, with the reason, for the import
 * report: a parser hands them on with `notImported(file, root)`.
 */
export class PointBuilder {
  private readonly point: ResultPoint = {};
  private readonly sources: Record<string, string> = {};
  /** Each figure's value as the file states it (before unit conversion), for the import report. */
  private readonly stated: Record<string, number> = {};
  private readonly statedPercentiles: StatedPercentile[] = [];
  readonly warnings: string[] = [];
  readonly refused: RefusedFigure[] = [];

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

  /** Where the point's power figures were read (set with them, so a point never names a source without figures). */
  powerSource(source: PowerSource): this {
    this.point.power_source = source;
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
    this.stated[field] = number;
    return this;
  }

  /**
   * One percentile `p` (0–100) of a latency metric, as the file states it. p50 becomes the median, p90, p95 and p99
   * their fields, each unless that field is set from the file's own statistic (the median, say: then this one is
   * reported as the same figure again); any other percentile goes to `percentiles`, at most
   * `LIMITS.extraPercentiles` per metric (the highest; the rest are reported). Resolved in `build()`, so the order
   * of the calls does not matter.
   */
  percentile(metric: PercentileMetric, p: number, value: unknown, source: string, unit: TimeUnit = "ms"): this {
    if (value === undefined || value === null) return this;
    if (isNaNValue(value)) {
      this.warnings.push(`${this.where}: ${source} is NaN; stored as no data.`);
      return this;
    }
    const number = toNumber(value);
    if (number === null) return this;
    if (number < 0) {
      this.refused.push({ source, value: number, reason: "a negative latency, which no request can have" });
      return this;
    }
    if (percentileKey(p) === undefined) {
      this.refused.push({
        source,
        value: number,
        reason:
          p >= 0 && p <= 100
            ? `the ${p}th percentile: servebench names percentiles with at most three decimals (p99.999), so it cannot hold this one exactly`
            : `${p} is not a percentile (0 to 100)`,
      });
      return this;
    }
    this.statedPercentiles.push({ metric, p, value: number * TO_MS[unit], stated: number, source });
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

  /** How many percentiles `percentile` has taken so far (to tell whether the last one was). */
  percentileCount(): number {
    return this.statedPercentiles.length;
  }

  /** The source of some figure of a latency metric set so far (a statistic or a percentile), else undefined. */
  metricSource(metric: PercentileMetric): string | undefined {
    const key = LATENCY_KEYS.find((candidate) => splitLatencyKey(candidate)[1] === metric && this.has(candidate));
    if (key !== undefined) return this.sources[key];
    return this.statedPercentiles.find((entry) => entry.metric === metric)?.source;
  }

  has(field: keyof ResultPoint): boolean {
    return this.point[field] !== undefined;
  }

  /** The figures of `refused` as import-report entries of `file`, their paths under the record at `root`. */
  notImported(file: string, root = ""): NotImported[] {
    return this.refused.map(({ source, value, reason }) => ({
      file,
      field: root === "" ? source : source.startsWith("[") ? `${root}${source}` : `${root}.${source}`,
      value,
      reason,
    }));
  }

  /** The stated percentiles into the point: fixed fields first, the others into `percentiles`, within the limit. */
  private resolvePercentiles(): void {
    const extra = new Map<PercentileMetric, StatedPercentile[]>();
    for (const entry of this.statedPercentiles) {
      const stat = FIELD_PERCENTILES.get(entry.p);
      if (stat === undefined) {
        const list = extra.get(entry.metric) ?? [];
        const same = list.find((other) => other.p === entry.p);
        if (same) {
          this.refused.push({
            source: entry.source,
            value: entry.stated,
            reason: `the same percentile as ${same.source}, which the point keeps`,
          });
          continue;
        }
        list.push(entry);
        extra.set(entry.metric, list);
        continue;
      }
      const field = `${stat}_${entry.metric}_ms` as LatencyKey;
      if (this.point[field] === undefined) {
        this.point[field] = entry.value;
        this.sources[field] = entry.source;
        this.stated[field] = entry.stated;
      } else {
        const kept = this.sources[field] ?? field;
        this.refused.push({
          source: entry.source,
          value: entry.stated,
          reason:
            stat === "median"
              ? `the 50th percentile, which is the median: the point keeps it from ${kept}`
              : `the ${stat} again: the point keeps it from ${kept}`,
        });
      }
    }
    const percentiles: NonNullable<ResultPoint["percentiles"]> = {};
    for (const [metric, list] of extra) {
      // Beyond the limit the highest are kept: latency targets are about the tail.
      const sorted = [...list].sort((a, b) => b.p - a.p);
      const kept = sorted.slice(0, LIMITS.extraPercentiles);
      for (const entry of sorted.slice(LIMITS.extraPercentiles)) {
        this.refused.push({
          source: entry.source,
          value: entry.stated,
          reason: `one of the ${list.length} percentiles of ${METRIC_WORDS[metric]} the file states besides the median, p90, p95 and p99: a point keeps ${LIMITS.extraPercentiles} (the highest, from ${percentileKey(kept[kept.length - 1]?.p ?? 0)} up)`,
        });
      }
      const record: Record<string, number> = {};
      for (const entry of [...kept].sort((a, b) => a.p - b.p)) {
        const key = percentileKey(entry.p);
        if (key === undefined) continue;
        record[key] = entry.value;
        this.sources[`percentiles.${metric}.${key}`] = entry.source;
      }
      percentiles[metric] = record;
    }
    if (Object.keys(percentiles).length > 0) this.point.percentiles = percentiles;
  }

  /**
   * The finished point. A load level whose requests all failed (completed 0, or every figure 0) keeps only
   * its level and request counts, with a warning: it is "no data", never a 0 tok/s point.
   */
  build(): ResultPoint {
    this.resolvePercentiles();
    const point: ResultPoint = { ...this.point };
    const figures = Object.keys(point).filter(
      (key) => !LEVEL_AND_COUNT_FIELDS.has(key) && key !== "percentiles",
    ) as PointField[];
    const percentileValues = Object.values(point.percentiles ?? {}).flatMap((record) => Object.values(record ?? {}));
    const allZero =
      figures.length + percentileValues.length > 0 &&
      figures.every((key) => point[key] === 0) &&
      percentileValues.every((value) => value === 0);
    if (point.completed === 0 || allZero) {
      const dropped = [...figures, ...Object.keys(this.sources).filter((key) => key.startsWith("percentiles."))];
      for (const key of dropped) {
        const source = this.sources[key];
        // What the file states there is no measurement; the report says so (for a plain path, not a formula).
        if (source !== undefined && /^[\w.[\]:-]+$/.test(source)) {
          const stated =
            this.stated[key] ??
            this.statedPercentiles.find((entry) => `percentiles.${entry.metric}.${percentileKey(entry.p)}` === key)
              ?.stated;
          if (stated !== undefined)
            this.refused.push({
              source,
              value: stated,
              reason: "no request of this load level completed: the tool's figure is no data, not a measurement",
            });
        }
        if (!key.startsWith("percentiles.")) delete point[key as PointField];
        delete this.sources[key];
      }
      delete point.percentiles;
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
    field === "completed" ||
    field === "failed" ||
    field === "total_input_tokens" ||
    field === "total_output_tokens" ||
    field === "power_gpu_count" ||
    field === "power_samples"
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
