/**
 * Goodput at a service-level objective: the most a configuration serves while its latency targets hold.
 * Targets are TTFT ≤ a ms and/or TPOT ≤ b ms at one statistic (p99 by default). A level meets the SLO when
 * every targeted figure is stated and within its target. The capacity of a run at the SLO is the highest
 * load level *measured* to meet it: what engineers quote, because nothing between two levels was measured.
 * Where the next level up does not meet it, an estimate stands beside it, marked: the crossing interpolated
 * linearly along the load axis (log2 of concurrency, or the rate axis' position) for each target, the
 * earliest crossing winning, and the throughput interpolated to it. And the price of a token: $ per million
 * output tokens at a $/GPU-hour.
 */
import type { LatencyMetric, ResultPoint } from "@/lib/document/schema";
import type { LoadDomain } from "./axis";
import { levelOf } from "./levels";
import type { CompareStat } from "./lines";
import type { MetricKey } from "./metrics";

export interface SloTargets {
  ttft_ms: number | null;
  tpot_ms: number | null;
  /** End-to-end request latency, in ms: a batch tier's target. Absent on the compare page's own SLO. */
  e2el_ms?: number | null;
  stat: CompareStat;
}

export const DEFAULT_SLO_STAT: CompareStat = "p99";

export function hasTargets(targets: SloTargets): boolean {
  return targets.ttft_ms !== null || targets.tpot_ms !== null || (targets.e2el_ms ?? null) !== null;
}

function targetList(targets: SloTargets): { metric: LatencyMetric; key: MetricKey; limit: number }[] {
  const list: { metric: LatencyMetric; key: MetricKey; limit: number }[] = [];
  if (targets.ttft_ms !== null)
    list.push({ metric: "ttft", key: `${targets.stat}_ttft_ms` as MetricKey, limit: targets.ttft_ms });
  if (targets.tpot_ms !== null)
    list.push({ metric: "tpot", key: `${targets.stat}_tpot_ms` as MetricKey, limit: targets.tpot_ms });
  if (targets.e2el_ms != null)
    list.push({ metric: "e2el", key: `${targets.stat}_e2el_ms` as MetricKey, limit: targets.e2el_ms });
  return list;
}

/** "TTFT ≤ 500 ms, TPOT ≤ 50 ms (p99)". */
export function sloText(targets: SloTargets): string {
  const parts: string[] = [];
  if (targets.ttft_ms !== null) parts.push(`TTFT ≤ ${targets.ttft_ms} ms`);
  if (targets.tpot_ms !== null) parts.push(`TPOT ≤ ${targets.tpot_ms} ms`);
  if (targets.e2el_ms != null) parts.push(`E2E ≤ ${targets.e2el_ms} ms`);
  return parts.length === 0 ? "" : `${parts.join(", ")} (${targets.stat})`;
}

/** Whether a point meets every target: true, false, or null when a targeted figure is not stated. */
export function meetsSlo(point: ResultPoint, targets: SloTargets): boolean | null {
  let unknown = false;
  for (const target of targetList(targets)) {
    const value = point[target.key];
    if (typeof value !== "number") unknown = true;
    else if (value > target.limit) return false;
  }
  return unknown ? null : true;
}

export type SloLoad = { concurrency: number | null; request_rate: number | null; infinite: boolean };

export interface SloEstimate {
  /** Where the SLO stops holding between the highest level that meets it and the next, interpolated. */
  x: number;
  /** The load as a concurrency or request rate (not whole). */
  load: SloLoad;
  /** Output tok/s interpolated to it. */
  output_tok_s: number | null;
}

export interface SloPoint {
  /** every: all judged levels meet; none: no level meets; partial: some do; unknown: no level could be judged. */
  status: "every" | "none" | "partial" | "unknown";
  /** The position of the highest measured level that meets the SLO. */
  x: number | null;
  /** That level as a concurrency or request rate. */
  load: SloLoad | null;
  /** Output tok/s measured there (all requests together). */
  output_tok_s: number | null;
  /**
   * Beside it, never instead of it: where the SLO stops holding, interpolated towards the next level up, which
   * breaks it. Null when no level meets, every level does, or the next level sits exactly on a limit.
   */
  estimate: SloEstimate | null;
  /** Level keys that violate the SLO. */
  violating: string[];
  /** Figures the targets need that the run does not state at some level ("p99 TTFT"). */
  unstated: string[];
  /** Why nothing could be judged, in words, when status is "unknown". */
  reason: string | null;
}

interface PlacedPoint {
  point: ResultPoint;
  key: string;
  x: number;
  meets: boolean | null;
}

