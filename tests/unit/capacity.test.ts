import { describe, expect, it } from "vitest";
import { loadDomain } from "@/lib/analysis/axis";
import {
  bucketTable,
  mostInteractiveUnderCost,
  mostUsersUnderBudget,
  nodesFor,
  planFor,
  rankPlans,
  requiredTokSPerGpu,
  type TierCapacity,
  tierCapacity,
} from "@/lib/analysis/capacity";
import type { EfficiencyPoint } from "@/lib/analysis/efficiency";
import {
  attainmentText,
  PRESET_TIERS,
  parseTier,
  parseTiers,
  type SloTier,
  tiersProblem,
  tiersQuery,
  tierText,
} from "@/lib/analysis/slo-tiers";
import { normalizeRunDocument } from "@/lib/document/normalize";
import type { ResultPoint } from "@/lib/document/schema";
import type { StoredRun } from "@/lib/document/stored-run";
import { comparisonMarkdown, comparisonReport } from "../../scripts/cli/compare";

const interactive = PRESET_TIERS.find((tier) => tier.id === "interactive")!;

/** An 8-GPU sweep: interactive (p99 TTFT ≤ 450 ms, p99 TPOT ≤ 40 ms) holds up to C=64, breaks at C=128. */
const sweep: ResultPoint[] = [
  { concurrency: 1, output_throughput: 60, request_throughput: 0.2, p99_ttft_ms: 100, p99_tpot_ms: 15 },
  { concurrency: 8, output_throughput: 400, request_throughput: 1.5, p99_ttft_ms: 200, p99_tpot_ms: 18 },
  { concurrency: 32, output_throughput: 1200, request_throughput: 5, p99_ttft_ms: 400, p99_tpot_ms: 30 },
  { concurrency: 64, output_throughput: 2000, request_throughput: 8, p99_ttft_ms: 440, p99_tpot_ms: 38 },
  { concurrency: 128, output_throughput: 2800, request_throughput: 11, p99_ttft_ms: 900, p99_tpot_ms: 60 },
];
const domain = loadDomain([{ label: "a", results: sweep }]);

function point(tok_s_per_user: number, tok_s_per_gpu: number, label = ""): EfficiencyPoint {
  return { tok_s_per_user, tok_s_per_gpu, label };
}

describe("capacity at a tier", () => {
  it("is the highest measured level meeting every target, with its figures and the interpolated crossing beside it", () => {
    const capacity = tierCapacity(sweep, domain, interactive, 8);
    expect(capacity.status).toBe("partial");
    expect(capacity.level).toBe("C=64");
    expect(capacity.output_tok_s).toBe(2000);
    expect(capacity.tok_s_per_gpu).toBe(250);
    expect(capacity.tok_s_per_user).toBeCloseTo(1000 / 38, 10);
    expect(capacity.users).toBe(64);
    expect(capacity.users_source).toBe("concurrency");
    expect(capacity.users_per_gpu).toBe(8);
    expect(capacity.request_rate_rps).toBe(8);
    // TTFT crosses first: (450 − 440) / (900 − 440) = 0.0217 of the octave from C=64 to C=128 (TPOT: 2/22 = 0.09).
    const fraction = 10 / 460;
    expect(capacity.estimate?.load.concurrency).toBeCloseTo(64 * 2 ** fraction, 8);
    expect(capacity.estimate?.output_tok_s).toBeCloseTo(2000 + fraction * 800, 8);
    expect(capacity.estimate?.tok_s_per_gpu).toBeCloseTo((2000 + fraction * 800) / 8, 8);
  });

  it("judges an end-to-end target, and counts users in flight by Little's law on a request-rate sweep", () => {
    const batch: SloTier = { ...PRESET_TIERS.find((tier) => tier.id === "batch")!, e2el_ms: 30_000 };
    const rates: ResultPoint[] = [
      { request_rate: 2, output_throughput: 500, request_throughput: 2, mean_e2el_ms: 5000, p99_e2el_ms: 9000 },
      { request_rate: 4, output_throughput: 990, request_throughput: 4, mean_e2el_ms: 2500, p99_e2el_ms: 20000 },
      { request_rate: 8, output_throughput: 1500, request_throughput: 6, mean_e2el_ms: 40000, p99_e2el_ms: 80000 },
    ];
    const capacity = tierCapacity(rates, loadDomain([{ label: "r", results: rates }]), batch, 2);
    expect(capacity.level).toBe("4 req/s");
    expect(capacity.users).toBe(10); // 4 req/s × 2.5 s
    expect(capacity.users_source).toBe("little");
    expect(capacity.users_per_gpu).toBe(5);
  });

  it("says none or unknown, with nothing to size, when no level meets or none can be judged", () => {
    const strict: SloTier = { ...interactive, id: "strict", ttft_ms: 50 };
    expect(tierCapacity(sweep, domain, strict, 8)).toMatchObject({ status: "none", level: null, users: null });
    const bare = sweep.map(({ p99_ttft_ms: _t, p99_tpot_ms: _p, ...rest }) => rest);
    const unknown = tierCapacity(bare, domain, interactive, 8);
    expect(unknown.status).toBe("unknown");
    expect(unknown.reason).toBe("it states no p99 TTFT or p99 TPOT");
  });
});

