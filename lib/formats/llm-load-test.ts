/**
 * openshift-psap llm-load-test: the JSON its `load_test.py` writes for each concurrency level
 * (`output/output-{concurrency:03d}.json` by default; `output.json` in older configurations), from
 * `write_output` in src/llm_load_test/utils.py:
 *
 * - `results`: one record per request (`start_time`, `end_time`, `ttft`, `itl`, `tpot`, `response_time`, token
 *   counts, `error_text`, …);
 * - `config`: the configuration it ran with, `load_options.concurrency` (one number per file: a list of levels in
 *   the configuration is run and written level by level) and `load_options.duration` (s) among it;
 * - `summary`: min, max, median, mean and the 80th, 90th, 95th and 99th percentiles of `tpot`, `ttft`, `itl`,
 *   `tt_ack`, `response_time` and the token counts (all times in ms), `throughput_full_duration`, `full_duration`,
 *   `throughput`, `total_requests`, `total_failures`, `failure_rate`.
 *
 * Its `tpot` is response_time / output_tokens, the first token included (servebench's e2el_per_token); its `itl`,
 * (end − first token) / (output_tokens − 1), is servebench's TPOT. Files from before NaN became null (February
 * 2025) hold NaN for the statistics a non-streaming run cannot measure (TTFT, ITL, time to ack).
 */
import { asRecord, PointBuilder, toConcurrency, toCount, toNumber } from "./common";
import { REASONS } from "./report";
import { FormatError, type FormatParser, type Fragment, type RunContext, type SourceFile } from "./types";

type Metric = "ttft" | "tpot" | "e2el" | "e2el_per_token";

/** llm-load-test statistic → servebench metric. All in ms. */
const METRICS: ReadonlyArray<[string, Metric]> = [
  ["ttft", "ttft"],
  ["itl", "tpot"],
  ["response_time", "e2el"],
  ["tpot", "e2el_per_token"],
];

const PERCENTILES: ReadonlyArray<[string, number]> = [
  ["percentile_80", 80],
  ["percentile_90", 90],
  ["percentile_95", 95],
  ["percentile_99", 99],
];

function isOutput(data: unknown): data is Record<string, unknown> {
  const record = asRecord(data);
  if (!record || !Array.isArray(record.results)) return false;
  const config = asRecord(record.config);
  return (
    asRecord(config?.load_options) !== undefined &&
    (record.summary === undefined || asRecord(record.summary) !== undefined)
  );
}

function notImportedReason(path: string): string | undefined {
  if (/^results\[\d+\]\./.test(path)) return REASONS.perRequest;
  if (path.startsWith("summary.tt_ack."))
    return "time to acknowledgement (the response's first byte, before any token): servebench has no field for it";
  if (/^summary\.(input_tokens|output_tokens|output_tokens_before_timeout)\./.test(path))
    return "a statistic of the tokens per request; the point keeps the token totals, and the workload keeps a length only when every request had it";
  if (path === "summary.throughput")
    return "output tokens produced before the configured duration ran out / the configured duration (load_options.duration): requests still running then are cut off; the point keeps throughput_full_duration, every token over the time the requests actually took";
  if (path === "summary.failure_rate") return "total_failures / total_requests in percent: the point keeps both counts";
  if (path === "summary.req_completed_within_test_duration")
    return "requests that finished before the configured duration ran out; the TTFT and TPOT statistics are over these, the end-to-end latency over every request without an error";
  if (/\.(min|max)$/.test(path)) return REASONS.extreme;
  return undefined;
}

