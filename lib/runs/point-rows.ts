/**
 * A result point as a row of the ResultPoint table and back: which figures have a column of their own, and how the
 * rest (percentiles, per-request rows, sources) is kept as JSON text.
 */

import {
  LATENCY_KEYS,
  POWER_KEYS,
  type PowerSource,
  type ResultPoint,
  SERVER_METRIC_KEYS,
} from "@/lib/document/schema";
import type { Prisma } from "@/lib/generated/prisma/client";

export const POINT_NUMBER_KEYS = [
  "completed",
  "failed",
  "duration_s",
  "total_input_tokens",
  "total_output_tokens",
  "request_throughput",
  "request_goodput",
  "output_throughput",
  "total_token_throughput",
  "decode_throughput",
  ...LATENCY_KEYS,
  ...SERVER_METRIC_KEYS,
  ...POWER_KEYS,
] as const;

export type PointRow = Omit<Prisma.ResultPointGetPayload<object>, "requestsJson"> & { requestsJson?: string | null };

export function pointToRow(point: ResultPoint, position: number): Omit<Prisma.ResultPointCreateManyInput, "runId"> {
  const row: Omit<Prisma.ResultPointCreateManyInput, "runId"> = {
    position,
    sourcesJson: point.sources ? JSON.stringify(point.sources) : null,
    percentilesJson: point.percentiles ? JSON.stringify(point.percentiles) : null,
    requestsJson: point.requests ? JSON.stringify(point.requests) : null,
    concurrency: point.concurrency ?? null,
    request_rate: typeof point.request_rate === "number" ? point.request_rate : null,
    request_rate_infinite: point.request_rate === "inf",
    repeat: point.repeat ?? null,
    power_source: point.power_source ?? null,
  };
  for (const key of POINT_NUMBER_KEYS) {
    const value = point[key];
    if (value !== undefined) row[key] = value;
  }
  return row;
}

export function rowToPoint(row: PointRow): ResultPoint {
  const point: ResultPoint = {};
  if (row.concurrency !== null) point.concurrency = row.concurrency;
  if (row.request_rate_infinite) point.request_rate = "inf";
  else if (row.request_rate !== null) point.request_rate = row.request_rate;
  if (row.repeat !== null) point.repeat = row.repeat;
  // Only the names the schema allows were ever stored (a stored point was validated first).
  if (row.power_source !== null) point.power_source = row.power_source as PowerSource;
  for (const key of POINT_NUMBER_KEYS) {
    const value = row[key];
    if (value !== null) point[key] = value;
  }
  const percentiles = parseJson<ResultPoint["percentiles"]>(row.percentilesJson);
  if (percentiles) point.percentiles = percentiles;
  // Absent when the query left the column out (comparisons do: per-request rows are shown on the run page only).
  const requests = parseJson<ResultPoint["requests"]>(row.requestsJson ?? null);
  if (requests) point.requests = requests;
  const sources = parseJson<Record<string, string>>(row.sourcesJson);
  if (sources) point.sources = sources;
  return point;
}

export function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}
