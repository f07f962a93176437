"use client";

/**
 * The capacity section's inputs: SLO tiers, the planner's tier and demand, GPUs per node, the cost ceiling and
 * budgets of the inverse questions, the bucket table's step. Each commits to its URL parameter
 * (docs/comparing.md#capacity), so a shared link opens the same answer.
 */
import { useEffect, useState } from "react";
import { inputClass, labelClass } from "@/components/ui/primitives";
import type { CapacityView } from "@/lib/comparisons/capacity-view";
import { NumberParam } from "./CompareControls";
import { useQueryUpdate } from "./use-query-update";

const DEMAND_OPTIONS = [
  { value: "users", label: "concurrent users" },
  { value: "rps", label: "req/s" },
  { value: "tok_s", label: "output tok/s" },
] as const;

export function CapacityControls({
  view,
  tiersText,
  tierOptions,
}: {
  view: CapacityView;
  tiersText: string;
  tierOptions: { id: string; name: string }[];
}) {
  const update = useQueryUpdate();
  const [tiers, setTiers] = useState(tiersText);
  useEffect(() => setTiers(tiersText), [tiersText]);
  const [kind, setKind] = useState<string>(view.demand?.kind ?? "users");
  const [amount, setAmount] = useState(view.demand ? String(view.demand.value) : "");
  useEffect(() => {
    setKind(view.demand?.kind ?? "users");
    setAmount(view.demand ? String(view.demand.value) : "");
  }, [view.demand]);

  const commitTiers = () => update({ tiers: tiers.trim() === "" ? null : tiers.trim() }, "replace");
  const commitDemand = (nextKind: string, nextAmount: string) => {
    const number = Number(nextAmount);
    if (nextAmount.trim() === "") update({ demand: null }, "replace");
    else if (Number.isFinite(number) && number > 0) update({ demand: `${nextKind}:${number}` }, "replace");
  };

  return (
    <div className="mb-4 flex flex-wrap items-end gap-3" data-testid="capacity-controls">
      <div className="w-full sm:w-96">
        <label htmlFor="capacity-tiers" className={labelClass}>
          SLO tiers (preset, or name:ttft=MS:tpot=MS:e2e=MS:p99)
        </label>
        <input
          id="capacity-tiers"
          className={inputClass}
          value={tiers}
          onChange={(event) => setTiers(event.target.value)}
          onBlur={commitTiers}
          onKeyDown={(event) => {
            if (event.key === "Enter") commitTiers();
          }}
          data-testid="capacity-tiers-input"
        />
      </div>
      <div className="w-40">
        <label htmlFor="capacity-tier" className={labelClass}>
          Size for tier
        </label>
        <select
          id="capacity-tier"
          className={inputClass}
          value={view.tierId ?? tierOptions[0]?.id ?? ""}
          onChange={(event) => update({ tier: event.target.value }, "replace")}
          data-testid="capacity-tier-select"
        >
          {tierOptions.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
            </option>
          ))}
        </select>
      </div>
      <div className="w-32">
        <label htmlFor="capacity-demand" className={labelClass}>
          Demand
        </label>
        <input
          id="capacity-demand"
          type="number"
          min={0}
          step="any"
          className={inputClass}
          value={amount}
          placeholder="e.g. 500"
          onChange={(event) => setAmount(event.target.value)}
          onBlur={() => commitDemand(kind, amount)}
          onKeyDown={(event) => {
            if (event.key === "Enter") commitDemand(kind, amount);
          }}
          data-testid="capacity-demand-input"
        />
      </div>
      <div className="w-44">
        <label htmlFor="capacity-demand-kind" className={labelClass}>
          Demand in
        </label>
        <select
          id="capacity-demand-kind"
          className={inputClass}
          value={kind}
          onChange={(event) => {
            setKind(event.target.value);
            commitDemand(event.target.value, amount);
          }}
          data-testid="capacity-demand-kind"
        >
          {DEMAND_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <NumberParam
        id="capacity-gpus-per-node"
        label="GPUs per node"
        param="gpus_per_node"
        value={view.gpusPerNode === 8 ? null : view.gpusPerNode}
        placeholder="8"
        min={1}
        max={1024}
        step={1}
        title="GPUs in one node: replicas are packed into nodes"
        testId="capacity-gpus-per-node"
        width="w-28"
      />
      <NumberParam
        id="capacity-max-cost"
        label="Max $ / M tokens"
        param="max_cost"
        value={view.maxCostUsdPerM}
        title="The most tok/s per user each run offers while its output tokens cost at most this"
        testId="capacity-max-cost"
      />
      <NumberParam
        id="capacity-gpu-budget"
        label="GPU budget"
        param="gpu_budget"
        value={view.gpuBudget}
        title="The most users each run serves at the tier within this many GPUs"
        testId="capacity-gpu-budget"
        width="w-28"
      />
      <NumberParam
        id="capacity-power-budget"
        label="Power budget, kW"
        param="power_budget_kw"
        value={view.powerBudgetKw}
        title="The most users each run serves at the tier within this much GPU power (runs that measured power)"
        testId="capacity-power-budget"
      />
      <NumberParam
        id="capacity-bucket"
        label="Bucket, tok/s/user"
        param="bucket"
        value={view.bucketStep}
        title="The step between the rows of the throughput-per-GPU table; empty picks a round one"
        testId="capacity-bucket"
      />
    </div>
  );
}
