/**
 * `servebench compare RUN RUN [--format md|json]`: the headline and deltas of a run against a baseline, and
 * what changed between them. RUN is a run id or its URL. Exits 1 when a run cannot be fetched, 2 on bad usage.
 */
import { parseArgs } from "node:util";
import type { StoredRun } from "@/lib/document/stored-run";
import { diffConfigs } from "../../lib/analysis/config-diff";
import type { Verdict } from "../../lib/analysis/deltas";
import { DELTA_TABLE_METRICS, type MetricKey } from "../../lib/analysis/metrics";
import { parseTiers, tiersProblem } from "../../lib/analysis/slo-tiers";
import { buildComparison } from "../../lib/comparisons/build";
import { type CapacityJson, capacityJson, capacityMarkdown } from "../../lib/comparisons/capacity-export";
import { type CapacityKey, capacityProblem, parseCapacityView } from "../../lib/comparisons/capacity-view";
import { parseCompareView, priceProblem } from "../../lib/comparisons/view";
import { formatLoadLevel, formatNumber, formatPercentChange } from "../../lib/format";
import { mdEscape, mdLinkTarget, mdTable } from "./markdown";
import {
  READ_TIMEOUT_MS,
  RUN_ANSWER_MAX_BYTES,
  requestServer,
  ServerRequestError,
  serverBase,
  TimeoutOptionError,
  timeoutMsFrom,
} from "./server-request";
import { terminalSafe, terminalSafeJson } from "./server-text";

export const COMPARE_USAGE = `servebench compare BASELINE_RUN RUN [options]

  RUN                   a run id, or its link (http://…/runs/ID)
  --url URL             the servebench server (default: $SERVEBENCH_URL or http://localhost:3000; a link names its own)
  --format md|json      markdown (default) or JSON
  --timeout SECONDS     how long reading each run may take, from connecting to the server's last byte (default: 30)

  Capacity (docs/comparing.md#capacity), as the compare page's parameters:
  --tiers LIST          SLO tiers: presets (interactive, chat, agentic, batch) or name:ttft=MS:tpot=MS:e2e=MS:p99
  --tier ID             the tier the planner and budgets size for (default: the first)
  --demand KIND:N       size for a demand: users:500, rps:20 or tok_s:50000
  --price PRICE         $/GPU-hour: 2.5, or per GPU model H100:3.1,L40S:1.2 (default: the GPU's typical price)
  --gpus-per-node N     GPUs in one node (default: 8)
  --max-cost USD        the most tok/s per user with output tokens at most this $ per million
  --gpu-budget N        the most users within N GPUs
  --power-budget-kw KW  the most users within this much GPU power
  --bucket N            tok/s per user between the bucket table's rows`;

export interface ComparisonReport {
  baseline: { id: string; name: string; url: string };
  run: { id: string; name: string; url: string };
  /** The compare page's verdict: the sentence to paste into chat, its caveat first when not like for like. */
  verdict: string | null;
  headline: {
    figure: string;
    unit: string;
    before: number | null;
    after: number | null;
    change_pct: number | null;
    /** better, worse, noise (within ±3%), inconclusive (the intervals overlap), same or none. */
    verdict: Verdict;
  }[];
  deltas: {
    metric: string;
    label: string;
    unit: string;
    better: "higher" | "lower";
    levels: {
      level: string;
      before: number | null;
      after: number | null;
      change_pct: number | null;
      verdict: Verdict;
    }[];
  }[];
  what_changed: string[];
  /** Capacity at each SLO tier, and the planner's and inverse answers the options asked for. */
  capacity: CapacityJson;
}

function pct(change: number | null): number | null {
  return change === null ? null : Math.round(change * 1000) / 10;
}

