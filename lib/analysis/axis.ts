/**
 * The load axis of a comparison: one x domain that every chart of the page shares, so a level sits at the
 * same place on each. Concurrency is drawn on a log2 axis with power-of-two ticks; a request rate on a log
 * axis when it spans more than 8×, else a linear one; an unbounded rate ("inf") sits one step past the
 * highest finite rate, labelled ∞.
 */

import type { ResultPoint } from "@/lib/document/schema";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import { compareLevels, type LoadLevel, levelOf } from "./levels";

export type LoadAxis = "concurrency" | "request_rate";
export type AxisScale = "log2" | "log10" | "linear";

export interface AxisTick {
  x: number;
  label: string;
}

export interface LoadDomain {
  axis: LoadAxis;
  scale: AxisScale;
  /** The levels on the axis, in load order, each with its x position. */
  levels: (LoadLevel & { x: number; label: string })[];
  domain: [number, number];
  ticks: AxisTick[];
  /** Series whose levels have no place on this axis (a rate sweep next to concurrency runs), by label. */
  offAxis: { series: string; levels: string[] }[];
}

/** A span wider than this (max / min) is drawn on a log axis. */
export const LOG_RATE_SPAN = 8;

function onAxis(level: LoadLevel, axis: LoadAxis): boolean {
  return axis === "concurrency"
    ? level.concurrency !== null
    : level.concurrency === null && level.request_rate !== null;
}

/** Round steps for a linear axis: 1, 2, 2.5 or 5 times a power of ten, about `count` of them up to `max`. */
export function niceStep(span: number, count = 4): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw - 1e-12) ?? 10 * power;
}

/** Ticks of a log10 axis between two values: 1, 2 and 5 times each power of ten (only powers over 3 decades). */
export function logTicks(min: number, max: number): number[] {
  if (!(min > 0) || !(max > 0)) return [];
  const decades = Math.log10(max / min);
  const factors = decades > 3 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let power = Math.floor(Math.log10(min)); power <= Math.ceil(Math.log10(max)); power += 1) {
    for (const factor of factors) {
      const value = Number((factor * 10 ** power).toPrecision(12));
      if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9)) ticks.push(value);
    }
  }
  return ticks;
}

/**
 * The shared load domain of the series: concurrency when any of them has a concurrency level, else request
 * rate. Levels of the other kind are listed as off the axis, never silently dropped.
 */
export function loadDomain(series: readonly { label: string; results: readonly ResultPoint[] }[]): LoadDomain {
  const all = new Map<string, LoadLevel>();
  for (const item of series) for (const point of item.results) all.set(levelOf(point).key, levelOf(point));
  const levels = [...all.values()].sort(compareLevels);
  const axis: LoadAxis = levels.some((level) => level.concurrency !== null) ? "concurrency" : "request_rate";
  const placed = levels.filter((level) => onAxis(level, axis));
  const offAxis = series
    .map((item) => ({
      series: item.label,
      levels: [
        ...new Set(
          item.results
            .map(levelOf)
            .filter((level) => !onAxis(level, axis))
            .map(formatLoadLevel),
        ),
      ],
    }))
    .filter((item) => item.levels.length > 0);

  if (axis === "concurrency") {
    const positioned = placed.map((level) => ({
      ...level,
      x: Math.log2(level.concurrency!),
      label: formatLoadLevel(level),
    }));
    const xs = positioned.map((level) => level.x);
    const low = xs.length > 0 ? Math.floor(Math.min(...xs)) : 0;
    const high = xs.length > 0 ? Math.ceil(Math.max(...xs)) : 0;
    const ticks: AxisTick[] = [];
    // Every power of two up to 12 ticks; beyond that every other one, so labels never collide.
    const stride = high - low > 11 ? 2 : 1;
    for (let x = low; x <= high; x += stride) ticks.push({ x, label: String(2 ** x) });
    return { axis, scale: "log2", levels: positioned, domain: [low, high], ticks, offAxis };
  }

  const finite = placed.filter((level) => typeof level.request_rate === "number");
  const rates = finite.map((level) => level.request_rate as number);
  const minRate = rates.length > 0 ? Math.min(...rates) : 1;
  const maxRate = rates.length > 0 ? Math.max(...rates) : 1;
  const log = rates.length > 1 && maxRate / minRate > LOG_RATE_SPAN;
  const position = (rate: number) => (log ? Math.log10(rate) : rate);
  let ticks: AxisTick[];
  let low: number;
  let high: number;
  if (log) {
    ticks = logTicks(minRate, maxRate).map((rate) => ({ x: Math.log10(rate), label: formatNumber(rate) }));
    low = Math.min(Math.log10(minRate), ticks[0]?.x ?? Math.log10(minRate));
    high = Math.log10(maxRate);
  } else {
    const step = niceStep(maxRate);
    low = 0;
    high = rates.length > 0 ? Math.ceil(maxRate / step - 1e-9) * step : step;
    ticks = [];
    for (let value = 0; value <= high + step / 2; value += step) ticks.push({ x: value, label: formatNumber(value) });
  }
  const positioned = finite.map((level) => ({
    ...level,
    x: position(level.request_rate as number),
    label: formatLoadLevel(level),
  }));
  if (placed.some((level) => level.request_rate === "inf")) {
    // One step past the last tick: far enough to read as "beyond", labelled so nobody reads it as a number.
    const step = ticks.length > 1 ? ticks[ticks.length - 1]!.x - ticks[ticks.length - 2]!.x : 1;
    const x = (rates.length > 0 ? high : 0) + step;
    positioned.push({
      key: "r:inf",
      concurrency: null,
      request_rate: "inf",
      x,
      label: formatLoadLevel({ request_rate: "inf" }),
    });
    ticks.push({ x, label: "∞" });
    high = x;
  }
  return { axis, scale: log ? "log10" : "linear", levels: positioned, domain: [low, high], ticks, offAxis };
}

/** "concurrency" or "request rate", for chart titles. */
export function axisName(axis: LoadAxis): string {
  return axis === "concurrency" ? "concurrency" : "request rate";
}
