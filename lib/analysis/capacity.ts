/**
 * Capacity: what a configuration serves at an SLO tier, how many GPUs (and nodes, dollars and watts) a demand
 * needs of it, and the inverse questions (the most interactivity under a cost ceiling; the most users under a
 * GPU or power budget). Definitions in docs/comparing.md#capacity. Pure.
 *
 * A configuration is deployed whole: a run measured on 8 GPUs (one replica with tensor parallelism 8) scales by
 * adding replicas of 8, never by a fraction of one. So a demand needs ⌈demand ÷ capacity of one replica⌉
 * replicas, and the GPUs are that many times the run's GPU count. Capacity is always the highest *measured* load
 * level that meets the tier; the interpolated crossing stands beside it, marked, and sizes nothing.
 */
import type { ResultPoint } from "@/lib/document/schema";
import { formatLoadLevel } from "@/lib/format";
import type { LoadDomain } from "./axis";
import { niceStep } from "./axis";
import { type EfficiencyPoint, interactivity, monotoneInterpolate, perGpu } from "./efficiency";
import { levelOf } from "./levels";
import type { MetricKey } from "./metrics";
import { costPerMillionTokens, type SloLoad, sloPoint } from "./slo";
import type { SloTier } from "./slo-tiers";

export interface TierCapacity {
  tier_id: string;
  /** As sloPoint says: every, partial, none or unknown (with reason). */
  status: "every" | "none" | "partial" | "unknown";
  reason: string | null;
  /** The highest measured level meeting the tier: "C=32", or null. */
  level: string | null;
  /** Its key (levelOf): "c:32". */
  level_key: string | null;
  load: SloLoad | null;
  /** Output tok/s there, all GPUs of one replica together. */
  output_tok_s: number | null;
  tok_s_per_gpu: number | null;
  /** 1000 ÷ TPOT at the tier's statistic: what the tier's slowest-served user sees. */
  tok_s_per_user: number | null;
  /** Completed requests per second there. */
  request_rate_rps: number | null;
  /**
   * Users one replica holds at that level: its concurrency, or for a request-rate level the requests in flight by
   * Little's law (completed req/s × mean end-to-end latency in s). Null when neither is known.
   */
  users: number | null;
  users_source: "concurrency" | "little" | null;
  users_per_gpu: number | null;
  /** Where the tier stops holding, interpolated towards the next level up (never used for sizing). */
  estimate: { load: SloLoad; output_tok_s: number | null; tok_s_per_gpu: number | null } | null;
}

function usersAt(point: ResultPoint): { users: number | null; source: TierCapacity["users_source"] } {
  if (point.concurrency !== undefined) return { users: point.concurrency, source: "concurrency" };
  const rate = point.request_throughput;
  const e2el = point.mean_e2el_ms;
  if (typeof rate === "number" && typeof e2el === "number" && rate > 0 && e2el > 0)
    return { users: (rate * e2el) / 1000, source: "little" };
  return { users: null, source: null };
}

/** A run's capacity at a tier: its highest measured level meeting the tier, with the figures there. */
export function tierCapacity(
  results: readonly ResultPoint[],
  domain: LoadDomain,
  tier: SloTier,
  gpuCount: number | null,
): TierCapacity {
  const slo = sloPoint(results, domain, tier);
  const empty: TierCapacity = {
    tier_id: tier.id,
    status: slo.status,
    reason: slo.reason,
    level: null,
    level_key: null,
    load: null,
    output_tok_s: null,
    tok_s_per_gpu: null,
    tok_s_per_user: null,
    request_rate_rps: null,
    users: null,
    users_source: null,
    users_per_gpu: null,
    estimate: null,
  };
  if (slo.x === null || slo.load === null) return empty;
  const key = levelOf({
    concurrency: slo.load.concurrency ?? undefined,
    request_rate: slo.load.infinite ? "inf" : (slo.load.request_rate ?? undefined),
  }).key;
  const point = results.find((candidate) => levelOf(candidate).key === key);
  if (!point) return empty;
  const { users, source } = usersAt(point);
  return {
    ...empty,
    level: formatLoadLevel(point),
    level_key: key,
    load: slo.load,
    output_tok_s: point.output_throughput ?? null,
    tok_s_per_gpu: perGpu(point.output_throughput, gpuCount),
    tok_s_per_user: interactivity(point[`${tier.stat}_tpot_ms` as MetricKey] as number | undefined),
    request_rate_rps: point.request_throughput ?? null,
    users,
    users_source: source,
    users_per_gpu: users !== null && gpuCount ? users / gpuCount : null,
    estimate: slo.estimate
      ? {
          load: slo.estimate.load,
          output_tok_s: slo.estimate.output_tok_s,
          tok_s_per_gpu: perGpu(slo.estimate.output_tok_s, gpuCount),
        }
      : null,
  };
}