describe("the planner", () => {
  const capacityA = tierCapacity(sweep, domain, interactive, 8);

  it("sizes whole replicas: 500 users at 64 per 8-GPU replica is 8 replicas, 64 GPUs, 8 nodes, $160/h at $2.50", () => {
    const plan = planFor(
      { kind: "users", value: 500 },
      {
        gpuCount: 8,
        gpusPerNode: 8,
        pricePerGpuHour: 2.5,
        priceSource: "yours",
        wattsPerGpu: 400,
        capacity: capacityA,
      },
    );
    expect(plan).toMatchObject({ replicas: 8, gpus: 64, nodes: 8, per_replica: 64, usd_per_hour: 160, reason: null });
    expect(plan.utilization).toBeCloseTo(500 / 512, 12);
    // $2.50 per GPU-hour over 250 tok/s × 3600 s = 0.9 M tokens per GPU-hour.
    expect(plan.usd_per_m_tokens).toBeCloseTo(2.5 / 0.9, 12);
    expect(plan.power_kw).toBeCloseTo(25.6, 12);
  });

  it("sizes by req/s and by output tok/s at the same level", () => {
    const input = {
      gpuCount: 8,
      gpusPerNode: 8,
      pricePerGpuHour: null,
      priceSource: null,
      wattsPerGpu: null,
      capacity: capacityA,
    };
    expect(planFor({ kind: "rps", value: 20 }, input)).toMatchObject({ replicas: 3, gpus: 24, usd_per_hour: null });
    expect(planFor({ kind: "tok_s", value: 10_000 }, input)).toMatchObject({ replicas: 5, gpus: 40, power_kw: null });
    // Exactly a whole number of replicas: no extra one for rounding.
    expect(planFor({ kind: "tok_s", value: 6000 }, input).replicas).toBe(3);
  });

  it("packs small replicas into nodes and spreads large ones over several", () => {
    expect(nodesFor(13, 4, 8)).toBe(7);
    expect(nodesFor(5, 3, 8)).toBe(3);
    expect(nodesFor(3, 16, 8)).toBe(6);
  });

  it("ranks fewest GPUs first, then $/hour, and puts what cannot be sized last, saying why", () => {
    const smaller: TierCapacity = { ...capacityA, users: 40, users_per_gpu: 10 };
    const a = { name: "A", plan: planFor({ kind: "users", value: 500 }, plan(8, 2.5, capacityA)) };
    const b = { name: "B", plan: planFor({ kind: "users", value: 500 }, plan(4, 3, smaller)) };
    const c = {
      name: "C",
      plan: planFor({ kind: "users", value: 500 }, plan(8, 2.5, { ...capacityA, status: "none", users: null })),
    };
    expect(b.plan).toMatchObject({ replicas: 13, gpus: 52, nodes: 7, usd_per_hour: 156 });
    expect(c.plan.reason).toBe("no measured level meets the tier");
    expect(rankPlans([c, a, b]).map((item) => item.name)).toEqual(["B", "A", "C"]);
    const unknownGpus = planFor({ kind: "users", value: 500 }, { ...plan(8, 2.5, capacityA), gpuCount: null });
    expect(unknownGpus.reason).toBe("the run does not state its GPU count");
  });

  function plan(gpuCount: number, price: number, capacity: TierCapacity) {
    return {
      gpuCount,
      gpusPerNode: 8,
      pricePerGpuHour: price,
      priceSource: "yours" as const,
      wattsPerGpu: null,
      capacity,
    };
  }
});

