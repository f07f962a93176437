/**
 * The capacity part of a comparison's view (docs/comparing.md#capacity): which SLO tiers, the planner's demand
 * and tier, GPUs per node, the inverse questions' ceiling and budgets, and the bucket table's step. Each is a URL
 * parameter; a saved comparison keeps them as the same parameters (`capacity: { tiers: "chat", demand:
 * "users:500" }`), so the page, the API and the CLI read one grammar. Pure, and free of zod: the compare controls
 * (a client component) import it.
 */
import type { Demand, DemandKind } from "@/lib/analysis/capacity";
import { parseTiers, type SloTier, tiersQuery } from "@/lib/analysis/slo-tiers";

export interface CapacityView {
  tiers: SloTier[];
  /** The tier the planner and the budgets size for (an id among `tiers`); null: the first. */
  tierId: string | null;
  demand: Demand | null;
  gpusPerNode: number;
  /** $ per million output tokens: the most interactivity under it. */
  maxCostUsdPerM: number | null;
  gpuBudget: number | null;
  powerBudgetKw: number | null;
  /** tok/s per user between the bucket table's rows; null: a round step of about 8 rows. */
  bucketStep: number | null;
}

export const DEFAULT_GPUS_PER_NODE = 8;
const DEMAND_KINDS: readonly DemandKind[] = ["users", "rps", "tok_s"];

/** The URL parameters of the capacity view, in the order its query writes them. */
export const CAPACITY_KEYS = [
  "tiers",
  "tier",
  "demand",
  "gpus_per_node",
  "max_cost",
  "gpu_budget",
  "power_budget_kw",
  "bucket",
] as const;
export type CapacityKey = (typeof CAPACITY_KEYS)[number];
export type CapacityParams = Partial<Record<CapacityKey, string>>;

const LIMITS: Record<Exclude<CapacityKey, "tiers" | "tier" | "demand">, number> = {
  gpus_per_node: 1024,
  max_cost: 1_000_000,
  gpu_budget: 10_000_000,
  power_budget_kw: 10_000_000,
  bucket: 1_000_000,
};

function positive(value: string | undefined, max: number): number | null {
  if (value === undefined || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 && number <= max ? number : null;
}

/** `users:500`, `rps:20` or `tok_s:50000`; null when it is none of them. */
export function parseDemand(value: string | undefined): Demand | null {
  if (!value) return null;
  const [kind, amount] = value.split(":");
  const number = positive(amount, 1e12);
  return DEMAND_KINDS.includes(kind?.trim() as DemandKind) && number !== null
    ? { kind: kind!.trim() as DemandKind, value: number }
    : null;
}

/** Why a capacity parameter's value is not one (for the API, which refuses); null when it is. */
export function capacityProblem(key: CapacityKey, value: string): string | null {
  if (key === "tiers" || key === "tier") return null; // checked by tiersProblem, and a tier id is any tier's name
  if (key === "demand")
    return parseDemand(value) ? null : `"${value.slice(0, 60)}" is not a demand: users:N, rps:N or tok_s:N`;
  return positive(value, LIMITS[key]) === null ? `must be a number above 0 and at most ${LIMITS[key]}` : null;
}

export function parseCapacityView(params: CapacityParams): CapacityView {
  const tiers = parseTiers(params.tiers);
  const tierId = params.tier?.trim() || null;
  const gpusPerNode = positive(params.gpus_per_node, LIMITS.gpus_per_node);
  return {
    tiers,
    tierId: tierId && tiers.some((tier) => tier.id === tierId) ? tierId : null,
    demand: parseDemand(params.demand),
    gpusPerNode: gpusPerNode === null ? DEFAULT_GPUS_PER_NODE : Math.floor(gpusPerNode) || DEFAULT_GPUS_PER_NODE,
    maxCostUsdPerM: positive(params.max_cost, LIMITS.max_cost),
    gpuBudget: positive(params.gpu_budget, LIMITS.gpu_budget),
    powerBudgetKw: positive(params.power_budget_kw, LIMITS.power_budget_kw),
    bucketStep: positive(params.bucket, LIMITS.bucket),
  };
}

export const DEFAULT_CAPACITY_VIEW: CapacityView = parseCapacityView({});

/** The parameters of a capacity view that differ from the defaults. */
export function capacityParams(view: CapacityView): CapacityParams {
  const params: CapacityParams = {};
  const tiers = tiersQuery(view.tiers);
  if (tiers) params.tiers = tiers;
  if (view.tierId !== null) params.tier = view.tierId;
  if (view.demand) params.demand = `${view.demand.kind}:${view.demand.value}`;
  if (view.gpusPerNode !== DEFAULT_GPUS_PER_NODE) params.gpus_per_node = String(view.gpusPerNode);
  if (view.maxCostUsdPerM !== null) params.max_cost = String(view.maxCostUsdPerM);
  if (view.gpuBudget !== null) params.gpu_budget = String(view.gpuBudget);
  if (view.powerBudgetKw !== null) params.power_budget_kw = String(view.powerBudgetKw);
  if (view.bucketStep !== null) params.bucket = String(view.bucketStep);
  return params;
}

/** The tier the planner sizes for. */
export function plannerTier(view: CapacityView): SloTier | null {
  return view.tiers.find((tier) => tier.id === view.tierId) ?? view.tiers[0] ?? null;
}

/** A saved view's stored capacity object (strings as the URL has them), read leniently. */
export function storedCapacityParams(value: unknown): CapacityParams {
  const params: CapacityParams = {};
  if (typeof value !== "object" || value === null) return params;
  for (const key of CAPACITY_KEYS) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "string") params[key] = item;
    else if (typeof item === "number" && Number.isFinite(item)) params[key] = String(item);
  }
  return params;
}