export type DemandKind = "users" | "rps" | "tok_s";
export interface Demand {
  kind: DemandKind;
  value: number;
}

export const DEMAND_UNITS: Record<DemandKind, string> = {
  users: "concurrent users",
  rps: "req/s",
  tok_s: "output tok/s",
};

export interface PlanInput {
  /** GPUs of one replica: the run's GPU count. */
  gpuCount: number | null;
  gpusPerNode: number;
  /** $/GPU-hour, and whether the user typed it or the GPU catalogue's typical price stands in. */
  pricePerGpuHour: number | null;
  priceSource: "yours" | "typical" | null;
  /** Mean board power per GPU at the tier's level, in W; null when the run states none. */
  wattsPerGpu: number | null;
  capacity: TierCapacity;
}

export interface Plan {
  /** Null when the configuration cannot be sized; reason says why. */
  replicas: number | null;
  gpus: number | null;
  nodes: number | null;
  /** What one replica serves at the tier, in the demand's unit. */
  per_replica: number | null;
  /** Share of the fleet the demand uses: demand ÷ (replicas × per replica). */
  utilization: number | null;
  usd_per_hour: number | null;
  /** $ per million output tokens with the fleet loaded to the tier's level (the GPU-hour over its tokens). */
  usd_per_m_tokens: number | null;
  price_source: PlanInput["priceSource"];
  /** Board power of the fleet at the tier's level, in kW. */
  power_kw: number | null;
  reason: string | null;
}

function perReplica(kind: DemandKind, capacity: TierCapacity): number | null {
  const value = kind === "users" ? capacity.users : kind === "rps" ? capacity.request_rate_rps : capacity.output_tok_s;
  return value !== null && value > 0 ? value : null;
}

/** Nodes for `replicas` replicas of `gpuCount` GPUs: a replica never straddles nodes unless it must. */
export function nodesFor(replicas: number, gpuCount: number, gpusPerNode: number): number {
  if (gpuCount > gpusPerNode) return replicas * Math.ceil(gpuCount / gpusPerNode);
  return Math.ceil(replicas / Math.floor(gpusPerNode / gpuCount));
}

/** GPUs, nodes, $/hour and power one configuration needs for a demand at a tier. */
export function planFor(demand: Demand, input: PlanInput): Plan {
  const { capacity, gpuCount } = input;
  const none = (reason: string): Plan => ({
    replicas: null,
    gpus: null,
    nodes: null,
    per_replica: null,
    utilization: null,
    usd_per_hour: null,
    usd_per_m_tokens: null,
    price_source: input.priceSource,
    power_kw: null,
    reason,
  });
  if (capacity.status === "none") return none("no measured level meets the tier");
  if (capacity.status === "unknown") return none(`the tier cannot be judged: ${capacity.reason ?? "no level"}`);
  if (gpuCount === null) return none("the run does not state its GPU count");
  const each = perReplica(demand.kind, capacity);
  if (each === null)
    return none(
      demand.kind === "users"
        ? "the level meeting the tier states neither its concurrency nor req/s and mean E2E latency"
        : demand.kind === "rps"
          ? "the level meeting the tier states no req/s"
          : "the level meeting the tier states no output tok/s",
    );
  // A hair under a whole number of replicas is that number: 500 users at 62.5 per replica is 8, not 9.
  const replicas = Math.max(1, Math.ceil(demand.value / each - 1e-9));
  const gpus = replicas * gpuCount;
  const price = input.pricePerGpuHour;
  return {
    replicas,
    gpus,
    nodes: nodesFor(replicas, gpuCount, input.gpusPerNode),
    per_replica: each,
    utilization: demand.value / (replicas * each),
    usd_per_hour: price === null ? null : gpus * price,
    usd_per_m_tokens: costPerMillionTokens(price, capacity.tok_s_per_gpu),
    price_source: input.priceSource,
    power_kw: input.wattsPerGpu === null ? null : (gpus * input.wattsPerGpu) / 1000,
    reason: null,
  };
}

