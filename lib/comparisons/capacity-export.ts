/**
 * The capacity section (lib/comparisons/capacity.ts) as data for what leaves the page: the JSON the CLI's
 * `compare --format json` prints and the MCP tools answer, the markdown `compare --format md` prints, and the
 * rows the CSV export appends. Series are named by label and run ids, never by internal keys.
 */
import { DEMAND_UNITS } from "@/lib/analysis/capacity";
import { tierText } from "@/lib/analysis/slo-tiers";
import { formatNumber, formatPercentChange, formatUsd } from "@/lib/format";
import type { CapacityReport } from "./capacity";
import type { Comparison } from "./model";

const round = (value: number | null, digits = 4): number | null =>
  value === null ? null : Number(value.toPrecision(digits + 2));
const pct = (change: number | null): number | null => (change === null ? null : Math.round(change * 1000) / 10);

export interface CapacityJson {
  tiers: {
    id: string;
    name: string;
    targets: string;
    ttft_ms: number | null;
    tpot_ms: number | null;
    e2el_ms: number | null;
    stat: string;
    source: string | null;
    runs: {
      series: string;
      status: string;
      level: string | null;
      tok_s_per_gpu: number | null;
      change_pct: number | null;
      tok_s_per_user: number | null;
      users_per_gpu: number | null;
      joules_per_output_token: number | null;
      interpolated_tok_s_per_gpu: number | null;
      reason: string | null;
    }[];
  }[];
  planner: {
    tier: string;
    demand: { kind: string; value: number; unit: string };
    gpus_per_node: number;
    ranking: {
      series: string;
      replicas: number | null;
      gpus: number | null;
      nodes: number | null;
      usd_per_hour: number | null;
      usd_per_m_tokens: number | null;
      price_source: string | null;
      power_kw: number | null;
      reason: string | null;
    }[];
  } | null;
  most_interactive_under_cost: {
    ceiling_usd_per_m_tokens: number;
    runs: {
      series: string;
      tok_s_per_user: number | null;
      level: string | null;
      interpolated_tok_s_per_user: number | null;
      reason: string | null;
    }[];
  } | null;
  most_users_under_budget: {
    tier: string;
    gpus: number | null;
    power_kw: number | null;
    runs: {
      series: string;
      users: number | null;
      gpus: number | null;
      replicas: number | null;
      reason: string | null;
    }[];
  } | null;
  buckets: { step_tok_s_per_user: number; rows: { tok_s_per_user: number; tok_s_per_gpu: (number | null)[] }[] } | null;
  /** The series the `tok_s_per_gpu` columns of `buckets` follow, in order. */
  series: {
    name: string;
    runs: string[];
    baseline: boolean;
    price_usd_per_gpu_hour: number | null;
    price_source: string | null;
  }[];
}

