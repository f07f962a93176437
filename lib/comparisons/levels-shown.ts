/**
 * Which load levels a comparison's page shows of a long sweep: the charts draw at most DRAWN_LEVELS_MAX, the delta
 * tables list at most TABLE_LEVELS_MAX, and the levels a reader needs are always among them.
 */
import type { LoadDomain } from "@/lib/analysis/axis";
import type { ComparisonSeries } from "./model";

/**
 * Which of `levels` (in load order, each at its x) a page shows when there are more than `max`: those in `keep`
 * first (in their order, as many as fit), the lowest and the highest load, then, one at a time, the level farthest
 * (in x) from every level already chosen, so the rest spread evenly over the axis. Null when all of them fit.
 */
export function pickLevels(
  levels: readonly { key: string; x: number }[],
  keep: readonly string[],
  max: number,
): Set<string> | null {
  if (levels.length <= max) return null;
  const present = new Set(levels.map((level) => level.key));
  const chosen = new Set<string>();
  const first = levels[0];
  const last = levels[levels.length - 1];
  for (const key of [first?.key, last?.key, ...keep]) {
    if (chosen.size >= max) break;
    if (key !== undefined && present.has(key)) chosen.add(key);
  }
  // Each level's distance to the nearest chosen one, updated as levels are chosen: max × levels steps in all.
  const distance = levels.map(() => Number.POSITIVE_INFINITY);
  const update = (x: number) => {
    levels.forEach((level, index) => {
      distance[index] = Math.min(distance[index]!, Math.abs(level.x - x));
    });
  };
  for (const level of levels) if (chosen.has(level.key)) update(level.x);
  while (chosen.size < max) {
    let farthest = -1;
    levels.forEach((level, index) => {
      if (chosen.has(level.key)) return;
      if (farthest === -1 || distance[index]! > distance[farthest]!) farthest = index;
    });
    if (farthest === -1) break;
    const level = levels[farthest]!;
    chosen.add(level.key);
    update(level.x);
  }
  return chosen;
}

/** At most `max` of `items`, evenly spaced by position, the first and the last always among them. */
export function evenlySpaced<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 1) return items.slice(0, max);
  return Array.from({ length: max }, (_, index) => items[Math.round((index * (items.length - 1)) / (max - 1))]!);
}

/**
 * The levels a reader of a long sweep needs to see whatever else is left out: single stream (C=1), each run's peak
 * throughput, and each run's first level past its SLO.
 */
export function levelsToKeep(series: readonly ComparisonSeries[], domain: LoadDomain): string[] {
  const order = new Map(domain.levels.map((level, index) => [level.key, index]));
  const keys: string[] = ["c:1"];
  for (const item of series) {
    const peak = item.headline.peak;
    if (peak.concurrency !== null) keys.push(`c:${peak.concurrency}`);
    else if (peak.request_rate !== null) keys.push(`r:${peak.request_rate}`);
  }
  for (const item of series) {
    const violating = [...(item.slo?.violating ?? [])].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    if (violating[0]) keys.push(violating[0]);
  }
  return keys;
}
