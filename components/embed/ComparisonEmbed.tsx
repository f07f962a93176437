/** A comparison as an embed shows it: its title, verdicts and the charts asked for, and a link to the whole view. */
import { EfficiencyChart } from "@/components/charts/EfficiencyChart";
import { LoadChart } from "@/components/charts/LoadChart";
import { LoadTooltipProvider } from "@/components/charts/LoadTooltip";
import { VerdictBlock } from "@/components/compare/ComparisonView";
import type { EmbedChart } from "@/lib/comparisons/embed";
import type { Comparison } from "@/lib/comparisons/model";

export function EmbedLink({ href, label }: { href: string; label: string }) {
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className="text-sm font-medium text-blue-700 underline underline-offset-2 dark:text-blue-400"
      data-testid="embed-full-view"
    >
      {label} ↗
    </a>
  );
}

export function ComparisonEmbed({
  comparison,
  title,
  charts,
  height,
  fullHref,
}: {
  comparison: Comparison;
  title: string;
  charts: readonly EmbedChart[];
  height: number;
  fullHref: string;
}) {
  const titles: Record<EmbedChart, string> = {
    throughput: comparison.charts.throughput.title,
    efficiency: `Throughput per GPU vs tok/s per user (1000 / ${comparison.charts.efficiency.tpotStat} TPOT)`,
    tpot: comparison.charts.tpot.title,
    ttft: comparison.charts.ttft.title,
  };
  return (
    <div data-testid="embed-comparison">
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-base font-semibold tracking-tight" data-testid="embed-title">
          {title}
        </h1>
        <EmbedLink href={fullHref} label="Open in servebench" />
      </div>
      <div className="mb-3 space-y-2">
        {comparison.verdicts.map((verdict) => (
          <VerdictBlock key={verdict.text} verdict={verdict} />
        ))}
      </div>
      <LoadTooltipProvider
        rows={comparison.tooltip}
        levels={comparison.drawnDomain.levels.map((level) => level.label)}
        xs={comparison.drawnDomain.levels.map((level) => level.x)}
      >
        <div className="space-y-4">
          {charts.map((chart) => (
            <section key={chart} aria-label={titles[chart]}>
              <h2 className="mb-1 text-sm font-semibold">{titles[chart]}</h2>
              {chart === "efficiency" ? (
                <EfficiencyChart data={comparison.charts.efficiency} height={height} />
              ) : (
                <LoadChart
                  data={comparison.charts[chart]}
                  testId={`chart-${chart}`}
                  logY={comparison.view.logY}
                  height={height}
                  toggleable={false}
                />
              )}
            </section>
          ))}
        </div>
      </LoadTooltipProvider>
    </div>
  );
}