export function capacityJson(comparison: Comparison): CapacityJson {
  const report: CapacityReport = comparison.capacity;
  const name = new Map(comparison.series.map((item) => [item.key, item.label]));
  const label = (key: string) => name.get(key) ?? key;
  return {
    series: comparison.series.map((item, index) => ({
      name: item.label,
      runs: item.runs.map((run) => run.id),
      baseline: item.isBaseline,
      price_usd_per_gpu_hour: report.series[index]?.price ?? null,
      price_source: report.series[index]?.priceSource ?? null,
    })),
    tiers: report.tiers.map(({ tier, rows }) => ({
      id: tier.id,
      name: tier.name,
      targets: tierText(tier),
      ttft_ms: tier.ttft_ms,
      tpot_ms: tier.tpot_ms,
      e2el_ms: tier.e2el_ms ?? null,
      stat: tier.stat,
      source: tier.source,
      runs: rows.map((row) => ({
        series: label(row.seriesKey),
        status: row.capacity.status,
        level: row.capacity.level,
        tok_s_per_gpu: round(row.capacity.tok_s_per_gpu),
        change_pct: pct(row.change),
        tok_s_per_user: round(row.capacity.tok_s_per_user),
        users_per_gpu: round(row.capacity.users_per_gpu),
        joules_per_output_token: round(row.joules_per_output_token),
        interpolated_tok_s_per_gpu: round(row.capacity.estimate?.tok_s_per_gpu ?? null),
        reason: row.capacity.reason,
      })),
    })),
    planner: report.planner
      ? {
          tier: report.planner.tier.id,
          demand: { ...report.planner.demand, unit: DEMAND_UNITS[report.planner.demand.kind] },
          gpus_per_node: report.planner.gpusPerNode,
          ranking: report.planner.rows.map(({ seriesKey, plan }) => ({
            series: label(seriesKey),
            replicas: plan.replicas,
            gpus: plan.gpus,
            nodes: plan.nodes,
            usd_per_hour: round(plan.usd_per_hour, 6),
            usd_per_m_tokens: round(plan.usd_per_m_tokens),
            price_source: plan.price_source,
            power_kw: round(plan.power_kw),
            reason: plan.reason,
          })),
        }
      : null,
    most_interactive_under_cost: report.underCost
      ? {
          ceiling_usd_per_m_tokens: report.underCost.ceiling_usd_per_m,
          runs: report.underCost.rows.map((row) => ({
            series: label(row.seriesKey),
            tok_s_per_user: round(row.answer?.measured?.tok_s_per_user ?? null),
            level: row.answer?.measured?.label ?? null,
            interpolated_tok_s_per_user: round(row.answer?.interpolated?.tok_s_per_user ?? null),
            reason: row.reason,
          })),
        }
      : null,
    most_users_under_budget: report.underBudget
      ? {
          tier: report.underBudget.tier.id,
          gpus: report.underBudget.gpus,
          power_kw: report.underBudget.power_kw,
          runs: report.underBudget.rows.map((row) => ({
            series: label(row.seriesKey),
            users: round(row.answer?.users ?? null),
            gpus: row.answer?.gpus ?? null,
            replicas: row.answer?.replicas ?? null,
            reason: row.reason,
          })),
        }
      : null,
    buckets: report.buckets
      ? {
          step_tok_s_per_user: report.buckets.step,
          rows: report.buckets.rows.map((row) => ({
            tok_s_per_user: row.tok_s_per_user,
            tok_s_per_gpu: row.cells.map((cell) => round(cell.tok_s_per_gpu)),
          })),
        }
      : null,
  };
}

/** Pipes and line breaks would break a markdown table: a label is written with them escaped. */
const md = (text: string) =>
  text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ");

/** The capacity section as markdown: a table per tier, the planner's ranking, and the inverse answers. */
export function capacityMarkdown(json: CapacityJson): string {
  const lines: string[] = ["## Capacity at SLO tiers", ""];
  for (const tier of json.tiers) {
    lines.push(`**${md(tier.name)}**: ${tier.targets}`, "");
    lines.push("| run | highest level meeting it | tok/s per GPU | Δ | tok/s per user | users per GPU |");
    lines.push("|---|---|---:|---:|---:|---:|");
    for (const run of tier.runs)
      lines.push(
        `| ${md(run.series)} | ${run.level ?? (run.status === "none" ? "none" : `cannot be judged: ${md(run.reason ?? "")}`)} | ${formatNumber(run.tok_s_per_gpu)} | ${run.change_pct === null ? "" : formatPercentChange(run.change_pct / 100)} | ${formatNumber(run.tok_s_per_user)} | ${formatNumber(run.users_per_gpu)} |`,
      );
    lines.push("");
  }
  if (json.planner) {
    const { demand } = json.planner;
    lines.push(`## ${formatNumber(demand.value)} ${demand.unit} at ${json.planner.tier}`, "");
    lines.push("| # | run | GPUs | nodes | $/hour | $/M tokens | power |");
    lines.push("|---:|---|---:|---:|---:|---:|---:|");
    json.planner.ranking.forEach((row, index) => {
      lines.push(
        row.reason
          ? `| | ${md(row.series)} | ${md(row.reason)} | | | | |`
          : `| ${index + 1} | ${md(row.series)} | ${row.gpus} (${row.replicas} replicas) | ${row.nodes} | ${formatUsd(row.usd_per_hour)}${row.price_source === "typical" ? " (typical)" : ""} | ${formatUsd(row.usd_per_m_tokens)} | ${row.power_kw === null ? "—" : `${formatNumber(row.power_kw)} kW`} |`,
      );
    });
    lines.push("");
  }
  if (json.most_interactive_under_cost) {
    lines.push(
      `Most tok/s per user at ≤ ${formatUsd(json.most_interactive_under_cost.ceiling_usd_per_m_tokens)}/M tokens:`,
    );
    for (const run of json.most_interactive_under_cost.runs)
      lines.push(
        `- ${md(run.series)}: ${run.tok_s_per_user === null ? md(run.reason ?? "—") : `${formatNumber(run.tok_s_per_user)} at ${run.level}${run.interpolated_tok_s_per_user === null ? "" : ` (≈ ${formatNumber(run.interpolated_tok_s_per_user)} interpolated)`}`}`,
      );
    lines.push("");
  }
  if (json.most_users_under_budget) {
    lines.push(`Most users at ${json.most_users_under_budget.tier} within the budget:`);
    for (const run of json.most_users_under_budget.runs)
      lines.push(
        `- ${md(run.series)}: ${run.users === null ? md(run.reason ?? "—") : `${formatNumber(run.users)} users on ${run.gpus} GPUs`}`,
      );
    lines.push("");
  }
  return lines.join("\n");
}

