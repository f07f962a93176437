import type { Metadata } from "next";
import Link from "next/link";
import { AnnotationForm, RemoveAnnotationButton } from "@/components/series/AnnotationForm";
import { SeriesChart } from "@/components/series/SeriesChart";
import { StatusBadge } from "@/components/series/StatusBadge";
import { EmbedButton } from "@/components/ui/EmbedButton";
import {
  buttonClass,
  cardTableClass,
  inputClass,
  labelClass,
  PageHeader,
  Section,
  tdClass,
  thClass,
} from "@/components/ui/primitives";
import { EMBED_FRAME_HEIGHT } from "@/lib/comparisons/embed";
import { formatDateTime, formatNumber, formatPercentChange } from "@/lib/format";
import { pageSearchParams } from "@/lib/http/query";
import { type SeriesAxis, seriesChart } from "@/lib/series/chart";
import { CHANGE_POINT_CONFIRM_ALPHA, CHANGE_POINT_EXTRA_NIGHTS } from "@/lib/series/detect";
import { leadingMetric, levelLabel } from "@/lib/series/metrics";
import { seriesNameOf } from "@/lib/series/queries";
import { DEFAULT_SETTINGS } from "@/lib/series/settings";
import { loadView, one } from "./load-view";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const TABLE_ROWS = 50;
/**
 * The runs "Mark expected change" offers, the newest first: an expected change is marked soon after it happens. Every
 * shown run as an option was ~2,000 options in the page and again in its data; an older run is marked by its id
 * through POST /api/series/{id}/annotations.
 */
const ANNOTATION_CHOICES = 200;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  try {
    return { title: (await seriesNameOf(id)) ?? "Series not found" };
  } catch {
    return { title: "Series not found" };
  }
}

