/**
 * What a webhook receives for a new regression: `text` and `blocks` as Slack's incoming webhooks read them
 * (so a Slack, Mattermost or Rocket.Chat URL works as it is), plus generic fields for any other receiver.
 */
import { formatNumber, formatPercentChange } from "@/lib/format";

export interface MovedFigure {
  key: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  before: number;
  after: number;
  change_pct: number;
}

export interface CulpritRun {
  id: string;
  url: string;
  name: string;
  git_commit: string | null;
}

/** Where the change came in: the last good run, the first bad one, what changed between them. */
export interface CulpritRange {
  last_good: CulpritRun | null;
  first_bad: CulpritRun;
  /** The configuration and commit differences from the last good run to the first bad one. */
  what_changed: string[];
  /** Where to bisect: a run halfway between, or the two commits to bisect between; null without commits. */
  bisect: string | null;
  /** The compare page of the two runs. */
  compare_url: string | null;
}

export interface RegressionEvent {
  alert_id: string;
  series: { id: string; name: string; url: string };
  /** The alert's first figure (also the first of `figures`). */
  metric: { key: string; label: string; unit: string; better: "higher" | "lower" };
  before: number;
  after: number;
  change_pct: number;
  /** Every figure that moved at this change: one alert, one webhook. */
  figures: MovedFigure[];
  culprit: CulpritRange;
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

function figureChange(figure: MovedFigure): string {
  return `${figure.label} ${formatNumber(figure.before)} → ${formatNumber(figure.after)} ${figure.unit} (${formatPercentChange(figure.change_pct / 100)})`;
}

function runText(run: CulpritRun): string {
  return `${run.name}${run.git_commit ? ` (${run.git_commit.slice(0, 12)})` : ""}`;
}

/** "nightly 19 (abc) → nightly 20 (def)": the culprit range in words. */
export function culpritRangeText(culprit: CulpritRange): string {
  return culprit.last_good
    ? `${runText(culprit.last_good)} → ${runText(culprit.first_bad)}`
    : `from ${runText(culprit.first_bad)}`;
}

export function webhookPayload(event: RegressionEvent): WebhookPayload {
  const change = event.figures.map(figureChange).join("; ");
  const runCount = `${event.runs.length} run${event.runs.length === 1 ? "" : "s"}`;
  const range = culpritRangeText(event.culprit);
  const text = `Regression in ${event.series.name}, ${range}: ${change} over ${runCount}. ${event.url}`;
  const latest = event.runs[event.runs.length - 1];
  const blocks = [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text:
          `:chart_with_downwards_trend: *Regression* in ${slackLink(event.series.url, event.series.name)}, ${slackEscape(range)}\n` +
          event.figures.map((figure) => `• ${slackEscape(figureChange(figure))}`).join("\n") +
          `\nover ${runCount}` +
          (event.culprit.what_changed.length > 0
            ? `\nWhat changed: ${slackEscape(event.culprit.what_changed.join("; "))}`
            : "") +
          (event.culprit.bisect ? `\n${slackEscape(event.culprit.bisect)}` : ""),
      },
    },
    {
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: [
            slackLink(event.url, "alert"),
            event.culprit.compare_url ? slackLink(event.culprit.compare_url, "compare last good and first bad") : null,
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