/** The comparison of `run` against `baseline`, read from the same model as the compare page (noise ±3%). */
export function comparisonReport(
  base: string,
  baseline: StoredRun,
  run: StoredRun,
  viewParams: Record<string, string> = {},
): ComparisonReport {
  // Two runs of one configuration are repeats to the compare page; here they stay two sides.
  const sides = [baseline, { ...run, id: run.id === baseline.id ? `${run.id}-again` : run.id }];
  const view = parseCompareView({ ...viewParams, runs: sides.map((side) => side.id).join(",") });
  const comparison = sides[0]!.id === sides[1]!.id ? null : buildComparison(sides, view, { everyLevel: true });
  const series = comparison && comparison.series.length === 2 ? comparison.series : null;
  const other = series?.[1];
  const headline = other?.headline;
  const deltas = (series ? comparison!.deltaTables : [])
    .filter((table) => DELTA_TABLE_METRICS.includes(table.metric as MetricKey))
    .map((table) => ({
      metric: table.metric,
      label: table.label,
      unit: table.unit,
      better: table.better,
      levels: table.rows
        .filter((row) => row.cells.some((cell) => cell.value !== null))
        .map((row) => ({
          level: formatLoadLevel(row.level),
          before: row.cells[0]!.value,
          after: row.cells[1]!.value,
          change_pct: pct(row.cells[1]!.change),
          verdict: row.cells[1]!.verdict,
        })),
    }));
  return {
    baseline: { id: baseline.id, name: baseline.name, url: `${base}/runs/${baseline.id}` },
    run: { id: run.id, name: run.name, url: `${base}/runs/${run.id}` },
    verdict: other?.verdict?.text ?? null,
    headline: [
      {
        figure: "single stream",
        unit: "tok/s",
        before: headline?.singleStream.base ?? null,
        after: headline?.singleStream.value ?? null,
        change_pct: pct(headline?.singleStream.change ?? null),
        verdict: headline?.singleStream.verdict ?? "none",
      },
      {
        figure: "peak throughput",
        unit: "tok/s",
        before: headline?.peak.base ?? null,
        after: headline?.peak.value ?? null,
        change_pct: pct(headline?.peak.change ?? null),
        verdict: headline?.peak.verdict ?? "none",
      },
    ],
    deltas,
    what_changed: [...diffConfigs(baseline, run).map((change) => change.text), ...commitChanges(baseline, run)],
    capacity: capacityJson(comparison ?? buildComparison([baseline], view, { everyLevel: true })),
  };
}

/** The commit and branch measured: the configuration diff leaves them out, and a nightly's change is often only that. */
function commitChanges(baseline: StoredRun, run: StoredRun): string[] {
  const lines: string[] = [];
  if ((baseline.git_commit ?? null) !== (run.git_commit ?? null))
    lines.push(
      `commit: ${baseline.git_commit?.slice(0, 12) ?? "not set"} → ${run.git_commit?.slice(0, 12) ?? "not set"}`,
    );
  if ((baseline.git_branch ?? null) !== (run.git_branch ?? null))
    lines.push(`branch: ${baseline.git_branch ?? "not set"} → ${run.git_branch ?? "not set"}`);
  return lines;
}

const value = (number: number | null, unit: string) => (number === null ? "—" : `${formatNumber(number)} ${unit}`);
const change = (number: number | null) => (number === null ? "—" : formatPercentChange(number / 100));
/** How a change reads beside its figure: the words the page shows for what is not better or worse. */
const VERDICT_WORDS: Partial<Record<Verdict, string>> = {
  noise: "within noise",
  inconclusive: "inconclusive",
};
const verdictWords = (verdict: Verdict) => VERDICT_WORDS[verdict] ?? "";