export default async function SeriesPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { id } = await params;
  const raw = pageSearchParams(await searchParams);
  const view = await loadView(id, one(raw.level), one(raw.metric));
  const axis: SeriesAxis = one(raw.x) === "version" ? "version" : "date";
  const requested = one(raw.metric);
  const metric =
    view.metrics.find((candidate) => candidate.key === requested) ?? leadingMetric(view.metrics, view.settings.figures);
  const chart = metric ? seriesChart(view, metric.key, axis) : null;
  const overridden = Object.entries(DEFAULT_SETTINGS).filter(
    ([key, value]) => view.settings[key as keyof typeof DEFAULT_SETTINGS] !== value,
  );
  const recent = [...view.points].reverse().slice(0, TABLE_ROWS);
  const runLabel = (runId: string) => view.points.find((point) => point.run_id === runId)?.name ?? runId;

  return (
    <>
      <PageHeader
        title={<span data-testid="series-name">{view.name}</span>}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={view.status} testId="series-status" />
            <span>
              {view.run_count} run{view.run_count === 1 ? "" : "s"}
              {view.truncated ? ` (the newest ${view.points.length} drawn)` : ""} ·{" "}
              {view.explicit ? "named series" : "runs of one configuration"} · figures at{" "}
              {view.level ? levelLabel(view.level) : "—"}
            </span>
          </span>
        }
        actions={
          <>
            <EmbedButton
              path={`/embed/series/${encodeURIComponent(view.id)}${metric ? `?metric=${encodeURIComponent(metric.key)}` : ""}`}
              title={view.name}
              height={EMBED_FRAME_HEIGHT - 80}
            />
            <Link className={buttonClass} href="/alerts">
              Alerts
            </Link>
          </>
        }
      />

      <form method="get" className="mb-4 flex flex-wrap items-end gap-3" data-testid="series-controls">
        <div>
          <label className={labelClass} htmlFor="series-metric">
            Figure
          </label>
          <select
            id="series-metric"
            name="metric"
            defaultValue={metric?.key}
            className={`${inputClass} w-auto max-w-full`}
          >
            {view.metrics.map((candidate) => (
              <option key={candidate.key} value={candidate.key}>
                {candidate.label} ({candidate.unit}){candidate.judged ? "" : " · not judged"}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className={labelClass} htmlFor="series-level">
            Load level
          </label>
          <select
            id="series-level"
            name="level"
            defaultValue={view.level ?? ""}
            className={`${inputClass} w-auto max-w-full`}
          >
            {view.levels.map((level) => (
              <option key={level.key} value={level.key}>
                {levelLabel(level.key)} ({level.runs} runs)
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className={labelClass} htmlFor="series-axis">
            x axis
          </label>
          <select id="series-axis" name="x" defaultValue={axis} className={`${inputClass} w-auto max-w-full`}>
            <option value="date">by date</option>
            <option value="version">by engine version</option>
          </select>
        </div>
        <button type="submit" className={buttonClass}>
          Show
        </button>
      </form>

      {metric && chart ? (
        <Section title={`${metric.label} (${metric.unit}), ${metric.better} is better`}>
          <SeriesChart chart={chart} unit={metric.unit} testId="series-chart" />
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            One point per run (runs at the same commit are one point, their range the band). Red: a violation in the
            worse direction; dashed lines mark detected changes and expected changes. Click a point to open its run.
          </p>
        </Section>
      ) : null}

      <Section title="Detected changes" id="changes">
        {view.changes.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing detected.</p>
        ) : (
          <table className={cardTableClass} data-testid="series-changes">
            <thead>
              <tr>
                <th className={thClass}>Change</th>
                <th className={thClass}>Figure</th>
                <th className={`${thClass} text-right`}>Before → after</th>
                <th className={`${thClass} text-right`}>Points</th>
                <th className={thClass}>Last good → first bad</th>
                <th className={thClass}>Status</th>
              </tr>
            </thead>
            <tbody>
              {view.changes.map((change) => (
                <tr key={change.id} id={`change-${change.id}`} data-kind={change.kind}>
                  <td className={tdClass}>
                    <StatusBadge status={change.kind} />
                    {change.active ? (
                      <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">ongoing</span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} max-sm:font-medium`}>{change.label}</td>
                  <td className={`${tdClass} whitespace-nowrap text-right tabular-nums max-sm:text-left`}>
                    {formatNumber(change.before)} → {formatNumber(change.after)} {change.unit} (
                    {formatPercentChange(change.change_pct / 100)})
                  </td>
                  <td className={`${tdClass} text-right tabular-nums max-sm:text-left`} data-label="Points">
                    {change.violations}
                  </td>
                  <td className={tdClass} data-label="Last good → first bad">
                    {change.last_good_run_id ? (
                      <>
                        <Link
                          href={`/runs/${change.last_good_run_id}`}
                          className="text-blue-700 hover:underline dark:text-blue-400"
                        >
                          {runLabel(change.last_good_run_id)}
                        </Link>
                        {" → "}
                      </>
                    ) : null}
                    <Link
                      href={`/runs/${change.start_run_id}`}
                      className="text-blue-700 hover:underline dark:text-blue-400"
                    >
                      {runLabel(change.start_run_id)}
                    </Link>
                    {change.last_good_run_id ? (
                      <>
                        {" · "}
                        <Link
                          href={`/compare?runs=${encodeURIComponent(change.last_good_run_id)},${encodeURIComponent(change.start_run_id)}`}
                          className="text-blue-700 hover:underline dark:text-blue-400"
                          data-testid="change-compare"
                        >
                          compare
                        </Link>
                      </>
                    ) : null}
                  </td>
                  <td className={tdClass} data-label="Status">
                    {change.kind === "regression" ? <StatusBadge status={change.status} /> : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>

      <Section title="Expected changes">
        <p className="mb-3 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
          An engine upgrade or a new machine that changes the figures on purpose: mark it, and the runs from there on
          are judged against each other, not against the old level.
        </p>
        {view.annotations.length > 0 ? (
          <ul className="mb-3 space-y-1 text-sm" data-testid="series-annotations">
            {view.annotations.map((annotation) => (
              <li key={annotation.id} className="flex flex-wrap items-center gap-2">
                <StatusBadge status="expected" /> from{" "}
                <Link href={`/runs/${annotation.run_id}`} className="text-blue-700 hover:underline dark:text-blue-400">
                  {runLabel(annotation.run_id)}
                </Link>
                {annotation.note ? <span className="text-zinc-600 dark:text-zinc-400">· {annotation.note}</span> : null}
                <RemoveAnnotationButton seriesId={view.id} annotationId={annotation.id} />
              </li>
            ))}
          </ul>
        ) : null}
        <AnnotationForm
          seriesId={view.id}
          runs={view.points.slice(-ANNOTATION_CHOICES).map((point) => ({
            id: point.run_id,
            label: `${formatDateTime(point.at)} · ${point.name}`,
          }))}
        />
        {view.points.length > ANNOTATION_CHOICES ? (
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="annotation-choices-note">
            The newest {ANNOTATION_CHOICES} runs are offered; mark an older one by its id with{" "}
            <code>POST /api/series/{view.id}/annotations</code>.
          </p>
        ) : null}
      </Section>

      <Section title={`Runs (newest ${recent.length} of ${view.run_count})`}>
        <div>
          <table className={cardTableClass} data-testid="series-runs">
            <thead>
              <tr>
                <th className={thClass}>Run</th>
                <th className={thClass}>Measured</th>
                <th className={thClass}>Engine</th>
                <th className={thClass}>Commit</th>
                {metric ? <th className={`${thClass} text-right`}>{metric.label}</th> : null}
                <th className={thClass}>What changed from the run before</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((point) => (
                <tr key={point.run_id}>
                  <td className={tdClass}>
                    <Link href={`/runs/${point.run_id}`} className="text-blue-700 hover:underline dark:text-blue-400">
                      {point.name}
                    </Link>
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`} data-label="Measured">
                    {formatDateTime(point.at)}
                  </td>
                  <td className={tdClass} data-label="Engine">
                    {point.engine_version ?? "—"}
                  </td>
                  <td className={`${tdClass} font-mono text-xs`} data-label="Commit">
                    {point.git_commit ? point.git_commit.slice(0, 12) : "—"}
                    {point.ci_url ? (
                      <>
                        {" "}
                        <a
                          href={point.ci_url}
                          className="text-blue-700 hover:underline dark:text-blue-400"
                          rel="noopener noreferrer nofollow"
                        >
                          CI
                        </a>
                      </>
                    ) : null}
                  </td>
                  {metric ? (
                    <td className={`${tdClass} text-right tabular-nums max-sm:text-left`} data-label={metric.label}>
                      {point.values[metric.key] != null ? formatNumber(point.values[metric.key]!) : "—"}
                    </td>
                  ) : null}
                  <td className={`${tdClass} text-xs text-zinc-600 dark:text-zinc-400`} data-label="What changed">
                    {point.what_changed.length > 0 ? point.what_changed.join(" · ") : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>

      <Section title="Detection settings">
        <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400" data-testid="series-settings">
          A point is a violation when it moves at least {view.settings.threshold_pct}% against the mean of up to{" "}
          {view.settings.window} earlier points and beyond the noise (|z| ≥ {view.settings.z_threshold}, or Welch&apos;s
          t-test p &lt; {view.settings.t_test_alpha} with repeats). {view.settings.consecutive} violations in a row make
          a regression, and so does a violation {view.settings.consecutive + CHANGE_POINT_EXTRA_NIGHTS - 1} or more
          nights after the start of a change the whole series shows (E-divisive change point, p &lt;{" "}
          {CHANGE_POINT_CONFIRM_ALPHA}) when the nights between stayed on its side. Judging starts from the third run; a
          baseline of fewer than {view.settings.min_samples} points is judged by the noise model for short baselines (
          {view.settings.noise_prior_pct}% prior noise) and can see a change but not confirm it.{" "}
          {overridden.length > 0 ? `Changed for this series: ${overridden.map(([key]) => key).join(", ")}. ` : ""}
          Change them with <code>PATCH /api/series/{view.id}</code> (see docs/series.md).
        </p>
      </Section>
    </>
  );
}
