/**
 * MLPerf Inference LoadGen's `mlperf_log_summary.txt`: the text summary LoadGen writes after a performance run
 * (loadgen/results.cc, PerformanceSummary::LogSummary), as the published results repositories hold it under
 * `closed/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/`. Three sections framed by `=====`
 * lines: "MLPerf Results Summary" (SUT name, scenario, mode, the headline figures, the verdict and each constraint),
 * "Additional Stats" (latency statistics, in ns) and "Test Parameters Used" (the settings LoadGen ran with).
 *
 * Read for the LLM benchmarks (those that report tokens: llama2-70b, llama3.1-405b, llama3.1-8b, mixtral-8x7b,
 * deepseek-r1, …), Server and Offline scenarios:
 *
 * - Server: the load level is `target_qps`, the Poisson arrival rate LoadGen was configured with, as a request rate.
 *   Output throughput is "Completed tokens per second" (output tokens of all samples / time until the last one
 *   completed). TTFT and TPOT come from the "first token latency" and "time to output token" statistics; LoadGen's
 *   TPOT is (latency − first token latency) / (tokens − 1) per sample (loadgen/logging.cc), servebench's definition.
 * - Offline: every sample is issued at once in one query, so the level is the request rate "inf". Output
 *   throughput is "Tokens per second". Its "latency" statistics are each sample's completion time since the start
 *   of the run, not a request's latency: not imported.
 *
 * The verdict ("Result is : VALID"), each constraint line, the early-stopping results and the test parameters go
 * into the run's metadata; an INVALID result is a warning on the run. A summary that states tokens only as
 * "(inferred)" (GPT-J: samples × a fixed token count) keeps its sample rate and latencies, not the inferred tokens.
 */

import { LIMITS } from "@/lib/document/schema";
import { PointBuilder, toNumber } from "./common";
import { REASONS } from "./report";
import { FormatError, type FormatParser, type Fragment, type NotImported, type RunContext } from "./types";

interface Line {
  section: string;
  label: string;
  value: string;
  line: number;
}

interface Summary {
  /** `Label : value` lines, in order. */
  lines: Line[];
  /** Bulleted text under a heading line (`Recommendations:`, `TTFT Early Stopping Result:`), by heading. */
  blocks: Map<string, string[]>;
  /** Free text lines of the Test Parameters section and the closing lines ("No warnings encountered during test."). */
  notes: string[];
}

const HEADER = /^[^\S\r\n]*={10,}\s*\r?\nMLPerf Results Summary\s*\r?\n={10,}\s*$/m;

export function isMlperfSummary(text: string): boolean {
  return HEADER.test(text.slice(0, 400)) && /^Scenario\s*:/m.test(text) && /^Result is\s*:/m.test(text);
}

/** Heading lines whose bullets (` * …`, and their continuation lines) belong together. */
const BLOCK_HEADINGS =
  /^(Recommendations|Early Stopping Result|TTFT Early Stopping Result|TPOT Early Stopping Result)$/;

function readSummary(text: string): Summary {
  const lines: Line[] = [];
  const blocks = new Map<string, string[]>();
  const notes: string[] = [];
  let section = "";
  let block: string | null = null;
  const raw = text.split(/\r?\n/);
  raw.forEach((rawLine, index) => {
    const line = rawLine.trimEnd();
    if (/^={10,}$/.test(line.trim())) return;
    // A title between two rules.
    if (/^={10,}$/.test((raw[index - 1] ?? "").trim()) && /^={10,}$/.test((raw[index + 1] ?? "").trim())) {
      section = line.trim();
      block = null;
      return;
    }
    if (line.trim() === "") {
      block = null;
      return;
    }
    const heading = /^(.+?):$/.exec(line.trim());
    if (heading?.[1] && BLOCK_HEADINGS.test(heading[1])) {
      block = heading[1];
      blocks.set(block, []);
      return;
    }
    if (block !== null && /^\s/.test(line)) {
      const items = blocks.get(block) ?? [];
      const bullet = /^\s*\*\s*(.*)$/.exec(line);
      if (bullet) items.push(bullet[1] ?? "");
      else if (items.length > 0) items[items.length - 1] = `${items[items.length - 1]} ${line.trim()}`;
      else items.push(line.trim());
      blocks.set(block, items);
      return;
    }
    block = null;
    // "label : value" at the line's first colon (a label has at least one character).
    const colon = line.indexOf(":");
    const label = line.slice(0, colon).trim();
    if (colon > 0 && label !== "WARNING") {
      lines.push({ section, label, value: line.slice(colon + 1).trim(), line: index + 1 });
      return;
    }
    notes.push(line.trim());
  });
  return { lines, blocks, notes };
}