/** CSV rows (the export's columns) of each series' capacity at each tier and the bucket table. */
export function capacityCsvRows(comparison: Comparison): (string | number | null)[][] {
  const report = comparison.capacity;
  const rows: (string | number | null)[][] = [];
  const base = comparison.baselineIndex;
  for (const { tier, rows: tierRows } of report.tiers) {
    const baseRow = tierRows[base];
    tierRows.forEach((row, index) => {
      const series = comparison.series[index]!;
      const isBase = index === base;
      const level = row.capacity.load;
      rows.push([
        `tier:${tier.id}:tok_s_per_gpu`,
        "tok/s/GPU",
        row.capacity.level ?? "",
        level?.concurrency ?? null,
        level?.request_rate ?? (level?.infinite ? "inf" : null),
        series.label,
        series.runs.map((run) => run.id).join(" "),
        row.capacity.tok_s_per_gpu,
        isBase ? null : (baseRow?.capacity.tok_s_per_gpu ?? null),
        row.change === null ? null : Math.round(row.change * 10_000) / 100,
        isBase ? "baseline" : row.capacity.status,
      ]);
    });
  }
  const planner = report.planner;
  for (const { seriesKey, plan } of planner?.rows ?? []) {
    const index = comparison.series.findIndex((item) => item.key === seriesKey);
    const series = comparison.series[index]!;
    const demand = `${planner!.demand.value} ${DEMAND_UNITS[planner!.demand.kind]} at ${planner!.tier.id}`;
    const figures: [string, string, number | null][] = [
      ["plan:gpus", "GPUs", plan.gpus],
      ["plan:usd_per_hour", "$/hour", plan.usd_per_hour],
      ["plan:power_kw", "kW", plan.power_kw],
    ];
    for (const [metric, unit, value] of figures)
      rows.push([
        metric,
        unit,
        demand,
        null,
        null,
        series.label,
        series.runs.map((run) => run.id).join(" "),
        value,
        null,
        null,
        plan.reason ?? (metric === "plan:usd_per_hour" && plan.price_source === "typical" ? "typical price" : ""),
      ]);
  }
  for (const row of report.buckets?.rows ?? []) {
    const baseValue = row.cells[base]?.tok_s_per_gpu ?? null;
    row.cells.forEach((cell, index) => {
      const series = comparison.series[index]!;
      rows.push([
        "tok_s_per_gpu_at_tok_s_per_user",
        "tok/s/GPU",
        `${row.tok_s_per_user} tok/s/user`,
        null,
        null,
        series.label,
        series.runs.map((run) => run.id).join(" "),
        cell.tok_s_per_gpu,
        index === base ? null : baseValue,
        cell.change === null ? null : Math.round(cell.change * 10_000) / 100,
        index === base ? "baseline" : cell.tok_s_per_gpu === null ? "missing" : "",
      ]);
    });
  }
  return rows;
}