/** The SLO point of a run's results on a load domain. */
export function sloPoint(results: readonly ResultPoint[], domain: LoadDomain, targets: SloTargets): SloPoint {
  const positions = new Map(domain.levels.map((level) => [level.key, level]));
  const placed: PlacedPoint[] = results
    .map((point) => {
      const key = levelOf(point).key;
      const level = positions.get(key);
      return level ? { point, key, x: level.x, meets: meetsSlo(point, targets) } : null;
    })
    .filter((item): item is PlacedPoint => item !== null)
    .sort((a, b) => a.x - b.x);
  const unstated = targetList(targets)
    .filter((target) => placed.some((item) => typeof item.point[target.key] !== "number"))
    .map((target) => `${targets.stat} ${target.metric === "e2el" ? "E2E latency" : target.metric.toUpperCase()}`);
  const violating = placed.filter((item) => item.meets === false).map((item) => item.key);
  const judged = placed.filter((item) => item.meets !== null);
  const empty = { x: null, load: null, output_tok_s: null, estimate: null, violating, unstated, reason: null };
  if (judged.length === 0) {
    // Every sentence the card builds from this needs its object: say what is missing, or why no level is placed.
    const reason =
      placed.length === 0
        ? `none of its levels lies on this comparison's ${domain.axis === "concurrency" ? "concurrency" : "request-rate"} axis`
        : `it states no ${unstated.join(" or ")}`;
    return { status: "unknown", ...empty, reason };
  }
  const meeting = judged.filter((item) => item.meets);
  if (meeting.length === 0) return { status: "none", ...empty };
  const best = meeting[meeting.length - 1]!;
  const status = meeting.length === judged.length ? "every" : "partial";
  const measured = {
    status,
    x: best.x,
    load: loadAt(domain, best.x, best, false),
    output_tok_s: best.point.output_throughput ?? null,
    violating,
    unstated,
    reason: null,
  } as const;
  const next = judged[judged.indexOf(best) + 1];
  if (next?.meets !== false) return { ...measured, estimate: null };
  // The crossing: for each target the next level breaks, where its line reaches the limit; the earliest wins.
  let fraction = 1;
  for (const target of targetList(targets)) {
    const low = best.point[target.key] as number;
    const high = next.point[target.key] as number;
    if (high <= target.limit) continue;
    fraction = Math.min(fraction, high === low ? 0 : (target.limit - low) / (high - low));
  }
  if (fraction === 0) return { ...measured, estimate: null };
  const x = best.x + fraction * (next.x - best.x);
  const lowTok = best.point.output_throughput;
  const highTok = next.point.output_throughput;
  const output =
    typeof lowTok === "number" && typeof highTok === "number" ? lowTok + fraction * (highTok - lowTok) : null;
  return { ...measured, estimate: { x, load: loadAt(domain, x, best, true)!, output_tok_s: output } };
}

function loadAt(domain: LoadDomain, x: number, best: PlacedPoint, interpolated: boolean): SloLoad {
  if (!interpolated) {
    const level = levelOf(best.point);
    return {
      concurrency: level.concurrency,
      request_rate: typeof level.request_rate === "number" ? level.request_rate : null,
      infinite: level.request_rate === "inf" && level.concurrency === null,
    };
  }
  if (domain.scale === "log2") return { concurrency: 2 ** x, request_rate: null, infinite: false };
  // Past the last finite rate lies only "inf": an interpolated load there has no rate to name.
  const finite = domain.levels.filter((level) => typeof level.request_rate === "number" && level.concurrency === null);
  const lastFinite = finite[finite.length - 1]?.x ?? Number.NEGATIVE_INFINITY;
  if (x > lastFinite) return { concurrency: null, request_rate: null, infinite: true };
  return { concurrency: null, request_rate: domain.scale === "log10" ? 10 ** x : x, infinite: false };
}

/** GPU-hour prices: one for every GPU, and/or one per GPU model (matched case-insensitively). */
export interface GpuPrices {
  all: number | null;
  byGpu: Record<string, number>;
}

export function hasPrices(prices: GpuPrices): boolean {
  return prices.all !== null || Object.keys(prices.byGpu).length > 0;
}

/** The $/GPU-hour of a run's GPU: its model's own price, else the one price; null when none applies. */
export function priceFor(prices: GpuPrices, gpu: string | undefined): number | null {
  if (gpu) {
    const own = prices.byGpu[gpu.trim().toLowerCase()];
    if (own !== undefined) return own;
  }
  return prices.all;
}

/**
 * $ per million output tokens: price ÷ (tok/s per GPU × 3600 ÷ 10⁶), the GPU-hour price over the tokens one
 * GPU generates in an hour, in millions. Null without a price or a positive throughput.
 */
export function costPerMillionTokens(pricePerGpuHour: number | null, tokSPerGpu: number | null): number | null {
  if (pricePerGpuHour === null || tokSPerGpu === null || !(tokSPerGpu > 0)) return null;
  return pricePerGpuHour / ((tokSPerGpu * 3600) / 1e6);
}
