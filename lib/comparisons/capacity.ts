/**
 * The capacity section of a comparison (docs/comparing.md#capacity): each series' capacity at each SLO tier,
 * the planner's answer for a demand, the inverse questions, and the per-interactivity bucket table, computed
 * from the series the comparison already built. Prices are the user's (`price`), else the GPU catalogue's
 * typical rental price for the run's GPU, always marked as such.
 */
import type { LoadDomain } from "@/lib/analysis/axis";
import { loadDomain } from "@/lib/analysis/axis";
import {
  type BucketTable,
  bucketTable,
  type Demand,
  type InteractivityUnderCost,
  mostInteractiveUnderCost,
  mostUsersUnderBudget,
  type Plan,
  planFor,
  rankPlans,
  type TierCapacity,
  tierCapacity,
  type UsersUnderBudget,
} from "@/lib/analysis/capacity";
import { joulesPerOutputToken, wattsPerGpu } from "@/lib/analysis/energy";
import { levelOf } from "@/lib/analysis/levels";
import { priceFor } from "@/lib/analysis/slo";
import { attainmentText, type SloTier } from "@/lib/analysis/slo-tiers";
import { matchGpu } from "@/lib/validity/gpus";
import { plannerTier } from "./capacity-view";
import type { ComparisonSeries } from "./model";
import type { CompareView } from "./view";

export interface CapacitySeries {
  key: string;
  id: string;
  label: string;
  color: string;
  isBaseline: boolean;
  gpu: string | null;
  gpuCount: number | null;
  /** $/GPU-hour: the user's, or the catalogue's typical price for the run's GPU; null when neither applies. */
  price: number | null;
  priceSource: "yours" | "typical" | null;
}

export interface TierRow {
  seriesKey: string;
  capacity: TierCapacity;
  /** Mean power per GPU and J per output token at the tier's level, when the run measured power there. */
  watts_per_gpu: number | null;
  joules_per_output_token: number | null;
  /** Its tok/s per GPU against the baseline's at the same tier (null for the baseline or when either is unknown). */
  change: number | null;
}

export interface CapacityReport {
  series: CapacitySeries[];
  tiers: { tier: SloTier; attainment: string | null; rows: TierRow[] }[];
  planner: {
    tier: SloTier;
    demand: Demand;
    gpusPerNode: number;
    /** Ranked: fewest GPUs first, what cannot be sized last. */
    rows: { seriesKey: string; plan: Plan }[];
  } | null;
  underCost: {
    ceiling_usd_per_m: number;
    rows: { seriesKey: string; answer: InteractivityUnderCost | null; reason: string | null }[];
  } | null;
  underBudget: {
    tier: SloTier;
    gpus: number | null;
    power_kw: number | null;
    rows: { seriesKey: string; answer: UsersUnderBudget | null; reason: string | null }[];
  } | null;
  buckets: BucketTable | null;
}

function priceOf(view: CompareView, gpu: string | undefined): Pick<CapacitySeries, "price" | "priceSource"> {
  const yours = priceFor(view.prices, gpu);
  if (yours !== null) return { price: yours, priceSource: "yours" };
  const typical = matchGpu(gpu)?.price_usd_per_hour ?? null;
  return typical !== null ? { price: typical, priceSource: "typical" } : { price: null, priceSource: null };
}

