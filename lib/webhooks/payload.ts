/**
 * What a webhook receives for a new regression: `text` and `blocks` as Slack's incoming webhooks read them
 * (so a Slack, Mattermost or Rocket.Chat URL works as it is), plus generic fields for any other receiver.
 */
import { formatNumber, formatPercentChange } from "@/lib/format";

export interface RegressionEvent {
  alert_id: string;
  series: { id: string; name: string; url: string };
  metric: { key: string; label: string; unit: string; better: "higher" | "lower" };
  before: number;
  after: number;
  change_pct: number;
  /** The runs of the regression, oldest first. */
  runs: { id: string; url: string; name: string; git_commit: string | null }[];
  /** Where the regression is shown. */
  url: string;
  detected_at: string;
}

export interface WebhookPayload extends RegressionEvent {
  event: "regression";
  text: string;
  blocks: unknown[];
}

/** Slack's mrkdwn treats &, < and > as control characters: everything a user typed is escaped. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function slackLink(url: string, label: string): string {
  return `<${url.replace(/[<>|]/g, encodeURIComponent)}|${slackEscape(label)}>`;
}

export function webhookPayload(event: RegressionEvent): WebhookPayload {
  const change = `${formatNumber(event.before)} → ${formatNumber(event.after)} ${event.metric.unit} (${formatPercentChange(event.change_pct / 100)})`;
  const runCount = `${event.runs.length} run${event.runs.length === 1 ? "" : "s"}`;
  const text = `Regression in ${event.series.name}: ${event.metric.label} ${change} over ${runCount}. ${event.url}`;
  const latest = event.runs[event.runs.length - 1];
  const blocks = [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text:
          `:chart_with_downwards_trend: *Regression* in ${slackLink(event.series.url, event.series.name)}\n` +
          `*${slackEscape(event.metric.label)}*: ${slackEscape(change)} over ${runCount}`,
      },
    },
    {
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: [
            slackLink(event.url, "alert"),
            latest
              ? slackLink(latest.url, `latest run${latest.git_commit ? ` (${latest.git_commit.slice(0, 12)})` : ""}`)
              : null,
          ]
            .filter(Boolean)
            .join(" · "),
        },
      ],
    },
  ];
  return { event: "regression", text, blocks, ...event };
}

/** A webhook URL as the (public) delivery log shows it: Slack's URLs carry their secret in the path. */
export function redactWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return "(invalid URL)";
  }
}
