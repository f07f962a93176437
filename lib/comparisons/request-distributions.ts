/**
 * The per-request latency distributions of a comparison at one load level (the compare page's "Latency
 * distributions"): which levels each series stored requests at, and for the chosen level one ECDF per series
 * (lib/analysis/request-cdf.ts), its repeats pooled.
 *
 * Per-request results are the largest thing a run stores (up to 100,000 rows), and the comparison itself is
 * loaded without them (lib/comparisons/loader.ts). So this reads the stored rows of the chosen level only, of the
 * compared runs only, one point at a time, and keeps at most MAX_CDF_REQUESTS values per series.
 */
import { compareLevels, type LoadLevel, levelOf } from "@/lib/analysis/levels";
import {
  type CdfMetric,
  completedValues,
  defaultCdfLevel,
  type LatencyCdfData,
  levelOfKey,
  requestCdf,
  type SeriesCdf,
} from "@/lib/analysis/request-cdf";
import { db } from "@/lib/db/client";
import type { RequestDetail } from "@/lib/document/schema";
import { formatLoadLevel } from "@/lib/format";
import { yieldToEventLoop } from "@/lib/runs/event-loop";
import { seededUniform } from "@/lib/seeded-random";
import type { Comparison } from "./model";

/**
 * Requests one series' curve is drawn from at most. One run holds at most 100,000 stored rows (lib/document's
 * limits), so only a series of several repeat runs can reach it; past it, the curve is of a uniform sample.
 */
export const MAX_CDF_REQUESTS = 100_000;

interface SeriesInput {
  key: string;
  id: string;
  label: string;
  color: string;
  hidden: boolean;
  runs: readonly { id: string }[];
}

interface PointLevel {
  id: number;
  runId: string;
  position: number;
  concurrency: number | null;
  request_rate: number | null;
  request_rate_infinite: boolean;
}

function levelOfRow(row: PointLevel) {
  return levelOf({
    concurrency: row.concurrency ?? undefined,
    request_rate: row.request_rate_infinite ? "inf" : (row.request_rate ?? undefined),
  });
}

/**
 * At most `cap` values, a uniform sample of all offered (reservoir sampling, Algorithm R): every completed request
 * of every repeat has the same chance to be kept, whichever point it came from, in memory bounded by the cap. The
 * seed is fixed, so a page shows the same curve each time it is opened.
 */
class Reservoir {
  readonly values: number[] = [];
  seen = 0;
  private readonly uniform = seededUniform(0x5eed);
  constructor(private readonly cap: number) {}
  offer(value: number): void {
    this.seen += 1;
    if (this.values.length < this.cap) this.values.push(value);
    else {
      const slot = Math.floor(this.uniform() * this.seen);
      if (slot < this.cap) this.values[slot] = value;
    }
  }
}

/**
 * The distributions of `metric` at `askedLevel` (a level key; null or a level no run stored requests at: the
 * default of defaultCdfLevel) for each series of a comparison.
 */
export async function loadLatencyCdfs(
  series: readonly SeriesInput[],
  askedLevel: string | null,
  metric: CdfMetric,
  cap = MAX_CDF_REQUESTS,
): Promise<LatencyCdfData> {
  const runIds = [...new Set(series.flatMap((item) => item.runs.map((run) => run.id)))];
  // Where the requests are, without reading them: the levels of every point, and which points kept requests.
  const [points, withRequests] = await Promise.all([
    db().resultPoint.findMany({
      where: { runId: { in: runIds } },
      select: {
        id: true,
        runId: true,
        position: true,
        concurrency: true,
        request_rate: true,
        request_rate_infinite: true,
      },
    }),
    db().resultPoint.findMany({
      where: { runId: { in: runIds }, requestsJson: { not: null } },
      select: { id: true },
    }),
  ]);
  const stored = new Set(withRequests.map((row) => row.id));
  const runOrder = new Map(runIds.map((id, index) => [id, index]));
  points.sort((a, b) => runOrder.get(a.runId)! - runOrder.get(b.runId)! || a.position - b.position);

  const memberPoints = series.map((item) => {
    const members = new Set(item.runs.map((run) => run.id));
    return points.filter((point) => members.has(point.runId));
  });
  const levelsWithData = memberPoints.map((list) =>
    list.filter((point) => stored.has(point.id)).map((point) => levelOfRow(point)),
  );
  const counts = new Map<string, { label: string; series: number; order: LoadLevel }>();
  for (const list of levelsWithData) {
    for (const level of new Map(list.map((item) => [item.key, item])).values()) {
      const entry = counts.get(level.key);
      if (entry) entry.series += 1;
      else counts.set(level.key, { label: formatLoadLevel(level), series: 1, order: level });
    }
  }
  const levels = [...counts.entries()]
    .sort(([, a], [, b]) => compareLevels(a.order, b.order))
    .map(([key, entry]) => ({ key, label: entry.label, series: entry.series }));

  const chosen = askedLevel !== null && counts.has(askedLevel) ? askedLevel : defaultCdfLevel(levelsWithData);
  const unavailableLevel =
    askedLevel !== null && !counts.has(askedLevel)
      ? { key: askedLevel, label: formatLoadLevel(levelOfKey(askedLevel)) }
      : null;
  const out: SeriesCdf[] = [];
  for (const [index, item] of series.entries()) {
    const atLevel = chosen === null ? [] : memberPoints[index]!.filter((point) => levelOfRow(point).key === chosen);
    const result: SeriesCdf = {
      key: item.key,
      id: item.id,
      label: item.label,
      color: item.color,
      hidden: item.hidden,
      cdf: null,
      storedRows: 0,
      totalRequests: 0,
      points: atLevel.length,
      pointsWithRequests: 0,
      completedRequests: 0,
      capped: false,
    };
    const reservoir = new Reservoir(cap);
    for (const point of atLevel) {
      if (!stored.has(point.id)) continue;
      // One point's rows at a time, with a turn for other requests between: up to 10,000 rows each.
      await yieldToEventLoop();
      const row = await db().resultPoint.findUnique({ where: { id: point.id }, select: { requestsJson: true } });
      if (!row?.requestsJson) continue;
      const detail = JSON.parse(row.requestsJson) as RequestDetail;
      result.pointsWithRequests += 1;
      result.storedRows += detail.ttft_ms.length;
      result.totalRequests += detail.total;
      for (const value of completedValues(detail, metric)) reservoir.offer(value);
    }
    result.capped = reservoir.seen > cap;
    result.completedRequests = reservoir.seen;
    result.cdf = requestCdf(reservoir.values);
    out.push(result);
  }
  const level = chosen === null ? null : { key: chosen, label: counts.get(chosen)!.label };
  return { metric, level, unavailableLevel, levels, series: out, cap };
}

/** A built comparison's distributions, at the level and latency its view asks for (the compare pages call this). */
export function latencyCdfsOf(comparison: Pick<Comparison, "series" | "view">): Promise<LatencyCdfData> {
  return loadLatencyCdfs(comparison.series, comparison.view.cdfLevel, comparison.view.cdfMetric);
}
