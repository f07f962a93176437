/**
 * Reading the flat result objects that vLLM's `bench serve` writes and SGLang's `bench_serving` (which
 * descends from it) writes too: where a record sits in its file, and each figure checked before it is set.
 */
import { isNaNValue, type PointBuilder, type PointField, type TimeUnit, toNumber } from "./common";
import { FormatError } from "./types";

export type Json = Record<string, unknown>;

export interface Where {
  /** Prefix of paths inside the file: "" for a single object, "line 3." for JSONL, "[2]." for a JSON list. */
  path: string;
  /** For messages: "results.json (line 3)". */
  label: string;
}

/**
 * A figure's raw value, checked: numbers, numeric strings, NaN and null pass (PointBuilder handles them);
 * an infinite value is reported and skipped; anything else (an object, a list, a word) breaks the file.
 */
export function figure(record: Json, key: string, where: Where, warnings: string[]): unknown {
  const value = record[key];
  if (value === undefined || value === null || isNaNValue(value)) return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    warnings.push(`${where.label}: ${key} is infinite; stored as no data.`);
    return undefined;
  }
  if (typeof value === "string") {
    if (toNumber(value) !== null) return value;
    if (/^[-+]?(inf|infinity)$/i.test(value.trim())) {
      warnings.push(`${where.label}: ${key} is infinite; stored as no data.`);
      return undefined;
    }
  }
  throw new FormatError(`${where.path}${key}`, `${key} must be a number, found ${describeValue(value)}`);
}

export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) return "an object";
  if (typeof value === "string") return `the text "${value.slice(0, 40)}"`;
  return String(value);
}

export function setFigure(
  builder: PointBuilder,
  warnings: string[],
  field: PointField,
  record: Json,
  key: string,
  where: Where,
  unit?: TimeUnit,
): void {
  builder.set(field, figure(record, key, where, warnings), key, unit);
}

/**
 * The load level of a result object: `max_concurrency` (a number or numeric text; null or absent when the run
 * was paced by rate alone) and `request_rate` (a number or "inf"), both as both tools write them.
 */
export function setLoadLevel(builder: PointBuilder, record: Json, where: Where): void {
  const concurrency = record.max_concurrency;
  if (
    concurrency !== undefined &&
    concurrency !== null &&
    typeof concurrency !== "number" &&
    typeof concurrency !== "string"
  ) {
    throw new FormatError(
      `${where.path}max_concurrency`,
      `max_concurrency must be a number or null, found ${describeValue(concurrency)}`,
    );
  }
  builder.concurrency(concurrency, "max_concurrency");
  builder.requestRate(record.request_rate, "request_rate");
}