type Scenario = "Server" | "Offline";

/** `closed/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_<n>/mlperf_log_summary.txt`. */
const RESULTS_PATH =
  /(?:^|\/)(?:(closed|open|network|preview)\/)?(?:([^/]+)\/)?results\/([^/]+)\/([^/]+)\/([^/]+)\/performance\/run_(\d+)\/mlperf_log_summary\.txt$/;

export interface ResultsFolder {
  division?: string;
  submitter?: string;
  system: string;
  benchmark: string;
  scenario: string;
  run: number;
}

/** What the folder path says, only when it follows the results repositories' layout. */
export function resultsFolder(name: string): ResultsFolder | undefined {
  const match = RESULTS_PATH.exec(name.replace(/\\/g, "/"));
  if (!match?.[3] || !match[4] || !match[5] || !match[6]) return undefined;
  return {
    ...(match[1] ? { division: match[1] } : {}),
    ...(match[2] ? { submitter: match[2] } : {}),
    system: match[3],
    benchmark: match[4],
    scenario: match[5],
    run: Number(match[6]),
  };
}

/** The model a benchmark name stands for: the name without its accuracy target (`llama2-70b-99.9` → `llama2-70b`). */
function benchmarkModel(benchmark: string): string {
  return benchmark.replace(/-99(\.9)?$/, "");
}

/** `50.00 percentile first token latency (ns)` → [50, "first token latency"]. */
const PERCENTILE_LINE = /^(\d+(?:\.\d+)?) percentile (latency|first token latency|time to output token) \(ns\)$/;

const METRIC_OF: Record<string, "e2el" | "ttft" | "tpot"> = {
  latency: "e2el",
  "first token latency": "ttft",
  "time to output token": "tpot",
};

/** `Mean First Token latency (ns)` and the like: the statistic and the metric. */
const STAT_LINE = /^(Min|Max|Mean) (latency|First Token latency|Time to Output Token) \(ns\)$/;

/** The constraint lines of the verdict, in the order LoadGen prints them, and their metadata keys. */
const VERDICT_LINES: ReadonlyArray<[string, string]> = [
  ["Result is", "mlperf_result"],
  ["Performance constraints satisfied", "mlperf_performance_constraints_satisfied"],
  ["Min duration satisfied", "mlperf_min_duration_satisfied"],
  ["Min queries satisfied", "mlperf_min_queries_satisfied"],
  ["Early stopping satisfied", "mlperf_early_stopping_satisfied"],
];

const BLOCK_KEYS: Record<string, string> = {
  Recommendations: "mlperf_recommendations",
  "Early Stopping Result": "mlperf_early_stopping_result",
  "TTFT Early Stopping Result": "mlperf_ttft_early_stopping_result",
  "TPOT Early Stopping Result": "mlperf_tpot_early_stopping_result",
};

const OFFLINE_LATENCY =
  "Offline: every sample is issued at once in one query, so this is the time from the start of the run until a sample completed, not a request's end-to-end latency";

function metadataValue(text: string): string | number {
  const number = toNumber(text);
  // RNG seeds exceed 2^53: kept as the digits the file states.
  return number !== null && Number.isSafeInteger(number)
    ? number
    : number !== null && !/^\d+$/.test(text)
      ? number
      : text;
}

