import type { Metadata } from "next";
import Link from "next/link";
import { AlertActions } from "@/components/alerts/AlertActions";
import { StatusBadge } from "@/components/series/StatusBadge";
import { Card, PageHeader, Section, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { ScrollBox } from "@/components/ui/ScrollBox";
import { formatDateTime, formatNumber, formatPercentChange } from "@/lib/format";
import { pageSearchParams } from "@/lib/http/query";
import { alertRunNames, listAlerts } from "@/lib/series/alerts";
import { ALERT_STATUSES, type AlertStatus } from "@/lib/series/schema";
import { listDeliveries, sweepDeliveries, webhookUrls } from "@/lib/webhooks/deliveries";
import { redactWebhookUrl } from "@/lib/webhooks/payload";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function AlertsPage({ searchParams }: { searchParams: SearchParams }) {
  const raw = pageSearchParams(await searchParams).status;
  const requested = Array.isArray(raw) ? raw[0] : raw;
  const status: AlertStatus | "all" =
    requested === "all" || ALERT_STATUSES.includes(requested as AlertStatus)
      ? (requested as AlertStatus | "all")
      : "open";
  // Deliveries left pending by a restart go out now.
  void sweepDeliveries();
  const [{ alerts, counts }, deliveries] = await Promise.all([
    listAlerts({ status, page: 1, per_page: 100 }),
    listDeliveries(50),
  ]);
  const runNames = await alertRunNames(alerts);
  // A run by its name and short commit, as the CI summary names it; its id when it is gone.
  const runText = (runId: string) => {
    const run = runNames.get(runId);
    if (!run) return runId;
    return run.git_commit ? `${run.name} (${run.git_commit.slice(0, 12)})` : run.name;
  };
  const configured = webhookUrls().length;
  const tabs: { value: AlertStatus | "all"; label: string }[] = [
    { value: "open", label: `Open (${counts.open})` },
    { value: "acknowledged", label: `Acknowledged (${counts.acknowledged})` },
    { value: "expected", label: `Expected (${counts.expected})` },
    { value: "all", label: "All" },
  ];

  return (
    <>
      <PageHeader
        title="Alerts"
        subtitle="Regressions: a figure of a series that moved the wrong way beyond its noise and stayed there, several runs in a row or since a change point the whole series shows."
      />
      <nav className="mb-4 flex flex-wrap gap-2" aria-label="Alert status">
        {tabs.map((tab) => (
          <Link
            key={tab.value}
            href={tab.value === "open" ? "/alerts" : `/alerts?status=${tab.value}`}
            aria-current={tab.value === status ? "page" : undefined}
            className={`rounded-md px-3 py-1.5 text-sm font-medium ${
              tab.value === status
                ? "bg-zinc-900 text-white dark:bg-white dark:text-zinc-900"
                : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
          >
            {tab.label}
          </Link>
        ))}
      </nav>

      {alerts.length === 0 ? (
        <div
          className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700"
          data-testid="no-alerts"
        >
          No {status === "all" ? "" : `${status} `}alerts.
        </div>
      ) : (
        <ul className="space-y-3" data-testid="alerts">
          {alerts.map((alert) => (
            <li key={alert.id} id={`alert-${alert.id}`} data-alert-id={alert.id}>
              <Card>
                <div className="flex flex-wrap items-center gap-2">
                  <StatusBadge status={alert.status} testId="alert-status-badge" />
                  <Link href={alert.url} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
                    {alert.series.name}
                  </Link>
                  {/* A phone gives the change a line of its own, so no separator is left hanging. */}
                  <span className="max-sm:hidden">·</span>
                  <span data-testid="alert-change" className="max-sm:w-full">
                    {alert.figures
                      .map(
                        (figure) =>
                          `${figure.label}: ${formatNumber(figure.before)} → ${formatNumber(figure.after)} ${figure.unit} (${formatPercentChange(figure.change_pct / 100)})`,
                      )
                      .join("; ")}
                  </span>
                  {alert.active ? <span className="text-xs text-red-700 dark:text-red-400">ongoing</span> : null}
                </div>
                <div className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                  detected {formatDateTime(alert.detected_at)} · {alert.violations} point
                  {alert.violations === 1 ? "" : "s"}
                  {alert.last_good_run_id ? (
                    <>
                      {" "}
                      ·{" "}
                      <span data-testid="alert-culprit">
                        last good{" "}
                        <Link href={`/runs/${alert.last_good_run_id}`} className="hover:underline">
                          {runText(alert.last_good_run_id)}
                        </Link>{" "}
                        → first bad{" "}
                        <Link href={`/runs/${alert.start_run_id}`} className="hover:underline">
                          {runText(alert.start_run_id)}
                        </Link>
                      </span>{" "}
                      (
                      <Link
                        href={`/compare?runs=${encodeURIComponent(alert.last_good_run_id)},${encodeURIComponent(alert.start_run_id)}`}
                        className="hover:underline"
                        data-testid="alert-compare"
                      >
                        compare
                      </Link>
                      )
                    </>
                  ) : (
                    <>
                      {" "}
                      from{" "}
                      <Link href={`/runs/${alert.start_run_id}`} className="hover:underline">
                        {runText(alert.start_run_id)}
                      </Link>
                    </>
                  )}
                  {alert.z !== null ? ` · z ${alert.z.toFixed(1)}` : ""}
                  {alert.p !== null ? ` · p ${alert.p.toPrecision(2)}` : ""}
                </div>
                {alert.note ? (
                  <p className="mt-2 whitespace-pre-wrap text-sm" data-testid="alert-note-text">
                    {alert.note}
                  </p>
                ) : null}
                <div className="mt-3">
                  <AlertActions id={alert.id} status={alert.status} note={alert.note} />
                </div>
              </Card>
            </li>
          ))}
        </ul>
      )}

      <div className="mt-8" />
      <Section title="Webhook deliveries" id="deliveries">
        <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
          {configured === 0
            ? "No webhook is configured: set SERVEBENCH_WEBHOOK_URLS to announce new regressions."
            : `${configured} webhook URL${configured === 1 ? "" : "s"} receive each new regression.`}
        </p>
        {deliveries.length > 0 ? (
          <ScrollBox label="Webhook deliveries">
            <table className={tableClass} data-testid="deliveries">
              <thead>
                <tr>
                  <th className={thClass}>Created</th>
                  <th className={thClass}>To</th>
                  <th className={thClass}>Status</th>
                  <th className={thClass}>Attempts</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((delivery) => (
                  <tr key={delivery.id} data-delivery-status={delivery.status}>
                    <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(delivery.created_at)}</td>
                    <td className={`${tdClass} font-mono text-xs`}>{redactWebhookUrl(delivery.url)}</td>
                    <td className={tdClass}>
                      {delivery.status}
                      {delivery.next_attempt_at ? ` (next ${formatDateTime(delivery.next_attempt_at)})` : ""}
                    </td>
                    <td className={`${tdClass} text-xs`}>
                      {delivery.log
                        .map(
                          (attempt) =>
                            `${formatDateTime(attempt.at)}: ${attempt.http_status ?? "no answer"}${attempt.error && attempt.http_status === null ? ` (${attempt.error})` : ""}`,
                        )
                        .join(" · ") || "—"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        ) : null}
      </Section>
    </>
  );
}