export function comparisonMarkdown(report: ComparisonReport): string {
  const lines = [
    `## ${mdEscape(report.run.name)} vs ${mdEscape(report.baseline.name)}`,
    "",
    ...(report.verdict ? [`> ${mdEscape(report.verdict)}`, ""] : []),
    ...report.headline.map((figure) => {
      const words = verdictWords(figure.verdict);
      return `- **${figure.figure}**: ${value(figure.before, figure.unit)} → ${value(figure.after, figure.unit)} (${change(figure.change_pct)}${words ? `, ${words}` : ""})`;
    }),
    "",
  ];
  // A figure neither run measured at any level has no rows: no table, not an empty one.
  for (const delta of report.deltas.filter((table) => table.levels.length > 0)) {
    lines.push(
      `### ${mdEscape(delta.label)} (${delta.unit}, ${delta.better} is better)`,
      "",
      mdTable(
        ["Load", "Baseline", "Run", "Change", "Verdict"],
        ["l", "r", "r", "r", "l"],
        delta.levels.map((level) => [
          level.level,
          value(level.before, delta.unit),
          value(level.after, delta.unit),
          change(level.change_pct),
          level.change_pct === null
            ? level.before === null
              ? "only in the run"
              : "only in the baseline"
            : verdictWords(level.verdict) || level.verdict,
        ]),
      ),
      "",
    );
  }
  lines.push(
    report.what_changed.length > 0
      ? "What changed:"
      : "Nothing changed: configuration, commit and branch are the same.",
  );
  for (const line of report.what_changed) lines.push(`- ${mdEscape(line)}`);
  lines.push("", capacityMarkdown(report.capacity).trimEnd());
  lines.push("", `[baseline](${mdLinkTarget(report.baseline.url)}) · [run](${mdLinkTarget(report.run.url)})`);
  return `${lines.join("\n")}\n`;
}

/** A run named by its id (on `defaultBase`) or by its link (which names its own server). */
export function target(given: string, defaultBase: string): { base: string; id: string } {
  const match = /^(https?:\/\/.+?)\/runs\/([A-Za-z0-9_-]+)\/?$/.exec(given);
  if (match) return { base: match[1]!, id: match[2]! };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(given)) throw new Error(`"${given}" is neither a run id nor a run's link`);
  return { base: defaultBase, id: given };
}

async function fetchRun(base: string, id: string, timeoutMs: number): Promise<StoredRun> {
  const response = await requestServer(
    `${base}/api/runs/${encodeURIComponent(id)}`,
    {},
    { base, timeoutMs, timeoutOption: "--timeout", maxAnswerBytes: RUN_ANSWER_MAX_BYTES },
  );
  type RunOrError = StoredRun & { error?: { message?: string } };
  let body: RunOrError | null = null;
  try {
    body = JSON.parse(response.text) as RunOrError | null;
  } catch {
    // Said below, with the status.
  }
  if (!response.ok || !body) {
    const reason = body?.error?.message ?? `HTTP ${response.status}${body ? "" : ", not servebench's JSON"}`;
    throw new Error(`run ${id}: ${reason}`);
  }
  return body;
}

/** The capacity options and the compare page's parameter each one sets. */
const CAPACITY_OPTIONS = {
  tiers: "tiers",
  tier: "tier",
  demand: "demand",
  "gpus-per-node": "gpus_per_node",
  "max-cost": "max_cost",
  "gpu-budget": "gpu_budget",
  "power-budget-kw": "power_budget_kw",
  bucket: "bucket",
} as const satisfies Record<string, CapacityKey>;

const OPTIONS_WITH_VALUE = new Set([
  "--url",
  "--format",
  "--timeout",
  "--price",
  ...Object.keys(CAPACITY_OPTIONS).map((name) => `--${name}`),
]);
const OPTION_NAMES = new Set([...OPTIONS_WITH_VALUE, "--help", "-h"]);
const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Run ids are base64url, so one in 64 begins with "-" and would read as an option. A word that is not one of
 * the command's options but has a run id's shape is a run; everything after "--" is too.
 */
