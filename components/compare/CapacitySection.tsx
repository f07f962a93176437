/**
 * Capacity, cost and energy on /compare (docs/comparing.md#capacity): each run's capacity at each SLO tier, the
 * planner's answer for a demand, the inverse questions, and throughput per GPU at every step of interactivity
 * as a heatmap against the baseline. Every input is in the URL (CapacityControls).
 */
import { buttonClass, Section } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { DEMAND_UNITS, type TierCapacity } from "@/lib/analysis/capacity";
import { tierQuery, tierText } from "@/lib/analysis/slo-tiers";
import type { CapacityReport, CapacitySeries } from "@/lib/comparisons/capacity";
import type { Comparison } from "@/lib/comparisons/model";
import { compareQuery } from "@/lib/comparisons/view";
import { formatNumber, formatPercentChange, formatUsd } from "@/lib/format";
import { CapacityControls } from "./CapacityControls";

const head = "py-1 pr-3 font-medium";
const headRight = `${head} text-right`;
const cell = "py-1 pr-3 align-top";
const cellRight = `${cell} text-right tabular-nums`;
const muted = "text-zinc-600 dark:text-zinc-400";

function SeriesName({ series }: { series: CapacitySeries | undefined }) {
  if (!series) return null;
  return (
    <span className="inline-flex items-baseline gap-1.5 break-words">
      <span className="inline-block h-2.5 w-2.5 shrink-0 rounded-full" style={{ backgroundColor: series.color }} />
      <span>{series.label}</span>
      {series.isBaseline ? <span className={`text-xs ${muted}`}>(baseline)</span> : null}
    </span>
  );
}

function loadText(load: TierCapacity["load"]): string {
  if (!load) return "—";
  if (load.concurrency !== null) return `C=${formatNumber(load.concurrency)}`;
  if (load.infinite) return "rate ∞";
  return load.request_rate === null ? "—" : `${formatNumber(load.request_rate)} req/s`;
}

function changeClass(change: number | null, noise: number): string {
  if (change === null || Math.abs(change) < noise) return muted;
  return change > 0 ? "verdict-better" : "verdict-worse";
}