describe("the inverse solvers", () => {
  it("finds the most interactivity whose tokens cost at most a ceiling, measured and interpolated", () => {
    // $2.50/GPU-hour at ≤ $5/M tokens needs 2.5e6 / (3600 × 5) = 138.9 tok/s per GPU.
    expect(requiredTokSPerGpu(2.5, 5)).toBeCloseTo(138.8888889, 6);
    // Two frontier points: the monotone curve between them is the straight line, so the crossing is exact.
    const answer = mostInteractiveUnderCost([point(20, 300, "C=64"), point(40, 100, "C=8")], 2.5, 5);
    expect(answer?.measured).toMatchObject({ tok_s_per_user: 20, tok_s_per_gpu: 300, label: "C=64" });
    expect(answer?.measured?.usd_per_m_tokens).toBeCloseTo(2.5 / (300 * 0.0036), 12);
    expect(answer?.interpolated?.tok_s_per_user).toBeCloseTo(20 + ((300 - 2.5e6 / 18000) / 200) * 20, 6);
  });

  it("answers nothing measured when even the cheapest level costs more, and null without a price", () => {
    const answer = mostInteractiveUnderCost([point(20, 100), point(40, 50)], 2.5, 5);
    expect(answer).toMatchObject({ measured: null, interpolated: null });
    expect(mostInteractiveUnderCost([point(20, 100)], null, 5)).toBeNull();
  });

  it("counts the users whole replicas serve within a GPU budget, a power budget, or both", () => {
    const capacity = tierCapacity(sweep, domain, interactive, 8);
    expect(mostUsersUnderBudget(capacity, 8, 400, { gpus: 100, power_kw: null })).toEqual({
      replicas: 12,
      gpus: 96,
      users: 768,
      power_kw: 38.4,
    });
    // 3.2 kW a replica: 30 kW holds 9 of them.
    expect(mostUsersUnderBudget(capacity, 8, 400, { gpus: null, power_kw: 30 })).toMatchObject({
      replicas: 9,
      users: 576,
    });
    expect(mostUsersUnderBudget(capacity, 8, 400, { gpus: 100, power_kw: 30 })?.replicas).toBe(9);
    expect(mostUsersUnderBudget(capacity, 8, null, { gpus: null, power_kw: 30 })).toBeNull();
  });
});

describe("the per-interactivity bucket table", () => {
  const base = [point(10, 300), point(50, 100)];
  const other = [point(20, 400), point(40, 200)];

  it("interpolates every step along each frontier, never beyond it, with the change against the baseline", () => {
    const table = bucketTable([base, other], 0, 10)!;
    expect(table.step).toBe(10);
    expect(table.rows.map((row) => row.tok_s_per_user)).toEqual([10, 20, 30, 40, 50]);
    expect(table.rows.map((row) => row.cells[0]!.tok_s_per_gpu)).toEqual([300, 250, 200, 150, 100]);
    expect(table.rows.map((row) => row.cells[1]!.tok_s_per_gpu)).toEqual([null, 400, 300, 200, null]);
    const changes = table.rows.map((row) => row.cells[1]!.change);
    expect(changes[0]).toBeNull();
    expect(changes[1]).toBeCloseTo(0.6, 12);
    expect(changes[2]).toBeCloseTo(0.5, 12);
    expect(changes[3]).toBeCloseTo(1 / 3, 12);
    expect(table.rows.every((row) => row.cells[0]!.change === null)).toBe(true);
  });

  it("picks a round step of about eight rows, and widens a step that gives more than 40", () => {
    expect(bucketTable([base, other], 0, null)!.step).toBe(5);
    // 0.5 gives 81 rows over 10–50, 1 gives 41: the step doubles until 2 gives 21.
    const wide = bucketTable([base, other], 0, 0.5)!;
    expect(wide.step).toBe(2);
    expect(wide.rows.length).toBe(21);
    expect(bucketTable([[], []], 0, null)).toBeNull();
  });
});

describe("tiers in the URL", () => {
  it("reads presets and typed tiers, and writes them back", () => {
    const typed = parseTier("fast:ttft=300:tpot=25:p95");
    expect(typed).toEqual({
      tier: { id: "fast", name: "fast", ttft_ms: 300, tpot_ms: 25, e2el_ms: null, stat: "p95", source: null },
    });
    const tiers = parseTiers("chat,fast:ttft=300:tpot=25:p95,chat");
    expect(tiers.map((tier) => tier.id)).toEqual(["chat", "fast"]);
    expect(tiersQuery(tiers)).toBe("chat,fast:ttft=300:tpot=25:p95");
    expect(tiersQuery(parseTiers(undefined))).toBe("");
    expect(parseTiers("nonsense").map((tier) => tier.id)).toEqual(["interactive", "chat", "agentic", "batch"]);
  });

  it("names what is wrong with a typed tier", () => {
    expect(tiersProblem("chat,fast:ttft=abc")).toMatch(/"ttft=abc" in tier fast is not a target/);
    expect(tiersProblem("slow")).toMatch(/"slow" is neither a preset/);
    expect(tiersProblem("fast:p90")).toBe("tier fast has no target: give ttft=MS, tpot=MS and/or e2e=MS");
    expect(tiersProblem("<b>:ttft=1")).toMatch(/is not a tier name/);
    expect(tiersProblem("chat,fast:e2e=9000")).toBeNull();
  });

  it("writes a tier's targets with grouped numbers", () => {
    expect(tierText(PRESET_TIERS[1]!)).toBe("TTFT ≤ 2,000 ms, TPOT ≤ 200 ms (p99)");
    expect(tierText(PRESET_TIERS[3]!)).toBe("E2E ≤ 600,000 ms (p99)");
  });

  it("states the attainment a percentile means", () => {
    expect(attainmentText("p99")).toBe("99% of requests");
    expect(attainmentText("median")).toBe("50% of requests");
    expect(attainmentText("mean")).toBeNull();
  });
});