/** The capacity section of the comparison's series on its load domain. */
export function capacityOf(
  series: readonly ComparisonSeries[],
  baselineIndex: number,
  domain: LoadDomain,
  view: CompareView,
): CapacityReport {
  const capacityView = view.capacity;
  const entries: CapacitySeries[] = series.map((item) => ({
    key: item.key,
    id: item.id,
    label: item.label,
    color: item.color,
    isBaseline: item.isBaseline,
    gpu: item.run.hardware?.gpu ?? null,
    gpuCount: item.gpuCount,
    ...priceOf(view, item.run.hardware?.gpu),
  }));
  // A series off the shared axis (a rate sweep beside concurrency runs) is judged on its own levels.
  const domains = series.map((item) =>
    item.results.some((point) => domain.levels.some((level) => level.key === levelOf(point).key))
      ? domain
      : loadDomain([item]),
  );
  const rowsFor = (tier: SloTier): TierRow[] => {
    const rows = series.map((item, index) => {
      const capacity = tierCapacity(item.results, domains[index]!, tier, item.gpuCount);
      const point = capacity.level_key
        ? item.results.find((candidate) => levelOf(candidate).key === capacity.level_key)
        : undefined;
      return {
        seriesKey: item.key,
        capacity,
        watts_per_gpu: point ? wattsPerGpu(point, item.gpuCount) : null,
        joules_per_output_token: point ? joulesPerOutputToken(point, item.gpuCount) : null,
        change: null as number | null,
      };
    });
    const base = rows[baselineIndex]?.capacity.tok_s_per_gpu ?? null;
    for (const [index, row] of rows.entries()) {
      const value = row.capacity.tok_s_per_gpu;
      if (index !== baselineIndex && value !== null && base !== null && base > 0) row.change = value / base - 1;
    }
    return rows;
  };
  const tiers = capacityView.tiers.map((tier) => ({
    tier,
    attainment: attainmentText(tier.stat),
    rows: rowsFor(tier),
  }));
  const chosen = plannerTier(capacityView);
  const chosenRows = chosen ? (tiers.find((entry) => entry.tier.id === chosen.id)?.rows ?? rowsFor(chosen)) : [];

  const planner =
    chosen && capacityView.demand
      ? {
          tier: chosen,
          demand: capacityView.demand,
          gpusPerNode: capacityView.gpusPerNode,
          rows: rankPlans(
            chosenRows.map((row, index) => ({
              seriesKey: row.seriesKey,
              plan: planFor(capacityView.demand!, {
                gpuCount: entries[index]!.gpuCount,
                gpusPerNode: capacityView.gpusPerNode,
                pricePerGpuHour: entries[index]!.price,
                priceSource: entries[index]!.priceSource,
                wattsPerGpu: row.watts_per_gpu,
                capacity: row.capacity,
              }),
            })),
          ),
        }
      : null;

  const underCost =
    capacityView.maxCostUsdPerM !== null
      ? {
          ceiling_usd_per_m: capacityView.maxCostUsdPerM,
          rows: series.map((item, index) => {
            const price = entries[index]!.price;
            const answer = mostInteractiveUnderCost(item.efficiency.frontier, price, capacityView.maxCostUsdPerM!);
            const reason =
              price === null
                ? "no price: set one for its GPU"
                : item.efficiency.frontier.length === 0
                  ? "no throughput per GPU against interactivity (GPU count or TPOT unknown)"
                  : answer?.measured === null
                    ? "no measured level is that cheap"
                    : null;
            return { seriesKey: item.key, answer, reason };
          }),
        }
      : null;

  const underBudget =
    chosen && (capacityView.gpuBudget !== null || capacityView.powerBudgetKw !== null)
      ? {
          tier: chosen,
          gpus: capacityView.gpuBudget,
          power_kw: capacityView.powerBudgetKw,
          rows: chosenRows.map((row, index) => {
            const gpuCount = entries[index]!.gpuCount;
            const answer = mostUsersUnderBudget(row.capacity, gpuCount, row.watts_per_gpu, {
              gpus: capacityView.gpuBudget,
              power_kw: capacityView.powerBudgetKw,
            });
            const reason =
              answer !== null
                ? null
                : row.capacity.users === null
                  ? "no measured level meets the tier"
                  : gpuCount === null
                    ? "GPU count unknown"
                    : "no power measured at that level";
            return { seriesKey: row.seriesKey, answer, reason };
          }),
        }
      : null;

  return {
    series: entries,
    tiers,
    planner,
    underCost,
    underBudget,
    buckets: bucketTable(
      series.map((item) => item.efficiency.frontier),
      baselineIndex,
      capacityView.bucketStep,
    ),
  };
}
