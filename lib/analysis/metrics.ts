/**
 * The metrics a comparison can chart or tabulate, with their unit and which direction is better.
 */
import { LATENCY_KEYS, type LatencyKey, splitLatencyKey } from "@/lib/document/schema";

export type ThroughputKey = "output_throughput" | "total_token_throughput" | "request_throughput";
export type MetricKey = ThroughputKey | LatencyKey;

export interface MetricInfo {
  key: MetricKey;
  label: string;
  unit: string;
  /** Throughput: higher is better. Latency: lower is better. */
  better: "higher" | "lower";
}

const THROUGHPUT: Record<ThroughputKey, MetricInfo> = {
  output_throughput: { key: "output_throughput", label: "Output throughput", unit: "tok/s", better: "higher" },
  total_token_throughput: {
    key: "total_token_throughput",
    label: "Total token throughput",
    unit: "tok/s",
    better: "higher",
  },
  request_throughput: { key: "request_throughput", label: "Request throughput", unit: "req/s", better: "higher" },
};

const STAT_NAMES: Record<string, string> = {
  mean: "Mean",
  median: "Median",
  std: "Std",
  p90: "P90",
  p95: "P95",
  p99: "P99",
};
const LATENCY_NAMES: Record<string, string> = {
  ttft: "TTFT",
  tpot: "TPOT",
  itl: "ITL",
  e2el: "E2E latency",
  e2el_per_token: "E2E latency per token",
};

export function metricInfo(key: MetricKey): MetricInfo {
  if (key in THROUGHPUT) return THROUGHPUT[key as ThroughputKey];
  const [stat, metric] = splitLatencyKey(key as LatencyKey);
  return { key, label: `${STAT_NAMES[stat]} ${LATENCY_NAMES[metric]}`, unit: "ms", better: "lower" };
}

export const ALL_METRIC_KEYS: readonly MetricKey[] = [
  "output_throughput",
  "total_token_throughput",
  "request_throughput",
  ...LATENCY_KEYS,
];

/** The metrics the delta table shows, in order, when at least one compared run has them. */
export const DELTA_TABLE_METRICS: readonly MetricKey[] = [
  "output_throughput",
  "mean_tpot_ms",
  "mean_ttft_ms",
  "p99_tpot_ms",
  "p99_ttft_ms",
  "mean_itl_ms",
  "mean_e2el_ms",
];