describe("the capacity report of servebench compare", () => {
  function document(id: string, name: string, gpuCount: number, results: ResultPoint[]): StoredRun {
    return {
      ...normalizeRunDocument({
        format: "servebench/v1",
        name,
        engine: "vllm",
        engine_version: "0.11.0",
        model: "meta-llama/Llama-3.1-70B-Instruct",
        hardware: { gpu: "H100", gpu_count: gpuCount },
        flags: { "--tensor-parallel-size": String(gpuCount) },
        results,
      }),
      id,
      created_at: "2026-12-01T00:00:00.000Z",
    };
  }
  const smaller: ResultPoint[] = [
    { concurrency: 1, output_throughput: 50, request_throughput: 0.2, p99_ttft_ms: 90, p99_tpot_ms: 12 },
    { concurrency: 10, output_throughput: 400, request_throughput: 1.8, p99_ttft_ms: 150, p99_tpot_ms: 20 },
    { concurrency: 20, output_throughput: 700, request_throughput: 3.2, p99_ttft_ms: 250, p99_tpot_ms: 28 },
    { concurrency: 40, output_throughput: 1100, request_throughput: 5.5, p99_ttft_ms: 420, p99_tpot_ms: 36 },
    { concurrency: 80, output_throughput: 1500, request_throughput: 7, p99_ttft_ms: 1200, p99_tpot_ms: 70 },
  ];
  const a = document("tp8aaaaaaaaa", "TP8 replicas", 8, sweep);
  const b = document("tp4bbbbbbbbb", "TP4 replicas", 4, smaller);

  it("sizes the demand the options give, in JSON and in markdown", () => {
    const report = comparisonReport("http://bench", a, b, {
      tiers: "interactive",
      demand: "users:500",
      price: "2.5",
      gpu_budget: "100",
    });
    expect(report.capacity.tiers.map((tier) => tier.runs.map((run) => [run.level, run.tok_s_per_gpu]))).toEqual([
      [
        ["C=64", 250],
        ["C=40", 275],
      ],
    ]);
    expect(report.capacity.tiers[0]!.runs[1]!.change_pct).toBe(10);
    expect(
      report.capacity.planner?.ranking.map((row) => [row.series, row.replicas, row.gpus, row.nodes, row.usd_per_hour]),
    ).toEqual([
      ["TP4 replicas", 13, 52, 7, 130],
      ["TP8 replicas", 8, 64, 8, 160],
    ]);
    expect(report.capacity.most_users_under_budget?.runs.map((run) => [run.series, run.users])).toEqual([
      ["TP8 replicas", 768],
      ["TP4 replicas", 1000],
    ]);
    const markdown = comparisonMarkdown(report);
    expect(markdown).toContain("**Interactive**: TTFT ≤ 450 ms, TPOT ≤ 40 ms (p99)");
    expect(markdown).toContain("| TP4 replicas | C=40 | 275 | +10.0% | 27.8 | 10 |");
    expect(markdown).toContain("## 500 concurrent users at interactive");
    expect(markdown).toContain("| 1 | TP4 replicas | 52 (13 replicas) | 7 | $130.00 | $2.53 | — |");
  });

  it("prices a GPU the user did not price at the catalogue's typical rate, and says so", () => {
    const report = comparisonReport("http://bench", a, b, { tiers: "interactive", demand: "users:500" });
    // "H100" is the catalogue's H100 SXM: $2.69 an hour.
    expect(report.capacity.series.map((series) => [series.price_usd_per_gpu_hour, series.price_source])).toEqual([
      [2.69, "typical"],
      [2.69, "typical"],
    ]);
    expect(report.capacity.planner?.ranking[0]).toMatchObject({
      gpus: 52,
      usd_per_hour: 139.88,
      price_source: "typical",
    });
    expect(comparisonMarkdown(report)).toContain("$139.88 (typical)");
  });
});