export function runsAfterOptions(
  argv: readonly string[],
  withValue: ReadonlySet<string> = OPTIONS_WITH_VALUE,
  names: ReadonlySet<string> = OPTION_NAMES,
): string[] {
  const options: string[] = [];
  const runs: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === "--") {
      runs.push(...argv.slice(index + 1));
      break;
    }
    const name = word.split("=", 1)[0]!;
    if (!word.startsWith("-") || (!names.has(name) && RUN_ID.test(word))) {
      runs.push(word);
      continue;
    }
    options.push(word);
    if (withValue.has(word) && index + 1 < argv.length) options.push(argv[++index]!);
  }
  return [...options, "--", ...runs];
}

export async function runCompare(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: runsAfterOptions(argv),
      options: {
        url: { type: "string" },
        format: { type: "string" },
        timeout: { type: "string" },
        price: { type: "string" },
        ...Object.fromEntries(Object.keys(CAPACITY_OPTIONS).map((name) => [name, { type: "string" as const }])),
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    process.stderr.write(
      `servebench compare: ${error instanceof Error ? error.message : String(error)}\n\n${COMPARE_USAGE}\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${COMPARE_USAGE}\n`);
    return 0;
  }
  const format = parsed.values.format ?? "md";
  if (parsed.positionals.length !== 2 || (format !== "md" && format !== "json")) {
    const runs = parsed.positionals.length === 0 ? "none" : parsed.positionals.map((run) => `"${run}"`).join(", ");
    process.stderr.write(
      `servebench compare: name two runs (given: ${runs}), and --format md or json\n\n${COMPARE_USAGE}\n`,
    );
    return 2;
  }
  let timeoutMs: number;
  try {
    timeoutMs = timeoutMsFrom("--timeout", parsed.values.timeout, READ_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof TimeoutOptionError) {
      process.stderr.write(`servebench compare: ${error.message}\n\n${COMPARE_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  const viewParams: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, key] of Object.entries(CAPACITY_OPTIONS)) {
    const given = (parsed.values as Record<string, string | boolean | undefined>)[name];
    if (typeof given !== "string") continue;
    const problem = key === "tiers" ? tiersProblem(given) : capacityProblem(key, given);
    if (problem) problems.push(`--${name}: ${problem}`);
    viewParams[key] = given;
  }
  if (parsed.values.price !== undefined) {
    const problem = priceProblem(parsed.values.price);
    if (problem) problems.push(`--price: ${problem}`);
    viewParams.price = parsed.values.price;
  }
  if (viewParams.tier !== undefined && !parseCapacityView(viewParams).tierId)
    problems.push(
      `--tier: "${viewParams.tier}" is not one of the tiers (${parseTiers(viewParams.tiers)
        .map((tier) => tier.id)
        .join(", ")})`,
    );
  if (problems.length > 0) {
    process.stderr.write(`servebench compare: ${problems.join("; ")}\n\n${COMPARE_USAGE}\n`);
    return 2;
  }
  const defaultBase = serverBase(parsed.values.url);
  try {
    const [a, b] = parsed.positionals.map((given) => target(given, defaultBase));
    const [baseline, run] = await Promise.all([
      fetchRun(a!.base, a!.id, timeoutMs),
      fetchRun(b!.base, b!.id, timeoutMs),
    ]);
    const report = comparisonReport(b!.base, baseline, run, viewParams);
    // Names, changes and links are the servers' text. JSON keeps it exact, its control characters escaped;
    // markdown is for reading, so they are removed.
    process.stdout.write(
      format === "json" ? `${terminalSafeJson(report, 2)}\n` : terminalSafe(comparisonMarkdown(report)),
    );
    return 0;
  } catch (error) {
    const cause =
      !(error instanceof ServerRequestError) && error instanceof Error && error.cause instanceof Error
        ? `: ${error.cause.message}`
        : "";
    process.stderr.write(
      terminalSafe(`servebench compare: ${error instanceof Error ? error.message : String(error)}${cause}\n`),
    );
    return 1;
  }
}