function parseSummary(file: { name: string; data: unknown }): Fragment[] {
  const text = String(file.data);
  const { lines, blocks, notes } = readSummary(text);
  const where = (line: Line) => (line.section ? `${line.section}.${line.label}` : line.label);
  const find = (label: string, section?: string) =>
    lines.find((line) => line.label === label && (section === undefined || line.section === section));
  const mode = find("Mode");
  if (mode && mode.value !== "PerformanceOnly") {
    throw new FormatError(
      "Mode",
      `Mode is "${mode.value}": only a PerformanceOnly run measures throughput and latency (an accuracy run's summary holds none).`,
    );
  }
  const scenarioLine = find("Scenario");
  if (!scenarioLine) throw new FormatError("Scenario", "The summary has no Scenario line.");
  if (scenarioLine.value !== "Server" && scenarioLine.value !== "Offline") {
    throw new FormatError(
      "Scenario",
      `Scenario is "${scenarioLine.value}": servebench imports the Server and Offline scenarios (a request rate, or all requests at once); ${scenarioLine.value} has no load level of that kind.`,
    );
  }
  const scenario = scenarioLine.value as Scenario;
  const verdict = find("Result is");
  if (!verdict || !/^(VALID|INVALID)$/.test(verdict.value)) {
    throw new FormatError(
      "Result is",
      `Result is should be VALID or INVALID, but it is ${JSON.stringify(verdict?.value ?? null)}.`,
    );
  }
  const headline = scenario === "Server" ? "Completed tokens per second" : "Tokens per second";
  const inferred = find(`${headline} (inferred)`);
  const tokens = find(headline, "MLPerf Results Summary");
  if (!tokens && !inferred) {
    throw new FormatError(
      headline,
      `The summary states no "${headline}": it is not an LLM benchmark's (servebench reads the benchmarks that count tokens).`,
    );
  }
  if (tokens && toNumber(tokens.value) === null) {
    throw new FormatError(
      where(tokens),
      `${where(tokens)} should be a number, but it is ${JSON.stringify(tokens.value)}.`,
    );
  }
  const folder = resultsFolder(file.name);
  const label = folder ? `${folder.benchmark} ${folder.scenario}` : scenario;
  const builder = new PointBuilder(label);
  const notImported: NotImported[] = [];
  const refuse = (line: Line, reason: string) =>
    notImported.push({ file: file.name, field: where(line), value: toNumber(line.value) ?? line.value, reason });
  const metadata: Record<string, string | number | boolean> = {};
  const warnings: string[] = [];
  const handled = new Set<Line>();
  const take = (line: Line | undefined) => {
    if (line) handled.add(line);
    return line;
  };

  // The load level.
  const targetQps = take(find("target_qps", "Test Parameters Used"));
  if (scenario === "Server") {
    if (!targetQps || toNumber(targetQps.value) === null || (toNumber(targetQps.value) ?? 0) <= 0) {
      throw new FormatError(
        "Test Parameters Used.target_qps",
        `A Server run's load level is its target_qps, but the summary states ${JSON.stringify(targetQps?.value ?? null)}.`,
      );
    }
    builder.requestRate(targetQps.value, where(targetQps));
  } else {
    builder.requestRate("inf", "Scenario (Offline: every sample issued at once)");
    if (targetQps) metadata.mlperf_target_qps = metadataValue(targetQps.value);
  }

  // Headline figures.
  take(scenarioLine);
  take(mode);
  if (tokens) builder.set("output_throughput", take(tokens)?.value, where(tokens));
  if (inferred) {
    take(inferred);
    refuse(
      inferred,
      "tokens per second inferred by LoadGen (samples × a fixed token count per sample, token_latency_scaling_factor), not counted from the outputs",
    );
    warnings.push(
      `${label}: the summary states tokens per second only as inferred (samples × a fixed tokens per sample); output throughput is left empty, and the point keeps the sample rate and latencies.`,
    );
  }
  const samples = take(
    find(scenario === "Server" ? "Completed samples per second" : "Samples per second", "MLPerf Results Summary"),
  );
  if (samples) builder.set("request_throughput", samples.value, where(samples));

  // Latencies (Server), in ns.
  for (const line of lines) {
    if (line.section !== "Additional Stats") continue;
    const percentile = PERCENTILE_LINE.exec(line.label);
    const stat = STAT_LINE.exec(line.label);
    if (!percentile && !stat) continue;
    handled.add(line);
    const metric = METRIC_OF[(percentile?.[2] ?? stat?.[2] ?? "").toLowerCase()];
    if (!metric) continue;
    if (scenario === "Offline" && metric === "e2el") {
      refuse(line, OFFLINE_LATENCY);
      continue;
    }
    if (toNumber(line.value) === null) {
      throw new FormatError(
        where(line),
        `${where(line)} should be a number of ns, but it is ${JSON.stringify(line.value)}.`,
      );
    }
    // ns → ms by division: 44954547225 ns is 44954.547225 ms, where × 1e-6 would give 44954.547224999995.
    const ms = (toNumber(line.value) ?? 0) / 1e6;
    if (percentile?.[1]) {
      builder.percentile(metric, Number(percentile[1]), ms, where(line));
    } else if (stat?.[1] === "Mean") {
      builder.setStats(metric, { mean: { value: ms, source: where(line) } });
    } else {
      refuse(line, REASONS.extreme);
    }
  }
  // The Additional Stats section repeats the headline tokens per second; the repeat is dropped when it agrees.
  for (const line of lines) {
    if (handled.has(line) || line.section !== "Additional Stats") continue;
    if ((line.label === headline || line.label === `${headline} (inferred)`) && tokens?.value === line.value) {
      handled.add(line);
      continue;
    }
    if (line.label === "Scheduled samples per second") {
      handled.add(line);
      refuse(
        line,
        "the rate at which LoadGen scheduled the queries (the arrival rate it achieved); the load level is the configured target_qps",
      );
    }
  }

  // The verdict and the constraints.
  for (const [labelText, key] of VERDICT_LINES) {
    const line = take(find(labelText, "MLPerf Results Summary"));
    if (line) metadata[key] = line.value;
  }
  for (const [heading, items] of blocks) {
    const key = BLOCK_KEYS[heading];
    const value = items.join(" ").trim();
    if (key && value !== "") metadata[key] = value.slice(0, LIMITS.metadataValueChars);
    else if (key) metadata[key] = "(nothing stated)";
  }
  if (verdict.value === "INVALID") {
    const failed = VERDICT_LINES.slice(1)
      .map(([labelText]) => find(labelText, "MLPerf Results Summary"))
      .filter((line): line is Line => line !== undefined && /^no$/i.test(line.value))
      .map((line) => line.label.replace(/ satisfied$/, "").toLowerCase());
    const recommendations = blocks.get("Recommendations")?.join(" ").trim().replace(/\.$/, "");
    warnings.push(
      `MLPerf LoadGen judged this run INVALID${failed.length > 0 ? ` (not satisfied: ${failed.join(", ")})` : ""}${recommendations ? `; its recommendation: ${recommendations}` : ""}. Its figures are kept as measured, but they are no valid MLPerf result.`.slice(
        0,
        1000,
      ),
    );
  }
  const sut = take(find("SUT name"));
  if (sut) metadata.mlperf_sut_name = sut.value;
  metadata.mlperf_scenario = scenario;

  // Test parameters: the settings LoadGen ran with, kept as stated.
  for (const line of lines) {
    if (handled.has(line) || line.section !== "Test Parameters Used") continue;
    handled.add(line);
    const key = `loadgen_${line.label.replace(/(?<!\s)\s*\((ns|ms)\)$/, "_$1").replace(/[^\w.-]+/g, "_")}`;
    metadata[key] = metadataValue(line.value);
  }
  const closing = notes.filter((note) => /encountered/.test(note));
  if (closing.length > 0) metadata.loadgen_log = closing.join(" ").slice(0, LIMITS.metadataValueChars);
  const other = notes.filter((note) => !/encountered/.test(note));
  if (other.length > 0) metadata.loadgen_notes = other.join(" ").slice(0, LIMITS.metadataValueChars);
  for (const note of closing) {
    if (!/^No (warnings|errors) encountered/.test(note)) warnings.push(`LoadGen: ${note}`);
  }

  // Anything else the summary states with a number.
  for (const line of lines) {
    if (handled.has(line) || toNumber(line.value) === null) continue;
    refuse(line, REASONS.noField);
  }

  const context: RunContext = { metadata };
  const point = builder.build();
  if (folder) {
    context.model = benchmarkModel(folder.benchmark);
    context.name = `MLPerf ${folder.benchmark} ${folder.scenario} on ${folder.system}`;
    metadata.mlperf_benchmark = folder.benchmark;
    metadata.mlperf_system = folder.system;
    metadata.mlperf_scenario_folder = folder.scenario;
    if (folder.submitter) metadata.mlperf_submitter = folder.submitter;
    if (folder.division) metadata.mlperf_division = folder.division;
    const from = `from the folder name (results/<system>/<benchmark>/<scenario>): ${folder.system}/${folder.benchmark}/${folder.scenario}`;
    point.sources = { ...point.sources, model: from, name: from };
  }
  return [
    {
      format: "mlperf-inference",
      file: file.name,
      part: "",
      context,
      points: [point],
      warnings: [...warnings, ...builder.warnings],
      used: [],
      notImported: [...notImported, ...builder.notImported(file.name)],
    },
  ];
}

export const mlperfSummaryParser: FormatParser = {
  id: "mlperf-inference",
  label: "MLPerf Inference LoadGen mlperf_log_summary.txt (LLM benchmarks, Server and Offline)",
  signature: "text opening with LoadGen's `MLPerf Results Summary` banner, with `Scenario :` and `Result is :` lines",
  detect(file) {
    return file.kind === "text" && isMlperfSummary(String(file.data));
  },
  parse: parseSummary,
};