function parseOutput(file: SourceFile): Fragment[] {
  const data = file.data as Record<string, unknown>;
  const config = asRecord(data.config) ?? {};
  const load = asRecord(config.load_options) ?? {};
  const summary = asRecord(data.summary);
  if (!summary) {
    throw new FormatError(
      "summary",
      "The file has no summary: llm-load-test writes one since February 2024 (a draft of version 2 did not); without it there is no throughput to import.",
    );
  }
  const concurrency = load.concurrency;
  if (toConcurrency(concurrency) === null) {
    throw new FormatError(
      "config.load_options.concurrency",
      `config.load_options.concurrency should be the positive whole number of users the file was measured with, but it is ${JSON.stringify(concurrency ?? null)}.`,
    );
  }
  const plugin = asRecord(config.plugin_options) ?? {};
  const streaming = plugin.streaming !== false;
  const builder = new PointBuilder(`concurrency ${String(concurrency)}`);
  builder.concurrency(concurrency, "config.load_options.concurrency");

  const total = toCount(summary.total_requests);
  const failures = toCount(summary.total_failures);
  if (total !== null && failures !== null && failures <= total) {
    builder.set("completed", total - failures, "summary.total_requests − summary.total_failures");
    builder.set("failed", failures, "summary.total_failures");
  }
  builder.set("output_throughput", summary.throughput_full_duration, "summary.throughput_full_duration");
  builder.set("duration_s", summary.full_duration, "summary.full_duration", "s");
  const duration = toNumber(summary.full_duration);
  if (total !== null && failures !== null && failures <= total && duration !== null && duration > 0) {
    builder.set(
      "request_throughput",
      (total - failures) / duration,
      "(summary.total_requests − summary.total_failures) / summary.full_duration",
    );
  }

  const warnings: string[] = [];
  for (const [source, metric] of METRICS) {
    const stats = asRecord(summary[source]);
    if (!stats) continue;
    if (!streaming && (source === "ttft" || source === "itl")) continue;
    builder.setStats(metric, { mean: { value: stats.mean, source: `summary.${source}.mean` } });
    builder.percentile(metric, 50, stats.median, `summary.${source}.median`);
    for (const [key, p] of PERCENTILES) builder.percentile(metric, p, stats[key], `summary.${source}.${key}`);
  }
  if (!streaming) {
    warnings.push(
      "The run did not stream (plugin_options.streaming is false): it measured no time to first token, so the point has no TTFT and no TPOT, only end-to-end latency and end-to-end latency per token.",
    );
  }

  // Token totals over the requests without an error, as llm-load-test's own statistics count them.
  const results = data.results as unknown[];
  let input = 0;
  let output = 0;
  let counted = 0;
  results.forEach((entry, index) => {
    const record = asRecord(entry);
    if (!record) throw new FormatError(`results[${index}]`, `results[${index}] should be a per-request record.`);
    if (record.error_text !== null && record.error_text !== undefined) return;
    const out = toCount(record.output_tokens);
    if (out === null) return;
    output += out;
    input += toCount(record.input_tokens) ?? 0;
    counted += 1;
  });
  if (counted > 0) {
    builder.set("total_output_tokens", output, "results[*].output_tokens (sum over requests without error_text)");
    builder.set("total_input_tokens", input, "results[*].input_tokens (sum over requests without error_text)");
  }

  const context: RunContext = {};
  const metadata: Record<string, string | number | boolean> = {};
  const modelName = typeof plugin.model_name === "string" ? plugin.model_name.trim() : "";
  // A path (`/mnt/models/`) is where the server loaded the weights from, not the model's name.
  if (modelName !== "" && !modelName.startsWith("/")) context.model = modelName;
  else if (modelName !== "") metadata.model_name = modelName;
  const dataset = asRecord(config.dataset) ?? {};
  if (typeof dataset.file === "string" && dataset.file.trim() !== "") {
    context.workload = { dataset: dataset.file.trim().split("/").pop() ?? dataset.file.trim() };
  }
  const configured = toNumber(load.duration);
  if (configured !== null) metadata.load_duration_s = configured;
  if (typeof load.type === "string") metadata.load_type = load.type;
  if (typeof config.plugin === "string") metadata.plugin = config.plugin;
  if (typeof plugin.endpoint === "string") metadata.endpoint = plugin.endpoint;
  metadata.streaming = streaming;
  for (const key of [
    "max_queries",
    "min_input_tokens",
    "max_input_tokens",
    "min_output_tokens",
    "max_output_tokens",
    "max_sequence_tokens",
  ]) {
    const value = toNumber(dataset[key]);
    if (value !== null) metadata[`dataset_${key}`] = value;
  }
  const warmup = asRecord(config.warmup_options);
  if (config.warmup !== undefined) metadata.warmup = config.warmup === true;
  for (const [key, value] of Object.entries(warmup ?? {})) {
    const number = toNumber(value);
    if (number !== null) metadata[`warmup_${key}`] = number;
  }
  for (const [key, value] of Object.entries(asRecord(config.extra_metadata) ?? {})) {
    if (typeof value === "string" || typeof value === "boolean") metadata[`extra_metadata_${key}`] = value;
    else if (toNumber(value) !== null) metadata[`extra_metadata_${key}`] = toNumber(value) ?? 0;
  }
  if (typeof config.uuid === "string") metadata.uuid = config.uuid;
  if (Object.keys(metadata).length > 0) context.metadata = metadata;

  const point = builder.build();
  return [
    {
      format: "llm-load-test",
      file: file.name,
      part: "",
      context,
      points: [point],
      warnings: [...warnings, ...builder.warnings],
      used: [],
      notImported: builder.notImported(file.name),
    },
  ];
}

export const llmLoadTestParser: FormatParser = {
  id: "llm-load-test",
  label: "openshift-psap llm-load-test output JSON (output-NNN.json)",
  signature:
    "a JSON object with a `results` list of per-request records, the `config` it ran with (`load_options.concurrency`) and a `summary` of `ttft`, `itl`, `tpot` and `throughput` statistics",
  notImportedReason,
  detect(file) {
    return file.kind === "json" && isOutput(file.data);
  },
  parse: parseOutput,
};