/**
 * Configurations in the order a planner recommends them: fewest GPUs, then lowest $/hour, then the input order;
 * those that cannot be sized last.
 */
export function rankPlans<T extends { plan: Plan }>(items: readonly T[]): T[] {
  const order = items.map((item, index) => ({ item, index }));
  order.sort((a, b) => {
    const ga = a.item.plan.gpus ?? Number.POSITIVE_INFINITY;
    const gb = b.item.plan.gpus ?? Number.POSITIVE_INFINITY;
    if (ga !== gb) return ga - gb;
    const ca = a.item.plan.usd_per_hour ?? Number.POSITIVE_INFINITY;
    const cb = b.item.plan.usd_per_hour ?? Number.POSITIVE_INFINITY;
    if (ca !== cb) return ca - cb;
    return a.index - b.index;
  });
  return order.map((entry) => entry.item);
}

/** tok/s per GPU a configuration must reach for its tokens to cost at most `usdPerMTokens` at `pricePerGpuHour`. */
export function requiredTokSPerGpu(pricePerGpuHour: number, usdPerMTokens: number): number {
  return (pricePerGpuHour * 1e6) / (3600 * usdPerMTokens);
}

export interface InteractivityUnderCost {
  /** The most interactive measured frontier level whose tokens cost at most the ceiling. */
  measured: { tok_s_per_user: number; tok_s_per_gpu: number; label: string; usd_per_m_tokens: number } | null;
  /** Beyond it, where the monotone frontier reaches the ceiling's throughput (interpolated, marked). */
  interpolated: { tok_s_per_user: number } | null;
  /** tok/s per GPU the ceiling requires. */
  required_tok_s_per_gpu: number;
}

/**
 * The most interactivity a configuration offers while its output tokens cost at most a ceiling: along its
 * frontier (tok/s per GPU falls as tok/s per user rises), the highest tok/s per user whose tok/s per GPU still
 * meets requiredTokSPerGpu. Null without a price or a frontier.
 */
export function mostInteractiveUnderCost(
  frontier: readonly EfficiencyPoint[],
  pricePerGpuHour: number | null,
  ceilingUsdPerMTokens: number,
): InteractivityUnderCost | null {
  if (pricePerGpuHour === null || frontier.length === 0 || !(ceilingUsdPerMTokens > 0)) return null;
  const required = requiredTokSPerGpu(pricePerGpuHour, ceilingUsdPerMTokens);
  const sorted = [...frontier].sort((a, b) => a.tok_s_per_user - b.tok_s_per_user);
  let best = -1;
  for (let index = 0; index < sorted.length; index += 1) if (sorted[index]!.tok_s_per_gpu >= required) best = index;
  if (best === -1) return { measured: null, interpolated: null, required_tok_s_per_gpu: required };
  const point = sorted[best]!;
  const measured = {
    tok_s_per_user: point.tok_s_per_user,
    tok_s_per_gpu: point.tok_s_per_gpu,
    label: point.label,
    usd_per_m_tokens: costPerMillionTokens(pricePerGpuHour, point.tok_s_per_gpu)!,
  };
  const next = sorted[best + 1];
  if (!next || point.tok_s_per_gpu === required)
    return { measured, interpolated: null, required_tok_s_per_gpu: required };
  // The frontier's monotone curve falls from ≥ required at `point` to < required at `next`: bisect the crossing.
  const curve = sorted.map((item) => ({ x: item.tok_s_per_user, y: item.tok_s_per_gpu }));
  let low = point.tok_s_per_user;
  let high = next.tok_s_per_user;
  for (let step = 0; step < 60; step += 1) {
    const middle = (low + high) / 2;
    if ((monotoneInterpolate(curve, middle) ?? Number.NEGATIVE_INFINITY) >= required) low = middle;
    else high = middle;
  }
  return { measured, interpolated: { tok_s_per_user: low }, required_tok_s_per_gpu: required };
}