function TierTables({ report, noise }: { report: CapacityReport; noise: number }) {
  const byKey = new Map(report.series.map((series) => [series.key, series]));
  return (
    <div className="space-y-5">
      {report.tiers.map(({ tier, attainment, rows }) => (
        <div key={tier.id} data-testid="capacity-tier" data-tier={tier.id}>
          <h3 className="text-sm font-semibold break-words">
            {tier.name}{" "}
            <span className={`font-normal ${muted}`}>
              {tierText(tier)}
              {attainment ? ` · ${attainment} within every target` : ""}
            </span>
          </h3>
          {tier.source ? <p className={`mb-1 text-xs ${muted}`}>{tier.source}</p> : null}
          <ScrollBox label={`Capacity at ${tier.name}`}>
            <table className="w-full min-w-[44rem] text-sm">
              <thead>
                <tr className={`text-left text-xs uppercase tracking-wide ${muted}`}>
                  <th className={head}>Run</th>
                  <th className={head}>Highest level meeting it</th>
                  <th className={headRight}>tok/s per GPU</th>
                  <th className={headRight}>Δ</th>
                  <th className={headRight}>tok/s per user</th>
                  <th className={headRight}>Users per GPU</th>
                  <th className={headRight}>J / token</th>
                  <th className={head}>Crossing (interpolated)</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const capacity = row.capacity;
                  return (
                    <tr key={row.seriesKey} data-testid="capacity-tier-row">
                      <td className={cell}>
                        <SeriesName series={byKey.get(row.seriesKey)} />
                      </td>
                      <td className={cell} data-testid="capacity-level">
                        {capacity.level ??
                          (capacity.status === "none"
                            ? "no level meets it"
                            : `cannot be judged: ${capacity.reason ?? "no level"}`)}
                        {capacity.status === "every" ? (
                          <span className={`text-xs ${muted}`}> (every level)</span>
                        ) : null}
                      </td>
                      <td className={cellRight} data-testid="capacity-per-gpu">
                        {formatNumber(capacity.tok_s_per_gpu)}
                      </td>
                      <td className={`${cellRight} ${changeClass(row.change, noise)}`}>
                        {row.change === null ? "" : formatPercentChange(row.change)}
                      </td>
                      <td className={cellRight}>{formatNumber(capacity.tok_s_per_user)}</td>
                      <td className={cellRight}>
                        {formatNumber(capacity.users_per_gpu)}
                        {capacity.users_source === "little" ? (
                          <span className={`text-xs ${muted}`}> in flight</span>
                        ) : null}
                      </td>
                      <td className={cellRight}>
                        {row.joules_per_output_token === null ? "—" : formatNumber(row.joules_per_output_token)}
                      </td>
                      <td className={`${cell} text-xs ${muted}`}>
                        {capacity.estimate
                          ? `≈ ${loadText(capacity.estimate.load)}, ${formatNumber(capacity.estimate.tok_s_per_gpu ?? capacity.estimate.output_tok_s)} tok/s${capacity.estimate.tok_s_per_gpu !== null ? " per GPU" : ""}`
                          : ""}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollBox>
        </div>
      ))}
    </div>
  );
}

function Planner({ report }: { report: CapacityReport }) {
  const planner = report.planner;
  if (!planner) return null;
  const byKey = new Map(report.series.map((series) => [series.key, series]));
  const best = planner.rows[0];
  const bestSeries = best ? byKey.get(best.seriesKey) : undefined;
  return (
    <div className="mt-6" data-testid="capacity-planner">
      <h3 className="text-sm font-semibold">
        {formatNumber(planner.demand.value)} {DEMAND_UNITS[planner.demand.kind]} at {planner.tier.name}
      </h3>
      <p className="mb-2 text-sm" data-testid="planner-answer">
        {best?.plan.gpus != null && bestSeries
          ? `Fewest GPUs: ${bestSeries.label}, ${best.plan.replicas} × ${bestSeries.gpuCount} GPUs = ${best.plan.gpus} GPUs on ${best.plan.nodes} node${best.plan.nodes === 1 ? "" : "s"}${best.plan.usd_per_hour !== null ? `, ${formatUsd(best.plan.usd_per_hour)}/hour` : ""}.`
          : "No configuration here can be sized for it."}
      </p>
      <ScrollBox label="Capacity planner">
        <table className="w-full min-w-[44rem] text-sm">
          <thead>
            <tr className={`text-left text-xs uppercase tracking-wide ${muted}`}>
              <th className={head}>#</th>
              <th className={head}>Run</th>
              <th className={headRight}>Replicas</th>
              <th className={headRight}>GPUs</th>
              <th className={headRight}>Nodes ({planner.gpusPerNode} GPUs)</th>
              <th className={headRight}>$ / hour</th>
              <th className={headRight}>$ / M tokens</th>
              <th className={headRight}>Power</th>
              <th className={headRight}>Fleet used</th>
            </tr>
          </thead>
          <tbody>
            {planner.rows.map((row, index) => {
              const series = byKey.get(row.seriesKey);
              const plan = row.plan;
              return (
                <tr key={row.seriesKey} data-testid="planner-row">
                  <td className={cell}>{plan.gpus === null ? "" : index + 1}</td>
                  <td className={cell}>
                    <SeriesName series={series} />
                  </td>
                  {plan.reason ? (
                    <td className={`${cell} ${muted}`} colSpan={7}>
                      {plan.reason}
                    </td>
                  ) : (
                    <>
                      <td className={cellRight}>
                        {plan.replicas} × {series?.gpuCount}
                      </td>
                      <td className={`${cellRight} font-medium`} data-testid="planner-gpus">
                        {plan.gpus}
                      </td>
                      <td className={cellRight}>{plan.nodes}</td>
                      <td className={cellRight} data-testid="planner-usd-hour">
                        {formatUsd(plan.usd_per_hour)}
                        {plan.price_source === "typical" ? <span className={`text-xs ${muted}`}> typical</span> : null}
                      </td>
                      <td className={cellRight}>{formatUsd(plan.usd_per_m_tokens)}</td>
                      <td className={cellRight}>
                        {plan.power_kw === null ? "—" : `${formatNumber(plan.power_kw)} kW`}
                      </td>
                      <td className={cellRight}>
                        {plan.utilization === null ? "—" : `${Math.round(plan.utilization * 100)}%`}
                      </td>
                    </>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>
      <p className={`mt-1 text-xs ${muted}`}>
        Sized in whole replicas of each run's GPU count at its highest measured level meeting the tier. $ / M tokens is
        at that level with the fleet loaded to it.
        {report.series.some((series) => series.priceSource === "typical")
          ? " “typical”: the GPU catalogue's rental price (RunPod's lower rate, March 2026); set yours in $ / GPU-hour."
          : ""}
      </p>
    </div>
  );
}

function Inverse({ report }: { report: CapacityReport }) {
  const byKey = new Map(report.series.map((series) => [series.key, series]));
  const { underCost, underBudget } = report;
  if (!underCost && !underBudget) return null;
  return (
    <div className="mt-6 grid grid-cols-1 gap-4 lg:grid-cols-2">
      {underCost ? (
        <div data-testid="capacity-under-cost">
          <h3 className="text-sm font-semibold">
            Most tok/s per user at ≤ {formatUsd(underCost.ceiling_usd_per_m)} / M tokens
          </h3>
          <ul className="mt-1 space-y-1 text-sm">
            {underCost.rows.map((row) => (
              <li key={row.seriesKey} data-testid="under-cost-row">
                <SeriesName series={byKey.get(row.seriesKey)} />:{" "}
                {row.answer?.measured ? (
                  <>
                    {formatNumber(row.answer.measured.tok_s_per_user)} tok/s per user at {row.answer.measured.label} (
                    {formatUsd(row.answer.measured.usd_per_m_tokens)} / M)
                    {row.answer.interpolated ? (
                      <span className={`text-xs ${muted}`}>
                        {" "}
                        · ≈ {formatNumber(row.answer.interpolated.tok_s_per_user)} interpolated
                      </span>
                    ) : null}
                  </>
                ) : (
                  <span className={muted}>{row.reason}</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {underBudget ? (
        <div data-testid="capacity-under-budget">
          <h3 className="text-sm font-semibold">
            Most users at {underBudget.tier.name} within{" "}
            {[
              underBudget.gpus !== null ? `${formatNumber(underBudget.gpus)} GPUs` : null,
              underBudget.power_kw !== null ? `${formatNumber(underBudget.power_kw)} kW` : null,
            ]
              .filter(Boolean)
              .join(" and ")}
          </h3>
          <ul className="mt-1 space-y-1 text-sm">
            {underBudget.rows.map((row) => (
              <li key={row.seriesKey} data-testid="under-budget-row">
                <SeriesName series={byKey.get(row.seriesKey)} />:{" "}
                {row.answer ? (
                  `${formatNumber(row.answer.users)} users on ${row.answer.gpus} GPUs (${row.answer.replicas} replicas)${row.answer.power_kw !== null ? `, ${formatNumber(row.answer.power_kw)} kW` : ""}`
                ) : (
                  <span className={muted}>{row.reason}</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** A heat step for a change: none within noise, then a deeper one each 10% up to ±40%, and bold beyond. */
const HEAT_UP = ["bg-green-50", "bg-green-100", "bg-green-200", "bg-green-300", "bg-green-300 font-semibold"];
const HEAT_DOWN = ["bg-red-50", "bg-red-100", "bg-red-200", "bg-red-300", "bg-red-300 font-semibold"];

export function heatClass(change: number | null, noise: number): string {
  if (change === null || Math.abs(change) < noise) return "";
  const step = Math.min(4, Math.floor(Math.abs(change) / 0.1));
  return `${(change > 0 ? HEAT_UP : HEAT_DOWN)[step]} text-zinc-900`;
}

function BucketTable({ report, noise, tpotStat }: { report: CapacityReport; noise: number; tpotStat: string }) {
  const buckets = report.buckets;
  if (!buckets || buckets.rows.length === 0)
    return (
      <p className={`mt-6 text-sm ${muted}`}>
        No run states both a GPU count and TPOT: there is no throughput per GPU against interactivity to tabulate.
      </p>
    );
  return (
    <div className="mt-6" data-testid="capacity-buckets">
      <h3 className="text-sm font-semibold">
        Throughput per GPU at each {formatNumber(buckets.step)} tok/s per user{" "}
        <span className={`font-normal ${muted}`}>(1000 / {tpotStat} TPOT; change against the baseline)</span>
      </h3>
      <ScrollBox label="Throughput per GPU by interactivity">
        <table className="mt-1 w-full min-w-[32rem] text-sm">
          <thead>
            <tr className={`text-left text-xs uppercase tracking-wide ${muted}`}>
              <th className={head}>tok/s per user</th>
              {report.series.map((series) => (
                <th key={series.key} className={headRight}>
                  <SeriesName series={series} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {buckets.rows.map((row) => (
              <tr key={row.tok_s_per_user} data-testid="bucket-row" data-tok-s-per-user={row.tok_s_per_user}>
                <td className={`${cell} tabular-nums`}>{formatNumber(row.tok_s_per_user)}</td>
                {row.cells.map((value, index) => (
                  <td
                    key={report.series[index]!.key}
                    className={`${cellRight} ${heatClass(value.change, noise)}`}
                    data-testid="bucket-cell"
                    data-change={value.change === null ? "" : value.change.toFixed(4)}
                  >
                    {value.tok_s_per_gpu === null ? (
                      <span className={muted}>—</span>
                    ) : (
                      <>
                        {formatNumber(value.tok_s_per_gpu)}
                        {value.change !== null ? (
                          <span className="ml-1 text-xs">{formatPercentChange(value.change)}</span>
                        ) : null}
                      </>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <p className={`mt-1 text-xs ${muted}`}>
        Interpolated monotonically along each run's frontier, never beyond its measured range (—). Green: more per GPU
        than the baseline at the same interactivity; red: less; uncoloured within ±{formatNumber(noise * 100)}% noise.
      </p>
    </div>
  );
}

export function CapacitySection({ comparison }: { comparison: Comparison }) {
  const report = comparison.capacity;
  const noise = comparison.noise.pct / 100;
  return (
    <Section
      title="Capacity, cost and energy"
      id="capacity"
      aside={
        <a
          className={buttonClass}
          href={`/api/compare/capacity?${compareQuery(comparison.view)}`}
          download
          data-testid="export-capacity"
        >
          Capacity JSON
        </a>
      }
    >
      <CapacityControls
        view={comparison.view.capacity}
        tiersText={report.tiers.map((entry) => tierQuery(entry.tier)).join(",")}
        tierOptions={report.tiers.map((entry) => ({ id: entry.tier.id, name: entry.tier.name }))}
      />
      <TierTables report={report} noise={noise} />
      <Planner report={report} />
      <Inverse report={report} />
      <BucketTable report={report} noise={noise} tpotStat={comparison.charts.efficiency.tpotStat} />
    </Section>
  );
}