export interface UsersUnderBudget {
  replicas: number;
  gpus: number;
  users: number;
  /** Board power of those replicas at the tier's level, in kW (null without a power figure). */
  power_kw: number | null;
}

/**
 * The most concurrent users whole replicas serve at a tier within a GPU budget and/or a power budget (kW): the
 * replicas that fit both, times the users one holds. Null when the tier's users or the GPU count are unknown, or
 * a power budget is given without the run's power.
 */
export function mostUsersUnderBudget(
  capacity: TierCapacity,
  gpuCount: number | null,
  wattsPerGpu: number | null,
  budget: { gpus: number | null; power_kw: number | null },
): UsersUnderBudget | null {
  if (capacity.users === null || gpuCount === null) return null;
  if (budget.gpus === null && budget.power_kw === null) return null;
  let replicas = Number.POSITIVE_INFINITY;
  if (budget.gpus !== null) replicas = Math.floor(budget.gpus / gpuCount + 1e-9);
  if (budget.power_kw !== null) {
    if (wattsPerGpu === null || !(wattsPerGpu > 0)) return null;
    replicas = Math.min(replicas, Math.floor((budget.power_kw * 1000) / (gpuCount * wattsPerGpu) + 1e-9));
  }
  return {
    replicas,
    gpus: replicas * gpuCount,
    users: replicas * capacity.users,
    power_kw: wattsPerGpu === null ? null : (replicas * gpuCount * wattsPerGpu) / 1000,
  };
}

export interface BucketTable {
  /** tok/s per user between rows. */
  step: number;
  rows: { tok_s_per_user: number; cells: { tok_s_per_gpu: number | null; change: number | null }[] }[];
}

/** At most this many rows: a step that gives more is widened. */
export const BUCKET_ROWS_MAX = 40;

/**
 * Throughput per GPU at every `step` tok/s per user along each frontier, interpolated monotonically and never
 * beyond a frontier's measured range, with each cell's change against the baseline's at the same interactivity.
 * The step is the user's, else a round one giving about 8 rows over the range the frontiers cover together.
 */
export function bucketTable(
  frontiers: readonly (readonly EfficiencyPoint[])[],
  baselineIndex: number,
  step: number | null,
): BucketTable | null {
  const curves = frontiers.map((frontier) =>
    [...frontier]
      .sort((a, b) => a.tok_s_per_user - b.tok_s_per_user)
      .map((point) => ({ x: point.tok_s_per_user, y: point.tok_s_per_gpu })),
  );
  const xs = curves.flatMap((curve) => curve.map((point) => point.x));
  if (xs.length === 0) return null;
  const low = Math.min(...xs);
  const high = Math.max(...xs);
  let width = step !== null && step > 0 ? step : niceStep(Math.max(high - low, high * 0.1, 1e-9), 8);
  while (Math.floor(high / width) - Math.ceil(low / width) + 1 > BUCKET_ROWS_MAX) width *= 2;
  const rows: BucketTable["rows"] = [];
  for (let index = Math.ceil(low / width - 1e-9); index * width <= high + 1e-9; index += 1) {
    const x = Number((index * width).toPrecision(12));
    if (x <= 0) continue;
    const values = curves.map((curve) => monotoneInterpolate(curve, x));
    // A step no frontier covers (between two runs' ranges, or beside a one-level frontier) says nothing.
    if (values.every((value) => value === null)) continue;
    const base = values[baselineIndex] ?? null;
    rows.push({
      tok_s_per_user: x,
      cells: values.map((value, column) => ({
        tok_s_per_gpu: value,
        change: column === baselineIndex || value === null || base === null || base === 0 ? null : value / base - 1,
      })),
    });
  }
  return { step: width, rows };
}
